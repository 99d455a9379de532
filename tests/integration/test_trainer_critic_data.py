"""Critic data collection against a real OpenAI-compatible server (llama.cpp serving SmolLM2 on loopback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.tokens import GROUP_TOKENS
from selfrag_langchain.trainer.config import TASK_GROUPS, CriticDataConfig
from selfrag_langchain.trainer.critic_data import collect

pytestmark = pytest.mark.slow

ITEMS = [
    {"id": "hamlet", "instruction": "Who wrote Hamlet?", "output": "William Shakespeare wrote Hamlet.",
     "evidence": "Hamlet\nHamlet is a tragedy written by William Shakespeare around 1600."},
    {"id": "tokyo", "instruction": "What is the capital of Japan?", "output": "Tokyo is the capital of Japan.",
     "evidence": "Mount Fuji\nMount Fuji is the highest mountain in Japan."},
]


def test_collects_from_a_real_server_and_resumes(tmp_path: Path, llama_server: str) -> None:
    source = tmp_path / "items.jsonl"
    source.write_text("".join(json.dumps(item) + "\n" for item in ITEMS))
    config = CriticDataConfig(input=str(source), out=str(tmp_path / "critic.jsonl"), model="smollm2-135m-instruct",
                              base_url=llama_server, groups=["relevance"], temperature=0.0,
                              max_tokens=12, max_retries=1, timeout=120.0)
    stats = collect(config, progress=False)
    assert stats.written + stats.rejected == 2 and stats.missing_fields == 0
    out = Path(config.out)
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    rejected_path = Path(config.out + ".rejected.jsonl")
    rejected = [json.loads(line) for line in rejected_path.read_text().splitlines()]
    assert len(rows) == stats.written and len(rejected) == stats.rejected
    for row in rows:  # every accepted answer became a label of its group, in the released format
        assert row["output"] in GROUP_TOKENS[TASK_GROUPS[row["task"]]]
        assert row["input"].startswith("Task instruction: ")
    assert {r["id"] for r in rows} | {r["id"] for r in rejected} == {"hamlet:relevance", "tokyo:relevance"}
    assert all(r["answer"].strip() for r in rejected)  # the server answered; the answer matched no label

    again = collect(config, progress=False)
    assert again.already_done == 2 and again.written == again.rejected == 0
