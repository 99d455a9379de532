"""A question's word typed a letter wrong, read as the word of the passages found.

A misspelt word ("daugter", "sharck", "sulfer") is split into word pieces that the sentence reader and the answer
finder do not read as the word, and the names rule reads it as a name that no passage holds: a question the
passages answer is then declined. Once passages are found, the rules and readers that judge them read the question
with each such word replaced by the word of the passages it was meant to be (:func:`read_typos`); the answer shows
the question as it was asked.

A word is read so only when it reads as typed wrong: written in lower case, of
:data:`~selfrag_langchain.chains.names.MIN_MISTYPED` letters or more, unknown to English's lexicon, no function word,
and split by MiniLM's vocabulary (:func:`~selfrag_langchain.chains.names.rare`). It is read as the one word of the
passages it is with an apostrophe ("otoole" as "o'toole", "orwells" as "orwell's"), or else as the one word of the
passages a letter from it that begins and ends with the same letters (a typo rarely falls there, while a name's
relatives differ there: "axolotl" and "Xolotl", "rendang" and "kendang"; "fransisco" is read as "francisco"; a
swap of the first or last two letters is left as typed, "algea", since names give common words so, "ovid" "void",
"yeats" "yeast", "aceh" "ache"). A word
that is a word of the passages with an "s" after it is their word's plural or possessive ("asterixs" beside
"Asterix", not "Asterius"); one that is a noun of the lexicon with an "s" after it is that noun's possessive typed
without its apostrophe ("vitus bering was an officer in which countrys navy": "country's"). A capitalised word is a
name as written: another name a letter from it ("Hanson", "Hansen") is another person. Accents and the letters and
marks English spelling writes otherwise are left aside on both sides ("pokemon" is "Pokémon", "lodz" "Łódź", "bahai"
"Baháʼí": :func:`~selfrag_langchain.judging.signals.folded`). A word a hurried question shortens ("what yr did ...")
is read as the word it stands for (:data:`SHORTENED`), unless the passages hold it as typed ("Yr Wyddfa").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from langchain_core.documents import Document

from selfrag_langchain.chains.inputs import Question
from selfrag_langchain.chains.names import (
    MIN_MISTYPED,
    WORD,
    lexical,
    one_edit,
    plain_words,
    rare_unknown,
)
from selfrag_langchain.judging.signals import folded
from selfrag_langchain.prompts import format_passage
from selfrag_langchain.text.lexicon import parts_of_speech

__all__ = ["Retyped", "read_question", "read_typos"]

Retyped = tuple[str, str]
"""A word as the question typed it and the passages' word it is read as."""


def _typed_wrong(word: str) -> bool:
    """Whether a question's word reads as a word typed wrong rather than a word or a name (the module's first
    test)."""
    return (word.isalpha() and word.islower() and lexical(word) and word not in plain_words()
            and rare_unknown(word, MIN_MISTYPED))


_APOSTROPHES = str.maketrans("", "", "'’")
SHORTENED = {"yr": "year", "yrs": "years", "govt": "government", "ppl": "people", "approx": "approximately",
             "bday": "birthday", "r": "are", "u": "you", "ur": "your", "wat": "what", "wut": "what", "thru": "through",
             "abt": "about", "kinda": "kind of", "sorta": "sort of"}
"""Words a hurried question shortens, typed in lower case, and the words they stand for: unknown to English's
lexicon, "yr" reads as a name that no passage holds ("how many species of annelids r there": "r"). Only
shortenings that stand for one thing are listed ("kinda" for "kind of"; "hr" is also human resources); a letter
the passages hold as a word (uranium's "U", an initial) is left as typed, and so is a word they hold ("wat" in
"Angkor Wat")."""


def _meant(word: str, held: set[str], bare: dict[str, set[str]]) -> str | None:
    """The one word of ``held`` (the passages' words; ``bare``: theirs with an apostrophe, by the word without it)
    that ``word`` was meant to be, or None when there is none or more than one (the module's second test)."""
    if len(with_apostrophe := bare.get(word, set())) == 1:
        return next(iter(with_apostrophe))
    if word[:-1] in held and word.endswith("s"):
        return None
    if (possessive := _as_possessive(word)) is not None:
        return possessive
    meant = [w for w in one_edit(word) & held if w[0] == word[0] and w[-1] == word[-1]]
    return meant[0] if len(meant) == 1 else None


def _as_possessive(word: str) -> str | None:
    """``word`` as the possessive of a noun typed without its apostrophe ("countrys" as "country's", "citys" as
    "city's"), when it is a noun of English's lexicon with an "s" after it; None for any other word."""
    return f"{word[:-1]}'s" if word.endswith("s") and "NOUN" in parts_of_speech(word[:-1]) else None


def read_typos(question: str, texts: Iterable[str]) -> tuple[str, list[Retyped]]:
    """The question with each word typed wrong replaced by the word of ``texts`` (the passages found, with their
    titles) it was meant to be, and the words replaced; the question as it is when none is."""
    held = {w.lower() for text in texts for w in WORD.findall(folded(text))}
    bare: dict[str, set[str]] = {}
    for w in held:
        if (plain := w.translate(_APOSTROPHES)) != w:
            bare.setdefault(plain, set()).add(w)
    retyped: dict[str, str] = {}
    for typed in dict.fromkeys(WORD.findall(question)):
        plain = folded(typed)
        if plain in held:
            continue
        if typed in SHORTENED:
            retyped[typed] = SHORTENED[typed]
        elif _typed_wrong(plain) and (meant := _meant(plain, held, bare)) is not None:
            retyped[typed] = meant
    if not retyped:
        return question, []
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, retyped)) + r")\b")
    return pattern.sub(lambda m: retyped[m.group()], question), list(retyped.items())


def read_question(q: Question, docs: Sequence[Document], notes: list[str]) -> Question:
    """``q`` as the rules and readers read it once ``docs`` are found (:func:`read_typos` against their titles and
    texts), with a note of each word read otherwise; ``q`` itself for a question with answer choices, which no
    rule reads, or one the caller wrote raw."""
    if q.choices or q.raw:
        return q
    question, retyped = read_typos(q.question, [format_passage(d.metadata.get("title") or None, d.page_content)
                                                for d in docs])
    notes.extend(f"read {typed!r} as {meant!r}, {_why(typed, meant)}" for typed, meant in retyped)
    return replace(q, question=question) if retyped else q


def _why(typed: str, meant: str) -> str:
    """Why :func:`read_typos` read ``typed`` as ``meant``, for the note."""
    if typed in SHORTENED:
        return "a word typed short"
    if meant == _as_possessive(folded(typed)):
        return "a possessive typed without its apostrophe"
    return "as the passages found spell it"
