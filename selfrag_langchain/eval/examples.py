"""One evaluation question as every task sees it: the question, its gold answers and its passages."""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.documents import Document


@dataclass(frozen=True)
class EvalExample:
    """A question of an evaluation file, with what the task's metric compares against.

    Fields a task does not use stay empty: PopQA and TriviaQA fill ``answers``; ARC fills ``choices`` and
    ``label``; PubHealth fills ``label``; ASQA fills ``short_answer_sets`` and ``references``.
    """

    key: str
    """Identifies the question in output files (the record's ``id``, else its question text)."""
    line: int
    """Line (JSON Lines) or item (JSON array) number in the file, from 1."""
    question: str
    answers: tuple[str, ...] = ()
    """Gold answer strings (aliases) for match-based tasks."""
    choices: dict[str, str] = field(default_factory=dict)
    """Answer options, label -> text (ARC)."""
    label: str | None = None
    """The gold option label (ARC ``answerKey``, PubHealth ``true`` / ``false``)."""
    short_answer_sets: tuple[tuple[str, ...], ...] = ()
    """ASQA: for each interpretation of the question (``qa_pairs``), its short answers."""
    references: tuple[str, ...] = ()
    """ASQA: the annotated long answers, for ROUGE-L."""
    passages: list[Document] | None = None
    """The passages the file retrieved for the question (``ctxs`` / ALCE ``docs``); None: use a retriever."""

    def gold(self) -> object:
        """What the metric compares against, for the output record."""
        if self.label is not None:
            return self.label
        if self.short_answer_sets:
            return [list(s) for s in self.short_answer_sets]
        return list(self.answers) or None
