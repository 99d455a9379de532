"""Critic data collection with a scripted teacher: prompts, parsing, discards, resuming, failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.errors import BackendError
from selfrag_langchain.prompts import PAPER_CRITIC
from selfrag_langchain.tokens import Group
from selfrag_langchain.trainer.config import CriticDataConfig
from selfrag_langchain.trainer.critic_data import collect, openai_teacher
from selfrag_langchain.trainer.critic_rows import CriticRow
from selfrag_langchain.trainer.teacher_prompts import TEACHER_PROMPTS

ITEMS = [
    {"instruction": "Who wrote Hamlet?", "output": "Shakespeare wrote it.",
     "evidence": "Hamlet\nA play by Shakespeare.", "id": "q1"},
    {"instruction": "Tell me a joke.", "output": "Why did the chicken cross the road?"},
]


class Teacher:
    """Answers by group, read from the prompt's instruction; records what it was asked."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers, self.asked = answers, []

    def __call__(self, prompt: str) -> str:
        self.asked.append(prompt)
        group = next(g for g, p in TEACHER_PROMPTS.items() if prompt.startswith(p.instruction))
        return self.answers[group]


def _config(tmp_path: Path, **kwargs: object) -> CriticDataConfig:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    return CriticDataConfig(input=str(path), out=str(tmp_path / "critic.jsonl"), model="teacher", **kwargs)


def _rows(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_collects_labels_in_the_released_format(tmp_path: Path) -> None:
    teacher = Teacher({"retrieval": "Need retrieval? [Yes]\nExplanation: facts.", "relevance": "Rating: [Relevant]",
                       "groundedness": "Score: [Fully supported]", "utility": "Perceived utility 5",
                       "retrieval_preceding": "[Continue to Use Evidence]"})
    config = _config(tmp_path, groups=["retrieval", "relevance", "groundedness", "utility"])
    stats = collect(config, teacher, progress=False)
    # Item q1 has every field; the joke has no evidence, so it gets only retrieval and utility.
    assert (stats.written, stats.rejected, stats.missing_fields) == (6, 0, 2)
    rows = _rows(Path(config.out))
    by_id = {r["id"]: r for r in rows}
    assert by_id["q1:relevance"]["output"] == "[Relevant]"
    assert by_id["q1:relevance"]["task"] == "relevance"
    assert by_id["q1:groundedness"]["input"] == (
        "Task instruction: Who wrote Hamlet?\nOutput: Shakespeare wrote it.\nEvidence: Hamlet\nA play by Shakespeare.")
    assert by_id["q1:retrieval"]["input"] == "Task instruction: Who wrote Hamlet?"
    for row in rows:  # each row's prompt is exactly what the critic reflector will ask at inference
        critic_row = CriticRow(row["instruction"], row["input"], row["output"], row["task"])
        fields = critic_row.fields()
        assert fields is not None
        rebuilt = PAPER_CRITIC.prompt(critic_row.group, str(fields["instruction"]), evidence=fields["evidence"],
                                      output=fields["output"], preceding=fields["preceding"])
        assert rebuilt == critic_row.prompt
    prompt = next(p for p in teacher.asked if p.startswith(TEACHER_PROMPTS["relevance"].instruction))
    assert "\n\n##\nInstruction: age to run for US House of Representatives" in prompt  # a demonstration
    assert prompt.endswith("Instruction: Who wrote Hamlet?\nEvidence: Hamlet\nA play by Shakespeare.\nRating:")


def test_discards_unmatched_answers_and_resumes(tmp_path: Path) -> None:
    config = _config(tmp_path, groups=["relevance", "utility"])
    teacher = Teacher({"relevance": "I am not sure.", "utility": "Utility: 4"})
    stats = collect(config, teacher, progress=False)
    assert (stats.written, stats.rejected) == (2, 1)
    rejected = _rows(Path(config.out + ".rejected.jsonl"))
    assert rejected == [{"id": "q1:relevance", "group": "relevance", "answer": "I am not sure."}]
    again = Teacher({"relevance": "[Relevant]", "utility": "5"})
    stats = collect(config, again, progress=False)
    assert again.asked == [] and stats.already_done == 3 and stats.written == 0
    assert len(_rows(Path(config.out))) == 2


def test_retrieval_preceding_is_asked_with_all_fields(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"instruction": "Explain X.", "preceding": "X is a thing.", "output": "It is blue.",
                                "ctxs": [{"title": "X", "text": "X is blue [Relevant]."}]}) + "\n")
    config = CriticDataConfig(input=str(path), out=str(tmp_path / "o.jsonl"), model="m",
                              groups=["retrieval_preceding"])
    teacher = Teacher({"retrieval_preceding": "Rating: [No Retrieval]"})
    collect(config, teacher, progress=False)
    (row,) = _rows(Path(config.out))
    assert row["task"] == "retrieval" and row["output"] == "[No Retrieval]"
    assert row["instruction"] == PAPER_CRITIC.questions[Group.RETRIEVE].instruction
    # The passage from ctxs is neutralised: its text cannot smuggle a label into the critic's prompt.
    assert row["input"] == ("Task instruction: Explain X.\nPreceding sentences: X is a thing.\nOutput: It is blue.\n"
                            "Evidence: X\nX is blue .")


def test_unreachable_teacher_is_a_clear_error(tmp_path: Path) -> None:
    from tests.servers import free_port

    config = _config(tmp_path, groups=["utility"], base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=1,
                     timeout=5.0)
    with pytest.raises(BackendError, match=r"cannot be reached after 1 retries"):
        collect(config, openai_teacher(config), progress=False)
    assert not Path(config.out).read_text()  # nothing half-written


def test_no_key_for_a_hosted_teacher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from selfrag_langchain.errors import ConfigurationError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigurationError, match="set OPENAI_API_KEY or --api-key"):
        openai_teacher(_config(tmp_path))
