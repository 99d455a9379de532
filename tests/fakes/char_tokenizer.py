"""A tokenizer for loss-mask tests: each special string is one token, every other character one token."""

from __future__ import annotations

import re

from selfrag_langchain.tokens import SPECIAL_STRINGS
from selfrag_langchain.trainer.masks import IGNORE_INDEX

_TOKEN_RE = re.compile("|".join(re.escape(s) for s in sorted(SPECIAL_STRINGS, key=len, reverse=True)) + r"|\s+|\S")
EOS = 0


class CharTokenizer:
    """Each special string is one token, every other character one token: masks can be read off exactly."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {"<eos>": EOS}
        self.inverse: dict[int, str] = {EOS: "<eos>"}

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        ids, offsets = [], []
        for match in _TOKEN_RE.finditer(text):
            piece = match.group(0)
            if piece not in self.vocab:
                self.vocab[piece] = len(self.vocab)
                self.inverse[self.vocab[piece]] = piece
            ids.append(self.vocab[piece])
            offsets.append(match.span())
        return ids, offsets

    def decode(self, ids: list[int]) -> str:
        return "".join(self.inverse[i] for i in ids)

    def trained_text(self, labels: list[int]) -> str:
        return self.decode([label for label in labels if label != IGNORE_INDEX])
