"""Int8 linear layers: close to float32, and each token read the same whatever shares its batch."""

from __future__ import annotations

import pytest
import torch

from selfrag_langchain.llms.int8 import Int8Linear, to_int8


@pytest.fixture
def linear() -> torch.nn.Linear:
    torch.manual_seed(0)
    return torch.nn.Linear(64, 48)


def test_an_int8_layer_gives_what_the_float_layer_gives_within_two_percent(linear: torch.nn.Linear) -> None:
    x = torch.randn(5, 7, 64)
    exact = linear(x)
    approx = Int8Linear(linear)(x)
    assert approx.shape == exact.shape and approx.dtype == exact.dtype
    assert float((approx - exact).norm() / exact.norm()) < 0.02


def test_a_token_reads_the_same_beside_a_token_a_thousand_times_larger(linear: torch.nn.Linear) -> None:
    """One scale per token: a batch-mate with huge activations (the first token of a sequence in a small LM)
    does not change another token's output by a bit."""
    layer = Int8Linear(linear)
    token = torch.randn(1, 64)
    alone = layer(token)
    beside = layer(torch.cat([token, 1000 * torch.randn(1, 64)]))[:1]
    assert torch.equal(alone, beside)


def test_one_scale_for_the_batch_would_crush_the_small_token(linear: torch.nn.Linear) -> None:
    """Why the scale is per token: with the batch's scale the small token keeps a few levels and its output
    is far from the float layer's; with its own it stays within two percent."""
    token, big = torch.randn(1, 64), 1000 * torch.randn(1, 64)
    exact = linear(token)
    mine = Int8Linear(linear)(torch.cat([token, big]))[:1]
    scale = torch.cat([token, big]).abs().max() / 127
    crushed = torch.nn.functional.linear(torch.round(token / scale) * scale, linear.weight, linear.bias)
    assert float((mine - exact).norm() / exact.norm()) < 0.02
    assert float((crushed - exact).norm() / exact.norm()) > 0.1


def test_a_layer_without_bias_stays_without(linear: torch.nn.Linear) -> None:
    bare = torch.nn.Linear(64, 48, bias=False)
    bare.weight.data.copy_(linear.weight.data)
    layer = Int8Linear(bare)
    assert layer.bias is None
    x = torch.randn(3, 64)
    assert float((layer(x) - bare(x)).norm() / bare(x).norm()) < 0.02


def test_every_linear_layer_of_a_model_is_replaced() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(),
                                torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.Linear(4, 2)))
    x = torch.randn(3, 8)
    before = model(x)
    to_int8(model)
    assert not any(isinstance(m, torch.nn.Linear) for m in model.modules())
    assert sum(isinstance(m, Int8Linear) for m in model.modules()) == 3
    assert float((model(x) - before).norm() / before.norm()) < 0.05
