"""Loading a base model for training, wrapping it in LoRA, and saving what was trained.

A saved result loads anywhere a model argument is taken (``TransformersLLM(model=out)``,
``--model``/``--critic``): a full model directory, or a LoRA adapter directory whose
``base_model_name_or_path`` is the base as the user named it (``smollm2-135m-instruct``, a hub id, an
absolute path), so an adapter stays usable on another machine.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import ConfigurationError, ModelLoadError
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL, hf_location, resolve_model
from selfrag_langchain.trainer.training_config import TrainingConfig
from selfrag_langchain.trainer.vocabulary import add_reflection_tokens, reflection_token_ids


def load_base(config: TrainingConfig) -> tuple[Any, Any]:
    """A fresh, trainable copy of the base model and its (fast) tokenizer.

    Raises:
        ModelLoadError: when the base cannot be found or loaded.
        ConfigurationError: when its tokenizer is not a fast one (loss masks need character offsets).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    location = hf_location(config.base)
    dtype = torch.bfloat16 if config.bf16 and config.lora else torch.float32
    try:
        tokenizer = AutoTokenizer.from_pretrained(location)
        model = AutoModelForCausalLM.from_pretrained(location, dtype=dtype)
    except (OSError, ValueError) as e:
        msg = f"could not load base model '{config.base}': {e}"
        raise ModelLoadError(msg) from e
    if not getattr(tokenizer, "is_fast", False):
        msg = f"the tokenizer of '{config.base}' is not a fast tokenizer: training needs its character offsets"
        raise ConfigurationError(msg)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.config.use_cache = False
    return model, tokenizer


def prepare_vocabulary(model: Any, tokenizer: Any, add_tokens: bool) -> list[int]:
    """Add the reflection tokens when asked; the ids of those the tokenizer now has (trainable under LoRA)."""
    if not add_tokens:
        return []
    add_reflection_tokens(model, tokenizer)
    return reflection_token_ids(tokenizer)


def apply_lora(model: Any, config: TrainingConfig, new_token_ids: list[int]) -> Any:
    """Wrap ``model`` in a LoRA adapter; rows of added tokens stay trainable.

    The added tokens' embedding rows are trained through peft's trainable tokens (only those rows, not the
    whole matrix); with tied input and output embeddings peft ties the two, otherwise both matrices get
    the rows trained.
    """
    from peft import LoraConfig, get_peft_model

    target: str | list[str] = config.lora_target
    if target != "all-linear":
        target = [name.strip() for name in target.split(",") if name.strip()]
    trainable: list[int] | dict[str, list[int]] | None = None
    if new_token_ids:
        tied = bool(getattr(model.config, "tie_word_embeddings", False))
        trainable = list(new_token_ids)
        if not tied and model.get_output_embeddings() is not None:
            trainable = {_module_name(model, model.get_input_embeddings()): list(new_token_ids),
                         _module_name(model, model.get_output_embeddings()): list(new_token_ids)}
    lora = LoraConfig(
        r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=config.lora_dropout, target_modules=target,
        task_type="CAUSAL_LM", trainable_token_indices=trainable,
    )
    try:
        peft_model = get_peft_model(model, lora)
    except ValueError as e:
        msg = f"cannot apply LoRA to '{config.base}' with target modules {config.lora_target!r}: {e}"
        raise ConfigurationError(msg) from e
    if new_token_ids:
        # The added rows are saved as trainable tokens; peft's "auto" would also save both resized embedding
        # matrices whole (about 230 MB for SmolLM2), in the adapter and in every checkpoint.
        save = peft_model.save_pretrained
        peft_model.save_pretrained = functools.partial(save, save_embedding_layers=False)
    return peft_model


def _module_name(model: Any, module: Any) -> str:
    return next(name for name, m in model.named_modules() if m is module).split(".")[-1]


def portable_base_name(base: str) -> str:
    """The base as an adapter should record it: names and hub ids as given, local paths made absolute."""
    if base == DEFAULT_MODEL:
        return base
    source = resolve_model(base)
    path = Path(source.location)
    if path.exists():
        return str(path.resolve() / source.gguf_file if source.gguf_file else path.resolve())
    return base


def save_trained(trainer: Any, tokenizer: Any, config: TrainingConfig, out: Path) -> str:
    """Save what ``trainer`` trained under ``out`` (DeepSpeed gathers sharded weights, only the main process
    writes); returns ``"adapter"`` or ``"full"``."""
    import json

    if config.lora and config.merge:
        model = trainer.model.merge_and_unload()
        if trainer.is_world_process_zero():
            model.config.use_cache = True
            model.save_pretrained(out)
            tokenizer.save_pretrained(out)
        return "full"
    trainer.save_model(str(out))
    if trainer.is_world_process_zero():
        tokenizer.save_pretrained(out)
        adapter_config = out / "adapter_config.json"
        if config.lora and adapter_config.is_file():
            data = json.loads(adapter_config.read_text())
            data["base_model_name_or_path"] = portable_base_name(config.base)
            adapter_config.write_text(json.dumps(data, indent=2) + "\n")
    return "adapter" if config.lora else "full"
