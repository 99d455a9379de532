"""The 15 reflection-token strings of the released Self-RAG checkpoints, and text handling around them.

The strings are exact: the released generator (``selfrag/selfrag_llama2_7b``) has them as added special
tokens (ids 32000-32014 in :data:`CHECKPOINT_TOKEN_ORDER`), so a single character off breaks
compatibility. This module also parses generated text into segments and strips tokens from answers;
:mod:`selfrag_langchain.text.boundary` keeps them out of the text users and documents write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

RETRIEVAL = "[Retrieval]"
NO_RETRIEVAL = "[No Retrieval]"
CONTINUE_EVIDENCE = "[Continue to Use Evidence]"
RELEVANT = "[Relevant]"
IRRELEVANT = "[Irrelevant]"
FULLY_SUPPORTED = "[Fully supported]"
PARTIALLY_SUPPORTED = "[Partially supported]"
NO_SUPPORT = "[No support / Contradictory]"
UTILITY = tuple(f"[Utility:{i}]" for i in range(1, 6))
PARAGRAPH_START = "<paragraph>"
PARAGRAPH_END = "</paragraph>"


class Group(StrEnum):
    """The four reflection groups of the paper (Table 1)."""

    RETRIEVE = "Retrieve"
    ISREL = "IsRel"
    ISSUP = "IsSup"
    ISUSE = "IsUse"

    @property
    def tokens(self) -> tuple[str, ...]:
        """The group's token strings, the most desirable last for IsUse and first otherwise."""
        return GROUP_TOKENS[self]


GROUP_TOKENS: dict[Group, tuple[str, ...]] = {
    Group.RETRIEVE: (RETRIEVAL, NO_RETRIEVAL, CONTINUE_EVIDENCE),
    Group.ISREL: (RELEVANT, IRRELEVANT),
    Group.ISSUP: (FULLY_SUPPORTED, PARTIALLY_SUPPORTED, NO_SUPPORT),
    Group.ISUSE: UTILITY,
}

TOKEN_GROUP: dict[str, Group] = {tok: g for g, toks in GROUP_TOKENS.items() for tok in toks}
"""Maps each reflection token string to its group."""

CHECKPOINT_TOKEN_ORDER: tuple[str, ...] = (
    NO_RETRIEVAL,
    RETRIEVAL,
    CONTINUE_EVIDENCE,
    IRRELEVANT,
    RELEVANT,
    PARAGRAPH_START,
    PARAGRAPH_END,
    *UTILITY,
    FULLY_SUPPORTED,
    PARTIALLY_SUPPORTED,
    NO_SUPPORT,
)
"""All 15 strings in the order of their ids (32000-32014) in the released generator."""

REFLECTION_TOKENS: tuple[str, ...] = tuple(TOKEN_GROUP)
SPECIAL_STRINGS: tuple[str, ...] = CHECKPOINT_TOKEN_ORDER

# Longest first so that no string is matched by a prefix of a longer one.
_SPECIAL_RE = re.compile("|".join(re.escape(s) for s in sorted(SPECIAL_STRINGS, key=len, reverse=True)))
_PARAGRAPH_BLOCK_RE = re.compile(re.escape(PARAGRAPH_START) + r".*?(?:" + re.escape(PARAGRAPH_END) + r"|$)", re.S)

def find_special(text: str) -> list[re.Match[str]]:
    """All occurrences of the 15 strings in ``text``, left to right."""
    return list(_SPECIAL_RE.finditer(text))


def strip_reflection_tokens(text: str) -> str:
    """The answer a person reads: passages removed, reflection tokens removed, whitespace tidied."""
    without_passages = _PARAGRAPH_BLOCK_RE.sub(" ", text)
    without_tokens = _SPECIAL_RE.sub(" ", without_passages)
    return re.sub(r"[ \t]+", " ", re.sub(r" *\n *", "\n", without_tokens)).strip()


@dataclass
class Segment:
    """One step of a generation: an optional retrieve decision and passage, then text and its judgements."""

    retrieve: str | None = None
    passage: str | None = None
    relevance: str | None = None
    text: str = ""
    support: str | None = None

    @property
    def is_empty(self) -> bool:
        return not (self.retrieve or self.passage or self.relevance or self.text.strip() or self.support)


@dataclass
class ParsedGeneration:
    """A generation split into segments, with the final utility judgement if one was emitted."""

    segments: list[Segment] = field(default_factory=list)
    utility: str | None = None

    @property
    def answer(self) -> str:
        """The text of all segments without tokens or passages."""
        return strip_reflection_tokens(" ".join(s.text for s in self.segments))

    def first(self, group: Group) -> str | None:
        """The first token emitted for ``group``, or None."""
        if group is Group.ISUSE:
            return self.utility
        attr = {Group.RETRIEVE: "retrieve", Group.ISREL: "relevance", Group.ISSUP: "support"}[group]
        return next((getattr(s, attr) for s in self.segments if getattr(s, attr)), None)


def parse_generation(text: str) -> ParsedGeneration:
    """Split Self-RAG output into segments.

    A new segment starts at a Retrieve token, or at a passage, relevance token or text that follows a
    closed segment (one with an IsSup token). IsUse belongs to the whole generation; when several are
    emitted the last one counts. An unclosed ``<paragraph>`` runs to the end of the text.
    """
    parsed = ParsedGeneration()
    current = Segment()

    def close() -> None:
        nonlocal current
        if not current.is_empty:
            parsed.segments.append(current)
        current = Segment()

    pos = 0
    while pos < len(text):
        match = _SPECIAL_RE.search(text, pos)
        chunk = text[pos : match.start() if match else len(text)]
        if chunk:
            if current.support is not None:
                close()
            current.text += chunk
        if match is None:
            break
        tok = match.group(0)
        pos = match.end()
        if tok == PARAGRAPH_START:
            end = text.find(PARAGRAPH_END, pos)
            passage = text[pos:] if end == -1 else text[pos:end]
            if current.text.strip() or current.support or current.relevance or current.passage is not None:
                close()
            current.passage = passage
            pos = len(text) if end == -1 else end + len(PARAGRAPH_END)
            continue
        if tok == PARAGRAPH_END:
            continue
        group = TOKEN_GROUP[tok]
        if group is Group.RETRIEVE:
            if not current.is_empty:
                close()
            current.retrieve = tok
        elif group is Group.ISREL:
            if current.support is not None or current.text.strip():
                close()
            current.relevance = tok
        elif group is Group.ISSUP:
            current.support = tok
        else:
            parsed.utility = tok
    close()
    return parsed
