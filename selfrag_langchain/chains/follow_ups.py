"""Follow-up questions made standalone without a language model: the pronoun becomes the conversation's subject.

A small generator often fails to rewrite "When was it painted?" into a question that stands alone (it
echoes the question, answers it, or asks the previous question again). The conversation already says
what "it" is: the article the conversation is about, which the retrieval of an earlier turn found. Each
turn records that subject (the retrieved passage's title that the question names, else the one its
answer cited; a follow-up that refers back keeps the subject it inherited), and putting it in place of
the follow-up's first pronoun ("When was Mona Lisa painted?") retrieves for the subject of the
conversation, where joining the earlier questions retrieves for whatever the longest of them is about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict

from selfrag_langchain.judging.signals import content_words, coverage


class FollowUpSettings(BaseModel):
    """How a chat makes a follow-up standalone: the settings :class:`~selfrag_langchain.chains.chat.SelfRAGConversation`
    and :class:`~selfrag_langchain.chains.chat_model.ChatSelfRAG` share, declared once."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    condense_llm: BaseLanguageModel | None = None
    """Rewrites follow-ups (default: the Self-RAG generator)."""
    rewrite: bool = True
    """Ask ``condense_llm`` to rewrite a follow-up; False goes straight to ``fallback``."""
    fallback: Literal["subject", "questions"] = "subject"
    """When the rewrite is not a standalone question (not a question, still a pronoun, or not every word of
    the follow-up): ``subject`` puts the conversation's subject (the title of the article an earlier turn
    retrieved) in place of the follow-up's pronoun ("When was Mona Lisa painted?"), and leaves a follow-up
    without a pronoun as asked; ``questions`` joins the previous standalone question and this one. Either joins
    the questions when no subject is known."""
    history_turns: int = 3
    """Previous turns shown to the rewrite; joined questions keep at most ``history_turns`` + 1 questions."""
    condense_max_tokens: int = 48
    """Generation budget of the rewrite."""

    def follow_up_settings(self) -> dict[str, object]:
        """These settings by name, to build another chat with the same ones."""
        return {name: getattr(self, name) for name in FollowUpSettings.model_fields}

PRONOUN = re.compile(r"\b(it|its|he|him|his|she|her|hers|they|them|their|theirs|there)\b", re.IGNORECASE)
"""The words of a follow-up that refer back to the conversation's subject."""

_POSSESSIVE = {"its", "his", "their", "theirs", "hers"}
_NOT_A_NOUN = re.compile(r"^\s*(?:[?.!,;:]|$|(?:to|in|on|at|for|with|and|or|from|by|about|as|than)\b)", re.I)
_BE = re.compile(r"\b(?:is|are|was|were|be|been)\s*$", re.I)
_BE_NEXT = re.compile(r"^\s*(?:is|are|was|were|be|been|'s)\b", re.I)


def _reference(question: str) -> re.Match[str] | None:
    """The first pronoun that refers back; an existential "there" ("is there a ...", "there are ...")
    does not."""
    for match in PRONOUN.finditer(question):
        if match.group(1).lower() == "there" and (
            _BE.search(question[: match.start()]) or _BE_NEXT.match(question[match.end():])
        ):
            continue
        return match
    return None


def refers_back(question: str) -> bool:
    """Whether the question has a pronoun that needs the conversation to be understood."""
    return _reference(question) is not None


def keeps_question(rewrite: str, question: str) -> bool:
    """Whether a rewrite still asks the follow-up: every content word of the follow-up is in it (a small
    model's "rewrite" is often the previous question asked again). A follow-up without content words
    ("Why?") has nothing to lose."""
    words = content_words(question)
    return not words or coverage(words, content_words(rewrite)) == 1.0


def conversation_subject(messages: Sequence[BaseMessage]) -> str | None:
    """The subject recorded with the latest turn that has one (``additional_kwargs["subject"]`` of its
    question); in a history without recorded subjects, the title of the passage the latest cited answer
    cited first; None when neither is known."""
    for message in reversed(messages):
        if message.type == "human" and message.additional_kwargs.get("subject"):
            return str(message.additional_kwargs["subject"])
    for message in reversed(messages):
        if message.type != "ai":
            continue
        for source in message.additional_kwargs.get("citations") or []:
            title = str((source or {}).get("title") or "").strip()
            if title:
                return title
    return None


def named_title(question: str, titles: Sequence[str]) -> str | None:
    """The longest of ``titles`` whose every content word the question contains ("Where is the Taj Mahal?"
    names "Taj Mahal"); None when it names none."""
    asked = set(content_words(question))
    named = [t for t in titles if (words := content_words(t)) and set(words) <= asked]
    return max(named, key=lambda t: len(content_words(t)), default=None)


def turn_subject(question: str, standalone: str, inherited: str | None, retrieved: Sequence[str],
                 cited: Sequence[str]) -> str | None:
    """What a finished turn was about: the retrieved title its standalone question names; else, for a
    follow-up that referred back, the subject it inherited; else the title its answer cited first."""
    named = named_title(standalone, retrieved)
    if named is not None:
        return named
    if refers_back(question) and inherited is not None:
        return inherited
    return next((t for t in cited if t), None)


def with_subject(question: str, subject: str) -> str:
    """``question`` with its first pronoun replaced by ``subject`` ("its" by "subject's", "there" by
    "in subject"); the question unchanged when it has no pronoun."""
    match = _reference(question)
    if match is None:
        return question
    word = match.group(1).lower()
    rest = question[match.end():]
    possessive = word in _POSSESSIVE or (word == "her" and not _NOT_A_NOUN.match(rest))
    if possessive:
        replacement = f"{subject}'s"
    elif word == "there":
        replacement = f"in {subject}"
    else:
        replacement = subject
    return question[: match.start()] + replacement + rest
