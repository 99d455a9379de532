"""One training loop for critic and generator: ``transformers.Trainer`` on prepared examples.

The same code runs on one CPU, one GPU, or many GPUs under ``accelerate launch`` / ``torchrun`` with
DeepSpeed ZeRO-2 or ZeRO-3 (``--deepspeed zero3``): Trainer takes the device, mixed precision, gradient
accumulation, checkpoints and resuming from :class:`~selfrag_langchain.trainer.training_config.TrainingConfig`,
which is its ``TrainingArguments``.
The model is loaded (and its vocabulary extended) before DeepSpeed sees it, so the mean-initialised rows
of new tokens are written into whole matrices, not shards.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.files.durable import write_json_atomic, write_text_atomic
from selfrag_langchain.trainer.collators import ExampleDataset, PaddingCollator
from selfrag_langchain.trainer.masks import Example
from selfrag_langchain.trainer.models import save_trained
from selfrag_langchain.trainer.provenance import provenance
from selfrag_langchain.trainer.training_config import CHECKPOINT_DIR, TrainingConfig

if TYPE_CHECKING:
    from transformers import TrainingArguments

TRAINER_STATE = "trainer_state.json"
"""What Hugging Face's Trainer writes last into a checkpoint (``TRAINER_STATE_NAME``)."""
LOG_FILE = "training_log.jsonl"
SUMMARY_FILE = "selfrag_training.json"


@dataclass
class TrainingResult:
    """What a run produced: where, what kind of artefact, and how the loss went."""

    out: str
    saved: str
    """``adapter`` (LoRA adapter and tokenizer) or ``full`` (a whole model directory)."""
    examples: int
    steps: int
    seconds: float
    losses: list[float] = field(default_factory=list)
    """The training loss at each logging step."""
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        first = f"{self.losses[0]:.3f}" if self.losses else "n/a"
        last = f"{self.losses[-1]:.3f}" if self.losses else "n/a"
        return (f"saved {self.saved} model to {self.out}: {self.examples} examples, {self.steps} steps, "
                f"{self.seconds:.0f} s, loss {first} -> {last}")


TOKEN_ROWS = "trainable_tokens"
"""Name part of peft's parameters holding the added tokens' embedding rows under LoRA."""


