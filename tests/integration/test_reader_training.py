"""`selfrag train reader` end to end on small files in the shared data's layout: the shipped MiniLM trains for a
few steps, the reader it writes (only the trained layers, in half precision) loads and reads both ways, the
held-out report is written, and a re-run continues from the last complete checkpoint."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging.reader import CARD_FILE, WEIGHTS_FILE, SentenceReader
from selfrag_langchain.trainer.reader import HELD_OUT_FILE, train_reader
from selfrag_langchain.trainer.training_config import ReaderConfig
from tests.fakes.reader_data import write_reader_data

pytestmark = pytest.mark.slow


def _config(nli: Path, squad: Path, out: Path, epochs: float) -> ReaderConfig:
    return ReaderConfig(nli=str(nli), squad=str(squad), out=str(out), snli=20, squad_paragraphs=12,
                        contrasts_per_kind=20, held_mnli=5, held_halueval=2, trained_layers=2, num_train_epochs=epochs,
                        per_device_train_batch_size=16, max_length=64)


def test_a_trained_reader_loads_reads_reports_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import transformers
    from safetensors.torch import load_file

    resumed_from: list[str | None] = []
    train = transformers.Trainer.train

    def recording(self: transformers.Trainer, *args: object, **kwargs: object) -> object:
        resumed_from.append(kwargs.get("resume_from_checkpoint"))  # type: ignore[arg-type]
        return train(self, *args, **kwargs)

    monkeypatch.setattr(transformers.Trainer, "train", recording)
    nli, squad = write_reader_data(tmp_path)
    out = tmp_path / "reader"
    card = train_reader(_config(nli, squad, out, 1.0))
    assert card.provenance["pairs"] > 50 and card.trained_layers == 2
    weights = load_file(str(out / WEIGHTS_FILE))
    assert {k.split(".")[3] for k in weights if k.startswith("encoder.")} == {"4", "5"}  # only the top two layers
    assert all(str(v.dtype) == "torch.float16" for v in weights.values())
    assert json.loads((out / CARD_FILE).read_text())["provenance"]["held_out"]["mnli"] == 5
    report = json.loads((out / HELD_OUT_FILE).read_text())
    assert set(report) == {"counterfactual_test", "mnli", "halueval", "squad2"}
    assert 0.0 <= report["mnli"]["entailment"]["accuracy"] <= 1.0
    assert "answering" in report["squad2"]

    reader = SentenceReader(out, runtime="torch")
    ((e, n, c),) = reader.entailment([("A man rides.", "A man rides a bike.")])
    assert math.isclose(e + n + c, 1.0, rel_tol=1e-4)
    (p,) = reader.answering([("When was Neptune discovered?", "Neptune: It was discovered in 1846.")])
    assert 0.0 < p < 1.0

    checkpoints = list((out / "checkpoints").glob("checkpoint-*"))
    assert len(checkpoints) == 1, "the trainer kept no checkpoint"
    again = train_reader(_config(nli, squad, out, 2.0))  # the same run, for longer: it goes on
    assert again.provenance["epochs"] == 2.0
    assert resumed_from == [None, str(checkpoints[0])]
    other = dataclasses.replace(_config(nli, squad, out, 2.0), learning_rate=1e-3)
    with pytest.raises(ConfigurationError, match=r"are of another run \(learning_rate differs\)"):
        train_reader(other)  # another run: refused, not mixed with the first


def test_a_run_can_start_from_a_trained_reader_of_the_same_shape(tmp_path: Path) -> None:
    """``init``: the shipped reader's top layers and head go into the new model, and its card says so."""
    import dataclasses

    import torch

    from selfrag_langchain.embeddings import default_model_path
    from selfrag_langchain.errors import InputError
    from selfrag_langchain.judging.reader import SHIPPED_READER, build_reader, reader_state
    from selfrag_langchain.trainer.reader import started_from

    nli, squad = write_reader_data(tmp_path)
    config = dataclasses.replace(_config(nli, squad, tmp_path / "next", 1.0), trained_layers=6,
                                 init=str(SHIPPED_READER))
    model = build_reader(default_model_path(), 6)
    fresh = reader_state(model, 6)["head.weight"].clone()
    made = started_from(model, config)
    assert made is not None and made["directory"] == str(SHIPPED_READER)
    assert made["provenance"]["base"] == "sentence-transformers/all-MiniLM-L6-v2"
    loaded = reader_state(model, 6)["head.weight"]
    assert not torch.equal(loaded, fresh), "the new head was kept"
    assert torch.allclose(loaded, SentenceReader(runtime="torch")._loaded()[1].head.weight)

    with pytest.raises(InputError, match="trained with 6 layers"):
        started_from(build_reader(default_model_path(), 2), dataclasses.replace(config, trained_layers=2))
    with pytest.raises(InputError, match="no sentence reader in"):
        started_from(model, dataclasses.replace(config, init=str(tmp_path)))
