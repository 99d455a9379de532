"""`selfrag train answer-finder` end to end on small files in the shared data's layout: the layers start from the
shipped sentence reader's (or a finder's, for a later stage), the finder it writes (its layers and span head in
half precision, the embeddings the shipped MiniLM's) loads and points at phrases, and a re-run continues from the
last complete checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfrag_langchain.errors import InputError
from selfrag_langchain.judging.finder import CARD_FILE, WEIGHTS_FILE, AnswerFinder
from selfrag_langchain.trainer.finder import train_answer_finder
from selfrag_langchain.trainer.training_config import AnswerFinderConfig
from tests.fakes.reader_data import write_reader_data

pytestmark = pytest.mark.slow


def _config(squad: Path, out: Path, epochs: float, **changes: object) -> AnswerFinderConfig:
    return AnswerFinderConfig(squad=str(squad), out=str(out), squad_paragraphs=12, num_train_epochs=epochs,
                              per_device_train_batch_size=16, max_length=64, **changes)  # type: ignore[arg-type]


def test_a_trained_finder_starts_from_the_reader_loads_points_and_resumes(tmp_path: Path) -> None:
    import torch
    from safetensors.torch import load_file

    from selfrag_langchain.judging.reader import SHIPPED_READER

    _, squad = write_reader_data(tmp_path)
    out = tmp_path / "finder"
    card = train_answer_finder(_config(squad, out, 1.0, squad2=True))
    # SQuAD 1.1: 72 pairs, 24 with an answer; SQuAD 2.0's training half (the Nile): 2 questions x 3, 1 unanswerable x 2
    assert card.provenance["pairs"] == 80 and card.provenance["with_answer"] == 26
    assert card.provenance["squad2_training_half"] is True
    weights = load_file(str(out / WEIGHTS_FILE))
    assert {k.split(".")[0] for k in weights} == {"bert", "qa_outputs"}
    assert not any("embeddings" in k for k in weights)  # the shipped MiniLM's, not shipped again
    assert all(v.dtype == torch.float16 for v in weights.values())
    assert (out / CARD_FILE).is_file()
    reader = load_file(str(SHIPPED_READER / "sentence_reader.safetensors"))
    started = reader["encoder.encoder.layer.0.attention.self.query.weight"].to(torch.float32)
    trained = weights["bert.encoder.layer.0.attention.self.query.weight"].to(torch.float32)
    assert (started - trained).abs().max() < 0.05, "the layers did not start from the reader's"

    finder = AnswerFinder(out, runtime="torch")
    (span,) = finder.find([("When was Neptune discovered?", "Neptune: It was discovered in 1846.")])
    assert span.text and span.text in "Neptune: It was discovered in 1846." and 0.0 <= span.probability <= 1.0

    checkpoints = list((out / "checkpoints").glob("checkpoint-*"))
    assert len(checkpoints) == 1, "the trainer kept no checkpoint"
    longer = train_answer_finder(_config(squad, out, 2.0, squad2=True))  # the same run, longer
    assert longer.provenance["epochs"] == 2.0


def test_an_init_without_a_reader_is_one_clear_error(tmp_path: Path) -> None:
    _, squad = write_reader_data(tmp_path)
    with pytest.raises(InputError, match="init_reader: no sentence reader in"):
        train_answer_finder(_config(squad, tmp_path / "finder", 1.0, init_reader=str(tmp_path)))


def test_a_later_stage_goes_on_from_a_finder(tmp_path: Path) -> None:
    import torch
    from safetensors.torch import load_file

    from selfrag_langchain.judging.finder import SHIPPED_FINDER, FinderCard

    _, squad = write_reader_data(tmp_path)
    out = tmp_path / "later"
    card = train_answer_finder(_config(squad, out, 1.0, init_finder=str(SHIPPED_FINDER), swapped_questions=10))
    assert card.provenance["pairs"] == 72 and card.provenance["with_answer"] == 24  # no fake question to swap
    assert card.provenance["swapped_questions"] == 10 and card.provenance["init_reader"] is None
    assert card.provenance["init_finder"] == {
        "directory": str(SHIPPED_FINDER), "provenance": FinderCard.load(SHIPPED_FINDER / CARD_FILE).provenance}
    started = load_file(str(SHIPPED_FINDER / WEIGHTS_FILE))["qa_outputs.weight"].to(torch.float32)
    trained = load_file(str(out / WEIGHTS_FILE))["qa_outputs.weight"].to(torch.float32)
    assert (started - trained).abs().max() < 0.01, "the span head did not start from the finder's"


def test_going_on_from_a_directory_without_a_finder_is_one_clear_error(tmp_path: Path) -> None:
    _, squad = write_reader_data(tmp_path)
    with pytest.raises(InputError, match="init_finder: no answer finder in"):
        train_answer_finder(_config(squad, tmp_path / "finder", 1.0, init_finder=str(tmp_path)))
