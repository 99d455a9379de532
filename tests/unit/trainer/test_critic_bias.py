"""A trained critic's label bias: fitted on rows it never trained on, kept for a group only when it helps on
rows it was not fitted on, saved beside the critic, and read back wherever the critic is read."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.judging import CriticQuery, CriticReflector, LabelBias, load_label_bias
from selfrag_langchain.judging.label_bias import LABEL_BIAS_FILE
from selfrag_langchain.llms.base import ContinuationRequest
from selfrag_langchain.tokens import FULLY_SUPPORTED, NO_SUPPORT, PARTIALLY_SUPPORTED, RELEVANT, Group
from selfrag_langchain.trainer.config import CriticBiasConfig
from selfrag_langchain.trainer.critic_bias import fit_group, fit_label_bias, fit_weights, training_draw
from selfrag_langchain.trainer.critic_rows import read_critic_rows
from selfrag_langchain.trainer.provenance import data_hashes
from tests.fakes.selfrag_vocabulary import SelfRAGVocabulary

SUPPORT = list(Group.ISSUP.tokens)


def _skewed(n: int) -> tuple[list[dict[str, float]], list[str]]:
    """A critic that ranks well but always answers [Fully supported]: its line between labels is in the wrong
    place, as a critic trained on another source's meaning of the labels would put it."""
    dists, gold = [], []
    for i in range(n):
        label = SUPPORT[i % 3]
        full = {FULLY_SUPPORTED: 0.9, PARTIALLY_SUPPORTED: 0.75, NO_SUPPORT: 0.6}[label] + 0.01 * (i % 5)
        rest = 1 - full
        dists.append({FULLY_SUPPORTED: full, PARTIALLY_SUPPORTED: rest * 0.6, NO_SUPPORT: rest * 0.4}
                     if label != NO_SUPPORT else {FULLY_SUPPORTED: full, PARTIALLY_SUPPORTED: rest * 0.3,
                                                  NO_SUPPORT: rest * 0.7})
        gold.append(label)
    return dists, gold


def test_weights_move_the_lines_between_labels_to_where_the_rows_put_them() -> None:
    dists, gold = _skewed(60)
    probs = np.array([[d[t] for t in SUPPORT] for d in dists])
    y = np.array([SUPPORT.index(g) for g in gold])
    weights = fit_weights(probs, y, [0, 1, 2])
    raw = np.argmax(np.log(probs), axis=1)
    fitted = np.argmax(np.log(probs) + weights, axis=1)
    assert set(raw) == {0}  # the critic alone answers one label
    assert (fitted == y).mean() > 0.6  # three labels, each now answered
    assert weights[0] < weights[1] and weights[0] < weights[2]


def test_a_group_keeps_its_weights_only_when_they_help_on_rows_they_were_not_fitted_on() -> None:
    config = CriticBiasConfig(model="m", data=["d"], folds=3, min_rows=5)
    dists, gold = _skewed(45)
    skewed = fit_group(Group.ISSUP, dists, gold, config)
    assert skewed is not None and skewed.kept
    assert skewed.cv_balanced_accuracy > skewed.raw_balanced_accuracy == pytest.approx(1 / 3)
    assert skewed.labels == {tok: 15 for tok in SUPPORT} and skewed.rows == 45
    right = [{tok: 0.8 if tok == g else 0.1 for tok in SUPPORT} for g in gold]
    already = fit_group(Group.ISSUP, right, gold, config)
    assert already is not None and not already.kept and already.raw_balanced_accuracy == 1.0


def test_labels_with_too_few_rows_are_not_fitted() -> None:
    config = CriticBiasConfig(model="m", data=["d"], min_rows=10)
    dists, gold = _skewed(12)  # four rows of each label
    assert fit_group(Group.ISSUP, dists, gold, config) is None


