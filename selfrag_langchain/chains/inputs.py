"""Normalising what users pass to a Self-RAG Runnable into one typed question."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.documents import Document
from langchain_core.prompt_values import PromptValue

from selfrag_langchain.errors import InputError
from selfrag_langchain.retrievers.passages import documents_from_ctxs


@dataclass(frozen=True)
class Question:
    """A question with its optional task instruction, answer choices and given passages."""

    question: str
    instruction: str | None = None
    choices: dict[str, str] = field(default_factory=dict)
    """Answer option label -> text, for closed-set questions (ARC, PubHealth)."""
    passages: list[Document] | None = None
    """Passages that come with the question (eval files' ``ctxs``); used instead of the retriever."""
    raw: bool = False
    """The question, instruction and choices reach the generator's prompts as written, control strings
    and all: for a caller who builds the prompt text on purpose, in code
    (``rag.invoke(Question("...", raw=True))``). Input dicts cannot ask for it, so whoever only supplies
    the text (a chat user, another model) cannot turn the boundary off. Passages and the judges' prompts
    are neutralised all the same."""

    def neutralised(self, clean: Callable[[str], str]) -> Question:
        """The question with ``clean`` (a :class:`~selfrag_langchain.text.boundary.Boundary`) applied to every
        text the user wrote; itself when ``raw``."""
        if self.raw:
            return self
        return replace(self, question=clean(self.question),
                       instruction=clean(self.instruction) if self.instruction is not None else None,
                       choices={label: clean(text) for label, text in self.choices.items()})


def _choices(value: Any) -> dict[str, str]:
    if not value:
        return {}
    if isinstance(value, Mapping) and {"text", "label"} <= set(value):
        texts, labels = list(value["text"]), list(value["label"])
        if len(texts) != len(labels):
            msg = f"choices have {len(labels)} labels but {len(texts)} texts"
            raise InputError(msg)
        return {str(label): str(text) for label, text in zip(labels, texts, strict=True)}
    if isinstance(value, Mapping):
        return {str(k): str(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return {chr(ord("A") + i): str(text) for i, text in enumerate(value)}
    msg = f"choices must be a mapping label -> text, ARC's {{text, label}}, or a list; got {type(value).__name__}"
    raise InputError(msg)


def _passages(value: Any) -> list[Document] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        msg = f"passages must be a list of Documents or Self-RAG ctxs, got {type(value).__name__}"
        raise InputError(msg)
    if all(isinstance(v, Document) for v in value):
        return list(value)
    return documents_from_ctxs(list(value))


def to_question(value: Any) -> Question:
    """Accept a string, a prompt value, or a dict (``question`` with optional ``instruction``,
    ``choices``, ``passages`` or ``ctxs``).

    Raises:
        InputError: for an empty question or a shape that is none of these.
    """
    if isinstance(value, Question):
        question = value
    elif isinstance(value, str):
        question = Question(value)
    elif isinstance(value, PromptValue):
        question = Question(value.to_string())
    elif isinstance(value, Mapping):
        if "question" not in value:
            msg = f"input dict needs a 'question' key, got keys {sorted(value)}"
            raise InputError(msg)
        question = Question(
            question=str(value["question"]),
            instruction=value.get("instruction") or None,
            choices=_choices(value.get("choices")),
            passages=_passages(value.get("passages", value.get("ctxs"))),
        )
    else:
        msg = f"input must be a question string, a prompt value or a dict, got {type(value).__name__}"
        raise InputError(msg)
    if not question.question.strip():
        msg = "the question is empty: ask something"
        raise InputError(msg)
    return question
