"""The learned judge's encoder: which texts each group reads, its labels, its training rows, and (slow) a real
training run on MiniLM that writes only the trained layers and loads back into a judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.judging.encoder import (
    CARD_FILE,
    LABELS,
    WEIGHTS_FILE,
    group_masks,
    group_slice,
    marked,
    pair_of,
    support_window,
    unstated,
)
from selfrag_langchain.prompts import critic_input
from selfrag_langchain.tokens import GROUP_TOKENS, Group
from selfrag_langchain.trainer.critic_rows import CriticRow
from selfrag_langchain.trainer.judge_encoder import pair_rows
from selfrag_langchain.trainer.training_config import JudgeEncoderConfig

PASSAGE = "Canberra\nCanberra is the capital city of Australia."


def test_each_group_reads_its_own_labels_in_order() -> None:
    for group in (Group.ISREL, Group.ISSUP, Group.ISUSE):
        assert LABELS[group_slice(group)] == tuple(GROUP_TOKENS[group])
    assert len(LABELS) == 2 + 3 + 5


def test_each_group_reads_its_own_pair() -> None:
    asked, answer = "What is the capital of Australia?", "Sydney is the capital."
    assert pair_of(CriticQuery(Group.ISREL, asked, evidence=PASSAGE)) == (asked, PASSAGE)
    assert pair_of(CriticQuery(Group.ISSUP, asked, evidence=PASSAGE, output=answer)) == (answer, PASSAGE)
    assert pair_of(CriticQuery(Group.ISUSE, asked, output=answer)) == (asked, answer)
    with pytest.raises(ValueError, match="does not read"):
        pair_of(CriticQuery(Group.RETRIEVE, asked))


NEPTUNE = ("Neptune\nNeptune is the eighth planet from the Sun. It has fourteen known moons. It is the "
           "fourth-largest planet in the Solar System by diameter. Its winds are the fastest of any planet.")


def test_support_window_keeps_the_title_and_the_sentences_the_output_draws_on_in_passage_order() -> None:
    window = support_window("Neptune is the largest planet in the Solar System.", NEPTUNE, sentences=2)
    assert window == ("Neptune\nNeptune is the eighth planet from the Sun. It is the fourth-largest planet in "
                      "the Solar System by diameter.")
    assert support_window("anything", "Short\nOne sentence. Two sentences.", sentences=2) == (
        "Short\nOne sentence. Two sentences.")


def test_unstated_words_keep_hyphenated_compounds_whole() -> None:
    assert unstated("Neptune is the largest planet in the Solar System.", NEPTUNE) == ["largest"]
    assert unstated("Neptune is the fourth-largest planet.", NEPTUNE) == []
    assert unstated("It was completed in 1899 in Paris's centre.", "It was completed in 1889.") == [
        "1899", "paris", "centre"]


def test_marked_pairs_list_what_the_passage_does_not_state() -> None:
    query = CriticQuery(Group.ISSUP, "Which planet is the largest?", evidence=NEPTUNE,
                        output="Neptune is the largest planet.")
    first, second = pair_of(query, 2, mark=True)
    assert first == "Neptune is the largest planet.\nunstated: largest"
    assert second.startswith("Neptune\nNeptune is the eighth planet")
    relevance = CriticQuery(Group.ISREL, "What is Greta Thunberg known for?", evidence="Greta Garbo\nAn actress.")
    assert pair_of(relevance, mark=True)[0] == "What is Greta Thunberg known for?\nunstated: thunberg, known"
    assert marked("Neptune.", NEPTUNE) == "Neptune.\nunstated: none"


def test_group_masks_open_only_the_rows_group() -> None:
    mask = group_masks([Group.ISSUP, Group.ISREL])
    assert mask[0].tolist() == [i in range(2, 5) for i in range(len(LABELS))]
    assert mask[1].tolist() == [i in range(0, 2) for i in range(len(LABELS))]


def _row(task: str, label: str, *, evidence: str | None, output: str | None) -> CriticRow:
    return CriticRow("judge it", critic_input("What is the capital of Australia?", evidence=evidence, output=output),
                     label, task)


def test_pair_rows_keep_encoded_groups_with_their_label_index() -> None:
    rows = [_row("groundedness", "[No support / Contradictory]", evidence=PASSAGE, output="Sydney."),
            _row("relevance", "[Relevant]", evidence=PASSAGE, output=None),
            _row("retrieval", "[Retrieval]", evidence=None, output=None),
            CriticRow("judge it", "not the released layout", "[Utility:5]", "utility")]
    pairs = pair_rows(rows)
    assert [(p.group, LABELS[p.label]) for p in pairs] == [(Group.ISSUP, "[No support / Contradictory]"),
                                                           (Group.ISREL, "[Relevant]")]
    assert (pairs[0].first, pairs[0].second) == ("Sydney.", PASSAGE)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("trained_layers", 7, "between 1 and 6"), ("num_train_epochs", 0, "num_train_epochs must be > 0"),
    ("per_label", 0, "per_label must be >= 1"), ("per_device_train_batch_size", -1,
                                                 "per_device_train_batch_size must be >= 1")])
def test_config_refuses_impossible_values(field: str, value: float, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        JudgeEncoderConfig(data=["x.jsonl"], out="out", **{field: value})


def _training_file(path: Path) -> Path:
    rows = []
    for i in range(12):
        city = ("Canberra", "Sydney", "Canberra", "Melbourne")[i % 4]
        rows.append({"instruction": "judge", "task": "groundedness",
                     "output": "[Fully supported]" if city == "Canberra" else "[No support / Contradictory]",
                     "input": critic_input("What is the capital of Australia?", evidence=PASSAGE,
                                           output=f"{city} is the capital of Australia.")})
        rows.append({"instruction": "judge", "task": "relevance", "output": "[Relevant]" if i % 2 else "[Irrelevant]",
                     "input": critic_input(f"Question {i}?", evidence=PASSAGE)})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_training_refuses_data_without_encoded_groups(tmp_path: Path) -> None:
    from selfrag_langchain.trainer.judge_encoder import train_encoder

    data = tmp_path / "retrieval.jsonl"
    data.write_text(json.dumps({"instruction": "judge", "task": "retrieval", "output": "[Retrieval]",
                                "input": critic_input("Who wrote Hamlet?")}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="no relevance, groundedness or utility rows"):
        train_encoder(JudgeEncoderConfig(data=[str(data)], out=str(tmp_path / "judge")))
    assert not (tmp_path / "judge").exists()


@pytest.mark.slow
def test_training_writes_only_the_trained_layers_and_loads_into_a_judge(tmp_path: Path) -> None:
    from safetensors import safe_open

    from selfrag_langchain.judging.encoder import EncoderJudge
    from selfrag_langchain.trainer.judge_encoder import train_encoder

    out = tmp_path / "judge"
    config = JudgeEncoderConfig(data=[str(_training_file(tmp_path / "data.jsonl"))], out=str(out), trained_layers=1,
                                num_train_epochs=6, per_device_train_batch_size=8, learning_rate=5e-4, max_length=64,
                                mark_unstated=True)
    card = train_encoder(config)
    assert card.provenance["rows"] == 24
    with safe_open(str(out / WEIGHTS_FILE), "pt") as weights:
        names = list(weights.keys())
    assert names and all(n.startswith(("encoder.encoder.layer.5.", "head.")) for n in names)
    assert (out / WEIGHTS_FILE).stat().st_size < 4_000_000
    card_file = json.loads((out / CARD_FILE).read_text())
    assert card_file["trained_layers"] == 1 and card_file["mark_unstated"] is True

    judge = EncoderJudge(out)
    right, wrong = judge.distributions([
        CriticQuery(Group.ISSUP, "What is the capital of Australia?", evidence=PASSAGE,
                    output="Canberra is the capital of Australia."),
        CriticQuery(Group.ISSUP, "What is the capital of Australia?", evidence=PASSAGE,
                    output="Sydney is the capital of Australia.")])
    assert set(right) == set(GROUP_TOKENS[Group.ISSUP])
    assert sum(right.values()) == pytest.approx(1.0)
    # Twelve support rows (half of them right) seen six times are learned: the label each output was trained
    # with is the likeliest.
    assert max(right, key=right.get) == "[Fully supported]"
    assert max(wrong, key=wrong.get) == "[No support / Contradictory]"


@pytest.mark.parametrize(("flags", "message"), [
    (["--data", "{missing}"], "{missing}"), (["--data", "{data}", "--trained-layers", "9"], "between 1 and 6")])
def test_the_command_refuses_bad_input_in_one_line_and_writes_nothing(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from selfrag_langchain.cli import main

    names = {"missing": str(tmp_path / "missing.jsonl"), "data": str(_training_file(tmp_path / "data.jsonl"))}
    out = tmp_path / "judge"
    code = main(["train", "judge-encoder", *(f.format(**names) for f in flags), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert message.format(**names) in err and "Traceback" not in err
    assert not out.exists()


def test_a_directory_without_a_learned_judge_is_one_clear_error(tmp_path: Path) -> None:
    from selfrag_langchain.errors import ModelLoadError
    from selfrag_langchain.judging.encoder import EncoderJudge

    (tmp_path / CARD_FILE).write_text("{}", encoding="utf-8")
    with pytest.raises(ModelLoadError, match=r"no learned judge in .*judge_encoder\.safetensors"):
        EncoderJudge(tmp_path)
