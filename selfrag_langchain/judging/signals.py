"""Lexical signals of evidence use that a judge reads without a language model.

A small model copies its answers from the passage it read, so whether an answer's words occur in the
passage says much about support, and whether the question's words occur in the passage says much about
relevance. These are pure functions over text: the calibrated judge turns them, with embedding
similarities, into the group distributions the paper's formulas consume.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Collection

_STOPWORD_TEXT = (
    "a an the and or but if of at by for with about against between into through during before after "
    "above below to from up down in out on off over under again further then once here there when where "
    "why how all any both each few more most other some such no nor not only own same so than too very "
    "can will just should now is are was were be been being have has had having do does did doing i me my "
    "we our you your he him his she her it its they them their what which who whom whose this that these "
    "those am would could also as answer question passage"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Function words, and the words of the prompts themselves, which say nothing about content."""

_WORD = re.compile(r"\w+", re.UNICODE)


def text_words(text: str) -> list[str]:
    """The words of ``text``, lower-cased, possessive ``'s`` dropped, function words kept ("of", "the")."""
    return _WORD.findall(text.lower().replace("'s", "").replace("’s", ""))


def content_words(text: str) -> list[str]:
    """The words of ``text`` that carry content: :func:`text_words` without stopwords."""
    return [w for w in text_words(text) if w not in STOPWORDS]


_UNDECOMPOSED = str.maketrans({
    "ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "ħ": "h", "Ħ": "H", "ı": "i",
    "ß": "ss", "æ": "ae", "Æ": "Ae", "œ": "oe", "Œ": "Oe", "þ": "th", "Þ": "Th",
    "ʼ": None, "ʻ": None, "ʿ": None, "ʾ": None, "\u200b": " ",
})
"""Letters that Unicode does not decompose into a plain letter and a mark, as English writes them ("Łódź" is
"Lodz", "Ørsted" "Orsted"), and the marks of transliteration English spelling leaves out ("Baháʼí" is "Bahai",
"Hawaiʻi" "Hawaii"); a zero-width space is a space."""


def folded(text: str) -> str:
    """``text`` without accents ("Bhāratanatyam" -> "Bharatanatyam"), its letters as English writes them
    (:data:`_UNDECOMPOSED`) and without invisible format characters (a word joiner, a soft hyphen), so that a name
    matches however it is spelled."""
    if text.isascii():  # most text: nothing to fold, and names are compared often
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
                   if not unicodedata.combining(c) and unicodedata.category(c) != "Cf")


SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)\s+|\n")
"""Where a sentence ends, for reading names at a sentence's start (:func:`name_words`): not after an initial
("Herman A. Barnett")."""


def name_words(text: str) -> list[str]:
    """The words of ``text`` that name something: numbers, and capitalised words that are not stopwords,
    lower-cased and without accents, split as :func:`content_words` splits ("Moby-Dick" is "moby", "dick"),
    so that they are found in a passage's content words. A sentence's first word counts only when the next
    one is capitalised too ("Mona Lisa was ...", not "Apart from ...")."""
    names = []
    for sentence in SENTENCE_BREAK.split(folded(text).replace("'s", "").replace("’s", "")):
        tokens = _WORD.findall(sentence)
        for i, token in enumerate(tokens):
            if token.lower() in STOPWORDS:
                continue
            capitalised = token[0].isupper() and (i > 0 or (len(tokens) > 1 and tokens[1][:1].isupper()))
            if token[0].isdigit() or capitalised:
                names.append(token.lower())
    return names


def name_coverage(text: str, evidence: str) -> float:
    """The share of the names in ``text`` that ``evidence`` contains: a passage about Greta Garbo names one
    of "Greta Thunberg"'s two words. 1 when ``text`` names nothing, as nothing it names is missing."""
    names = name_words(text)
    return coverage(names, content_words(folded(evidence))) if names else 1.0


def content_bigrams(text: str) -> list[str]:
    """Adjacent pairs of content words: a name or term of two words ("derek wheatley") as one unit, so a
    passage about another Wheatley does not count as naming the question's."""
    words = content_words(text)
    return [f"{a} {b}" for a, b in itertools.pairwise(words)]


HEDGES = (
    "sorry", "unclear", "unknown", "mystery", "not sure", "cannot", "can't", "don't know", "do not know",
    "unable", "no information", "not possible", "not provided", "don't have", "do not have",
)
"""Phrases with which an answer declines or hedges instead of answering."""

_HEDGE = re.compile(r"\b(?:" + "|".join(re.escape(h) for h in HEDGES) + r")\b")


def hedging(text: str) -> float:
    """1 when the text declines or hedges ("I'm sorry", "is unclear", "a mystery"), else 0."""
    lowered = text.lower().replace("’", "'")
    return 1.0 if _HEDGE.search(lowered) else 0.0


def coverage(words: Collection[str], reference: Collection[str]) -> float:
    """The fraction of ``words`` found in ``reference``; 0 when there are no words to find."""
    if not words:
        return 0.0
    found = set(reference)
    return sum(1 for w in words if w in found) / len(words)


def novel_words(answer: str, question: str) -> list[str]:
    """The answer's content words that the question does not already contain (what the answer adds)."""
    asked = set(content_words(question))
    return [w for w in content_words(answer) if w not in asked]


def novelty(answer: str, question: str) -> float:
    """The share of the answer's content words that are new to the question (0 for an answer that only
    repeats the question, or an empty one)."""
    words = content_words(answer)
    return len(novel_words(answer, question)) / len(words) if words else 0.0


def log_length(text: str) -> float:
    """log(1 + number of content words): how much an answer says, on a scale where doubling adds a step."""
    return math.log1p(len(content_words(text)))