def test_a_rare_label_keeps_weight_0_and_its_rows_are_still_scored() -> None:
    config = CriticBiasConfig(model="m", data=["d"], folds=3, min_rows=5)
    dists, gold = _skewed(45)
    rare = [i for i, g in enumerate(gold) if g == NO_SUPPORT][:3]
    keep = [i for i, g in enumerate(gold) if g != NO_SUPPORT or i in rare]
    fit = fit_group(Group.ISSUP, [dists[i] for i in keep], [gold[i] for i in keep], config)
    assert fit is not None and set(fit.weights) == {FULLY_SUPPORTED, PARTIALLY_SUPPORTED}
    assert fit.rows == 33 and fit.labels[NO_SUPPORT] == 3
    # Balanced accuracy over all three labels, as critic-eval scores it: the rare label's recall counts.
    assert fit.raw_balanced_accuracy == pytest.approx(1 / 3)


def test_the_bias_multiplies_each_label_and_renormalises() -> None:
    bias = LabelBias({Group.ISSUP: {FULLY_SUPPORTED: -1.0, NO_SUPPORT: 1.0}}, "paper", {"rows": 3})
    dist = {FULLY_SUPPORTED: 0.5, PARTIALLY_SUPPORTED: 0.3, NO_SUPPORT: 0.2}
    moved = bias.apply(Group.ISSUP, dist)
    assert sum(moved.values()) == pytest.approx(1.0)
    assert moved[NO_SUPPORT] / moved[PARTIALLY_SUPPORTED] == pytest.approx(0.2 / 0.3 * np.e)
    assert moved[FULLY_SUPPORTED] / moved[PARTIALLY_SUPPORTED] == pytest.approx(0.5 / 0.3 / np.e)
    relevance = {RELEVANT: 0.7, "[Irrelevant]": 0.3}
    assert bias.apply(Group.ISREL, relevance) == relevance  # a group without weights is unchanged
    assert LabelBias.from_dict(bias.to_dict()) == bias


@pytest.mark.parametrize(("text", "message"), [
    ("{", "not a readable label bias"),
    ('{"biases": {}}', "no 'weights' object"),
    ('{"weights": {"IsTrue": {}}}', "unknown group 'IsTrue'"),
    ('{"weights": {"IsSup": {"[Relevant]": 1.0}}}', "IsSup must map its own labels"),
    ('{"weights": {"IsSup": {"[Fully supported]": "high"}}}', "IsSup must map its own labels"),
    ('{"weights": {"IsSup": {"[Fully supported]": true}}}', "IsSup must map its own labels"),
    ('{"weights": {}, "fitted_on": "yesterday"}', "'fitted_on' an object"),
])
def test_a_bad_bias_file_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / LABEL_BIAS_FILE).write_text(text)
    with pytest.raises(ConfigurationError, match=message) as err:
        load_label_bias(tmp_path)
    assert "\n" not in str(err.value)


def test_a_critic_without_a_bias_file_has_none_and_one_for_other_prompts_is_not_read(tmp_path: Path) -> None:
    assert load_label_bias(tmp_path) is None
    assert load_label_bias("smollm2-135m-instruct") is None
    bias = LabelBias({Group.ISSUP: {NO_SUPPORT: 1.0}}, "paper")
    (tmp_path / LABEL_BIAS_FILE).write_text(json.dumps(bias.to_dict()))
    assert load_label_bias(tmp_path, "paper") == bias
    assert load_label_bias(tmp_path, "zero_shot") is None


class SupportCritic(SelfRAGVocabulary):
    """A trained critic's log-probabilities: [Fully supported] whatever it reads."""

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        lp = {FULLY_SUPPORTED: -0.3, PARTIALLY_SUPPORTED: -1.6, NO_SUPPORT: -2.5}
        return [[lp.get(c, -9.0) for c in r.continuations] for r in requests]


def test_the_critic_reads_every_label_distribution_through_its_bias() -> None:
    query = CriticQuery(Group.ISSUP, "Where does the Nile end?", evidence="The Nile ends in the Mediterranean.",
                        output="In the Red Sea.")
    (plain,) = CriticReflector(SupportCritic(), prompts="paper").judge([query])
    bias = LabelBias({Group.ISSUP: {FULLY_SUPPORTED: -2.0, NO_SUPPORT: 2.0}})
    (biased,) = CriticReflector(SupportCritic(), prompts="paper", label_bias=bias).judge([query])
    assert max(plain, key=plain.__getitem__) == FULLY_SUPPORTED
    assert max(biased, key=biased.__getitem__) == NO_SUPPORT
    assert biased == pytest.approx(bias.apply(Group.ISSUP, plain))


