"""Units of measurement read as a passage writes them: a question's "square kilometres" as "km2" where the passage
gives "4,500,000 km2".

The models that read whether a sentence answers a question (the sentence reader and the answer finder) miss a unit
the question names in words and the sentence writes as a symbol: "... in all some 4,500,000 km2 ..." holds an answer
to "About how large is the Brazilian Highlands in square kilometres?" at 0.01 for the answer finder, and to "... in
km2?" at 1.00. So each question is read against a passage with its units written as that passage writes them
(:func:`as_written`), as :func:`~selfrag_langchain.chains.aliases.in_full` reads an abbreviation as the passage's
title.
"""

from __future__ import annotations

import re

from selfrag_langchain.judging.signals import folded

__all__ = ["UNITS", "as_written"]

_METRE = "(?:re|er)s?"  # "metre", "meter", "metres", "meters"
UNITS: tuple[tuple[str, str], ...] = (
    (rf"square kilomet{_METRE}", r"km2|km²|sq km"),
    (rf"square met{_METRE}", r"m2|m²"),
    (r"square miles?", r"sq mi|mi2|mi²"),
    (rf"cubic kilomet{_METRE}", r"km3|km³"),
    (rf"cubic met{_METRE}", r"m3|m³"),
    (rf"kilomet{_METRE} (?:per|an|a) hour", r"km/h|kph"),
    (r"miles? (?:per|an|a) hour", r"mph"),
    (rf"kilomet{_METRE}", r"km"),
    (rf"centimet{_METRE}", r"cm"),
    (rf"millimet{_METRE}", r"mm"),
    (rf"met{_METRE}", r"m"),
    (r"miles?", r"mi"),
    (r"feet|foot", r"ft"),
    (r"kilograms?|kilos?", r"kg"),
    (r"pounds?", r"lbs?"),
    (r"tonnes?", r"t"),
    (rf"millilit{_METRE}", r"ml|mL"),
    (r"degrees? celsius", r"°C"),
    (r"degrees? fahrenheit", r"°F"),
    (r"kilopascals?", r"kPa"),
    (r"hectopascals?", r"hPa"),
    (r"pascals?", r"Pa"),
    (r"gigawatts?", r"GW"),
    (r"megawatts?", r"MW"),
    (r"kilowatts?", r"kW"),
    (r"megahertz", r"MHz"),
    (r"kilohertz", r"kHz"),
    (r"hertz", r"Hz"),
    (r"electron ?volts?", r"eV"),
    (r"kelvins?", r"K"),
)
"""Units a question names in words (a regular expression, read in any case), each with the symbols a text writes it
as after a number (longer names first, so that "square kilometres" is read before "kilometres")."""

_NUMBER = r"(?<![\w.])\d[\d,.\u00a0\u202f ]*"
"""A number in figures, its thousands grouped by commas or spaces."""
_UNITS = tuple((re.compile(rf"\b(?:{words})\b", re.IGNORECASE),
                re.compile(rf"{_NUMBER}\s?(?P<symbol>{symbols})(?![\w/²³])")) for words, symbols in UNITS)


def as_written(question: str, passage: str) -> str:
    """``question`` with each unit it names in words (:data:`UNITS`) written as ``passage`` writes that unit after a
    number (its symbol as the passage spells it: "km2" or "km²"), where the passage does not also name it in words;
    unchanged otherwise."""
    text = folded(passage)
    for words, symbols in _UNITS:
        named = words.search(question)
        if named is None or words.search(text):
            continue
        written = symbols.search(passage) or symbols.search(text)  # "km²" as written, "℃" folded to "°C"
        if written is not None:
            question = question[:named.start()] + written.group("symbol") + question[named.end():]
    return question
