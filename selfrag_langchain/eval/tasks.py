"""The paper's evaluation tasks: what each one asks the model and how it scores the answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from selfrag_langchain.errors import InputError
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.metrics import (
    EntailmentJudge,
    citation_scores,
    closed_set_label,
    match,
    pubhealth_label,
    rouge_l,
    str_em,
)
from selfrag_langchain.prompts import TASK_INSTRUCTIONS

PUBHEALTH_OPTIONS = {"true": "true", "false": "false"}


@dataclass(frozen=True)
class Score:
    """How one prediction scored: ``value`` is the task's per-question metric (1/0 for match and accuracy,
    a fraction for ASQA str-em); ``correct`` is whether it counts as right (None: no gold answer)."""

    value: float | None
    correct: bool | None
    label: str | None = None
    """Closed-set tasks: the option label read from the prediction."""
    metrics: dict[str, float] = field(default_factory=dict)
    """Further metrics of the task (ASQA: str-hit, ROUGE-L, citation precision and recall)."""


@dataclass(frozen=True)
class Task:
    """One evaluation task: its instruction, the Runnable that answers it, and its metric."""

    name: str
    form: Literal["short", "long"]
    """``short``: the short-form SelfRAG Runnable; ``long``: the long-form Runnable with citations."""
    metric: str
    """Name of the headline metric in summaries."""

    @property
    def instruction(self) -> str | None:
        """The paper's zero-shot task instruction (PAPER.md §2); None for bare questions."""
        return TASK_INSTRUCTIONS.get(self.name)

    @property
    def options_from_trace(self) -> bool:
        """Whether the options are summed from the branches of the trace rather than given with the question
        (PubHealth: the paper's prompt lists none), so every branch must be written."""
        return self.name == "pubhealth"

    def options(self, example: EvalExample) -> dict[str, str] | None:
        """Closed-set tasks: the answer options whose branch scores are summed (paper A.3)."""
        if self.name == "arc_c":
            return example.choices
        if self.name == "pubhealth":
            return PUBHEALTH_OPTIONS
        return None

    def option_answer(self, answer: str) -> str:
        """The answer text as the option extractor reads it: PubHealth answers become their label."""
        if self.name == "pubhealth":
            return pubhealth_label(answer) or answer
        return answer

    def runnable_input(self, example: EvalExample, with_passages: bool = True) -> dict[str, Any]:
        """The input dict of the Self-RAG Runnables: question, instruction, choices (listed in the prompt
        for ARC, as the paper does) and the file's passages."""
        data: dict[str, Any] = {"question": example.question}
        if self.instruction:
            data["instruction"] = self.instruction
        if example.choices:
            data["choices"] = example.choices
        if with_passages and example.passages is not None:
            data["passages"] = example.passages
        return data

    def score(
        self,
        example: EvalExample,
        prediction: str,
        *,
        cited_passages: Sequence[str] | None = None,
        judge: EntailmentJudge | None = None,
    ) -> Score:
        """Score a prediction against the example's gold answer.

        ``cited_passages`` (the texts numbered [1], [2], ... in a long-form answer) and ``judge`` add
        citation precision and recall for ASQA.
        """
        if self.name == "arc_c":
            label = closed_set_label(prediction, example.choices)
            return Score(float(label == example.label), label == example.label, label)
        if self.name == "pubhealth":
            label = pubhealth_label(prediction)
            return Score(float(label == example.label), label == example.label, label)
        if self.name == "asqa":
            return self._score_asqa(example, prediction, cited_passages, judge)
        if not example.answers:
            return Score(None, None)
        hit = match(prediction, example.answers)
        return Score(float(hit), hit)

    def _score_asqa(
        self, example: EvalExample, prediction: str, cited: Sequence[str] | None, judge: EntailmentJudge | None
    ) -> Score:
        em = str_em(prediction, example.short_answer_sets)
        metrics = {"str_em": em, "str_hit": float(em == 1.0), "rouge_l": rouge_l(prediction, example.references)}
        if cited is not None and judge is not None:
            cites = citation_scores(prediction, cited, judge, question=example.question)
            metrics |= {"citation_recall": cites.recall, "citation_precision": cites.precision}
        return Score(em, em == 1.0, None, metrics)


TASKS: dict[str, Task] = {
    t.name: t
    for t in (
        Task("popqa", "short", "match"),
        Task("triviaqa", "short", "match"),
        Task("arc_c", "short", "accuracy"),
        Task("pubhealth", "short", "accuracy"),
        Task("asqa", "long", "str_em"),
        Task("questions", "short", "match"),
    )
}
"""The tasks ``selfrag eval --task`` accepts; ``questions`` is a plain question file (optional answers)."""


def get_task(name: str) -> Task:
    """The task named ``name``.

    Raises:
        InputError: for an unknown name, listing the known ones.
    """
    if name not in TASKS:
        msg = f"unknown task '{name}': choose one of {', '.join(TASKS)}"
        raise InputError(msg)
    return TASKS[name]
