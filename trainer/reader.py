"""Training the sentence reader (:mod:`selfrag_langchain.judging.reader`) on ``../shared/data``'s ``nli/`` and
``squad/`` pairs (:mod:`~selfrag_langchain.trainer.reader_data`).

``transformers.Trainer`` runs the loop: a fixed seed, a progress bar, checkpoints in ``<out>/checkpoints`` and
resuming from the last one when a run is restarted with the same arguments (a run longer than one sitting goes
in the background with a log). What is kept is small: the trained layers and the head in half precision, a
card of how they were made, and ``held_out.json``, the reader's figures on the held-out slices.

Examples:
    selfrag train reader --config trainer/configs/reader.yaml
    selfrag train reader --nli ../shared/data/nli --squad ../shared/data/squad --out my_reader --epochs 0.5
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import write_json_atomic
from selfrag_langchain.judging.reader import (
    CARD_FILE,
    HEAD_LABELS,
    WEIGHTS_FILE,
    ReaderCard,
    SentenceReader,
    build_reader,
    load_reader_weights,
    reader_state,
    reading_masks,
)
from selfrag_langchain.trainer.judge_encoder import PairDataset
from selfrag_langchain.trainer.provenance import provenance
from selfrag_langchain.trainer.reader_data import (
    NLI_FILES,
    SELQA_DEV,
    SQUAD_FILES,
    ReaderPair,
    build,
    label_counts,
)
from selfrag_langchain.trainer.reader_eval import evaluate_pairs
from selfrag_langchain.trainer.training import resumable_checkpoint, run_definition
from selfrag_langchain.trainer.training_config import ReaderConfig

HELD_OUT_FILE = "held_out.json"


@dataclass
class ReaderCollator:
    """Tokenizes a batch of pairs together (padding to the longest, cutting the longer text first)."""

    tokenizer: Any
    max_length: int

    def __call__(self, rows: Sequence[ReaderPair]) -> dict[str, Any]:
        import torch

        batch = dict(self.tokenizer([r.first for r in rows], [r.second for r in rows], padding=True,
                                    truncation="longest_first", max_length=self.max_length, return_tensors="pt"))
        batch["group_mask"] = reading_masks([r.reading for r in rows])
        batch["labels"] = torch.tensor([r.label for r in rows])
        return batch


def length_grouped_trainer() -> type:
    """``transformers.Trainer`` drawing batches of pairs of similar length (by characters), in a random order:
    NLI premises and SQuAD sentences differ in length fourfold, and padding every batch to its longest pair
    would triple the time of a CPU run."""
    from transformers import Trainer
    from transformers.trainer_pt_utils import LengthGroupedSampler

    class LengthGroupedTrainer(Trainer):
        def _get_train_sampler(self, train_dataset: Any = None) -> Any:
            dataset = train_dataset if train_dataset is not None else self.train_dataset
            return LengthGroupedSampler(self.args.train_batch_size * self.args.gradient_accumulation_steps,
                                        lengths=[len(p.first) + len(p.second) for p in dataset.rows])

    return LengthGroupedTrainer


def started_from(model: Any, config: ReaderConfig) -> dict[str, Any] | None:
    """Load ``config.init``'s trained weights into ``model`` and return how that reader was made (its card's
    provenance, for the new card); None without ``init``.

    Raises:
        InputError: when ``init`` holds no reader, or one of other labels or another number of trained layers.
    """
    if not config.init:
        return None
    directory = Path(config.init)
    if not (directory / CARD_FILE).is_file() or not (directory / WEIGHTS_FILE).is_file():
        msg = f"init: no sentence reader in {directory} (it needs {CARD_FILE} and {WEIGHTS_FILE})"
        raise InputError(msg)
    card = ReaderCard.load(directory / CARD_FILE)
    if tuple(card.labels) != HEAD_LABELS or card.trained_layers != config.trained_layers:
        msg = (f"init: {directory} was trained with {card.trained_layers} layers for {card.labels}; this run "
               f"trains {config.trained_layers} layers for {list(HEAD_LABELS)}")
        raise InputError(msg)
    load_reader_weights(model, directory, config.trained_layers)
    return {"directory": str(directory), "provenance": card.provenance}


def train_reader(config: ReaderConfig, *, base: str | Path | None = None) -> ReaderCard:
    """Train, write ``<out>/sentence_reader.safetensors`` and ``<out>/sentence_reader.json``, and report the
    held-out slices in ``<out>/held_out.json``.

    Raises:
        InputError: for a missing or malformed data file, or an ``init`` that is no reader of the same shape.
    """
    import torch
    from safetensors.torch import save_file
    from transformers import AutoTokenizer, set_seed

    from selfrag_langchain.embeddings import default_model_path

    started = time.monotonic()
    set_seed(config.seed)
    data = build(config.nli, config.squad, seed=config.seed, snli=config.snli,
                 squad_paragraphs=config.squad_paragraphs, contrasts_per_kind=config.contrasts_per_kind,
                 held_mnli=config.held_mnli, held_halueval=config.held_halueval,
                 hard_negatives=config.hard_negatives, own=config.pairs, selqa_dev=config.selqa_dev,
                 replay=config.replay, lead_questions=config.lead_questions,
                 swapped_questions=config.swapped_questions)
    base = Path(base) if base is not None else default_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = build_reader(base, config.trained_layers)
    init = started_from(model, config)
    LengthGroupedTrainer = length_grouped_trainer()
    out = Path(config.out)
    trainer = LengthGroupedTrainer(model=model, args=config, train_dataset=PairDataset(data.train),
                                   data_collator=ReaderCollator(tokenizer, config.max_length))
    trainer.train(resume_from_checkpoint=resumable_checkpoint(Path(str(config.output_dir)),
                                                                 run_definition(config, data.train)))
    seconds = round(time.monotonic() - started)
    files = [*(Path(config.nli) / f for f in NLI_FILES.values()),
             *(Path(config.squad) / f for f in SQUAD_FILES.values()),
             *([Path(config.squad) / SELQA_DEV] if config.selqa_dev else []), *map(Path, config.pairs)]
    card = ReaderCard(config.trained_layers, max_length=config.max_length, provenance={
        **provenance(files, config.seed), "base": "sentence-transformers/all-MiniLM-L6-v2",
        "pairs": len(data.train), "labels": label_counts(data.train),
        "held_out": {name: len(pairs) for name, pairs in data.held_out.items()},
        "snli": config.snli, "squad_paragraphs": config.squad_paragraphs,
        "contrasts_per_kind": config.contrasts_per_kind, "hard_negatives": config.hard_negatives,
        "selqa_dev": config.selqa_dev, "replay": config.replay, "lead_questions": config.lead_questions,
        "swapped_questions": config.swapped_questions,
        "init": init, "epochs": config.num_train_epochs,
        "learning_rate": config.learning_rate, "batch_size": config.per_device_train_batch_size, "seconds": seconds})
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.to(torch.float16).contiguous() for k, v in reader_state(model, config.trained_layers).items()}
    tmp = out / (WEIGHTS_FILE + ".tmp")
    save_file(state, str(tmp))
    tmp.replace(out / WEIGHTS_FILE)
    write_json_atomic(out / CARD_FILE, card.to_dict())
    # as it will be used, the half-precision weights; in torch: a one-off reading is not worth an export
    reader = SentenceReader(out, base=base, runtime="torch")
    write_json_atomic(out / HELD_OUT_FILE, {name: evaluate_pairs(reader, pairs)
                                            for name, pairs in data.held_out.items()})
    return card
