"""Linear layers in int8 for the CPU: weights per output channel, activations per token, as each step runs.

A small generator's decoding on the CPU is bound by reading its weights: SmolLM2-135M in float32 reads 540 MB for
every token step. Int8 weights read a quarter of that, and ``torch._int_mm`` multiplies int8 by int8 into int32
with the CPU's integer dot products. Each token's activations get their own scale: the first token's activations
are hundreds of times larger than the rest in such models, and one scale for a whole batch (torch's dynamic
quantisation) would crush every other token to a few levels. Rounding to int8 still magnifies the float noise of
padding, so a prompt's greedy generation can differ between a batch and a call of its own, as a float32
generation rarely does.
"""

from __future__ import annotations

from typing import Any

import torch


class Int8Linear(torch.nn.Module):
    """A :class:`torch.nn.Linear` whose weights are int8 with one scale per output channel and whose input is
    quantised to int8 with one scale per token (symmetric, 127 levels each side)."""

    def __init__(self, linear: torch.nn.Linear) -> None:
        super().__init__()
        weight = linear.weight.detach().float()
        scale = weight.abs().amax(dim=1).clamp(min=1e-12) / 127.0
        self.register_buffer("weight_t", torch.round(weight / scale[:, None]).to(torch.int8).t().contiguous())
        self.register_buffer("weight_scale", scale)
        self.bias = None if linear.bias is None else torch.nn.Parameter(linear.bias.detach().float(),
                                                                        requires_grad=False)
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, self.in_features).float()
        scale = rows.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 127.0
        quantised = torch.round(rows / scale).to(torch.int8)
        out = torch._int_mm(quantised, self.weight_t).float() * scale * self.weight_scale
        if self.bias is not None:
            out = out + self.bias
        return out.reshape(*x.shape[:-1], self.out_features).to(x.dtype)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


def to_int8(model: Any) -> Any:
    """``model`` with each of its linear layers replaced, in place, by an :class:`Int8Linear`."""
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if isinstance(child, torch.nn.Linear):
                setattr(module, name, Int8Linear(child))
    return model
