"""The key/value caches of prompts read lately, so a prompt that begins as one of them is read from where they part.

Long form writes each segment after the first from prompts that repeat an earlier step's: the same request
and passage, the answer so far one segment longer. Reading only what is new skipped 1,407 of the 6,276 prompt
tokens of three slow questions' seven steps.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from selfrag_langchain.llms.model_cache import returned_cache

Read = Callable[[list[int], Any], Any]
"""Runs token ids on top of a cache (None: an empty one) and returns the model's output."""


class PromptCaches:
    """Caches of whole prompts by their token ids, the least recently used dropped beyond ``budget_bytes``.

    A stored cache is never changed: a prompt that shares at least ``min_shared`` tokens with one gets a copy
    cut to the shared part.
    """

    def __init__(self, model: Any, budget_bytes: int, min_shared: int = 32) -> None:
        self.model = model
        self.budget_bytes = budget_bytes
        self.min_shared = min_shared
        self._entries: OrderedDict[tuple[int, ...], tuple[Any, int]] = OrderedDict()
        self._bytes = 0

    def read(self, ids: list[int], read: Read) -> Any:
        """The output of reading ``ids`` (at least one token), from the longest stored prefix it has."""
        key, shared = self._longest_prefix(ids)
        shared = min(shared, len(ids) - 1)  # the last token is always read: its logits are the output
        if key is not None and shared >= self.min_shared:
            self._entries.move_to_end(key)
            out = read(ids[shared:], _cut(self.model, self._entries[key][0], shared))
        else:
            out = read(ids, None)
        self._keep(tuple(ids), returned_cache(out))
        return out

    def _longest_prefix(self, ids: list[int]) -> tuple[tuple[int, ...] | None, int]:
        best: tuple[tuple[int, ...] | None, int] = (None, 0)
        for key in self._entries:
            shared = _shared_length(key, ids)
            if shared > best[1]:
                best = (key, shared)
        return best

    def _keep(self, key: tuple[int, ...], cache: Any) -> None:
        size = _nbytes(cache)
        if size > self.budget_bytes:
            return
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old[1]
        self._entries[key] = (cache, size)
        self._bytes += size
        while self._bytes > self.budget_bytes:
            _, (_, dropped) = self._entries.popitem(last=False)
            self._bytes -= dropped


def _shared_length(a: tuple[int, ...], b: list[int]) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def _cut(model: Any, cache: Any, length: int) -> Any:
    """A new cache holding the first ``length`` positions of ``cache`` (which stays as it is)."""
    from transformers import DynamicCache

    cut = DynamicCache(config=model.config)
    for index, layer in enumerate(cache.layers):
        cut.update(layer.keys[..., :length, :], layer.values[..., :length, :], index)
    return cut


def _nbytes(cache: Any) -> int:
    return sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)
