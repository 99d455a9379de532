"""Critic rows: the released data splits back into the fields the critic reflector asks with."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfrag_langchain.errors import InputError
from selfrag_langchain.prompts import PAPER_CRITIC
from selfrag_langchain.trainer.critic_rows import CriticRow, read_critic_rows

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"


@pytest.mark.skipif(not (DATA / "critic_dev.jsonl").is_file(), reason="needs ../shared/data")
def test_released_rows_rebuild_exactly_through_the_paper_prompts() -> None:
    rows = read_critic_rows([DATA / "critic_train.jsonl", DATA / "critic_dev.jsonl"])
    assert len(rows) == 999 + 199
    for row in rows:
        fields = row.fields()
        assert fields is not None, row.input[:80]
        prompt = PAPER_CRITIC.prompt(row.group, str(fields["instruction"]), evidence=fields["evidence"],
                                     output=fields["output"], preceding=fields["preceding"])
        assert prompt == row.prompt


def test_fields_of_a_row_with_every_field() -> None:
    row = CriticRow("i", "Task instruction: Q\nwith Output: inside\nPreceding sentences: P\nOutput: O\nEvidence: E",
                    "[Fully supported]", "groundedness")
    assert row.fields() == {"instruction": "Q\nwith Output: inside", "preceding": "P", "output": "O",
                            "evidence": "E"}


def test_a_row_in_another_layout_does_not_split() -> None:
    assert CriticRow("i", "Question: Q", "[Relevant]", "relevance").fields() is None


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_plain_rows_become_the_released_layout_of_their_labels_group(tmp_path: Path) -> None:
    csv_file = _write(tmp_path / "mine.csv", (
        "question,title,passage,output,label\n"
        "How long is the Rhine?,Rhine,\"The Rhine is about 1,230 km long.\",,relevant\n"
        "How long is the Rhine?,Rhine,\"The Rhine is about 1,230 km long.\",\"It is 2,850 km long.\",No support\n"
        "How long is the Rhine?,,,\"It is 1,230 km long.\",4\n"
        ",,,,\n"
        "Write a haiku.,,,,[No Retrieval]\n"))
    rows = read_critic_rows(csv_file)
    assert [(r.task, r.output) for r in rows] == [
        ("relevance", "[Relevant]"), ("groundedness", "[No support / Contradictory]"), ("utility", "[Utility:4]"),
        ("retrieval", "[No Retrieval]")]
    assert rows[0].input == ("Task instruction: How long is the Rhine?\nEvidence: Rhine\n"
                             "The Rhine is about 1,230 km long.")
    assert rows[1].query() is not None and rows[1].query().output == "It is 2,850 km long."  # type: ignore[union-attr]
    assert rows[2].input == "Task instruction: How long is the Rhine?\nOutput: It is 1,230 km long."
    for row in rows:
        assert row.instruction == PAPER_CRITIC.questions[row.group].instruction
    jsonl = _write(tmp_path / "mine.jsonl", '{"question": "How long is the Rhine?", "passage": "1,230 km.", '
                                              '"output": "1,230 km.", "label": "Fully supported"}\n')
    assert read_critic_rows(jsonl)[0].output == "[Fully supported]"
    scored = _write(tmp_path / "scored.jsonl", '{"question": "Q", "output": "O", "label": 4}\n')
    assert read_critic_rows(scored)[0].output == "[Utility:4]"
    # A spreadsheet's UTF-8 CSV: a byte-order mark, header names in another case and with spaces.
    sheet = tmp_path / "sheet.csv"
    sheet.write_bytes("\ufeffQuestion, Passage ,LABEL\nQ,P,Irrelevant\n".encode())
    assert read_critic_rows(sheet)[0].output == "[Irrelevant]"


def test_a_file_in_another_encoding_is_one_line(tmp_path: Path) -> None:
    latin = tmp_path / "latin.csv"
    latin.write_bytes("question,passage,label\nQ,café,Relevant\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin.csv: not UTF-8 text \(byte \d+\): save it as UTF-8"):
        read_critic_rows(latin)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("a.csv", "question,label\nQ,Relevant\n", r"a.csv:2: a relevance row \(Relevant\) needs question, passage"),
    ("b.csv", "question,passage,label\nQ,P,Very good\n", r"b.csv:2: label 'Very good' names no reflection token"),
    ("c.csv", "question,passage,label\nQ,P,Relevant,extra\n", r"c.csv:2: more cells than the header names"),
    ("d.jsonl", '{"question": "Q", "passage": "P", "label": "Relevant"}\n{"question": "Q"}\n',
     r"d.jsonl:2: a plain row needs a label"),
    ("h.jsonl", '{"label": "Relevant", "passage": "P"}\n', r"h.jsonl:1: a plain row needs its question as text"),
    ("i.csv", 'question,passage,label\nQ,"P unclosed,Relevant\nQ2,P2,Relevant\n',
     r"i.csv:2: not valid CSV \(.*is a quote left open\?\)"),
    ("j.csv", 'question,passage,label\nQ,"two\nlines",Relevant\nQ2,P2,Bogus\n', r"j.csv:4: label 'Bogus'"),
    ("e.jsonl", '{"question": "Q", "label": "Relevant", "task": "utility", "passage": "P"}\n',
     r"e.jsonl:1: label 'Relevant' is a relevance label, but the row's task is 'utility'"),
    ("f.jsonl", '{"instruction": "i", "input": "Task instruction: Q", "output": "[Retrieval]"}\n',
     r"f.jsonl:1: missing field 'task'"),
    ("g.csv", "question,label\n", r"g.csv has no records"),
])
def test_a_bad_row_is_named_by_file_line_and_reason(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_critic_rows(_write(tmp_path / name, text))