def _rows(path: Path, n: int) -> Path:
    lines = []
    for i in range(n):
        label = ["Fully supported", "Partially supported", "No support"][i % 3]
        lines.append(json.dumps({"question": f"Question {i}?", "passage": f"Passage {i}.", "output": f"Answer {i}.",
                                 "label": label}))
    path.write_text("\n".join(lines) + "\n")
    return path


def _trained_critic(tmp_path: Path, data: Path, *, recorded: str | None = None) -> Path:
    """A critic directory whose training record names ``data`` (or ``recorded``, the path as it was typed)."""
    model = tmp_path / "critic"
    model.mkdir(exist_ok=True)
    config = {"data": [recorded or str(data)], "out": str(model), "per_label": 4, "seed": 3,
              "tasks": ["groundedness"], "lora": True, "not_a_field_any_more": 1}
    record = {"config": config, "provenance": {"data": data_hashes([data])}}
    (model / "selfrag_training.json").write_text(json.dumps(record))
    return model


def _keys(path: Path) -> set[tuple[str, str, str]]:
    return {(r.instruction, r.input, r.task) for r in read_critic_rows([str(path)])}


def test_the_training_draw_is_rebuilt_from_the_critics_record(tmp_path: Path) -> None:
    data = _rows(tmp_path / "train.jsonl", 30)
    model = _trained_critic(tmp_path, data)
    drawn, note = training_draw(model, [])
    assert note is None and drawn is not None and len(drawn) == 12 and drawn < _keys(data)
    # Four of each label: the cap of the record, not all 30 rows.
    by_label = Counter(r.output for r in read_critic_rows([str(data)]) if (r.instruction, r.input, r.task) in drawn)
    assert set(by_label.values()) == {4}


def test_a_training_file_not_where_the_record_names_it_is_found_by_its_hash(tmp_path: Path) -> None:
    data = _rows(tmp_path / "train.jsonl", 30)
    model = _trained_critic(tmp_path, data, recorded="elsewhere/train.jsonl")
    drawn, note = training_draw(model, [str(data)])
    assert note is None and drawn is not None and len(drawn) == 12
    other = _rows(tmp_path / "other.jsonl", 9)
    drawn, note = training_draw(model, [str(other)])  # no --data file is one it trained on: fit, with a note
    assert drawn is None and note is not None and "train.jsonl is not where the record names it" in note


def test_a_file_it_trained_on_is_refused_when_the_draw_cannot_be_rebuilt(tmp_path: Path) -> None:
    data = _rows(tmp_path / "train.jsonl", 30)
    gone = _rows(tmp_path / "gone.jsonl", 6)
    model = _trained_critic(tmp_path, data)
    record = json.loads((model / "selfrag_training.json").read_text())
    record["config"]["data"].append(str(gone))
    record["provenance"]["data"] = data_hashes([data, gone])
    (model / "selfrag_training.json").write_text(json.dumps(record))
    gone.unlink()  # the draw was over both files: without one it cannot be rebuilt
    with pytest.raises(InputError, match=r"cannot be rebuilt \(gone.jsonl is not where .* holds a file it trained on") \
            as err:
        training_draw(model, [str(data)])
    assert "\n" not in str(err.value)


def test_a_missing_or_broken_record_is_a_note(tmp_path: Path) -> None:
    model = tmp_path / "critic"
    model.mkdir()
    for text in (None, "{", '{"config": "x"}', '{"config": {"data": ["a"]}, "provenance": []}'):
        if text is not None:
            (model / "selfrag_training.json").write_text(text)
        drawn, note = training_draw(model, [])
        assert drawn is None and note is not None and "could not be skipped" in note


