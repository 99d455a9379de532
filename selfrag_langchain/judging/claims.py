"""Passage sentences made to stand alone: an opening pronoun named from the passage's title."""

from __future__ import annotations

import re

from selfrag_langchain.judging.signals import content_words, folded

_PRONOUN = re.compile(r"(He|She|It|They|His|Her|Its|Their)\b")
_EMPTY_IT = re.compile(r"It (?:is|was) (?:not until|(?:widely |generally |commonly )?(?:believed|thought|estimated|"
                       r"said|reported|unclear|likely|possible|probable|unknown|uncertain)\b)")
_DISAMBIGUATION = re.compile(r"\s*\([^)]*\)\s*$")


def named(sentence: str, title: str | None, first: str) -> str:
    """``sentence`` with an opening pronoun replaced by the subject ``title`` names ("Guernica" for "Guernica
    (Picasso)"), when the passage's ``first`` sentence names it too; otherwise ``sentence`` unchanged."""
    subject = _DISAMBIGUATION.sub("", title or "").strip()
    match = _PRONOUN.match(sentence)
    if not subject or match is None or _EMPTY_IT.match(sentence) or sentence == first:
        return sentence
    named_words = content_words(folded(subject))
    if not named_words or named_words[0] not in content_words(folded(first)):
        return sentence
    if not subject.lower().startswith("the ") and re.search(rf"\bthe {re.escape(subject)}\b", first, re.IGNORECASE):
        subject = f"the {subject}"  # "The Eiffel Tower was built ...", as the article calls it
    if subject.startswith("the ") or not any(c.isupper() for c in subject[1:]):  # not "iPhone"
        subject = subject[0].upper() + subject[1:]
    if match.group(1) in ("His", "Her", "Its", "Their"):
        subject += "'" if subject.endswith("s") else "'s"
    return subject + sentence[match.end():]
