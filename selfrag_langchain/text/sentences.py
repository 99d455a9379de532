"""Sentences, as every part of the project cuts them: pysbd, English, text kept as written.

Long form keeps one sentence of a plain generator per segment, so a backend that can stop generating
once that sentence has ended (:func:`sentence_finished`) wastes nothing on text that would be dropped.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

SENTENCE_STOP_STRINGS: tuple[str, ...] = (". ", "! ", "? ", ".\n", "!\n", "?\n")
"""Stop strings that approximate a sentence end, for engines that take only strings (vLLM): each may also
stop after an abbreviation ("Mr. "), where pysbd would not end the sentence. A bare newline is not one:
a reply continued as raw text may begin with one."""

_CANDIDATE = re.compile(r"[.!?…\n]")
"""A sentence can only have ended where one of these was written: pysbd runs only after one."""


_BEFORE_A_DATE = re.compile(r"(?:^|[\s(])(?:c|ca|fl|r)\.\s*$")
"""A piece ending in an abbreviation that stands before a date: circa, floruit, reigned ("reigning c. 1353")."""

PYSBD_PLACEHOLDERS = "ȸȹ∮∯☄☇☈☉☏☝♨♬♭"
"""Characters pysbd writes into a text as its own placeholders while it cuts it, and so drops or changes where
the text already holds them: "The Symphony No. 3 in E♭ major, ..." came back with no sentence at all, and a
star's mass in M☉ the same. Found by cutting texts that hold each character pysbd's sources write."""

_SHIELDED = str.maketrans({c: chr(0xE000 + i) for i, c in enumerate(PYSBD_PLACEHOLDERS)})
"""Each placeholder to a character of Unicode's private use area, which pysbd neither writes nor reads, so that
it cuts the text with the same number of characters and the cut can be laid on the text as written."""


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (pysbd), stripped, empty ones dropped."""
    if not text.strip():
        return []
    return [s.strip() for s in _segments(text) if s.strip()]


def sentence_pieces(text: str) -> list[str]:
    """Sentences of ``text`` (pysbd), each with the whitespace after it, so that joined they give ``text``
    back (:func:`split_sentences` strips them)."""
    sentences: list[str] = []
    for piece in _segments(text):
        if sentences and not piece.strip():
            sentences[-1] += piece
        else:
            sentences.append(piece)
    return sentences or [text]


SEGMENTS_CACHED = 4096
"""Texts whose segments are kept: a question's passages are cut by selection's prospects, the answer bound and
quoting alike (a few milliseconds each with pysbd)."""


@functools.lru_cache(maxsize=SEGMENTS_CACHED)
def _segments(text: str) -> tuple[str, ...]:
    """pysbd's segments of ``text``, with a segment that pysbd ends after "c.", "ca.", "fl." or "r." joined to
    the next when that one opens with a number: pysbd takes the abbreviation before a year for a sentence's end
    ("... a pharaoh reigning c." / "1353–1336 BC, ..."); cut once per text. pysbd cuts the text with its
    placeholder characters shielded (:data:`PYSBD_PLACEHOLDERS`), and its cut is laid on the text as written
    (:func:`_laid_on`)."""
    shielded = text.translate(_SHIELDED)
    cut = sentence_segmenter().segment(shielded)
    segments: list[str] = []
    for piece in _laid_on(text, cut) if "".join(cut) != shielded else _spans(text, cut):
        if segments and piece[:1].isdigit() and _BEFORE_A_DATE.search(segments[-1]):
            segments[-1] += piece
        else:
            segments.append(piece)
    return tuple(segments)


def _spans(text: str, cut: list[str]) -> list[str]:
    """The pieces of ``text`` as long as those of ``cut``, a cut of the text with its placeholders shielded."""
    pieces: list[str] = []
    start = 0
    for length in map(len, cut):
        pieces.append(text[start:start + length])
        start += length
    return pieces


def _laid_on(text: str, cut: list[str]) -> list[str]:
    """A cut of ``text`` (its placeholders shielded) that pysbd did not give back whole, laid on the text. pysbd
    drops a space now and then ("happy........ Is the review ..." came back as "happy........Is the review ..."),
    so each piece ends after as many non-space characters as it holds, with the spaces that follow them. A cut
    holding other non-space characters than the text is no cut of it: the text is then one piece, so that no
    sentence is lost."""
    spots = [i for i, c in enumerate(text) if not c.isspace()]
    if "".join("".join(cut).split()) != "".join(text[i] for i in spots).translate(_SHIELDED):
        return [text]
    pieces: list[str] = []
    start = held = 0
    for piece in cut:
        held += sum(not c.isspace() for c in piece)
        if not held or (pieces and spots[held - 1] < start):
            continue  # a piece of spaces only: they went with the piece before
        end = spots[held - 1] + 1
        while end < len(text) and text[end].isspace():
            end += 1
        pieces.append(text[start:end])
        start = end
    if start < len(text):
        if pieces:
            pieces[-1] += text[start:]
        else:
            pieces.append(text[start:])
    return pieces


def sentence_finished(text: str) -> bool:
    """Whether the first sentence of ``text`` has ended: a second one has begun after it."""
    body = text.strip()
    if not _CANDIDATE.search(body[:-1]):
        return False
    return len(split_sentences(body)) > 1


_LOCAL = threading.local()


def sentence_segmenter() -> Any:
    """This thread's pysbd segmenter (English, text kept as written), built at first use: a segmenter keeps
    the text it is splitting on itself, so threads must not share one."""
    segmenter = getattr(_LOCAL, "segmenter", None)
    if segmenter is None:
        import pysbd

        segmenter = _LOCAL.segmenter = pysbd.Segmenter(language="en", clean=False)
    return segmenter
