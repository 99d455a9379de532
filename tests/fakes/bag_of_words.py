"""A stand-in embedding model whose similarities mean something: hashed bags of words."""

from __future__ import annotations

import hashlib
import math

from langchain_core.embeddings import Embeddings

DIM = 384


class BagOfWords(Embeddings):
    """Unit vectors of hashed words: texts sharing words are similar. Counts the texts it embeds."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def _vector(self, text: str) -> list[float]:
        v = [0.0] * DIM
        for word in text.lower().split():
            v[int(hashlib.md5(word.strip(".,?").encode()).hexdigest(), 16) % DIM] += 1.0
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / norm for x in v]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)
