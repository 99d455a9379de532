"""Critic data in the released format (``instruction``, ``input``, ``output``, ``task``), read and checked.

The ``input`` field is the released critic's field block (``Task instruction: …``, ``Output: …``,
``Evidence: …``); :meth:`CriticRow.fields` splits it back into the fields the critic reflector takes,
so an evaluation asks a critic exactly what inference asks it.

A user's own judgements can come plainer, as JSON Lines or CSV rows of ``question``, ``passage`` (with an
optional ``title``), ``output`` and ``label`` (``Relevant``, ``fully supported``, ``[Utility:4]``, ``4``,
...): the label names the group, and the row becomes the released layout the paper's critic prompts read.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.prompts import PAPER_CRITIC, critic_input, paper_critic_prompt
from selfrag_langchain.tokens import GROUP_TOKENS, NO_SUPPORT, UTILITY, Group
from selfrag_langchain.trainer.config import TASK_GROUPS
from selfrag_langchain.trainer.data import read_records

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


PLAIN_NEEDS: dict[str, tuple[str, ...]] = {
    "retrieval": ("question",),
    "relevance": ("question", "passage"),
    "groundedness": ("question", "passage", "output"),
    "utility": ("question", "output"),
}
"""The text fields a plain row of each task must give; fields it does not need are not read."""

_LABEL_NAMES: dict[str, str] = {
    **{tok.strip("[]").lower(): tok for group in TASK_GROUPS.values() for tok in GROUP_TOKENS[group]},
    **{str(score): tok for score, tok in enumerate(UTILITY, start=1)},
    "no support": NO_SUPPORT,
    "contradictory": NO_SUPPORT,
}
"""A plain row's label, lower-cased and without brackets, to its reflection token."""

_TOKEN_TASK = {tok: task for task, group in TASK_GROUPS.items() for tok in GROUP_TOKENS[group]}


def label_token(label: str) -> str | None:
    """The reflection token a plain label names (``Relevant``, ``[Relevant]``, ``fully supported``,
    ``Utility:4``, ``4``), or None."""
    return _LABEL_NAMES.get(label.strip().strip("[]").strip().lower())


def _check_plain(record: dict[str, Any]) -> str | None:
    token = label_token(str(record["label"]))
    if token is None:
        return f"label {record['label']!r} names no reflection token (for example Relevant, Irrelevant, " \
               "Fully supported, Partially supported, No support, Retrieval, No Retrieval, or a utility of 1 to 5)"
    task = _TOKEN_TASK[token]
    if record.get("task") not in (None, task):
        return f"label {record['label']!r} is a {task} label, but the row's task is '{record['task']}'"
    missing = [name for name in PLAIN_NEEDS[task] if not isinstance(record.get(name), str) or not record[name].strip()]
    if missing:
        return f"a {task} row ({record['label']}) needs {', '.join(PLAIN_NEEDS[task])}; missing: {', '.join(missing)}"
    return None


def plain_row(record: dict[str, Any]) -> CriticRow:
    """A checked plain row in the released layout, asked with the paper's instruction for its group."""
    token = label_token(str(record["label"]))
    if token is None:
        msg = f"label {record['label']!r} names no reflection token"
        raise ValueError(msg)
    task = _TOKEN_TASK[token]
    needs = PLAIN_NEEDS[task]
    evidence = None
    if "passage" in needs:
        title = str(record.get("title") or "").strip()
        evidence = f"{title}\n{record['passage']}" if title else str(record["passage"])
    output = str(record["output"]) if "output" in needs else None
    instruction = PAPER_CRITIC.questions[TASK_GROUPS[task]].instruction
    return CriticRow(instruction, critic_input(str(record["question"]), evidence=evidence, output=output), token, task)


def _check(record: dict[str, Any]) -> str | None:
    if "question" in record or "label" in record:
        if not isinstance(record.get("question"), str) or not record["question"].strip():
            return "a plain row needs its question as text"
        label = record.get("label")
        if isinstance(label, bool) or not isinstance(label, str | int):
            return "a plain row needs a label: text such as Relevant, or a utility of 1 to 5"
        return _check_plain(record)
    for name in ("instruction", "input", "output", "task"):
        if not isinstance(record.get(name), str):
            return (f"missing field '{name}': a row is either in the released critic format (instruction, input, "
                    "output, task) or plain (question, passage, output, label)")
    task = record["task"]
    if task not in TASK_GROUPS:
        return f"unknown task '{task}': choose from {', '.join(TASK_GROUPS)}"
    if record["output"] not in GROUP_TOKENS[TASK_GROUPS[task]]:
        tokens = ", ".join(GROUP_TOKENS[TASK_GROUPS[task]])
        return f"label {record['output']!r} is not a {TASK_GROUPS[task]} token ({tokens})"
    return None


def read_critic_rows(paths: str | Path | Sequence[str | Path]) -> list[CriticRow]:
    """Rows of one or more critic data files (JSON Lines, or CSV for ``.csv``), each in the released format or
    plain (see the module), each checked: fields, task, a label of the task's group.

    Raises:
        InputError: naming the file and line of the first bad row and what is wrong, or an empty file.
    """
    paths = [paths] if isinstance(paths, str | Path) else list(paths)
    rows = []
    for path in paths:
        for record in read_records(path, check=_check):
            if "label" in record:
                rows.append(plain_row(record))
            else:
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
