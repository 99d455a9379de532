"""Critic data in the released format (``instruction``, ``input``, ``output``, ``task``), read and checked.

The ``input`` field is the released critic's field block (``Task instruction: …``, ``Output: …``,
``Evidence: …``); :meth:`CriticRow.fields` splits it back into the fields the critic reflector takes,
so an evaluation asks a critic exactly what inference asks it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.prompts import critic_input, paper_critic_prompt
from selfrag_langchain.tokens import GROUP_TOKENS, Group
from selfrag_langchain.trainer.config import TASK_GROUPS
from selfrag_langchain.trainer.data import read_jsonl

_TASK_PREFIX = "Task instruction: "


@dataclass(frozen=True)
class CriticRow:
    """One labelled critic example."""

    instruction: str
    input: str
    output: str
    task: str

    @property
    def group(self) -> Group:
        return TASK_GROUPS[self.task]

    @property
    def prompt(self) -> str:
        """The released critic's prompt for this row (before any chat template)."""
        return paper_critic_prompt(self.instruction, self.input)

    def fields(self) -> dict[str, str | None] | None:
        """The input split into ``instruction``, ``preceding``, ``output``, ``evidence``; None when the input is
        not in the released layout (rebuilding it from the fields would not give the same text)."""
        if not self.input.startswith(_TASK_PREFIX):
            return None
        rest = self.input[len(_TASK_PREFIX):]
        found: dict[str, str | None] = {"evidence": None, "output": None, "preceding": None}
        for name, marker in (("evidence", "\nEvidence: "), ("output", "\nOutput: "),
                             ("preceding", "\nPreceding sentences: ")):
            at = rest.rfind(marker)
            if at >= 0:
                rest, found[name] = rest[:at], rest[at + len(marker):]
        fields = {"instruction": rest, **found}
        shown = {k: v for k, v in fields.items() if k != "instruction"}
        return fields if critic_input(rest, **shown) == self.input else None


    def query(self) -> CriticQuery | None:
        """The question a judge is asked about this row, exactly as inference asks it; None when the input is
        not in the released layout."""
        fields = self.fields()
        if fields is None:
            return None
        return CriticQuery(self.group, str(fields["instruction"]), evidence=fields["evidence"],
                           output=fields["output"], preceding=fields["preceding"])


def _check(record: dict[str, Any]) -> str | None:
    task = record["task"]
    if task not in TASK_GROUPS:
        return f"unknown task '{task}': choose from {', '.join(TASK_GROUPS)}"
    if record["output"] not in GROUP_TOKENS[TASK_GROUPS[task]]:
        tokens = ", ".join(GROUP_TOKENS[TASK_GROUPS[task]])
        return f"label {record['output']!r} is not a {TASK_GROUPS[task]} token ({tokens})"
    return None


def read_critic_rows(paths: str | Path | Sequence[str | Path]) -> list[CriticRow]:
    """Rows of one or more critic data files, each checked (fields, task, label of the task's group).

    Raises:
        InputError: naming the file and line of the first bad row, or an empty file.
    """
    paths = [paths] if isinstance(paths, str | Path) else list(paths)
    rows = []
    for path in paths:
        for record in read_jsonl(path, required=("instruction", "input", "output", "task"), check=_check):
            rows.append(CriticRow(record["instruction"], record["input"], record["output"], record["task"]))
    return rows


def capped(rows: list[CriticRow], per_label: int | None, seed: int) -> list[CriticRow]:
    """At most ``per_label`` rows of each (task, label), drawn with ``seed``; the rows' order is kept. Labels are
    imbalanced (95% of utility labels are ``[Utility:5]``): a cap keeps one label from deciding a group."""
    if per_label is None:
        return rows
    by_label: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(rows):
        by_label.setdefault((row.task, row.output), []).append(i)
    rng = random.Random(seed)
    keep: set[int] = set()
    for key in sorted(by_label):
        found = by_label[key]
        keep.update(rng.sample(found, per_label) if len(found) > per_label else found)
    return [row for i, row in enumerate(rows) if i in keep]
