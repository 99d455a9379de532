"""The models and retriever of one evaluation, built once from its settings and shared by its methods."""

from __future__ import annotations

from typing import Any

from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.judges import IsSupJudge
from selfrag_langchain.eval.methods import BaselineMethod, LongFormMethod, SelfRAGMethod
from selfrag_langchain.eval.tasks import Task
from selfrag_langchain.pipeline import (
    PipelineSettings,
    build_generator,
    build_long_form,
    build_passage_window,
    build_quoter,
    build_reflector,
    build_retriever,
    build_selfrag,
)
from selfrag_langchain.retrievers import PassageRetriever
from selfrag_langchain.scoring import RetrieveMode


class EvalSession:
    """Self-RAG (short or long form, by the task) and the baselines of one ``selfrag eval`` run: every model
    is built at first use and shared, so the methods compare the same generator on the same store."""

    def __init__(self, settings: PipelineSettings, task: Task, examples: list[EvalExample], citation_judge: str
                 ) -> None:
        self.settings, self.task, self.citation_judge = settings, task, citation_judge
        self.needs_store = any(ex.passages is None for ex in examples)
        """Whether some question comes without passages, so the store (or the demo corpus) is read."""
        self._generator: Any = None
        self._retriever: Any = None
        self._selfrag: Any = None
        self._long_form: Any = None
        self._judge: Any = None

    @property
    def generator(self) -> Any:
        if self._generator is None:
            self._generator = build_generator(self.settings)
        return self._generator

    @property
    def retriever(self) -> Any:
        """The store, only when some question comes without passages (baselines always need it)."""
        if self._retriever is None and self.needs_store:
            self._retriever = build_retriever(self.settings)
        return self._retriever

    @property
    def retrieves(self) -> bool:
        return self.settings.mode != RetrieveMode.NEVER

    def selfrag(self) -> Any:
        if self._selfrag is None:
            # Options summed from the trace need every branch generated (a prospect and a settled quote read the
            # quote, not the option).
            settings = self.settings.with_changes(writing_margin=None, settle_quotes=False) \
                if self.task.options_from_trace else self.settings
            self._selfrag = build_selfrag(settings, generator=self.generator,
                                          reflector=build_reflector(self.settings, self.generator),
                                          retriever=self.retriever if self.retrieves else None)
        return self._selfrag

    def long_form(self) -> Any:
        if self._long_form is None:
            # The questions' own passages come first; without a store, an empty retriever stands in for it.
            retriever = self.retriever if self.retrieves and self.needs_store else PassageRetriever()
            self._long_form = build_long_form(self.settings, generator=self.generator,
                                              reflector=build_reflector(self.settings, self.generator),
                                              retriever=retriever)
        return self._long_form

    def method(self, name: str) -> Any:
        if name == "selfrag":
            if self.task.form == "long":
                return LongFormMethod(self.long_form(), models=self.models(judges=True))
            return SelfRAGMethod(self.selfrag(), models=self.models(judges=True))
        prompt_format = "selfrag" if self.settings.reflector == "inline" else "rag"
        quoter = build_quoter(self.settings.with_changes(quote=True)) if name == "rag_top1_quoted" else None
        return BaselineMethod(name, self.generator, k=self.settings.k, max_new_tokens=self.settings.max_new_tokens,
                              max_quoted_branch_tokens=self.settings.max_quoted_branch_tokens,
                              prompt_format=prompt_format, retriever=self.retriever,
                              passage_window=build_passage_window(self.settings),
                              models=self.models(judges=False), quoter=quoter)

    def models(self, *, judges: bool) -> dict[str, Any]:
        """The model settings a result depends on: the generator's, and the judge's when ``judges``."""
        s = self.settings
        found = {"model": s.model, "backend": s.backend}
        if judges:
            found |= {"reflector": s.reflector}
            if s.reflector in ("calibrated", "entailment", "learned"):
                found |= {"calibration": str(s.calibration) if s.calibration else "shipped"}
            if s.reflector == "learned":
                found |= {"judge_encoder": str(s.judge_encoder) if s.judge_encoder else "shipped"}
            elif s.reflector == "entailment":
                found |= {"reader": str(s.reader) if s.reader else "shipped"}
            else:
                found |= {"critic": s.critic, "critic_prompts": s.critic_prompts, "relevance": s.resolved_relevance}
        return found

    def judge(self, name: str) -> Any:
        """ASQA's citation judge: the run's judge's IsSup judgement (the calibrated judge, or a critic). An
        inline reflector judges only its own generations, so with it the judge is a critic."""
        if self.task.name != "asqa" or self.citation_judge == "none":
            return None
        if self._judge is None:
            if self.settings.reflector != "inline" and name == "selfrag":
                reflector = self.long_form().reflector
            else:
                reflector = build_reflector(self.settings.with_changes(reflector="critic"), self.generator)
            self._judge = IsSupJudge(reflector)
        return self._judge
