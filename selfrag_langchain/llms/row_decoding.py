"""Greedy decoding of a batch whose prompts are read one at a time and whose finished rows leave the batch.

On a CPU a padded batch pays for its padding: ten passages of 100 to 250 tokens read together cost what ten
of 250 cost, and every row goes on being decoded until the batch's longest answer ends. Reading each prompt
alone, stacking the caches behind left padding, and decoding only the rows still writing gives the tokens
``generate`` gives in about four fifths of its time (long-form steps of three to ten candidates).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from selfrag_langchain.llms.model_cache import returned_cache, with_cache

RowHook = Callable[[Any, Any], Any]
"""Called with the rows' ids so far (prompts left-padded to one width) and the step's scores, as transformers'
logits processors (returning new scores) and stopping criteria (returning one bool a row) are."""


@dataclass
class DecodedRow:
    """What one prompt's row wrote, with the log-probabilities read from the model's own logits."""

    tokens: list[int] = field(default_factory=list)
    chosen: list[float] = field(default_factory=list)
    """The log-probability of each token written."""
    groups: list[list[float]] = field(default_factory=list)
    """At each step, the log-probabilities of the reflection tokens (in the order given)."""


def decode_rows(model: Any, read: Callable[[list[int]], Any], prompts: Sequence[list[int]], *, max_new_tokens: int,
                eos_ids: Collection[int], reflection_ids: Sequence[int], pad_id: int,
                processors: Sequence[RowHook] = (), stopping: Sequence[RowHook] = ()) -> list[DecodedRow]:
    """Greedy continuations of ``prompts`` (token ids, none empty).

    ``read(ids)`` runs one prompt from an empty cache and returns the model's output (its last position's
    logits and its cache). ``processors`` change the scores a token is chosen by, not the log-probabilities
    reported; a row ends at an end token, when a ``stopping`` criterion says so, or after ``max_new_tokens``.
    """
    import torch

    rows = [DecodedRow() for _ in prompts]
    if max_new_tokens < 1 or not prompts:
        return rows
    with torch.inference_mode():
        device = model.device
        outputs = [read(ids) for ids in prompts]
        width = max(len(ids) for ids in prompts)
        cache = _stacked(model, [returned_cache(out) for out in outputs], [width - len(ids) for ids in prompts])
        ids = torch.full((len(prompts), width), pad_id, dtype=torch.long, device=device)
        mask = torch.zeros((len(prompts), width), dtype=torch.long, device=device)
        for i, prompt in enumerate(prompts):
            ids[i, width - len(prompt) :] = torch.tensor(prompt, device=device)
            mask[i, width - len(prompt) :] = 1
        positions = torch.tensor([len(p) for p in prompts], device=device)
        logits = torch.cat([out.logits[:, -1] for out in outputs])
        reflection = torch.tensor(list(reflection_ids), dtype=torch.long, device=device)
        ends = torch.tensor(sorted(eos_ids), dtype=torch.long, device=device)
        active = list(range(len(prompts)))
        for step in range(max_new_tokens):
            scores = logits
            for processor in processors:
                scores = processor(ids, scores)
            chosen = scores.argmax(dim=-1)
            norm = torch.logsumexp(logits.float(), dim=-1, keepdim=True)
            picked = (logits.gather(1, chosen[:, None]).float() - norm)[:, 0].tolist()
            groups = (logits.index_select(1, reflection).float() - norm).tolist()
            for j, i in enumerate(active):
                rows[i].tokens.append(int(chosen[j]))
                rows[i].chosen.append(picked[j])
                rows[i].groups.append(groups[j])
            ids = torch.cat([ids, chosen[:, None]], dim=1)
            mask = torch.cat([mask, mask.new_ones((len(active), 1))], dim=1)
            done = torch.isin(chosen, ends)
            for criterion in stopping:
                done = done | criterion(ids, scores).to(done.device)
            if step == max_new_tokens - 1 or bool(done.all()):
                break
            if bool(done.any()):  # the finished rows leave the batch and its cache
                keep = (~done).nonzero().flatten()
                cache.batch_select_indices(keep)
                ids, mask, positions, chosen = ids[keep], mask[keep], positions[keep], chosen[keep]
                active = [active[j] for j in keep.tolist()]
            out = model(chosen[:, None], attention_mask=mask, position_ids=positions[:, None],
                        **with_cache(model, cache), use_cache=True)
            positions = positions + 1
            logits = out.logits[:, -1]
    return rows


def _stacked(model: Any, caches: Sequence[Any], pads: Sequence[int]) -> Any:
    """One batch cache of single-prompt caches, each left-padded to the longest (the mask hides the pads)."""
    import torch
    from torch.nn.functional import pad as pad_left
    from transformers import DynamicCache

    stacked = DynamicCache(config=model.config)
    for layer in range(len(caches[0].layers)):
        keys, values = [], []
        for cache, pad in zip(caches, pads, strict=True):
            keys.append(pad_left(cache.layers[layer].keys, (0, 0, pad, 0)))
            values.append(pad_left(cache.layers[layer].values, (0, 0, pad, 0)))
        stacked.update(torch.cat(keys), torch.cat(values), layer)
    return stacked
