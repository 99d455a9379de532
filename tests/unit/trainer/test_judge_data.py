"""Synthetic judgements: seeded, labelled as their kind says, made only from passages (never eval questions)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from pathlib import Path

import pytest

from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.prompts import critic_input
from selfrag_langchain.tokens import FULLY_SUPPORTED, IRRELEVANT, NO_SUPPORT, PARTIALLY_SUPPORTED, RELEVANT
from selfrag_langchain.trainer.config import JudgeDataConfig
from selfrag_langchain.trainer.critic_rows import read_critic_rows
from selfrag_langchain.trainer.judge_data import create, generate, spans, swap

INSTRUCTIONS = {"relevance": "Judge relevance.", "groundedness": "Judge support.", "utility": "Judge utility."}

PASSAGES = [
    ("Henry Feilden (politician)", "Henry Feilden was an English politician born in 1818. He sat for Blackburn "
     "from 1869 to 1875 as a member of the Conservative Party in the House of Commons."),
    ("Daniel Thwaites", "Daniel Thwaites was an English brewer born in 1817 in Blackburn. He owned the Eanam "
     "Brewery and was the third of four brothers in the family business."),
    ("Neptune", "Neptune is the eighth planet from the Sun in the Solar System. It is the fourth-largest planet "
     "by diameter and the third most massive of the planets."),
    ("Mount Everest", "Mount Everest is the highest mountain above sea level on Earth. Its summit stands at "
     "8,849 metres on the border between Nepal and China."),
]


def _critic_file(path: Path) -> Path:
    rows = []
    for task, label in (("relevance", RELEVANT), ("groundedness", FULLY_SUPPORTED), ("utility", "[Utility:5]")):
        for title, text in PASSAGES[:2]:
            evidence = f"{title}\n{text}" if task != "utility" else None
            output = None if task == "relevance" else text.split(". ")[0] + "."
            rows.append({"instruction": INSTRUCTIONS[task], "task": task, "output": label,
                         "input": critic_input("Tell me something.", evidence=evidence, output=output)})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _eval_file(path: Path) -> Path:
    record = {"question": "SECRET QUESTION never read?", "answers": ["SECRET ANSWER"], "s_wiki_title": "Subject",
              "ctxs": [{"title": "Subject", "text": "Subject is the row's own subject, which the data must skip."}]
              + [{"title": t, "text": x} for t, x in PASSAGES[2:]]}
    other = {"question": "q", "answers": ["a"], "ctxs": [{"title": t, "text": x} for t, x in PASSAGES]}
    path.write_text(json.dumps(record) + "\n" + json.dumps(other) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def config(tmp_path: Path) -> JudgeDataConfig:
    return JudgeDataConfig(critic=[str(_critic_file(tmp_path / "critic.jsonl"))],
                           passages=[str(_eval_file(tmp_path / "eval.jsonl"))], out=str(tmp_path / "out.jsonl"),
                           per_kind=50, seed=3)


def test_the_same_seed_gives_the_same_rows_and_another_seed_others(config: JudgeDataConfig) -> None:
    first, again = generate(config), generate(config)
    assert first == again
    other = generate(JudgeDataConfig(critic=config.critic, passages=config.passages, out=config.out,
                                     per_kind=50, seed=4))
    assert other != first


def test_each_kind_has_its_label_and_the_rows_read_back_as_critic_data(config: JudgeDataConfig) -> None:
    create(config)
    rows = [json.loads(line) for line in Path(config.out).read_text(encoding="utf-8").splitlines()]
    expected = {"copy": FULLY_SUPPORTED, "swap": NO_SUPPORT, "neighbour": NO_SUPPORT, "added": PARTIALLY_SUPPORTED,
                "entity": RELEVANT, "neighbour_entity": IRRELEVANT, "answer": "[Utility:5]",
                "other_entity": "[Utility:2]", "declined": "[Utility:1]"}
    assert {r["kind"] for r in rows} == set(expected)
    for r in rows:
        assert r["output"] == expected[r["kind"]]
        assert r["instruction"] == INSTRUCTIONS[r["task"]]
    parsed = read_critic_rows(config.out)
    assert len(parsed) == len(rows) and all(p.query() is not None for p in parsed)


def test_a_swap_is_a_passage_sentence_with_one_span_changed(config: JudgeDataConfig) -> None:
    import difflib

    swaps = [read_critic_rows_from(r) for r in generate(config) if r["kind"] == "swap"]
    assert swaps
    for query in swaps:
        assert query.output not in query.evidence  # no longer the passage's sentence
        words = query.output.split()
        closest = max(difflib.SequenceMatcher(None, words, s.split()).ratio()
                      for s in query.evidence.replace(". ", ".\n").splitlines())
        assert closest >= 0.7  # the rest of the sentence is kept


def read_critic_rows_from(row: dict) -> object:
    from selfrag_langchain.trainer.critic_rows import CriticRow

    return CriticRow(row["instruction"], row["input"], row["output"], row["task"]).query()


def test_swap_replaces_a_year_with_another_year() -> None:
    sentence = "He was born in 1818 in Lancashire."
    swapped, kind = swap(sentence, {"year": ["1818", "1905"]}, random.Random(0))
    assert kind == "year" and swapped == "He was born in 1905 in Lancashire."
    assert swap("no spans here at all", {"year": ["1905"]}, random.Random(0)) is None


def test_spans_do_not_overlap_and_skip_the_sentence_subject() -> None:
    found = spans("Mount Everest stands at 8,849 metres, the highest point since 1955 per Survey of India.")
    kinds = [k for k, _, _ in found]
    assert "year" in kinds and "number" in kinds and "superlative" in kinds and "name" in kinds
    assert all(start > 0 for kind, start, _ in found if kind == "name")
    ordered = sorted((s, e) for _, s, e in found)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(ordered))


def test_eval_questions_answers_and_row_subjects_are_never_used(config: JudgeDataConfig) -> None:
    text = json.dumps(generate(config))
    assert "SECRET" not in text
    assert "row's own subject" not in text


def test_neighbour_negatives_never_name_the_questions_entity(config: JudgeDataConfig) -> None:
    for r in generate(config):
        if r["kind"] == "neighbour_entity":
            query = read_critic_rows_from(r)
            entity = next(e for e in ("Henry Feilden", "Daniel Thwaites", "Neptune", "Mount Everest")
                          if e in query.instruction)
            assert entity not in query.evidence


def test_critic_files_without_a_task_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "critic.jsonl"
    path.write_text(json.dumps({"instruction": "x", "task": "relevance", "output": RELEVANT,
                                "input": critic_input("q", evidence="T\nsome text here")}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="no rows of groundedness"):
        generate(JudgeDataConfig(critic=[str(path)], out=str(tmp_path / "o.jsonl")))


def test_tasks_keep_the_rows_a_file_of_every_task_holds_for_them(config: JudgeDataConfig) -> None:
    every = generate(config)
    only = generate(dataclasses.replace(config, tasks=["groundedness"]))
    assert only == [r for r in every if r["task"] == "groundedness"]
    assert only and len(only) < len(every)


def test_a_task_without_synthetic_rows_is_a_configuration_error(config: JudgeDataConfig) -> None:
    with pytest.raises(ConfigurationError, match="retrieval"):
        dataclasses.replace(config, tasks=["retrieval"])


def test_critic_files_need_instructions_only_for_the_tasks_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "critic.jsonl"
    path.write_text("".join(json.dumps({"instruction": INSTRUCTIONS["groundedness"], "task": "groundedness",
                                        "output": FULLY_SUPPORTED,
                                        "input": critic_input("q", evidence=f"{title}\n{text}", output="x")}) + "\n"
                            for title, text in PASSAGES), encoding="utf-8")
    rows = generate(JudgeDataConfig(critic=[str(path)], out=str(tmp_path / "o.jsonl"), tasks=["groundedness"]))
    assert rows and {r["task"] for r in rows} == {"groundedness"}
    assert {r["instruction"] for r in rows} == {INSTRUCTIONS["groundedness"]}
    with pytest.raises(InputError, match="no rows of relevance, utility"):
        generate(JudgeDataConfig(critic=[str(path)], out=str(tmp_path / "o.jsonl")))
