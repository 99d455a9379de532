"""The sentence reader and the answer finder in ONNX Runtime: torch's readings, a cache that never holds half a
model, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.judging import onnx_pairs
from selfrag_langchain.judging.finder import AnswerFinder
from selfrag_langchain.judging.onnx_pairs import OnnxPairNetwork
from selfrag_langchain.judging.reader import SentenceReader

# one batch of pairs of different lengths, so that padding is read as torch reads it
QUESTIONS = [
    ("Which river flows through Yerevan?",
     "Yerevan: Situated along the Hrazdan River, Yerevan is the administrative, cultural, and industrial centre of "
     "the country."),
    ("What is the chemical symbol of gold?", "Gold: Chemically, gold is a transition metal, a group 11 element."),
    ("Which planet does the moon Titan orbit?", "Titan: Titan is the largest moon of Saturn."),
    ("Who wrote it?", "It: A novel."),
]
CLAIMS = [
    ("Canberra is the capital of Australia.", "Canberra is the capital city of Australia."),
    ("Sydney is the capital of Australia.", "Canberra is the capital city of Australia, and Sydney its largest city."),
    ("The Nile is the longest river in Africa.", "The Zambezi is the fourth-longest river in Africa."),
]


@pytest.mark.parametrize("make", [SentenceReader, AnswerFinder])
def test_an_unknown_runtime_is_refused(make: type) -> None:
    with pytest.raises(ValueError, match='runtime must be "onnx" or "torch", not \'gpu\''):
        make(runtime="gpu")


def test_a_failed_export_leaves_nothing_behind(onnx_caches: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_export(build: object, outputs: object, tokenizer: object, target: Path) -> None:
        target.write_bytes(b"half a model")
        raise RuntimeError("exporter crashed")

    monkeypatch.setattr(onnx_pairs, "_export", broken_export)
    with pytest.raises(ModelLoadError, match=r"Could not build the ONNX sentence-reader: exporter crashed"):
        SentenceReader().answering([("Who wrote it?", "It: A novel.")])
    assert not any(onnx_caches[0].parent.rglob("*.onnx"))
    assert [p.name for p in onnx_caches[0].iterdir()] == [], "no temporary build folder is left"


def test_a_damaged_export_says_how_to_mend_it(tmp_path: Path) -> None:
    damaged = tmp_path / "model-fp32.onnx"
    damaged.write_bytes(b"not a model")
    with pytest.raises(ModelLoadError, match="delete it and it is rebuilt on the next run"):
        OnnxPairNetwork(damaged)


def test_each_trained_network_has_its_own_export(onnx_caches: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache key is the content of the trained weights: another reader is not read with the shipped one's."""
    built: list[Path] = []

    def fake_export(build: object, outputs: object, tokenizer: object, target: Path) -> None:
        target.write_bytes(b"model")
        built.append(target)

    monkeypatch.setattr(onnx_pairs, "_export", fake_export)
    monkeypatch.setattr(onnx_pairs, "OnnxPairNetwork", lambda path: path)
    files = [onnx_caches[0].parent / name for name in ("weights-a", "weights-b")]
    for file, content in zip(files, (b"one", b"two"), strict=True):
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(content)
    first = onnx_pairs.exported_pair_network("sentence-reader", [files[0]], object, ("logits",), None)
    assert onnx_pairs.exported_pair_network("sentence-reader", [files[0]], object, ("logits",), None) == first
    other = onnx_pairs.exported_pair_network("sentence-reader", [files[1]], object, ("logits",), None)
    assert other != first and len(built) == 2, "a cached export is reused, another network's is not"


@pytest.mark.slow
def test_the_onnx_reader_reads_as_torch_does() -> None:
    onnx, torch = SentenceReader(), SentenceReader(runtime="torch")
    assert onnx.answering(QUESTIONS) == pytest.approx(torch.answering(QUESTIONS), abs=1e-5)
    for got, want in zip(onnx.entailment(CLAIMS), torch.entailment(CLAIMS), strict=True):
        assert got == pytest.approx(want, abs=1e-5)
    assert onnx.entailment(CLAIMS[:1])[0][0] > 0.5, "the readings are real"


@pytest.mark.slow
def test_the_onnx_finder_points_where_torch_does() -> None:
    onnx, torch = AnswerFinder().find(QUESTIONS), AnswerFinder(runtime="torch").find(QUESTIONS)
    assert [span.text for span in onnx] == [span.text for span in torch]
    assert [span.odds for span in onnx] == pytest.approx([span.odds for span in torch], abs=1e-4)
    assert onnx[0].text == "Hrazdan River"
