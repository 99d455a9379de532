"""Generator pairs: which critic rows give pairs, which passages give entity questions, seeded and written whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.errors import InputError
from selfrag_langchain.prompts import critic_input
from selfrag_langchain.trainer.config import GeneratorPairsConfig
from selfrag_langchain.trainer.critic_rows import read_critic_rows
from selfrag_langchain.trainer.generator import read_generator_records
from selfrag_langchain.trainer.generator_pairs import create, critic_pairs, generate, names_entity, without_title
from selfrag_langchain.trainer.judge_data import Passage
from selfrag_langchain.trainer.training_config import GeneratorConfig

SUPPORT = "Judge whether the output is supported."
OPENING = ("Babe Martin\nBabe Martin Boris Michael Martin (March 28, 1920 - August 1, 2013) was a Major League "
           "Baseball outfielder for the St. Louis Browns. He was nicknamed 'Babe' by his teammates in Seattle.")
MIDDLE = ("Eiffel Tower\nThe tower was repainted in 1968 and again in the following decades. Visitors climb the "
          "stairs to the first and second levels every single day.")


def _row(instruction: str, output: str | None, evidence: str | None, *, preceding: str | None = None,
         label: str = "[Fully supported]") -> dict[str, str]:
    return {"instruction": SUPPORT, "task": "groundedness", "output": label,
            "input": critic_input(instruction, evidence=evidence, output=output, preceding=preceding)}


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def critic_file(tmp_path: Path) -> Path:
    return _write(tmp_path / "critic.jsonl", [
        _row("Who was Babe Martin?", "Babe Martin was a baseball outfielder.", OPENING),
        _row("Who was Babe Martin?", "Babe Martin was a baseball outfielder.", OPENING),  # the same pair again
        _row("Describe the tower.", "It was repainted in 1968.", MIDDLE),
        _row("Continue the story.", "Then it rained.", MIDDLE, preceding="It was a dark night."),
        _row("Write an essay.", " ".join(["word"] * 80), MIDDLE),
    ])


def test_critic_pairs_are_distinct_whole_and_short(critic_file: Path) -> None:
    pairs = critic_pairs(read_critic_rows(critic_file), max_words=60)
    # The repeated pair once; the continuation (preceding sentences) and the 80-word output left out.
    assert pairs == [("Who was Babe Martin?", "Babe Martin was a baseball outfielder."),
                     ("Describe the tower.", "It was repainted in 1968.")]


def test_entity_questions_are_answered_by_a_sentence_that_names_the_entity() -> None:
    opening = Passage("Babe Martin", OPENING.split("\n", 1)[1], "g")
    middle = Passage("The Eiffel Tower", MIDDLE.split("\n", 1)[1], "g")
    assert names_entity(opening, "Boris Michael Martin, called Babe, was a player.")
    assert not names_entity(middle, "The tower was repainted in 1968.")  # "The" alone does not name it
    assert names_entity(middle, "Visitors to Eiffel's tower climb the stairs.")
    assert without_title("Babe Martin Boris Michael Martin was a player.", "Babe Martin") == \
        "Boris Michael Martin was a player."
    assert without_title("Babe Martin was a player.", "Babe Martin") == "Babe Martin was a player."


def test_generate_is_seeded_and_labels_its_kinds(critic_file: Path, tmp_path: Path) -> None:
    config = GeneratorPairsConfig(critic=[str(critic_file)], out=str(tmp_path / "pairs.jsonl"), seed=3)
    rows, passages = generate(config)
    assert rows == generate(config)[0]
    entity = [r for r in rows if r["dataset_name"] == "entity"]
    assert len(entity) == 1 and "Babe Martin" in entity[0]["instruction"]
    assert entity[0]["output"].startswith("Boris Michael Martin (March 28, 1920")
    assert sorted(p.title for p in passages) == ["Babe Martin", "Eiffel Tower"]
    assert len({r["id"] for r in rows}) == len(rows) == 3


def test_create_writes_pairs_and_passages(critic_file: Path, tmp_path: Path) -> None:
    config = GeneratorPairsConfig(critic=[str(critic_file)], out=str(tmp_path / "pairs.jsonl"),
                                  passages_out=str(tmp_path / "passages.jsonl"), per_kind=1)
    assert create(config) == {"critic": 1, "entity": 1}
    passages = [json.loads(line) for line in Path(config.passages_out).read_text().splitlines()]
    assert {p["title"] for p in passages} == {"Babe Martin", "Eiffel Tower"}
    assert all(set(json.loads(line)) == {"instruction", "output", "id", "dataset_name"}
               for line in Path(config.out).read_text().splitlines())


def test_no_pairs_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    source = _write(tmp_path / "critic.jsonl", [_row("Continue.", "Then.", None, preceding="Before.")])
    out = tmp_path / "pairs.jsonl"
    with pytest.raises(InputError, match="no pairs"):
        create(GeneratorPairsConfig(critic=[str(source)], out=str(out)))
    assert not out.exists()


def test_held_out_rows_stay_out_of_each_file(tmp_path: Path) -> None:
    files = [_write(tmp_path / f"{name}.jsonl", [{"instruction": f"{name}{i}", "output": "o"} for i in range(4)])
             for name in ("a", "b")]
    records = read_generator_records([str(f) for f in files], held_out=1)
    assert [r["instruction"] for r in records] == ["a0", "a1", "a2", "b0", "b1", "b2"]
    assert [r["instruction"] for r in read_generator_records([str(f) for f in files], limit=2, held_out=3)] == \
        ["a0", "b0"]
    with pytest.raises(Exception, match="held_out must be >= 0"):
        GeneratorConfig(data=[str(files[0])], out=str(tmp_path / "g"), held_out=-1)