def _optimizer(config: TrainingConfig, model: Any) -> Any:
    """Under LoRA with added tokens: AdamW with their embedding rows in a group of their own, at
    ``token_learning_rate``. Otherwise None, and the Trainer builds its default optimizer."""
    import torch

    params = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    rows = [p for name, p in params if TOKEN_ROWS in name]
    if not (config.lora and rows):
        return None
    rest = [p for name, p in params if TOKEN_ROWS not in name]
    groups = [{"params": rest, "lr": config.learning_rate},
              {"params": rows, "lr": config.token_learning_rate, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=config.learning_rate, weight_decay=config.weight_decay)


def _resume_point(config: TrainingConfig, examples: Sequence[Example], notes: list[str] | None = None) -> str | None:
    """The checkpoint to resume from (the latest complete one) or None to start fresh; refuses to silently
    mix runs (checkpoints without ``resume``, or of another run: :func:`resumable_checkpoint`). A checkpoint is
    complete once the trainer wrote its state, which it does last: a run killed while saving leaves one without
    it, which is skipped with a note."""
    checkpoints = Path(config.output_dir or Path(config.out) / CHECKPOINT_DIR)
    if _checkpoints(checkpoints) and not config.resume:
        msg = f"{checkpoints} holds checkpoints of an earlier run: pass --resume to continue it, or use another --out"
        raise ConfigurationError(msg)
    return resumable_checkpoint(checkpoints, run_definition(config, examples), notes)


def first_process() -> bool:
    """Whether this is the first (or only) process of a run, the one that writes what all of them share."""
    return int(os.environ.get("RANK", "0")) == 0


RUN_FILE = "selfrag_run.json"
"""Written beside a run's checkpoints when it starts: what defines the run (:func:`run_definition`), so that
a re-run resumes only the same run."""
OPTIMISATION = ("learning_rate", "lr_scheduler_type", "warmup_ratio", "warmup_steps", "weight_decay",
                "max_grad_norm", "adam_beta1", "adam_beta2", "adam_epsilon", "optim", "per_device_train_batch_size",
                "gradient_accumulation_steps", "seed", "data_seed", "bf16", "fp16", "deepspeed")
"""The ``TrainingArguments`` fields that change what a run computes. The rest place or log it, or set its
length (``num_train_epochs``, ``max_steps``): a re-run with more epochs goes on with the same run."""
PLACEMENT = ("out", "output_dir", "resume", "merge", "data", "nli", "squad", "pairs")
"""A step's own fields that say where a run goes, how its result is saved, or where its data is read from (the
data's hash stands for what was read, wherever it lies)."""


def run_definition(config: TrainingArguments, data: Iterable[Any]) -> dict[str, Any]:
    """What defines a training run: the optimisation arguments (:data:`OPTIMISATION`), the step's own arguments
    (those its config declares beside ``TrainingArguments``', except :data:`PLACEMENT`), the number of processes,
    and a SHA-256 of the training data itself (each item's ``repr``, in order), which a change of data file or of
    how it is drawn changes. As JSON stores it."""
    from transformers import TrainingArguments

    own = [f.name for f in fields(config)
           if f.name not in TrainingArguments.__dataclass_fields__ and f.name not in PLACEMENT]
    arguments = {name: getattr(config, name) for name in (*OPTIMISATION, *own) if hasattr(config, name)}
    arguments["processes"] = int(os.environ.get("WORLD_SIZE", "1"))  # the effective batch is per process
    digest = hashlib.sha256()
    for item in data:
        digest.update(repr(item).encode("utf-8"))
        digest.update(b"\0")
    return json.loads(json.dumps({"arguments": arguments, "data": digest.hexdigest()}, default=str))


def resumable_checkpoint(checkpoints: Path, run: dict[str, Any], notes: list[str] | None = None) -> str | None:
    """The newest complete checkpoint under ``checkpoints`` (:func:`latest_complete_checkpoint`) when they are
    of the same run (``run``, :func:`run_definition`); None when there are none, and the run's definition is
    written there for a later re-run to compare.

    Raises:
        ConfigurationError: when the checkpoints are of a run with other arguments or data, or record none.
    """
    recorded_file = checkpoints / RUN_FILE
    if not _checkpoints(checkpoints):
        if first_process():
            write_json_atomic(recorded_file, run)
        return None
    try:
        recorded = json.loads(recorded_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recorded = None
    if recorded != run:
        if not isinstance(recorded, dict):
            why = f"record no run definition ({RUN_FILE})"
        else:
            old, new = recorded.get("arguments") or {}, run["arguments"]
            changed = sorted(k for k in old.keys() | new.keys() if k not in old or k not in new or old[k] != new[k])
            if recorded.get("data") != run["data"]:
                changed.append("the training data")
            what = ", ".join(changed) or "its definition"
            why = f"are of another run ({what} {'differs' if len(changed) <= 1 else 'differ'})"
        msg = f"the checkpoints in {checkpoints} {why}: delete them to start again, or use another out directory"
        raise ConfigurationError(msg)
    return latest_complete_checkpoint(checkpoints, notes)


def _checkpoints(checkpoints: Path) -> list[Path]:
    """The trainer's checkpoint directories under ``checkpoints``, newest first."""
    if not checkpoints.is_dir():
        return []
    return sorted((p for p in checkpoints.glob("checkpoint-*") if p.is_dir() and p.name[11:].isdigit()),
                  key=lambda p: int(p.name[11:]), reverse=True)


def latest_complete_checkpoint(checkpoints: Path, notes: list[str] | None = None) -> str | None:
    """The newest checkpoint under ``checkpoints`` that the trainer finished saving (it writes its state last:
    a run killed while saving leaves one without it, skipped with a note); None when there is none."""
    for checkpoint in _checkpoints(checkpoints):
        if _saved_step(checkpoint) is not None:
            return str(checkpoint)
        if notes is not None:
            notes.append(f"{checkpoint.name} is incomplete (the run stopped while saving it): skipped")
    return None


def _saved_step(checkpoint: Path) -> int | None:
    """The step a checkpoint's trainer state records; None while it is missing or cut short (the trainer
    writes it last, and not atomically)."""
    try:
        return int(json.loads((checkpoint / TRAINER_STATE).read_text())["global_step"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _trim_log(log_path: Path, checkpoint: str | None) -> None:
    """Drop the loss-log lines of steps after ``checkpoint`` (all of them for a fresh start): the run logs
    them again."""
    if not log_path.is_file():
        return
    step = (_saved_step(Path(checkpoint)) or 0) if checkpoint is not None else 0
    kept = []
    for line in log_path.read_text(encoding="utf-8").splitlines():
        try:
            if int(json.loads(line)["step"]) <= step:
                kept.append(line + "\n")
        except (ValueError, KeyError, TypeError):
            continue  # a line torn by the kill
    write_text_atomic(log_path, "".join(kept))


def run_training(config: TrainingConfig, model: Any, tokenizer: Any, examples: list[Example],
                 notes: list[str] | None = None) -> TrainingResult:
    """Train ``model`` on ``examples`` and save the result under ``config.out``.

    Raises:
        ConfigurationError: for an output directory with another run's checkpoints (without ``resume``).
    """
    from transformers import Trainer, TrainerCallback

    out = Path(config.out)
    notes = list(notes or [])
    resume = _resume_point(config, examples, notes)
    if config.resume and resume is None:
        notes.append("no checkpoint to resume from: started from the base model")
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / LOG_FILE
    if first_process():  # one process of a multi-GPU run rewrites the log
        _trim_log(log_path, resume)

    class _LossLog(TrainerCallback):
        """Appends every logged dict (loss, learning rate, grad norm) with its step to the loss log."""

        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
                   **kwargs: Any) -> None:
            if logs and state.is_world_process_zero:
                with log_path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"step": state.global_step, **logs}) + "\n")

    trainer = Trainer(
        model=model,
        args=config,
        train_dataset=ExampleDataset(examples),
        data_collator=PaddingCollator(pad_id=int(tokenizer.pad_token_id)),
        processing_class=tokenizer,
        callbacks=[_LossLog()],
        optimizers=(_optimizer(config, model), None),
    )
    start = time.perf_counter()
    trainer.train(resume_from_checkpoint=resume)
    seconds = time.perf_counter() - start
    saved = save_trained(trainer, tokenizer, config, out)
    losses = [float(entry["loss"]) for entry in trainer.state.log_history if "loss" in entry]
    result = TrainingResult(str(out), saved, len(examples), int(trainer.state.global_step), seconds, losses, notes)
    if trainer.is_world_process_zero():
        summary = {"config": config.to_dict(), "provenance": provenance(config.data, config.seed),
                   "result": asdict(result), "log_history": trainer.state.log_history}
        write_text_atomic(out / SUMMARY_FILE, json.dumps(summary, indent=2, default=str) + "\n")
    return result
