"""Scoring several continuations of one prompt in a single forward pass, without copying the cache.

The prompt's unread tokens and every continuation are laid out as one sequence. A custom attention
mask lets the prompt tokens see each other causally and each continuation see the prompt and its own
earlier tokens only, and position ids restart after the prompt for each continuation: every token is
computed exactly as if its continuation followed the prompt alone. Logits are needed only where a
continuation token is predicted: the prompt's last position (for every continuation's first token)
and each continuation position but its last.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PackedLayout:
    """Where each token of the packed sequence sits and which logits score which continuation token."""

    rest: int
    """Unread prompt tokens, first in the packed sequence."""
    lengths: tuple[int, ...]
    """Token count of each continuation, laid out after them in order."""
    positions: list[int]
    """Position of each packed token, counted from the end of the cached prefix."""
    keep: list[int]
    """Packed positions whose logits are computed."""
    picks: list[tuple[int, int, int]]
    """``(row, continuation, token)``: row ``row`` of the kept logits predicts token ``token`` of
    continuation ``continuation``."""

    def visible(self) -> Any:
        """A boolean tensor: packed token ``q`` attends to packed token ``k`` (the cached prefix, always
        visible, is not in it). Built from blocks, not element by element: a prompt may be thousands of
        tokens."""
        import torch

        total = self.rest + sum(self.lengths)
        mask = torch.zeros((total, total), dtype=torch.bool)
        mask[: self.rest, : self.rest] = torch.ones((self.rest, self.rest), dtype=torch.bool).tril()
        mask[self.rest :, : self.rest] = True
        start = self.rest
        for length in self.lengths:
            mask[start : start + length, start : start + length] = torch.ones((length, length), dtype=torch.bool).tril()
            start += length
        return mask

    def totals(self, pick_logprobs: Sequence[float], count: int) -> list[float]:
        """Sum the log-probability of each pick into its continuation's total (0 for an empty one)."""
        sums: list[list[float]] = [[] for _ in range(count)]
        for (_, cont, _), value in zip(self.picks, pick_logprobs, strict=True):
            sums[cont].append(value)
        return [math.fsum(s) for s in sums]


def packed_layout(rest: int, lengths: Sequence[int]) -> PackedLayout:
    """The layout of ``rest`` unread prompt tokens followed by continuations of the given lengths."""
    if rest < 1:
        msg = "a packed layout needs at least one unread prompt token"
        raise ValueError(msg)
    positions = list(range(rest))
    keep = [rest - 1]
    picks: list[tuple[int, int, int]] = []
    start = rest
    for index, length in enumerate(lengths):
        for j in range(length):
            positions.append(rest + j)
            if j == 0:
                picks.append((0, index, 0))
            else:
                picks.append((len(keep), index, j))
                keep.append(start + j - 1)
        start += length
    return PackedLayout(rest, tuple(lengths), positions, keep, picks)
