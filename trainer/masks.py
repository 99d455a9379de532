"""Token sequences and loss masks for critic and generator training, as pure functions of an encoder.

Critic (paper Eq. 1): the prompt is masked, the loss is on the label only. Generator (Eq. 2): the prompt is
masked; the output and its reflection tokens are in the loss except each retrieved passage: the text
between every ``<paragraph>`` and its ``</paragraph>``, and that closing marker (the model never writes
either, the retriever inserts them) are masked one passage at a time, so answer text and reflection tokens
between passages stay in the loss (the reference code masks from the first passage to the last).

Prompt and output are encoded separately and concatenated: that is how the model meets them at inference
(the backend encodes the prompt, the model generates the output token by token), so the boundary is exact.
Inside the output, masks come from character offsets of one encoding of the whole output, so they hold
for any fast tokenizer, however it splits text around the special tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from selfrag_langchain.tokens import PARAGRAPH_END, PARAGRAPH_START

IGNORE_INDEX = -100
"""Label value the loss skips (PyTorch's cross-entropy default)."""

Encoder = Callable[[str], tuple[list[int], list[tuple[int, int]]]]
"""Text -> (token ids, character span of each token), without special tokens added around the text."""


@dataclass(frozen=True)
class Example:
    """One training sequence: token ids and labels (``IGNORE_INDEX`` where the loss does not look)."""

    input_ids: list[int]
    labels: list[int]

    def __post_init__(self) -> None:
        if len(self.input_ids) != len(self.labels):
            msg = f"input_ids and labels differ in length ({len(self.input_ids)} vs {len(self.labels)})"
            raise ValueError(msg)

    @property
    def trained_tokens(self) -> int:
        return sum(1 for label in self.labels if label != IGNORE_INDEX)

    def truncated(self, max_length: int) -> Example:
        return Example(self.input_ids[:max_length], self.labels[:max_length])


def hf_encoder(tokenizer: object) -> Encoder:
    """An :data:`Encoder` over a Hugging Face fast tokenizer (offsets need a fast tokenizer)."""

    def encode(text: str) -> tuple[list[int], list[tuple[int, int]]]:
        enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)  # type: ignore[operator]
        return list(enc["input_ids"]), [tuple(span) for span in enc["offset_mapping"]]

    return encode


def critic_example(encode: Encoder, prompt: str, label: str) -> Example:
    """Prompt masked, loss on the label's tokens only (Eq. 1)."""
    prompt_ids, _ = encode(prompt)
    label_ids, _ = encode(label)
    if not label_ids:
        msg = "a critic example needs a non-empty label"
        raise ValueError(msg)
    return Example(prompt_ids + label_ids, [IGNORE_INDEX] * len(prompt_ids) + label_ids)


def masked_spans(output: str) -> list[tuple[int, int]]:
    """Character ranges of ``output`` kept out of the loss: each passage's text and its closing marker.

    A passage runs from its ``<paragraph>`` to the next ``</paragraph>`` (or the end of the text), so
    reflection-token strings inside a passage are masked with it. ``<paragraph>`` itself stays in the
    loss: the generator writes it after ``[Retrieval]``.
    """
    spans = []
    pos = 0
    while (start := output.find(PARAGRAPH_START, pos)) != -1:
        body = start + len(PARAGRAPH_START)
        end = output.find(PARAGRAPH_END, body)
        stop = len(output) if end == -1 else end + len(PARAGRAPH_END)
        spans.append((body, stop))
        pos = stop
    return spans


def generator_example(encode: Encoder, prompt: str, output: str, eos_id: int | None) -> Example:
    """Prompt masked; output, reflection tokens and the end-of-sequence token in the loss; passages masked
    one by one (Eq. 2)."""
    prompt_ids, _ = encode(prompt)
    output_ids, offsets = encode(output)
    spans = masked_spans(output)
    labels = [
        IGNORE_INDEX if any(lo <= start < hi for lo, hi in spans) else token
        for token, (start, _) in zip(output_ids, offsets, strict=True)
    ]
    tail = [eos_id] if eos_id is not None else []
    return Example(prompt_ids + output_ids + tail, [IGNORE_INDEX] * len(prompt_ids) + labels + tail)
