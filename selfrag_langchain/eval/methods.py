"""The systems an evaluation compares on the same questions and passages: Self-RAG and the paper's baselines.

- ``selfrag``: the short-form ``SelfRAG`` Runnable (PopQA, TriviaQA, ARC, PubHealth) or the long-form
  Runnable with citations (ASQA), with the knobs of ``selfrag ask``.
- ``no_retrieval``: the same generator answering from the question alone.
- ``rag_top1``: standard RAG, the top passage in the prompt.
- ``rag_topk``: standard RAG, the top k passages concatenated into one prompt.
- ``rag_top1_quoted``: ``rag_top1`` with its answer quoted from the top passage as Self-RAG quotes its own
  (beyond the paper): beside a quoting Self-RAG it leaves the judge's choice as the only difference.

The baselines use the prompt format the Self-RAG run would use (plain RAG prompt for instruct models,
the released generator's format with the inline reflector), so the comparison isolates the method.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from langchain_core.documents import Document
from langchain_core.language_models import BaseLanguageModel
from langchain_core.retrievers import BaseRetriever

from selfrag_langchain.chains.branches import (
    branch_budget,
    branch_prompts,
    generation_inputs,
    generation_kwargs,
    prepare_passages,
    to_branches,
)
from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.declining import DECLINED
from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.chains.windows import PassageWindow
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.rescoring import reselect
from selfrag_langchain.eval.tasks import Task
from selfrag_langchain.prompts import build_instruction
from selfrag_langchain.text.boundary import boundary_for

BASELINES = ("no_retrieval", "rag_top1", "rag_topk", "rag_top1_quoted")
METHODS = ("selfrag", *BASELINES)


@dataclass
class Outcome:
    """What a method answered for one question, and how it got there."""

    prediction: str
    retrieved: bool
    retrieve_probability: float | None
    trace: dict[str, Any]
    cited_passages: list[str] | None = None
    """Long form: the passage texts numbered [1], [2], ... in the answer."""


class Method(Protocol):
    """A system under evaluation."""

    name: str

    def settings(self) -> dict[str, Any]:
        """Everything that changes its answers (compared on resume)."""
        ...

    def answer(self, example: EvalExample, task: Task) -> Outcome: ...


def passage_summary(docs: Sequence[Document]) -> list[dict[str, Any]]:
    """Titles, ids and ranks of the passages a baseline read, for its trace."""
    keep = ("title", "id", "rank")
    return [{k: d.metadata[k] for k in keep if k in d.metadata} for d in docs]


@dataclass
class SelfRAGMethod:
    """Short-form Self-RAG: the Runnable's answer; PubHealth's branch scores summed per true / false label."""

    runnable: Any
    """A :class:`selfrag_langchain.SelfRAG`."""
    models: dict[str, Any] = field(default_factory=dict)
    """Which models generate and judge (recorded, compared on resume)."""
    name: str = "selfrag"

    def settings(self) -> dict[str, Any]:
        return {"method": self.name, **self.models, **self.runnable.settings()}

    def answer(self, example: EvalExample, task: Task) -> Outcome:
        result = self.runnable.invoke(task.runnable_input(example))
        prediction = DECLINED if result.declined else result.answer  # the closest titles are no answer
        if task.options(example) and not example.choices:
            # The prompt is the paper's (options not listed); the options are summed from the trace.
            prediction = reselect(result, task, example, weights=self.runnable.weights(),
                                  constraints=self.runnable.constraints())
        return Outcome(prediction, result.retrieved, result.retrieve_decision.probability,
                       result.model_dump(mode="json"))


@dataclass
class LongFormMethod:
    """Long-form Self-RAG (ASQA): the answer with its citation markers and the passages they number."""

    runnable: Any
    """A ``SelfRAGLongForm``."""
    models: dict[str, Any] = field(default_factory=dict)
    name: str = "selfrag"

    def settings(self) -> dict[str, Any]:
        settings = self.runnable.settings() if hasattr(self.runnable, "settings") else {}
        return {"method": self.name, **self.models, "form": "long", **settings}

    def answer(self, example: EvalExample, task: Task) -> Outcome:
        result = self.runnable.invoke(task.runnable_input(example))
        cited = sorted(result.citations, key=lambda d: int(d.metadata.get("citation", 0)))
        texts = [_premise(d) for d in cited]
        retrieved = bool(getattr(result, "retrievals", 0)) or bool(result.citations)
        prediction = DECLINED if getattr(result, "declined", False) else result.answer
        return Outcome(prediction, retrieved, None, result.model_dump(mode="json"), cited_passages=texts)


def _premise(doc: Document) -> str:
    title = doc.metadata.get("title")
    return f"{title}\n{doc.page_content}" if title else doc.page_content


@dataclass
class BaselineMethod:
    """One generation with the same generator: no passage, the top passage (its answer quoted from it, for
    ``rag_top1_quoted``), or the top k concatenated."""

    name: Literal["no_retrieval", "rag_top1", "rag_topk", "rag_top1_quoted"]
    generator: BaseLanguageModel
    k: int = LoopSettings.model_fields["k"].default
    """Passages concatenated for ``rag_topk``: Self-RAG's k by default, so both read the same passages."""
    max_new_tokens: int = LoopSettings.model_fields["max_new_tokens"].default
    """The answer's budget: Self-RAG's by default."""
    max_quoted_branch_tokens: int = LoopSettings.model_fields["max_quoted_branch_tokens"].default
    """``rag_top1_quoted``'s generation budget with plain prompts, as Self-RAG's quoted branches have (at most
    :attr:`max_new_tokens`)."""
    prompt_format: Literal["rag", "selfrag"] = "rag"
    retriever: BaseRetriever | None = None
    """Passages for questions whose file has none."""
    max_passage_tokens: int | None = None
    passage_window: PassageWindow | None = None
    """Read each passage's window (as Self-RAG's branches do) instead of the whole passage; a window that keeps
    the whole passages leaves them whole here (plain RAG reads the retrieved passages)."""
    models: dict[str, Any] = field(default_factory=dict)
    quoter: PassageQuoter | None = None
    """Quotes ``rag_top1_quoted``'s answer (required for it; the other baselines answer as generated)."""

    def __post_init__(self) -> None:
        if self.name == "rag_top1_quoted" and self.quoter is None:
            msg = "rag_top1_quoted needs a quoter"
            raise ValueError(msg)

    def settings(self) -> dict[str, Any]:
        window = self.passage_window.sentences if self.passage_window is not None and \
            not self.passage_window.keep_whole else 0
        return {"method": self.name, **self.models, "k": self.k if self.name == "rag_topk" else None,
                "max_new_tokens": self.max_new_tokens,
                "max_quoted_branch_tokens": self.max_quoted_branch_tokens if self.name == "rag_top1_quoted" else None,
                "prompt_format": self.prompt_format, "window_sentences": window}

    def _documents(self, example: EvalExample) -> list[Document]:
        if self.name == "no_retrieval":
            return []
        if example.passages is not None:
            docs = example.passages
        elif self.retriever is not None:
            docs = self.retriever.invoke(example.question)
        else:
            docs = []
        docs = [d for d in docs if d.page_content.strip()]
        docs = docs[:1] if self.name in ("rag_top1", "rag_top1_quoted") else docs[: self.k]
        if self.passage_window is None or self.passage_window.keep_whole:
            return docs  # windows that keep the whole passages leave plain RAG's passages as they are
        return self.passage_window.narrow(example.question, docs)

    def answer(self, example: EvalExample, task: Task) -> Outcome:
        clean = boundary_for(self.generator)
        choices = {label: clean(text) for label, text in (example.choices or {}).items()}
        instruction = build_instruction(clean(example.question), task.instruction, choices or None)
        docs = self._documents(example)
        prepared = None
        if docs:
            # The top-k baseline reads all passages as one context; prepare_passages neutralises and fits it.
            joined = [Document(page_content="\n\n".join(_premise(d) for d in docs))] if len(docs) > 1 else docs
            prepared = prepare_passages(joined, self.generator, instruction=instruction,
                                        max_new_tokens=self.max_new_tokens, max_tokens=self.max_passage_tokens,
                                        boundary=clean)
        prompts = branch_prompts(instruction, prepared, self.prompt_format)
        # An answer among options is the option, as Self-RAG's is: only an open answer is quoted, from the top passage.
        open_answer = self.name == "rag_top1_quoted" and not choices and not task.options(example)
        quoted_from = prepared[0] if open_answer and self.quoter is not None and prepared else None
        budget, budget_setting = branch_budget(self.max_new_tokens, self.max_quoted_branch_tokens,
                                               quoted=quoted_from is not None, prompt_format=self.prompt_format)
        result = self.generator.generate(generation_inputs(self.generator, prompts),
                                         **generation_kwargs(self.generator, budget))
        (branch,) = to_branches(result, prepared, budget=budget_setting)
        trace = {"prompt": prompts[0], "raw_generation": branch.raw, "passages": passage_summary(docs),
                 "notes": branch.notes}
        quote = None
        if quoted_from is not None and self.quoter is not None:
            quote = self.quoter.quote(example.question, branch.answer, quoted_from.body, quoted_from.title)
            trace |= {"generation": branch.answer, "quote": quote}
        return Outcome(quote or branch.answer, bool(docs), None, trace)
