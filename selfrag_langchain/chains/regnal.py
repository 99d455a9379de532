"""A name numbered with a Roman numeral names one person: "Mary I" is not any Mary.

"What grim nickname did later writers give to Mary I of England?" found Mary Wollstonecraft's article, which names
a Mary and England; the numeral "I" reads as a stop word, so the names rule
(:func:`~selfrag_langchain.chains.names.speaks_of_asked`) saw the question's names held and let her article's
sentence answer. A monarch's or a pope's number ("Louis IX", "John Paul II", "Henry VIII's warship") is part of the
name, so a quote speaks of that person only when the quote, its title or its article's opening writes the name with
its number (:func:`regnal_names`, :func:`holds_regnal`), or with the number as a word ("Henry the Eighth"). The
name before the numeral has to be one English's lexicon does not know as a word: "World War I" and "Type II" number
things, not people, and "Basil II", whose name is also a herb, is left to the other rules.
"""

from __future__ import annotations

import re

from selfrag_langchain.judging.signals import STOPWORDS, folded
from selfrag_langchain.text.lexicon import parts_of_speech
from selfrag_langchain.text.numerals import ORDINALS, ROMAN

__all__ = ["holds_regnal", "regnal_names"]

_NUMERAL = "|".join(sorted((n.upper() for n in ROMAN), key=len, reverse=True))
_REGNAL = re.compile(rf"\b([A-Z][^\W\d_]+)\s+({_NUMERAL})\b(?!['’]\w\w)")
"""A capitalised word and a Roman numeral in capitals after it ("Mary I", "Henry VIII's"; not "I'll")."""


def regnal_names(question: str) -> list[tuple[str, str]]:
    """The question's names numbered with a Roman numeral, each as its last word and the numeral ("Mary I of
    England": ("Mary", "I"); "Pope John Paul II": ("Paul", "II")), when English's lexicon does not know that word
    (a name, not "War" in "World War I")."""
    return [(m.group(1), m.group(2)) for m in _REGNAL.finditer(folded(question))
            if m.group(1).lower() not in STOPWORDS and not parts_of_speech(m.group(1).lower())]


def holds_regnal(name: tuple[str, str], text: str) -> bool:
    """Whether ``text`` writes the name with its number: the numeral ("Mary I", "Queen Mary I's") or its word
    ("Henry the Eighth")."""
    word, numeral = name
    ordinal = ORDINALS[ROMAN.index(numeral.lower())]
    written = rf"\b{re.escape(word)}\s+(?:{numeral}\b(?!['’]\w\w)|(?i:the\s+{ordinal})\b)"
    return re.search(written, folded(text)) is not None
