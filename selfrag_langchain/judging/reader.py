"""The sentence reader: the shipped all-MiniLM-L6-v2 trained as a cross-encoder that reads two short texts in
one sequence, two ways.

- ``entailment``: (claim, premise) -> entailment / neutral / contradiction, as natural language inference reads
  them (SNLI, MultiNLI, minimal pairs whose label flips on one edit, HaluEval's answers, contrasts made from
  SQuAD's answer sentences by changing one value).
- ``answering``: (question, sentence) -> whether the sentence answers the question (answer-sentence selection,
  learned from SQuAD's paragraphs and SQuAD 2.0's unanswerable questions).

Both readings are of one sentence (or two adjacent ones) at a time: a claim is checked against each sentence of
a passage and the results aggregated (:mod:`selfrag_langchain.judging.claims`), the way SummaC and MiniCheck
lift NLI models to long evidence. The embeddings and bottom layers stay the shipped MiniLM's (shared with
retrieval); the trained top layers and the head ship as half-precision weights
(``sentence_reader.safetensors``) beside a JSON card of how they were made. On a CPU the reader runs in ONNX
Runtime (:mod:`~selfrag_langchain.judging.onnx_pairs`), with the same readings as torch's.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.judging.encoder import build_model, trained_state
from selfrag_langchain.judging.onnx_pairs import PairRuntime, checked_runtime, pair_network


class Reading(StrEnum):
    """What the reader is asked of a pair of texts."""

    ENTAILMENT = "entailment"
    ANSWERING = "answering"


READING_LABELS: dict[Reading, tuple[str, ...]] = {
    Reading.ENTAILMENT: ("entailment", "neutral", "contradiction"),
    Reading.ANSWERING: ("answers", "does not answer"),
}
"""The labels of each reading, in the order the head gives them."""

HEAD_LABELS: tuple[str, ...] = tuple(label for labels in READING_LABELS.values() for label in labels)
"""The head's outputs, in order: every label of every reading."""

MAX_LENGTH = 128
"""Word pieces read per pair; a longer pair is cut from its longer text."""

WEIGHTS_FILE = "sentence_reader.safetensors"
CARD_FILE = "sentence_reader.json"
SHIPPED_READER = Path(__file__).with_name("sentence_reader")
"""The reader shipped with the package (``selfrag train reader`` wrote it)."""

CACHE_SIZE = 4096
"""Pairs whose readings a reader keeps: the judge and the quoter read the same (question, sentence) pairs."""


def reading_slice(reading: Reading) -> slice:
    """Where the reading's labels sit in :data:`HEAD_LABELS`."""
    start = HEAD_LABELS.index(READING_LABELS[reading][0])
    return slice(start, start + len(READING_LABELS[reading]))


def reading_masks(readings: Sequence[Reading]) -> Any:
    """A boolean row per pair, true at its own reading's labels."""
    import torch

    mask = torch.zeros(len(readings), len(HEAD_LABELS), dtype=torch.bool)
    for i, reading in enumerate(readings):
        mask[i, reading_slice(reading)] = True
    return mask


@dataclass
class ReaderCard:
    """What a trained reader is: how many top layers it replaces, how much it reads, where it came from."""

    trained_layers: int
    max_length: int = MAX_LENGTH
    labels: list[str] = field(default_factory=lambda: list(HEAD_LABELS))
    provenance: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> ReaderCard:
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))

    def to_dict(self) -> dict[str, Any]:
        return {"trained_layers": self.trained_layers, "max_length": self.max_length, "labels": self.labels,
                "provenance": self.provenance}


def build_reader(base: str | Path, trained_layers: int, *, shared: Any | None = None) -> Any:
    """The reader's network: MiniLM with a mean-pooled head over :data:`HEAD_LABELS`."""
    return build_model(base, trained_layers, shared=shared, outputs=len(HEAD_LABELS))


def reader_state(model: Any, trained_layers: int) -> dict[str, Any]:
    """The weights a trained reader adds to the shipped MiniLM: its top layers and its head."""
    return trained_state(model, trained_layers)


def load_reader_weights(model: Any, directory: Path, trained_layers: int) -> None:
    """Put a trained reader's top layers and head (``directory``'s half-precision weights) into ``model``.

    Raises:
        ModelLoadError: when the weights lack some of the layers ``model`` trains.
    """
    import torch
    from safetensors.torch import load_file

    weights = directory / WEIGHTS_FILE
    state = {k: v.to(torch.float32) for k, v in load_file(str(weights)).items()}
    missing = set(reader_state(model, trained_layers)) - set(state)
    if missing:
        msg = f"{weights} lacks {len(missing)} trained weights (first: {sorted(missing)[0]})"
        raise ModelLoadError(msg)
    model.load_state_dict(state, strict=False)


