"""The sentence reader's and the answer finder's networks in ONNX Runtime (fp32), their default on a CPU.

Both read a few dozen short (question, sentence) pairs a question, a few at a time. Exported once to ONNX
without quantizing, the same weights give the same logits as torch to ~1e-6; on two cores, in short form, the
reader took half its torch time and the finder three quarters (over 20 questions: 1.2 s against 2.3, 1.8 against
2.3).
The export is cached with the embedding model's (:func:`~selfrag_langchain.embeddings.onnx.cached_export`),
keyed by the content of the shipped MiniLM and of the trained weights; ``scripts/setup.sh`` builds both at
install time.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

__all__ = ["OnnxPairNetwork", "PairRuntime", "checked_runtime", "exported_pair_network", "pair_network"]

PairRuntime = Literal["onnx", "torch"]
"""Where a pair network runs: ONNX Runtime (fp32, CPU) or torch."""

def checked_runtime(runtime: str) -> PairRuntime:
    """``runtime`` if it names one.

    Raises:
        ValueError: for any other.
    """
    if runtime not in ("onnx", "torch"):
        msg = f'runtime must be "onnx" or "torch", not {runtime!r}'
        raise ValueError(msg)
    return runtime  # type: ignore[return-value]


INPUTS: tuple[str, ...] = ("input_ids", "attention_mask", "token_type_ids")
"""What the exported networks read: a BERT tokenizer's pair encoding."""


def _export(build: Callable[[], Any], outputs: Sequence[str], tokenizer: Any, target: Path) -> None:
    """Export the torch network ``build()`` makes, reading :data:`INPUTS` and giving ``outputs`` by name."""
    import torch

    from selfrag_langchain.embeddings.onnx import quiet_loading

    with quiet_loading():
        network = build().eval()

    class _Pairs(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.network = network

        def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
            out = self.network(**dict(zip(INPUTS, inputs, strict=True)))
            return tuple(out[name] for name in outputs)

    # two pairs of different lengths, so that the traced attention reads the padding mask
    sample = tokenizer(["a question", "a longer question than that"], ["a sentence", "and a longer sentence"],
                       padding=True, return_tensors="pt")
    axes = {name: {0: "batch", 1: "pieces"} for name in [*INPUTS, *outputs]}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Pairs(), tuple(sample[name] for name in INPUTS), str(target), input_names=list(INPUTS),
                          output_names=list(outputs), dynamic_axes=axes, opset_version=17, dynamo=False)


def exported_pair_network(kind: str, files: Sequence[Path], build: Callable[[], Any], outputs: Sequence[str],
                          tokenizer: Any) -> OnnxPairNetwork:
    """The pair network ``build()`` makes, exported to ONNX on first use (cached under ``kind`` and the content
    of ``files``, everything the network is made from) and loaded in ONNX Runtime.

    Raises:
        ModelLoadError: If the export fails or the cached file cannot be loaded.
    """
    from selfrag_langchain.embeddings.onnx import cached_export, content_digest

    model_file = cached_export(f"{kind}-fp32-{content_digest(files)}", "model-fp32.onnx",
                               lambda target: _export(build, outputs, tokenizer, target), f"ONNX {kind}")
    return OnnxPairNetwork(model_file)


def pair_network(runtime: PairRuntime, kind: str, base: Path, trained: Sequence[Path], build: Callable[[], Any],
                 outputs: Sequence[str], tokenizer: Any) -> Any:
    """The network ``build()`` makes over the MiniLM at ``base`` from the ``trained`` files: itself in torch, or its
    export in ONNX Runtime (:func:`exported_pair_network`, keyed by the content of both)."""
    if runtime == "torch":
        return build()
    from selfrag_langchain.embeddings.onnx import MODEL_FILES

    return exported_pair_network(kind, [*(base / name for name in MODEL_FILES), *trained], build, outputs, tokenizer)


class OnnxPairNetwork:
    """An exported pair network: called with a tokenizer's torch encoding, as the torch network is, it gives its
    outputs by name as torch tensors, so the code that reads them is the same for both runtimes."""

    def __init__(self, model_file: Path) -> None:
        """Raises:
            ModelLoadError: If the file cannot be loaded.
        """
        from selfrag_langchain.embeddings.onnx import cpu_session, worker_count

        self.session = cpu_session(model_file, threads=worker_count())
        self.outputs = [output.name for output in self.session.get_outputs()]

    def __call__(self, **batch: Any) -> Mapping[str, Any]:
        import numpy as np
        import torch

        feed = {name: np.asarray(batch[name], dtype=np.int64) for name in INPUTS}
        return dict(zip(self.outputs, map(torch.from_numpy, self.session.run(None, feed)), strict=True))
