"""Reading an output against a passage claim by claim, sentence by sentence (SummaC, MiniCheck): pure functions
that cut the texts into the pairs a sentence reader reads, and fold its readings into a few signals.

An entailment model fed a whole passage at once reads long evidence badly: the sentence that supports a claim
is one of many and often beyond the model's reach. Checked against each sentence (and each pair of adjacent
sentences, for a claim that draws on two), a claim is supported when one window entails it, and contradicted
when the window that speaks of it most (the one with the most entailment and contradiction together) denies it.
A sentence from the middle of an article often opens with a pronoun; read alone it would contradict a claim that
names its subject, so the pronoun that stands for the subject ("It", "He", "Their", ...; at the start or just after an
opening phrase: "In 1897, he ...") is named from the passage's title first (:func:`named`, which the quoter also
uses).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from selfrag_langchain.judging.signals import content_words, folded
from selfrag_langchain.text.sentences import split_sentences

MAX_SENTENCES = 16
"""Passage sentences read at most (a chunk of the demo corpus holds fewer)."""


def passage_parts(evidence: str) -> tuple[str, list[str]]:
    """The title line of a passage as the models read it (``title\\ntext``; "" without one) and its sentences."""
    title, _, body = evidence.partition("\n") if "\n" in evidence else ("", "", evidence)
    return title.strip(), split_sentences(body)[:MAX_SENTENCES]


def titled(title: str, sentence: str) -> str:
    """A passage sentence as the reader's answering reading takes it: after the title, so that "He was born
    ..." names its subject."""
    return f"{title}: {sentence}" if title else sentence


_PRONOUN = re.compile(r"(He|She|It|They|His|Her|Its|Their)\b")
_PHRASE_WORD = r"(?:[^\s,;:]|(?<=\d),(?=\d))+"  # a word, a number's thousands parted by commas ("21,960,000")
_OPENING_PHRASE = re.compile(
    rf"((?:{_PHRASE_WORD},? ){{0,14}}?{_PHRASE_WORD}), ((?:he|she|it|they|his|her|its|their)\b)")
"""A phrase of at most fifteen words that opens a sentence before its subject, up to a comma, and the pronoun after
it ("With a size of 21,960,000 km2 (8,480,000 mi2), it is the second-smallest ..."; "In 1897, he founded ...";
"Today, it is ...")."""
_PERSONS = {"he": "he", "his": "he", "him": "he", "she": "she", "her": "she", "it": "it", "its": "it", "they": "they",
            "their": "they", "them": "they"}
"""Each personal pronoun's person, so that an opening phrase's pronouns can be told to stand for the subject's."""
_CLAUSE_OPENERS = frozenset(("after", "although", "though", "when", "whenever", "while", "because", "before", "until",
                             "unless", "if", "once", "whereas"))
"""Words that open a clause with a subject of its own ("After Rome fell, it was divided"): a name in it may be
what the pronoun after it stands for."""
_EMPTY_IT = re.compile(r"It (?:(?:is|was|has been|had been) (?:not until|(?:widely |generally |commonly )?"
                       r"(?:believed|thought|estimated|said|reported|suggested|unclear|likely|possible|probable|"
                       r"unknown|uncertain)\b)|(?:seems|seemed|appears|appeared) that\b)")
"""An "it" that stands for nothing ("It is believed that ...", "In 1900, it was thought ..."): not named."""
DISAMBIGUATION = re.compile(r"\s*\([^)]*\)\s*$")
"""A title's bracketed qualifier, which tells its subject from another of the same name ("Guernica (Picasso)")."""


def _subject_pronoun(sentence: str) -> tuple[int, re.Match[str]] | None:
    """Where the pronoun that stands for the sentence's subject begins, and its match: the opening one ("He
    shared ..."), or the one just after an opening phrase ("In 1897, he founded ..."; "During
    his career, he ...") whose own pronouns stand for the same person and which, when it is a clause, names
    nothing (not "After self-publishing it, he ...", nor "After Rome fell, it was divided")."""
    match = _PRONOUN.match(sentence)
    if match is not None:
        return 0, match
    opening = _OPENING_PHRASE.match(sentence)
    if opening is None:
        return None
    words = re.findall(r"[^\W\d_]+", opening.group(1))
    person = _PERSONS[opening.group(2)]
    if any(_PERSONS.get(word.lower(), person) != person for word in words) or (
            words and words[0].lower() in _CLAUSE_OPENERS and any(word[:1].isupper() for word in words[1:])):
        return None
    start = opening.start(2)
    return start, _PRONOUN.match(sentence[start].upper() + sentence[start + 1:])


def named(sentence: str, title: str | None, first: str) -> str:
    """``sentence`` with the pronoun that stands for its subject (:func:`_subject_pronoun`) replaced by the
    subject ``title`` names ("Guernica" for "Guernica (Picasso)"), when the passage's ``first`` sentence names it
    too; otherwise ``sentence`` unchanged."""
    subject = DISAMBIGUATION.sub("", title or "").strip()
    found = _subject_pronoun(sentence)
    if not subject or found is None or sentence == first:
        return sentence
    start, match = found
    if _EMPTY_IT.match(match.group(1) + sentence[start + match.end():]):
        return sentence
    named_words = content_words(folded(subject))
    if not named_words or named_words[0] not in content_words(folded(first)):
        return sentence
    called = re.search(rf"\b(the )?{re.escape(subject)}\b", first, re.IGNORECASE)
    if not subject.lower().startswith("the ") and called is not None and called.group(1):
        subject = f"the {subject}"  # "The Eiffel Tower was built ...", as the article first calls it
    if start == 0 and (subject.startswith("the ") or not any(c.isupper() for c in subject[1:])):  # not "iPhone"
        subject = subject[0].upper() + subject[1:]
    if match.group(1) in ("His", "Her", "Its", "Their"):
        subject += "'" if subject.endswith("s") else "'s"
    return sentence[:start] + subject + sentence[start + match.end():]


def windows(sentences: Sequence[str]) -> list[str]:
    """Each sentence, then each pair of adjacent sentences."""
    return [*sentences, *(f"{a} {b}" for a, b in itertools.pairwise(sentences))]


def passage_windows(evidence: str) -> list[str]:
    """The windows a claim is read against: the passage's sentences, each subject pronoun named from the title
    as a quote names it (:func:`named`: "It is the fourth-longest river" reads as "The Zambezi is ..."), and
    their adjacent pairs."""
    title, sentences = passage_parts(evidence)
    first = sentences[0] if sentences else ""
    return windows([named(s, title, first) for s in sentences])


def claims(output: str) -> list[str]:
    """The output's sentences (the whole output if it has none)."""
    return split_sentences(output) or ([output.strip()] if output.strip() else [])


@dataclass(frozen=True)
class SupportReading:
    """What the windows of a passage say of an output's claims."""

    entailment: float
    """The least supported claim's best entailment: an output is supported when every claim is."""
    contradiction: float
    """The most contradicted claim's contradiction, read at the window that speaks of it most."""


def aggregate_support(table: Sequence[Sequence[tuple[float, float, float]]]) -> SupportReading:
    """Fold (entailment, neutral, contradiction) readings, one row per claim and one column per window, into a
    :class:`SupportReading`; no claims or no windows support nothing and contradict nothing."""
    rows = [row for row in table if row]
    if not rows:
        return SupportReading(0.0, 0.0)
    entailment = min(max(e for e, _, _ in row) for row in rows)
    contradiction = max(max(row, key=lambda r: r[0] + r[2])[2] for row in rows)
    return SupportReading(entailment, contradiction)
