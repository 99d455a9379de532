"""Generator training (paper Eq. 2): the reflection tokens join the vocabulary, the model learns the output
with its reflection tokens, and each retrieved passage is masked out of the loss.

The prompt is the released generator's format (``### Instruction: … ### Response:``; an ``input`` is
joined to the instruction as inference joins a question to its task instruction), never chat-wrapped: a
model with the reflection tokens reads its own format, and the result loads with the inline reflector.

Examples:
    selfrag train generator --data generator_train.jsonl --out gen-smollm2 --lora --max-length 512
    accelerate launch --num_processes 4 -m selfrag_langchain.cli train generator \\
        --data selfrag_train.jsonl --base meta-llama/Llama-2-7b-hf --out selfrag-7b \\
        --epochs 3 --batch-size 4 --gradient-accumulation-steps 8 --learning-rate 2e-5 \\
        --max-length 2048 --deepspeed zero3
"""

from __future__ import annotations

from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.prompts import build_instruction, generator_prompt
from selfrag_langchain.trainer.data import read_jsonl
from selfrag_langchain.trainer.masks import Example, generator_example, hf_encoder
from selfrag_langchain.trainer.models import apply_lora, load_base, prepare_vocabulary
from selfrag_langchain.trainer.training import TrainingResult, run_training
from selfrag_langchain.trainer.training_config import GeneratorConfig


def training_prompt(record: dict[str, Any]) -> str:
    """The generator prompt of a training record, as inference builds it for the same question."""
    instruction, extra = record["instruction"], record.get("input")
    return generator_prompt(build_instruction(extra, instruction) if extra else instruction)


def build_examples(records: list[dict[str, Any]], tokenizer: Any, max_length: int) -> tuple[list[Example], int]:
    """Examples cut to ``max_length`` tokens, and how many records were left out because their prompt
    alone fills it (nothing of their output would be trained)."""
    encode = hf_encoder(tokenizer)
    examples, dropped = [], 0
    for record in records:
        example = generator_example(encode, training_prompt(record), record["output"], tokenizer.eos_token_id)
        example = example.truncated(max_length)
        if example.trained_tokens == 0:
            dropped += 1
        else:
            examples.append(example)
    return examples, dropped


def read_generator_records(paths: list[str], limit: int | None = None, held_out: int = 0) -> list[dict[str, Any]]:
    """Records with ``instruction`` and ``output`` (``input`` optional) from one or more files, each file's last
    ``held_out`` rows left out, then the first ``limit``.

    Raises:
        InputError: naming the file and line of a bad record, or an empty file.
    """
    records = []
    for path in paths:
        rows = read_jsonl(path, required=("instruction", "output"), optional_text=("input",))
        records.extend(rows[: len(rows) - held_out] if held_out else rows)
    return records[:limit] if limit is not None else records


def train_generator(config: GeneratorConfig) -> TrainingResult:
    """Train a Self-RAG generator as ``config`` says and save it under ``config.out``.

    Raises:
        InputError: for bad data. ModelLoadError: for a base that cannot be loaded.
        ConfigurationError: for settings that do not fit together.
    """
    records = read_generator_records(config.data, config.limit, config.held_out)
    model, tokenizer = load_base(config)
    new_ids = prepare_vocabulary(model, tokenizer, add_tokens=True)
    examples, dropped = build_examples(records, tokenizer, config.max_length)
    if not examples:
        msg = f"no generator example leaves room for its output within max_length={config.max_length} tokens"
        raise InputError(msg)
    if config.lora:
        model = apply_lora(model, config, new_ids)
    notes = [f"{dropped} records whose prompt fills max_length were left out"] if dropped else []
    return run_training(config, model, tokenizer, examples, notes)
