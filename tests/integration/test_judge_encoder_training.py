"""`selfrag train judge-encoder` end to end on the worked example's rows: the shipped MiniLM trains for a
few steps, the encoder it writes loads and judges, and a re-run continues from the last complete
checkpoint instead of starting over."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.judging.encoder import EncoderJudge
from selfrag_langchain.tokens import GROUP_TOKENS, Group
from selfrag_langchain.trainer.judge_encoder import train_encoder
from selfrag_langchain.trainer.training_config import JudgeEncoderConfig

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).parents[2] / "examples" / "data" / "my_labels.csv"


def test_a_trained_encoder_loads_judges_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import transformers

    resumed_from: list[str | None] = []
    train = transformers.Trainer.train

    def recording(self: transformers.Trainer, *args: object, **kwargs: object) -> object:
        resumed_from.append(kwargs.get("resume_from_checkpoint"))  # type: ignore[arg-type]
        return train(self, *args, **kwargs)

    monkeypatch.setattr(transformers.Trainer, "train", recording)
    config = JudgeEncoderConfig(data=[str(EXAMPLE)], out=str(tmp_path / "encoder"), num_train_epochs=1.0,
                                per_device_train_batch_size=16,
                                max_length=128, trained_layers=1)
    card = train_encoder(config)
    assert card.provenance["rows"] > 0 and card.provenance["epochs"] == 1.0
    judge = EncoderJudge(tmp_path / "encoder")
    query = CriticQuery(Group.ISSUP, "What is the capital of Australia?",
                        evidence="Canberra\nCanberra is the capital city of Australia.",
                        output="Canberra is the capital of Australia.")
    (dist,) = judge.distributions([query])
    assert set(dist) == set(GROUP_TOKENS[Group.ISSUP]) and math.isclose(sum(dist.values()), 1.0, rel_tol=1e-4)

    # The trainer keeps its last checkpoint; a second run with more epochs starts from it.
    checkpoints = list((tmp_path / "encoder" / "checkpoints").glob("checkpoint-*"))
    assert len(checkpoints) == 1, "the trainer kept no checkpoint"
    again = train_encoder(JudgeEncoderConfig(data=[str(EXAMPLE)], out=str(tmp_path / "encoder"),
                                             num_train_epochs=2.0,
                                             per_device_train_batch_size=16, max_length=128, trained_layers=1))
    assert again.provenance["epochs"] == 2.0
    assert resumed_from == [None, str(checkpoints[0])]
