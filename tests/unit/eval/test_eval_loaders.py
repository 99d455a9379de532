"""Loaders for every evaluation format: usable records become examples; a malformed record is reported
with its line number and skipped; a file with nothing usable is one clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.errors import InputError
from selfrag_langchain.eval.loaders import load_examples

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"


def write_jsonl(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_popqa_records_with_both_ctx_shapes_and_malformed_lines(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "popqa.jsonl", [
        {"id": 7, "question": "What is Henry Feilden's occupation?", "answers": ["politician", "pol"],
         "ctxs": [{"id": "1", "title": "Henry Feilden", "text": "A politician.", "score": "1.5"},
                  {"title": "web", "text": "From the web."}]},
        "{not json",
        {"question": "Who?", "ctxs": []},                      # no answers
        "",
        {"question": "  ", "answers": ["x"]},                 # empty question
        {"question": "Where is Paris?", "answers": "France"},  # one answer as a string; no ctxs: use a retriever
        {"question": "Bad ctx", "answers": ["x"], "ctxs": [{"title": "no text"}]},
    ])
    loaded = load_examples(path, "popqa")
    assert [ex.question for ex in loaded.examples] == ["What is Henry Feilden's occupation?", "Where is Paris?"]
    first, second = loaded.examples
    assert first.key == "7" and first.line == 1 and first.answers == ("politician", "pol")
    assert [d.metadata.get("score") for d in first.passages] == [1.5, None]
    assert [d.metadata["rank"] for d in first.passages] == [1, 2]
    assert second.passages is None and second.answers == ("France",) and second.key == "Where is Paris?"
    assert [p.split(":")[0] for p in loaded.problems] == [f"{path}, line {n}" for n in (2, 3, 5, 7)]
    assert "not valid JSON" in loaded.problems[0]
    assert "missing 'answers'" in loaded.problems[1]
    assert "ctxs[0] has no 'text'" in loaded.problems[3]
    assert all(p.endswith("skipped") for p in loaded.problems)


def test_arc_numeric_labels_become_letters_and_bad_keys_are_skipped(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "arc.jsonl", [
        {"id": "q1", "question": "Which?", "choices": {"text": ["w", "x", "y", "z"], "label": ["1", "2", "3", "4"]},
         "answerKey": "3"},
        {"id": "q2", "question": "Pick", "choices": {"text": ["p", "q", "r"], "label": ["A", "B", "C"]},
         "answerKey": "D"},
        {"id": "q3", "question": "Pick", "choices": {"text": ["p"], "label": ["A", "B"]}, "answerKey": "A"},
        {"id": "q4", "question": "Pick", "answerKey": "A"},
    ])
    loaded = load_examples(path, "arc_c")
    (ex,) = loaded.examples
    assert ex.choices == {"A": "w", "B": "x", "C": "y", "D": "z"}
    assert ex.label == "C" and ex.gold() == "C"
    assert len(loaded.problems) == 3
    assert "'answerKey' 'D' is not one of the choice labels" in loaded.problems[0]
    assert "1 labels but 2 texts" not in loaded.problems[1] and "2 labels but 1 texts" in loaded.problems[1]
    assert "line 4" in loaded.problems[2] and "choices" in loaded.problems[2]


def test_pubhealth_labels_are_lower_cased_and_others_skipped(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "health.jsonl", [
        {"question": "Vitamin C cures colds.", "answers": ["False"]},
        {"claim": "Exercise helps sleep.", "label": "true"},
        {"question": "Drinking water helps.", "answers": ["SUPPORTS"]},
        {"claim": "Coffee is a vegetable.", "label": "mixture"},
        {"claim": "No label"},
    ])
    loaded = load_examples(path, "pubhealth")
    assert [(ex.question, ex.label) for ex in loaded.examples] == [
        ("Vitamin C cures colds.", "false"), ("Exercise helps sleep.", "true"), ("Drinking water helps.", "true")]
    assert "label 'mixture' is not true or false" in loaded.problems[0]
    assert "line 5" in loaded.problems[1]


def test_asqa_in_alce_json_array(tmp_path: Path) -> None:
    records = [
        {"question": "When did Sunday become the seventh day?", "sample_id": "x",
         "qa_pairs": [{"question": "By Constantine?", "short_answers": ["321 AD", "AD 321"]},
                      {"question": "By ISO?", "short_answers": ["1988"]}],
         "annotations": [{"long_answer": "In 321 AD ..."}, {"long_answer": "ISO 8601 in 1988 ..."}],
         "docs": [{"title": "Sunday", "text": "Constantine made Sunday a day of rest in 321."}]},
        {"question": "No pairs", "qa_pairs": []},
        {"question": "Bad pair", "qa_pairs": [{"question": "?"}]},
    ]
    path = tmp_path / "asqa.json"
    path.write_text(json.dumps(records, indent=1))
    loaded = load_examples(path, "asqa")
    (ex,) = loaded.examples
    assert ex.short_answer_sets == (("321 AD", "AD 321"), ("1988",))
    assert ex.references == ("In 321 AD ...", "ISO 8601 in 1988 ...")
    assert ex.passages[0].metadata["title"] == "Sunday"
    assert [p.split(":")[0] for p in loaded.problems] == [f"{path}, item 2", f"{path}, item 3"]
    assert "qa_pairs[0] has no 'short_answers'" in loaded.problems[1]


def test_plain_question_files(tmp_path: Path) -> None:
    txt = tmp_path / "questions.txt"
    txt.write_text("Who wrote Hamlet?\n\nWho painted the Mona Lisa?\n")
    loaded = load_examples(txt, "questions")
    assert [(ex.question, ex.line, ex.passages, ex.answers) for ex in loaded.examples] == [
        ("Who wrote Hamlet?", 1, None, ()), ("Who painted the Mona Lisa?", 3, None, ())]
    jsonl = write_jsonl(tmp_path / "q.jsonl", [{"question": "Who wrote Hamlet?", "answers": ["Shakespeare"]},
                                               {"question": "Who wrote Hamlet?"}])
    first, second = load_examples(jsonl, "questions").examples
    assert first.answers == ("Shakespeare",)
    assert (first.key, second.key) == ("Who wrote Hamlet?", "Who wrote Hamlet? #2")  # keys stay unique


@pytest.mark.parametrize(
    ("content", "task", "message"),
    [
        (None, "popqa", "eval file not found"),
        ("", "popqa", "is empty"),
        ("\n  \n", "popqa", "is empty"),
        ('{"question": "q"}\n{"question": "r"}\n', "popqa",
         "no usable question in .* for task popqa: each record needs 'question' and 'answers' "
         r"\(first problem: .*line 1: missing 'answers'"),
        ('{"question": "q", "answers": ["a"]}\n', "arc_c", "each record needs 'question', 'choices'"),
        ("[1, 2", "asqa", "not a valid JSON array"),
        ('{"question": "q"}\n', "bioasq", "unknown task 'bioasq': choose one of popqa, triviaqa"),
    ],
)
def test_unusable_files_are_one_clear_error(tmp_path: Path, content: str | None, task: str, message: str) -> None:
    path = tmp_path / "data.jsonl"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_examples(path, task)


@pytest.mark.skipif(not DATA.exists(), reason="needs ../shared/data")
def test_the_shared_dev_files_load_whole() -> None:
    popqa = load_examples(DATA / "popqa_longtail_dev.jsonl", "popqa")
    assert len(popqa.examples) == 50 and not popqa.problems
    assert all(len(ex.passages) == 25 and ex.answers for ex in popqa.examples)
    arc = load_examples(DATA / "arc_challenge_dev.jsonl", "arc_c")
    assert len(arc.examples) == 50 and not arc.problems
    assert all(ex.label in ex.choices and set(ex.choices) <= set("ABCDE") for ex in arc.examples)
