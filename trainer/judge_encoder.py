"""Training the learned judge: the top layers of the shipped MiniLM and a head, read as a cross-encoder.

Rows come from critic-format files (GPT-4's labels, Self-RAG's own judgements, WiCE, BEGIN, and the
synthetic contrasts of ``selfrag train judge-data``), at most ``per_label`` of each (task, label) so that
no source or label decides alone. ``transformers.Trainer`` runs the loop: a fixed seed, a progress bar,
checkpoints in ``<out>/checkpoints`` and resuming from the last one when a run is restarted with the same
arguments. What is kept is small: the trained layers and the head in half precision, and a card of where
they came from.

Examples:
    selfrag train judge-encoder --data critic_train.jsonl judge_synthetic.jsonl --out my_judge
    selfrag ask --reflector learned --judge-encoder my_judge "Who wrote Hamlet?"
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import write_json_atomic
from selfrag_langchain.judging.encoder import (
    CARD_FILE,
    ENCODED_GROUPS,
    LABELS,
    MAX_LENGTH,
    WEIGHTS_FILE,
    EncoderCard,
    build_model,
    group_masks,
    pair_of,
    trained_state,
)
from selfrag_langchain.tokens import Group
from selfrag_langchain.trainer.critic_rows import CriticRow, capped, read_critic_rows
from selfrag_langchain.trainer.provenance import provenance
from selfrag_langchain.trainer.training import resumable_checkpoint, run_definition
from selfrag_langchain.trainer.training_config import JudgeEncoderConfig

Row = TypeVar("Row")


@dataclass(frozen=True)
class PairRow:
    """One labelled pair: the two texts the encoder reads, the group, and the label's index in LABELS."""

    first: str
    second: str
    group: Group
    label: int


def pair_rows(rows: Sequence[CriticRow], support_sentences: int | None = None, *, mark: bool = False
              ) -> list[PairRow]:
    """The rows of the encoded groups whose input is in the released layout, as labelled pairs (read as
    :func:`~selfrag_langchain.judging.encoder.pair_of` reads them at inference)."""
    out = []
    for row in rows:
        if row.group not in ENCODED_GROUPS or (query := row.query()) is None:
            continue
        first, second = pair_of(query, support_sentences, mark=mark)
        out.append(PairRow(first, second, row.group, LABELS.index(row.output)))
    return out


class PairDataset(Generic[Row]):
    """Labelled pairs (the judge encoder's, the sentence reader's) as the map-style dataset ``Trainer`` reads."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = list(rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> Row:
        return self.rows[index]


@dataclass
class PairCollator:
    """Tokenizes a batch of pairs together (padding to the longest, cutting the longer text first)."""

    tokenizer: Any
    max_length: int = MAX_LENGTH

    def __call__(self, rows: Sequence[PairRow]) -> dict[str, Any]:
        import torch

        batch = dict(self.tokenizer([r.first for r in rows], [r.second for r in rows], padding=True,
                                    truncation="longest_first", max_length=self.max_length, return_tensors="pt"))
        batch["group_mask"] = group_masks([r.group for r in rows])
        batch["labels"] = torch.tensor([r.label for r in rows])
        return batch


def train_encoder(config: JudgeEncoderConfig, *, base: str | Path | None = None) -> EncoderCard:
    """Train and write ``<out>/judge_encoder.safetensors`` and ``<out>/judge_encoder.json``.

    Args:
        config: the data, the output directory and the optimisation.
        base: the MiniLM directory to start from; None: the one shipped with the package.

    Raises:
        InputError: for bad data, or data without rows of the groups the encoder judges.
    """
    import torch
    from safetensors.torch import save_file
    from transformers import AutoTokenizer, Trainer, set_seed

    from selfrag_langchain.embeddings import default_model_path

    started = time.monotonic()
    data, seed, trained_layers = config.data, config.seed, config.trained_layers
    set_seed(seed)
    rows = pair_rows(capped(read_critic_rows(list(data)), config.per_label, seed), config.support_sentences,
                     mark=config.mark_unstated)
    if not rows:
        msg = f"{', '.join(data)} holds no relevance, groundedness or utility rows in the critic layout"
        raise InputError(msg)
    base = Path(base) if base is not None else default_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = build_model(base, trained_layers)
    out = Path(config.out)
    trainer = Trainer(model=model, args=config, train_dataset=PairDataset(rows),
                      data_collator=PairCollator(tokenizer, config.max_length))
    trainer.train(resume_from_checkpoint=resumable_checkpoint(Path(str(config.output_dir)),
                                                                 run_definition(config, rows)))
    counts: dict[str, int] = {}
    for row in rows:
        counts[LABELS[row.label]] = counts.get(LABELS[row.label], 0) + 1
    card = EncoderCard(trained_layers, max_length=config.max_length, support_sentences=config.support_sentences,
                       mark_unstated=config.mark_unstated, provenance={
        **provenance(data, seed), "base": "sentence-transformers/all-MiniLM-L6-v2",
        "per_label": config.per_label, "rows": len(rows), "labels": counts, "epochs": config.num_train_epochs,
        "learning_rate": config.learning_rate, "batch_size": config.per_device_train_batch_size,
        "seconds": round(time.monotonic() - started)})
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.to(torch.float16).contiguous() for k, v in trained_state(model, trained_layers).items()}
    tmp = out / (WEIGHTS_FILE + ".tmp")
    save_file(state, str(tmp))
    tmp.replace(out / WEIGHTS_FILE)
    write_json_atomic(out / CARD_FILE, card.to_dict())
    return card

