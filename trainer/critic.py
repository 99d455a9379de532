"""Critic training (paper Eq. 1): any causal LM learns (instruction, input) -> label, loss on the label only.

The training text is the released critic's prompt (:func:`~selfrag_langchain.prompts.paper_critic_prompt`),
wrapped in the tokenizer's chat template exactly when the transformers backend will wrap it at inference,
and the label is encoded on its own as the backend encodes label continuations; so the result plugs into
``CriticReflector(TransformersLLM(model=out), prompts="paper")`` unchanged.

Examples:
    selfrag train critic --data critic_train.jsonl --out critic-smollm2 --lora --per-group 100 --max-length 384
    selfrag train critic --data critic_train.jsonl --base meta-llama/Llama-2-7b-hf --out critic-7b \\
        --epochs 3 --batch-size 4 --gradient-accumulation-steps 8 --deepspeed zero3
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.llms.chat_templates import render_hf_chat, use_chat_template
from selfrag_langchain.tokens import TOKEN_GROUP
from selfrag_langchain.trainer.critic_rows import CriticRow, capped, read_critic_rows
from selfrag_langchain.trainer.masks import Encoder, Example, critic_example, hf_encoder
from selfrag_langchain.trainer.models import apply_lora, load_base, prepare_vocabulary
from selfrag_langchain.trainer.training import TrainingResult, run_training
from selfrag_langchain.trainer.training_config import CriticConfig


def select_rows(rows: list[CriticRow], config: CriticConfig) -> list[CriticRow]:
    """The tasks asked for; with ``per_label`` at most that many of each (task, label); with ``per_group`` a
    seeded random subset of at most that many per task (the label mix within a task kept); then ``limit``.
    Order is shuffled once, by the seed."""
    chosen = capped([r for r in rows if r.task in config.tasks], config.per_label, config.seed)
    rng = random.Random(config.seed)
    if config.per_group is not None:
        by_task: dict[str, list[CriticRow]] = defaultdict(list)
        for row in chosen:
            by_task[row.task].append(row)
        chosen = [row for task in config.tasks for row in rng.sample(by_task[task], min(config.per_group,
                                                                                        len(by_task[task])))]
    rng.shuffle(chosen)
    if config.limit is not None:
        chosen = chosen[: config.limit]
    if not chosen:
        msg = f"no critic rows for tasks {', '.join(config.tasks)} in {', '.join(config.data)}"
        raise InputError(msg)
    return chosen


def prompt_formatter(tokenizer: Any) -> Any:
    """The text the transformers backend will feed this critic for a prompt: chat-wrapped exactly when
    :func:`use_chat_template` says so for this tokenizer (with or without reflection tokens)."""
    vocab = tokenizer.get_vocab()
    wrap = use_chat_template(None, has_template=getattr(tokenizer, "chat_template", None) is not None,
                             has_reflection_tokens=all(tok in vocab for tok in TOKEN_GROUP))
    return (lambda prompt: render_hf_chat(tokenizer, prompt)) if wrap else (lambda prompt: prompt)


def fit_example(encode: Encoder, row: CriticRow, fmt: Any, max_length: int) -> Example | None:
    """The row as an example of at most ``max_length`` tokens: when too long, the end of the input text
    (the evidence, or the output when there is none) is cut; None if even the bare prompt is too long."""
    from selfrag_langchain.prompts import paper_critic_prompt

    text = row.input
    for _ in range(4):
        example = critic_example(encode, fmt(paper_critic_prompt(row.instruction, text)), row.output)
        overflow = len(example.input_ids) - max_length
        if overflow <= 0:
            return example
        ids, offsets = encode(text)
        keep = len(ids) - overflow - 4
        if keep <= 0:
            return None
        text = text[: offsets[keep][0]]
    return None


def build_examples(rows: list[CriticRow], tokenizer: Any, max_length: int) -> tuple[list[Example], int]:
    """Examples for ``rows`` and how many rows could not be fitted into ``max_length``."""
    encode, fmt = hf_encoder(tokenizer), prompt_formatter(tokenizer)
    examples, dropped = [], 0
    for row in rows:
        example = fit_example(encode, row, fmt, max_length)
        if example is None:
            dropped += 1
        else:
            examples.append(example)
    return examples, dropped


def train_critic(config: CriticConfig) -> TrainingResult:
    """Train a critic as ``config`` says and save it (full model or LoRA adapter) under ``config.out``.

    Raises:
        InputError: for bad data. ModelLoadError: for a base that cannot be loaded.
        ConfigurationError: for settings that do not fit together.
    """
    rows = select_rows(read_critic_rows(config.data), config)
    model, tokenizer = load_base(config)
    new_ids = prepare_vocabulary(model, tokenizer, config.add_tokens)
    examples, dropped = build_examples(rows, tokenizer, config.max_length)
    if not examples:
        msg = f"no critic example fits in max_length={config.max_length} tokens"
        raise InputError(msg)
    if config.lora:
        model = apply_lora(model, config, new_ids)
    notes = [f"{dropped} rows longer than max_length even without input text were left out"] if dropped else []
    return run_training(config, model, tokenizer, examples, notes)