class _Loaded:
    def __init__(self, **_: Any) -> None:
        pass

    def load(self) -> SelfRAGVocabulary:
        return SupportCritic()


def test_fit_skips_the_training_draw_and_saves_only_groups_that_gain(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    data = _rows(tmp_path / "rows.jsonl", 60)
    model = _trained_critic(tmp_path, data)
    asked: list[int] = []
    dists, _ = _skewed(61)  # row i relabelled as _skewed's row i + 1 is labelled

    def predict(reflector: Any, rows: Sequence[Any], **_: Any) -> list[dict[str, float]]:
        asked.append(len(rows))
        by_answer = {f"Answer {i}.": dists[i + 1] for i in range(60)}
        return [by_answer[r.query().output] for r in rows]

    monkeypatch.setattr("selfrag_langchain.llms.transformers.TransformersLLM", _Loaded)
    monkeypatch.setattr("selfrag_langchain.trainer.critic_eval.predict", predict)
    relabelled = tmp_path / "relabelled.jsonl"  # the same rows judged again, every label moved on by one
    names = ["Fully supported", "Partially supported", "No support"]
    relabelled.write_text("".join(
        json.dumps({**json.loads(line), "label": names[(names.index(json.loads(line)["label"]) + 1) % 3]}) + "\n"
        for line in data.read_text().splitlines()))
    fit = fit_label_bias(CriticBiasConfig(model=str(model), data=[str(relabelled)], folds=3, min_rows=5),
                         progress=False)
    assert asked == [48]  # 60 rows less the 12 the critic trained on, whatever their label now
    assert "12 rows the critic trained on were skipped" in fit.notes
    saved = load_label_bias(model)
    assert saved is not None and saved == fit.bias and Group.ISSUP in saved.weights
    assert saved.fitted_on["groups"]["IsSup"]["kept"] is True and saved.fitted_on["skipped_as_trained_on"] == 12


def test_nothing_left_to_fit_on_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    data = _rows(tmp_path / "rows.jsonl", 12)
    model = _trained_critic(tmp_path, data)
    with pytest.raises(InputError, match=r"no row of .* is left"):
        fit_label_bias(CriticBiasConfig(model=str(model), data=[str(data)]), progress=False)
    assert not (model / LABEL_BIAS_FILE).exists()
    with pytest.raises(InputError, match="must be a trained critic directory"):
        fit_label_bias(CriticBiasConfig(model=str(tmp_path / "missing"), data=[str(data)]), progress=False)


def test_critic_eval_reads_the_critic_with_its_bias_unless_told_not_to(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from selfrag_langchain.trainer.config import CriticEvalConfig
    from selfrag_langchain.trainer.critic_eval import evaluate

    data = _rows(tmp_path / "dev.jsonl", 6)
    model = tmp_path / "critic"
    model.mkdir()
    bias = LabelBias({Group.ISSUP: {NO_SUPPORT: 3.0}}, "paper", {"data": data_hashes([data])})
    (model / LABEL_BIAS_FILE).write_text(json.dumps(bias.to_dict()))
    monkeypatch.setattr("selfrag_langchain.llms.transformers.TransformersLLM", _Loaded)
    biased = evaluate(CriticEvalConfig(data=str(data), model=str(model)), progress=False)
    plain = evaluate(CriticEvalConfig(data=str(data), model=str(model), label_bias=False), progress=False)
    assert {p["predicted"] for p in biased.predictions} == {NO_SUPPORT}
    assert {p["predicted"] for p in plain.predictions} == {FULLY_SUPPORTED}
    assert any("read with the label bias" in note for note in biased.notes) and not plain.notes
    assert any("not held out" in note for note in biased.notes)  # evaluated on the rows it was fitted on
    (model / LABEL_BIAS_FILE).write_text(json.dumps(LabelBias({}, "paper", {"data": {}}).to_dict()))
    unweighted = evaluate(CriticEvalConfig(data=str(data), model=str(model)), progress=False)
    assert not unweighted.notes and unweighted.predictions == plain.predictions  # no group kept: the critic as is
