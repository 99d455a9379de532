"""Reading a teacher's free-text answer as one reflection label, or None when it matches no label.

Teachers answer in many shapes: ``[Relevant]``, ``Rating: relevant``, ``Utility: 5``, ``Perceived
utility 4`` followed by an explanation that may name other labels. The label is read from the answer's
head (the text before ``Explanation``), first line first; an answer whose head names no label or two
different labels is rejected rather than guessed (the paper discards such answers).
"""

from __future__ import annotations

import re

from selfrag_langchain.tokens import (
    CONTINUE_EVIDENCE,
    FULLY_SUPPORTED,
    IRRELEVANT,
    NO_RETRIEVAL,
    NO_SUPPORT,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    RETRIEVAL,
    UTILITY,
)

_PATTERNS: dict[str, dict[str, str]] = {
    "retrieval": {
        RETRIEVAL: r"\byes\b|(?<!\bno )\bretrieval\b",
        NO_RETRIEVAL: r"\bno\b(?! support)",
    },
    "retrieval_preceding": {
        RETRIEVAL: r"(?<!\bno )\bretrieval\b|\byes\b",
        NO_RETRIEVAL: r"\bno retrieval\b|\bno\b(?! (?:support|retrieval))",
        CONTINUE_EVIDENCE: r"\bcontinue\b",
    },
    "relevance": {
        RELEVANT: r"(?<!\bnot )\brelevant\b",
        IRRELEVANT: r"\birrelevant\b|\bnot relevant\b",
    },
    "groundedness": {
        FULLY_SUPPORTED: r"\bfully\b",
        PARTIALLY_SUPPORTED: r"\bpartial(?:ly)?\b",
        NO_SUPPORT: r"\bno support\b|\bcontradict(?:ory|s|ed)?\b|\bnot supported\b|\bunsupported\b",
    },
}

# Words that introduce the answer and would otherwise read as a label ("Need retrieval? [No]").
_PREFIXES = re.compile(r"need retrieval\s*\??|perceived utility|rating|score|judg(?:e)?ment|label|answer", re.I)
_OUT_OF_FIVE = re.compile(r"\s*(?:/\s*5|out of 5|of 5)\b")


def label_groups() -> tuple[str, ...]:
    """The collection groups whose answers this module reads."""
    return (*_PATTERNS, "utility")


def parse_label(group: str, answer: str) -> str | None:
    """The reflection token a teacher's ``answer`` gives for ``group``, or None if it gives none clearly.

    Args:
        group: ``retrieval``, ``retrieval_preceding``, ``relevance``, ``groundedness`` or ``utility``.
        answer: the teacher's text.

    Raises:
        ValueError: for an unknown group (a bug in the caller, not in the answer).
    """
    if group not in label_groups():
        msg = f"unknown group '{group}': choose from {', '.join(label_groups())}"
        raise ValueError(msg)
    head = re.split(r"explanation", answer, maxsplit=1, flags=re.I)[0]
    lines = [line for line in head.splitlines() if line.strip()]
    for text in ([lines[0]] if lines else []) + [head]:
        found = _labels_in(group, _normalise(text))
        if len(found) == 1:
            return found.pop()
    return None


def _normalise(text: str) -> str:
    text = re.sub(r"[\[\]*_\"'`#(){}]", " ", text.lower())
    text = _PREFIXES.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def _labels_in(group: str, text: str) -> set[str]:
    if group == "utility":
        digits = set(re.findall(r"(?<![\d.])([1-5])(?!\.?\d)", _OUT_OF_FIVE.sub(" ", text)))
        return {UTILITY[int(d) - 1] for d in digits}
    return {token for token, pattern in _PATTERNS[group].items() if re.search(pattern, text)}
