"""Batching :class:`~selfrag_langchain.trainer.masks.Example` sequences for ``transformers.Trainer``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from selfrag_langchain.trainer.masks import IGNORE_INDEX, Example


class ExampleDataset:
    """A list of examples as the map-style dataset ``Trainer`` reads (dicts of token lists)."""

    def __init__(self, examples: Sequence[Example]) -> None:
        self.examples = list(examples)

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, index: int) -> dict[str, list[int]]:
        example = self.examples[index]
        return {"input_ids": example.input_ids, "labels": example.labels}


@dataclass
class PaddingCollator:
    """Right-pads a batch: ``pad_id`` in the inputs, ``IGNORE_INDEX`` in the labels, 0 in the attention mask.

    Right padding keeps every real token at the position it has alone, so a batch trains exactly what the
    examples one by one would.
    """

    pad_id: int
    pad_to_multiple_of: int | None = None

    def __call__(self, features: Sequence[dict[str, list[int]]]) -> dict[str, Any]:
        import torch

        width = max(len(f["input_ids"]) for f in features)
        if self.pad_to_multiple_of:
            width = -(-width // self.pad_to_multiple_of) * self.pad_to_multiple_of
        ids, labels, attention = [], [], []
        for f in features:
            pad = width - len(f["input_ids"])
            ids.append(list(f["input_ids"]) + [self.pad_id] * pad)
            labels.append(list(f["labels"]) + [IGNORE_INDEX] * pad)
            attention.append([1] * len(f["input_ids"]) + [0] * pad)
        return {
            "input_ids": torch.tensor(ids, dtype=torch.long),
            "labels": torch.tensor(labels, dtype=torch.long),
            "attention_mask": torch.tensor(attention, dtype=torch.long),
        }
