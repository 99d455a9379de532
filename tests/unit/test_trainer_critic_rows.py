"""Critic rows: the released data splits back into the fields the critic reflector asks with."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfrag_langchain.prompts import PAPER_CRITIC
from selfrag_langchain.trainer.critic_rows import CriticRow, read_critic_rows

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


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
