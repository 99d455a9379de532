"""Critic training data: balanced subsets, and long rows cut in their input, never in their label."""

from __future__ import annotations

from collections import Counter

import pytest

from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.trainer.critic import fit_example, select_rows
from selfrag_langchain.trainer.critic_rows import CriticRow
from selfrag_langchain.trainer.masks import IGNORE_INDEX
from selfrag_langchain.trainer.training_config import CriticConfig
from tests.fakes.char_tokenizer import CharTokenizer

ROWS = ([CriticRow("i", f"Task instruction: r{n}", "[Retrieval]", "retrieval") for n in range(10)]
        + [CriticRow("i", f"Task instruction: u{n}\nOutput: o", "[Utility:5]", "utility") for n in range(3)])


def test_per_group_subset_is_balanced_seeded_and_shuffled() -> None:
    config = CriticConfig(data=["d"], out="o", per_group=4, seed=1)
    chosen = select_rows(ROWS, config)
    assert Counter(r.task for r in chosen) == {"retrieval": 4, "utility": 3}
    assert chosen == select_rows(ROWS, config)
    assert select_rows(ROWS, CriticConfig(data=["d"], out="o", per_group=4, seed=2)) != chosen
    assert len(select_rows(ROWS, CriticConfig(data=["d"], out="o", tasks=["utility"], limit=2))) == 2


def test_no_rows_for_the_chosen_tasks() -> None:
    with pytest.raises(InputError, match="no critic rows for tasks relevance"):
        select_rows(ROWS, CriticConfig(data=["d"], out="o", tasks=["relevance"]))


def test_long_rows_lose_the_end_of_their_input_not_the_label() -> None:
    tok = CharTokenizer()
    row = CriticRow("Judge.", "Task instruction: q\nEvidence: " + "long evidence " * 20, "[Relevant]", "relevance")
    example = fit_example(tok.encode, row, lambda p: p, max_length=100)
    assert example is not None and 90 <= len(example.input_ids) <= 100
    assert tok.decode([t for t in example.labels if t != IGNORE_INDEX]) == "[Relevant]"
    text = tok.decode(example.input_ids)
    assert text.startswith("### Instruction:\nJudge.\n\n### Input:\nTask instruction: q\nEvidence: long")
    assert text.endswith("\n\n### Response:\n[Relevant]")
    assert fit_example(tok.encode, row, lambda p: p, max_length=10) is None


def test_per_label_cap_keeps_a_frequent_label_from_deciding_its_group() -> None:
    rows = ROWS + [CriticRow("i", f"Task instruction: u{n}\nOutput: o", "[Utility:1]", "utility") for n in range(2)]
    config = CriticConfig(data=["d"], out="o", per_label=3, seed=1)
    chosen = select_rows(rows, config)
    assert Counter(r.output for r in chosen) == {"[Retrieval]": 3, "[Utility:5]": 3, "[Utility:1]": 2}
    assert chosen == select_rows(rows, config)
    with pytest.raises(ConfigurationError, match="per_label must be >= 1"):
        CriticConfig(data=["d"], out="o", per_label=0)
