"""The answer finder: the shipped all-MiniLM-L6-v2 trained to point at the phrase of a sentence that answers a
question, or at nothing.

A sentence classifier (:class:`~selfrag_langchain.judging.reader.SentenceReader`) reads "Situated along the
Hrazdan River, Yerevan is the administrative, cultural, and industrial centre of the country." as not answering
"Which river flows through Yerevan?" (0.22): the sentence speaks of other things. A model that must point at the
answer ("Hrazdan River") learns what kind of phrase a question asks for, as extractive question answering does
(SQuAD's span heads, with SQuAD 2.0's "no answer" at the first token). It reads one (question, sentence) pair
at a time, the sentence after its article's title; its score is the odds of its best phrase against no phrase,
as a probability (:attr:`AnswerSpan.probability`). Declining (:mod:`~selfrag_langchain.chains.declining`) reads
a quote whose finder probability is below ``min_quote_holds_answer`` as one that does not answer.

``selfrag train answer-finder`` makes it (:mod:`selfrag_langchain.trainer.finder`); like the sentence reader,
the trained layers and the span head ship in half precision (``answer_finder.safetensors``) beside a JSON card,
and the embeddings stay the shipped MiniLM's. On a CPU it runs in ONNX Runtime
(:mod:`~selfrag_langchain.judging.onnx_pairs`), with the same readings as torch's.
"""

from __future__ import annotations

import functools
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.judging.onnx_pairs import PairRuntime, checked_runtime, pair_network

__all__ = ["AnswerFinder", "AnswerSpan", "FinderCard"]

WEIGHTS_FILE = "answer_finder.safetensors"
CARD_FILE = "answer_finder.json"
SHIPPED_FINDER = Path(__file__).with_name("answer_finder")
"""The answer finder shipped with the package (``selfrag train answer-finder`` wrote it)."""
MAX_LENGTH = 128
"""Word pieces read per pair; a longer sentence is cut."""
MAX_SPAN = 30
"""The longest phrase, in word pieces, taken as an answer."""
CACHE_SIZE = 4096
"""Pairs whose readings a finder keeps (long form reads the same quote at each depth)."""
TRAINED_PREFIXES = ("bert.encoder.layer.", "qa_outputs.")
"""The weights a trained finder adds to the shipped MiniLM: its layers and its span head."""


@dataclass(frozen=True)
class AnswerSpan:
    """The phrase of a sentence a finder points at, and the log-odds of that phrase against no answer."""

    text: str
    odds: float

    @property
    def probability(self) -> float:
        """The odds as a probability: that the sentence holds an answer rather than none."""
        if self.odds >= 0:
            return 1.0 / (1.0 + math.exp(-self.odds))
        return math.exp(self.odds) / (1.0 + math.exp(self.odds))


@dataclass
class FinderCard:
    """How a finder was made (``answer_finder.json``)."""

    max_length: int = MAX_LENGTH
    provenance: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> FinderCard:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(max_length=int(data.get("max_length", MAX_LENGTH)), provenance=data.get("provenance", {}))

    def to_dict(self) -> dict[str, Any]:
        return {"max_length": self.max_length, "provenance": self.provenance}


def build_finder(base: str | Path) -> Any:
    """The finder's network: MiniLM with a span head (a start and an end logit per word piece)."""
    from transformers import AutoModelForQuestionAnswering
    from transformers.utils import logging

    verbosity = logging.get_verbosity()
    logging.set_verbosity_error()  # the span head is new: transformers would warn that it is untrained
    try:
        return AutoModelForQuestionAnswering.from_pretrained(str(base))
    finally:
        logging.set_verbosity(verbosity)


def finder_state(model: Any) -> dict[str, Any]:
    """The weights a trained finder adds to the shipped MiniLM (:data:`TRAINED_PREFIXES`)."""
    return {name: tensor.detach().to("cpu") for name, tensor in model.state_dict().items()
            if name.startswith(TRAINED_PREFIXES)}


def load_finder_weights(model: Any, directory: Path) -> None:
    """Put a trained finder's layers and head (``directory``'s half-precision weights) into ``model``.

    Raises:
        ModelLoadError: when the weights lack some of the layers a finder trains.
    """
    import torch
    from safetensors.torch import load_file

    weights = directory / WEIGHTS_FILE
    state = {k: v.to(torch.float32) for k, v in load_file(str(weights)).items()}
    missing = set(finder_state(model)) - set(state)
    if missing:
        msg = f"{weights} lacks {len(missing)} trained weights (first: {sorted(missing)[0]})"
        raise ModelLoadError(msg)
    model.load_state_dict(state, strict=False)


@functools.cache
def _no_phrase(size: int) -> Any:
    """A ``size`` x ``size`` mask, true where no phrase starts at the row and ends at the column: an end before
    its start, or more than :data:`MAX_SPAN` pieces (made once per size: a finder reads pairs of a few lengths)."""
    import torch

    ones = torch.ones(size, size, dtype=torch.bool)
    return ~(ones.triu() & ~ones.triu(MAX_SPAN))


