"""Adding the reflection tokens to a base model's vocabulary, as Self-RAG generator training needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selfrag_langchain.tokens import CHECKPOINT_TOKEN_ORDER


def add_reflection_tokens(model: Any, tokenizer: Any) -> int:
    """Add the 15 Self-RAG strings as special tokens and resize the embeddings.

    New embedding (and untied output) rows start at the mean of the existing tokens' rows rather than at
    random, so the new tokens begin as an average token instead of noise. Tokens already present are
    left as they are. A model whose embedding matrix already has spare rows (padded to a multiple) is
    never shrunk: the new ids may fall inside it.

    Returns:
        The number of tokens added.
    """
    import torch

    missing = [tok for tok in CHECKPOINT_TOKEN_ORDER if tok not in tokenizer.get_vocab()]
    if not missing:
        return 0
    known = len(tokenizer)
    tokenizer.add_tokens(missing, special_tokens=True)
    new_ids = torch.tensor(tokenizer.convert_tokens_to_ids(missing))
    rows = model.get_input_embeddings().weight.shape[0]
    if len(tokenizer) > rows:
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    with torch.no_grad():
        for matrix in {id(m): m for m in (model.get_input_embeddings(), model.get_output_embeddings()) if m}.values():
            weight = matrix.weight
            weight[new_ids] = weight[: min(known, rows)].mean(dim=0, keepdim=True).to(weight.dtype)
    return len(missing)


def reflection_token_ids(tokenizer: Any) -> list[int]:
    """Ids of the 15 strings in a tokenizer that has them, in checkpoint order."""
    vocab = tokenizer.get_vocab()
    return [vocab[tok] for tok in CHECKPOINT_TOKEN_ORDER if tok in vocab]


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