class SentenceReader:
    """A trained sentence reader over the shipped MiniLM.

    Example:
        .. code-block:: python

            from selfrag_langchain.judging.reader import SentenceReader

            reader = SentenceReader()
            reader.entailment([("Canberra is the capital of Australia.",
                                "Canberra is the capital city of Australia.")])
            # [(0.9..., 0.0..., 0.0...)]   entailment, neutral, contradiction
            reader.answering([("What is the chemical symbol of gold?",
                               "Gold is a chemical element with the symbol Au.")])
            # [0.9...]
    """

    def __init__(self, directory: str | Path | None = None, *, base: str | Path | None = None,
                 batch_size: int = 32, shared: Any | None = None, runtime: PairRuntime = "onnx") -> None:
        """Args:
            directory: what ``selfrag train reader`` wrote; None: the reader shipped with the package.
            base: the MiniLM directory it was trained over; None: the one shipped with the package.
            batch_size: pairs per forward pass.
            shared: that MiniLM already loaded (:meth:`MiniLMEmbeddings.transformer`), whose frozen layers torch
                then uses rather than loading them again (the ONNX export holds its own).
            runtime: ``"onnx"``: ONNX Runtime on the CPU, the export built on first use; ``"torch"``: torch.
        """
        runtime = checked_runtime(runtime)
        directory = Path(directory) if directory is not None else SHIPPED_READER
        if not (directory / CARD_FILE).is_file() or not (directory / WEIGHTS_FILE).is_file():
            msg = (f"no sentence reader in {directory}: it needs {CARD_FILE} and {WEIGHTS_FILE}, as "
                   "`selfrag train reader` writes them")
            raise ModelLoadError(msg)
        self.card = ReaderCard.load(directory / CARD_FILE)
        if tuple(self.card.labels) != HEAD_LABELS:
            msg = f"{directory / CARD_FILE} was trained for the labels {self.card.labels}, not {list(HEAD_LABELS)}"
            raise ModelLoadError(msg)
        self.directory, self.base, self.shared = directory, base, shared
        self.batch_size, self.runtime = batch_size, runtime
        self._network: tuple[Any, Any] | None = None
        self._cache: OrderedDict[tuple[Reading, str, str], tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()  # a server judges requests in several threads

    def _loaded(self) -> tuple[Any, Any]:
        """The tokenizer and the network, loaded at the first reading (a quoter that never quotes loads none)."""
        with self._lock:
            if self._network is None:
                from transformers import AutoTokenizer

                from selfrag_langchain.embeddings import default_model_path

                base = Path(self.base) if self.base is not None else default_model_path()
                tokenizer = AutoTokenizer.from_pretrained(str(base))
                network = pair_network(self.runtime, "sentence-reader", base,
                                       [self.directory / WEIGHTS_FILE, self.directory / CARD_FILE],
                                       lambda: self._torch_network(base), ("logits",), tokenizer)
                self._network = (tokenizer, network)
            return self._network

    def _torch_network(self, base: Path) -> Any:
        model = build_reader(base, self.card.trained_layers, shared=self.shared)
        load_reader_weights(model, self.directory, self.card.trained_layers)
        return model.eval()

    def read(self, pairs: Sequence[tuple[str, str]], reading: Reading) -> list[tuple[float, ...]]:
        """Each pair's probabilities over the reading's labels (:data:`READING_LABELS`); pairs read before are
        taken from a small cache, the rest batched by length."""
        import torch

        with self._lock:
            known = {(a, b): got for a, b in pairs if (got := self._cache.get((reading, a, b))) is not None}
        todo = sorted({pair for pair in pairs if pair not in known}, key=lambda p: len(p[0]) + len(p[1]))
        if not todo:
            return [known[pair] for pair in pairs]
        tokenizer, model = self._loaded()
        part = reading_slice(reading)
        with torch.inference_mode():
            for start in range(0, len(todo), self.batch_size):
                chunk = todo[start:start + self.batch_size]
                batch = tokenizer([a for a, _ in chunk], [b for _, b in chunk], padding=True,
                                  truncation="longest_first", max_length=self.card.max_length, return_tensors="pt")
                logits = model(**batch)["logits"][:, part]
                known.update(zip(chunk, map(tuple, torch.softmax(logits, dim=-1).tolist()), strict=True))
        with self._lock:
            for a, b in todo:
                self._cache[(reading, a, b)] = known[(a, b)]
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return [known[pair] for pair in pairs]

    def entailment(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, float]]:
        """(entailment, neutral, contradiction) of each (claim, premise) pair."""
        return [(e, n, c) for e, n, c in self.read(pairs, Reading.ENTAILMENT)]

    def answering(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The probability that the sentence answers the question, for each (question, sentence) pair."""
        return [row[0] for row in self.read(pairs, Reading.ANSWERING)]
