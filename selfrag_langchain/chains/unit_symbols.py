"""Units of measurement read as a passage writes them: a question's "in square kilometres" as "in km2" where the
passage gives "4,500,000 km2".

The models that read whether a sentence answers a question (the sentence reader and the answer finder) miss a unit
the question names in words and the sentence writes as a symbol: "... in all some 4,500,000 km2 ..." holds an answer
to "About how large is the Brazilian Highlands in square kilometres?" at 0.01 for the answer finder, and to "... in
km2?" at 1.00. So each question is read against a passage with its units written as that passage writes them
(:func:`as_written`), as :func:`~selfrag_langchain.chains.aliases.in_full` reads an abbreviation as the passage's
title.
"""

from __future__ import annotations

import re

from selfrag_langchain.chains.names import SCALE_SYMBOLS, SI_PREFIXES, SI_UNIT_SYMBOLS
from selfrag_langchain.judging.signals import folded

__all__ = ["MEASURES", "as_written"]

_METRE = "(?:re|er)s?"  # "metre", "meter", "metres", "meters"
MEASURES: tuple[tuple[str, str], ...] = (
    (rf"square kilomet{_METRE}", r"km2|km²|sq km"),
    (rf"square met{_METRE}", r"m2|m²"),
    (r"square miles?", r"sq mi|mi2|mi²"),
    (r"square feet|square foot", r"sq ft|ft2|ft²"),
    (rf"cubic kilomet{_METRE}", r"km3|km³"),
    (rf"cubic met{_METRE}", r"m3|m³"),
    (rf"kilomet{_METRE} (?:per|an|a) hour", r"km/h|kph"),
    (r"miles? (?:per|an|a) hour", r"mph"),
    (rf"kilomet{_METRE}", r"km"),
    (rf"centimet{_METRE}", r"cm"),
    (rf"millimet{_METRE}", r"mm"),
    (rf"met{_METRE}", r"m"),
    (r"miles", r"mi"),
    (r"feet", r"ft"),
    (r"kilograms?|kilos", r"kg"),
    (r"pounds", r"lbs?"),
    (r"tonnes", r"t"),
    (rf"millilit{_METRE}", r"ml|mL"),
)
"""Units of length, area, volume, speed and mass a question names in words (a regular expression, read in any case),
each with the symbols a text writes it as after a number; the units named after people and the temperature scales
are those the names rule reads (:data:`~selfrag_langchain.chains.names.SI_UNIT_SYMBOLS`, ``SI_PREFIXES``,
``SCALE_SYMBOLS``)."""


def _units() -> list[tuple[str, str]]:
    """Every unit as (its words, its symbols), longer names first, so that "square kilometres" is read before
    "kilometres" and "kilopascals" before "pascals"."""
    plural = {name: "" if name.endswith("z") else "s?" for name in SI_UNIT_SYMBOLS.values()}  # "hertz"
    named = [(f"{prefix_name}{name}{plural[name]}", f"{prefix}{symbol}") for symbol, name in SI_UNIT_SYMBOLS.items()
             for prefix, prefix_name in SI_PREFIXES.items()]
    named += [(f"{name}{plural[name]}", symbol) for symbol, name in SI_UNIT_SYMBOLS.items()]
    scales = [(f"degrees? {name}", f"°{symbol}") for symbol, name in SCALE_SYMBOLS.items()]
    return sorted([*MEASURES, *named, *scales], key=lambda unit: -len(unit[0]))


_ASKED_IN = r"(?:\b(?:in|many|much|of|per)|\d)\s+"
"""What a unit asked for follows ("in square kilometres", "how many pascals", "at 20 degrees Celsius"), so that a
word that is also a unit's name elsewhere is left alone ("the foot of Mount Fuji", "Lord Kelvin")."""
_NUMBER = r"(?<![\w.,])(?:\d{1,3}(?:[,\u00a0\u202f ]\d{3})+|\d+)(?:\.\d+)?"
"""A number in figures, its thousands grouped by commas or spaces."""
_AFTER_SYMBOL = r"(?![\w/²³°-])"
"""What may not follow a symbol: more of a word or a code ("t-shirts")."""
_NOT_AN_INITIAL = r"(?!\.\s?[A-Z])"
"""What may not follow a symbol of one letter, which would make it an initial ("In 1990 K. Smith")."""


def _symbols(symbols: str) -> re.Pattern[str]:
    """A number and one of ``symbols`` after it: a symbol of one letter only after a space and not as an initial
    ("0 K", not "4K" nor "1990 K. Smith")."""
    spaced = "|".join(s for s in symbols.split("|") if len(s) == 1)
    joined = "|".join(s for s in symbols.split("|") if len(s) > 1)
    forms = [f"\\s?(?P<joined>{joined}){_AFTER_SYMBOL}" if joined else "",
             f"\\s(?P<spaced>{spaced}){_AFTER_SYMBOL}{_NOT_AN_INITIAL}" if spaced else ""]
    return re.compile(f"{_NUMBER}(?:{'|'.join(f for f in forms if f)})")


_UNITS = tuple((re.compile(rf"{_ASKED_IN}(?P<unit>{words})\b", re.IGNORECASE),
                re.compile(rf"\b(?:{words})\b", re.IGNORECASE), _symbols(symbols)) for words, symbols in _units())
_ANY_ASKED = re.compile(rf"{_ASKED_IN}(?:{'|'.join(words for words, _ in _units())})\b", re.IGNORECASE)
"""Any unit asked in words: a question that asks none (most) is left as it is without reading the passage."""


def as_written(question: str, passage: str) -> str:
    """``question`` with each unit it asks in words (after "in", "how many" or a number: :data:`MEASURES` and the
    units the names rule reads) written as ``passage`` writes that unit after a number (its symbol as the passage
    spells it: "km2" or "km²"), where the passage does not also name it in words; unchanged otherwise."""
    if _ANY_ASKED.search(question) is None:
        return question
    text = folded(passage)
    for asked_in, named, symbols in _UNITS:
        asked = asked_in.search(question)
        if asked is None or named.search(text):
            continue
        written = symbols.search(passage) or symbols.search(text)  # "km²" as written, "℃" folded to "°C"
        if written is not None:
            symbol = next(value for value in written.groupdict().values() if value)
            question = question[:asked.start("unit")] + symbol + question[asked.end("unit"):]
    return question