def best_span(start: Any, end: Any, first: int, last: int) -> tuple[int, int, float]:
    """The best phrase ``(i, j, score)`` with ``first <= i <= j <= last`` and at most :data:`MAX_SPAN` pieces, its
    score the sum of its start and end logits."""
    scores = start[first:last + 1, None] + end[None, first:last + 1]
    size = scores.shape[0]
    scores = scores.masked_fill(_no_phrase(size), float("-inf"))
    flat = int(scores.argmax())
    i, j = divmod(flat, size)
    return first + i, first + j, float(scores[i, j])


class AnswerFinder:
    """A trained answer finder over the shipped MiniLM.

    Example:
        .. code-block:: python

            from selfrag_langchain.judging.finder import AnswerFinder

            finder = AnswerFinder()
            span = finder.find([("Which river flows through Yerevan?",
                                 "Yerevan: Situated along the Hrazdan River, Yerevan is the administrative, "
                                 "cultural, and industrial centre of the country.")])[0]
            span.text, span.probability   # ('Hrazdan River', 0.9...)
    """

    def __init__(self, directory: str | Path | None = None, *, base: str | Path | None = None,
                 batch_size: int = 32, runtime: PairRuntime = "onnx") -> None:
        """Args:
            directory: what ``selfrag train answer-finder`` wrote; None: the finder shipped with the package.
            base: the MiniLM directory it was trained over; None: the one shipped with the package.
            batch_size: pairs per forward pass.
            runtime: ``"onnx"``: ONNX Runtime on the CPU, the export built on first use; ``"torch"``: torch.
        """
        runtime = checked_runtime(runtime)
        directory = Path(directory) if directory is not None else SHIPPED_FINDER
        if not (directory / CARD_FILE).is_file() or not (directory / WEIGHTS_FILE).is_file():
            msg = (f"no answer finder in {directory}: it needs {CARD_FILE} and {WEIGHTS_FILE}, as "
                   "`selfrag train answer-finder` writes them")
            raise ModelLoadError(msg)
        self.card = FinderCard.load(directory / CARD_FILE)
        self.directory, self.base, self.batch_size, self.runtime = directory, base, batch_size, runtime
        self._network: tuple[Any, Any] | None = None
        self._cache: OrderedDict[tuple[str, str], AnswerSpan] = OrderedDict()
        self._lock = threading.Lock()  # a server judges requests in several threads

    def _loaded(self) -> tuple[Any, Any]:
        """The tokenizer and the network, loaded at the first reading."""
        with self._lock:
            if self._network is None:
                from transformers import AutoTokenizer

                from selfrag_langchain.embeddings import default_model_path

                base = Path(self.base) if self.base is not None else default_model_path()
                tokenizer = AutoTokenizer.from_pretrained(str(base))
                network = pair_network(self.runtime, "answer-finder", base,
                                       [self.directory / WEIGHTS_FILE, self.directory / CARD_FILE],
                                       lambda: self._torch_network(base), ("start_logits", "end_logits"), tokenizer)
                self._network = (tokenizer, network)
            return self._network

    def _torch_network(self, base: Path) -> Any:
        model = build_finder(base)
        load_finder_weights(model, self.directory)
        return model.eval()

    def find(self, pairs: Sequence[tuple[str, str]]) -> list[AnswerSpan]:
        """For each (question, sentence) pair, the phrase of the sentence that best answers the question and its
        odds against no answer; pairs read before are taken from a small cache, the rest batched by length."""
        import torch

        with self._lock:
            known = {pair: got for pair in pairs if (got := self._cache.get(pair)) is not None}
        todo = sorted({pair for pair in pairs if pair not in known}, key=lambda p: len(p[0]) + len(p[1]))
        if todo:
            tokenizer, model = self._loaded()
            with torch.inference_mode():
                for start in range(0, len(todo), self.batch_size):
                    chunk = todo[start:start + self.batch_size]
                    known.update(zip(chunk, self._read(tokenizer, model, chunk), strict=True))
            with self._lock:
                for pair in todo:
                    self._cache[pair] = known[pair]
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        return [known[pair] for pair in pairs]

    def _read(self, tokenizer: Any, model: Any, chunk: Sequence[tuple[str, str]]) -> list[AnswerSpan]:
        batch = tokenizer([q for q, _ in chunk], [s for _, s in chunk], padding=True, truncation="only_second",
                          max_length=self.card.max_length, return_tensors="pt", return_offsets_mapping=True)
        offsets = batch.pop("offset_mapping")
        output = model(**batch)
        spans = []
        for row, (_, sentence) in enumerate(chunk):
            pieces = [i for i, sequence in enumerate(batch.sequence_ids(row)) if sequence == 1]
            if not pieces:  # the question alone filled the pair
                spans.append(AnswerSpan("", float("-inf")))
                continue
            start, end = output["start_logits"][row], output["end_logits"][row]
            i, j, score = best_span(start, end, pieces[0], pieces[-1])
            none = float(start[0] + end[0])
            text = sentence[int(offsets[row, i, 0]):int(offsets[row, j, 1])]
            spans.append(AnswerSpan(text, score - none))
        return spans

    def holds_answer(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The probability that each (question, sentence) pair's sentence holds an answer to the question."""
        return [span.probability for span in self.find(pairs)]
