"""The words and numerals a number is written with besides its figures, read by the rules that compare a question's
numbers with a passage's (:mod:`~selfrag_langchain.chains.names`, :mod:`~selfrag_langchain.chains.ranks`)."""

from __future__ import annotations

import re

__all__ = ["ORDINALS", "ROMAN", "ordinal_place"]

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
            "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
            "twentieth")
"""The ordinal words, the n-th at n - 1."""
ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv", "xvi", "xvii",
         "xviii", "xix", "xx")
"""The Roman numerals, n at n - 1."""

_FIGURES = re.compile(r"(\d+)(?:st|nd|rd|th)$")


def ordinal_place(token: str) -> int | None:
    """The place an ordinal token names ("third": 3, "14th": 14), else None."""
    if token in ORDINALS:
        return ORDINALS.index(token) + 1
    match = _FIGURES.match(token)
    return int(match.group(1)) if match else None
