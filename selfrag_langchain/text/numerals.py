"""The words and numerals a number is written with besides its figures, read by the rules that compare a question's
numbers with a passage's (:mod:`~selfrag_langchain.chains.names`, :mod:`~selfrag_langchain.chains.ranks`)."""

from __future__ import annotations

__all__ = ["ORDINALS", "ROMAN"]

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
            "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
            "twentieth")
"""The ordinal words, the n-th at n - 1."""
ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv", "xvi", "xvii",
         "xviii", "xix", "xx")
"""The Roman numerals, n at n - 1."""
