"""Prompt caches: a prompt that begins as a recent one is read from where they part, with the same result."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from selfrag_langchain.llms.model_cache import returned_cache, with_cache  # noqa: E402
from selfrag_langchain.llms.prompt_caches import PromptCaches  # noqa: E402


@pytest.fixture(scope="module")
def model() -> Any:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)
    return transformers.LlamaForCausalLM(config).eval()


class _Reader:
    """Reads ids on top of a cache, counting the tokens it runs."""

    def __init__(self, model: Any) -> None:
        self.model, self.tokens = model, 0

    def __call__(self, ids: list[int], cache: Any) -> Any:
        self.tokens += len(ids)
        with torch.inference_mode():
            return self.model(torch.tensor([ids]), **with_cache(self.model, cache), use_cache=True, logits_to_keep=1)


def _ids(n: int, seed: int) -> list[int]:
    return torch.randint(0, 64, (n,), generator=torch.Generator().manual_seed(seed)).tolist()


def _bytes_of_one(model: Any, n: int) -> int:
    out = _Reader(model)(_ids(n, 0), None)
    return sum(layer.keys.nbytes + layer.values.nbytes for layer in returned_cache(out).layers)


def test_a_prompt_that_extends_a_recent_one_reads_only_its_new_tokens(model: Any) -> None:
    caches, reader = PromptCaches(model, budget_bytes=2**30, min_shared=8), _Reader(model)
    first = _ids(40, 1)
    caches.read(first, reader)
    stored = [layer.keys.clone() for layer in caches._entries[tuple(first)][0].layers]
    longer = first[:30] + _ids(12, 2)  # parts from the first after 30 tokens
    out = caches.read(longer, reader)
    assert reader.tokens == 40 + 12
    whole = _Reader(model)(longer, None)
    assert torch.allclose(out.logits[0, -1], whole.logits[0, -1], atol=1e-5)
    assert returned_cache(out).get_seq_length() == len(longer)
    kept = caches._entries[tuple(first)][0].layers
    assert all(torch.equal(a, layer.keys) for a, layer in zip(stored, kept, strict=True))  # the stored one unchanged


def test_the_last_token_is_read_even_when_the_whole_prompt_is_stored(model: Any) -> None:
    caches, reader = PromptCaches(model, budget_bytes=2**30, min_shared=8), _Reader(model)
    prompt = _ids(20, 3)
    first = caches.read(prompt, reader)
    again = caches.read(prompt, reader)
    assert reader.tokens == 20 + 1
    assert torch.allclose(first.logits[0, -1], again.logits[0, -1], atol=1e-5)


def test_a_short_shared_prefix_is_read_again(model: Any) -> None:
    caches, reader = PromptCaches(model, budget_bytes=2**30, min_shared=8), _Reader(model)
    first = _ids(20, 4)
    caches.read(first, reader)
    caches.read(first[:7] + _ids(10, 5), reader)  # 7 shared tokens, fewer than 8
    assert reader.tokens == 20 + 17


def test_the_least_recently_used_prompt_leaves_first_within_the_budget(model: Any) -> None:
    caches = PromptCaches(model, budget_bytes=2 * _bytes_of_one(model, 16), min_shared=4)
    reader = _Reader(model)
    a, b, c = _ids(16, 6), _ids(16, 7), _ids(16, 8)
    caches.read(a, reader)
    caches.read(b, reader)
    caches.read(a[:10] + _ids(6, 9), reader)  # uses a (now the most recent) and stores a third prompt: b leaves
    assert tuple(a) in caches._entries and tuple(b) not in caches._entries
    caches.read(c, reader)
    assert len(caches._entries) == 2 and tuple(c) in caches._entries
    assert caches._bytes <= caches.budget_bytes
