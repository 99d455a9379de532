"""Adding the reflection tokens to a base model's vocabulary, as Self-RAG generator training needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selfrag_langchain.tokens import CHECKPOINT_TOKEN_ORDER


def add_reflection_tokens(model: Any, tokenizer: Any) -> int:
    """Add the 15 Self-RAG strings as special tokens and resize the embeddings.

    New embedding (and untied output) rows start at the mean of the existing rows rather than at
    random, so the new tokens begin as an average token instead of noise. Tokens already present are
    left as they are.

    Returns:
        The number of tokens added.
    """
    import torch

    missing = [tok for tok in CHECKPOINT_TOKEN_ORDER if tok not in tokenizer.get_vocab()]
    if not missing:
        return 0
    old_size = model.get_input_embeddings().weight.shape[0]
    tokenizer.add_tokens(missing, special_tokens=True)
    model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    with torch.no_grad():
        for matrix in {id(m): m for m in (model.get_input_embeddings(), model.get_output_embeddings()) if m}.values():
            weight = matrix.weight
            weight[old_size:] = weight[:old_size].mean(dim=0, keepdim=True)
    return len(missing)


def save_with_reflection_tokens(model: Any, tokenizer: Any, path: str | Path) -> Path:
    """Save a copy of ``model`` and ``tokenizer`` with the reflection tokens added; the originals are
    left unchanged (they may be shared with other users of the loaded model)."""
    import copy

    model, tokenizer = copy.deepcopy(model), copy.deepcopy(tokenizer)
    add_reflection_tokens(model, tokenizer)
    path = Path(path)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
