"""Synthetic judgements for training a judge, made from training-side passages with a fixed seed.

GPT-4's critic labels hold few of the cases that decide which branch wins: an answer copied from a
passage about a *neighbouring* entity, or a passage sentence with one name, number or rank changed. This
module makes such cases, in the critic-data format (``instruction``, ``input``, ``output``, ``task``, plus
``source`` and ``kind``), from passages only: the evidence of critic files and the passages of eval files
in Self-RAG's format (``ctxs``). Questions and gold answers of the eval files are never read, and an eval
row's own subject (``s_wiki_title``) is skipped, so the eval questions stay unseen.

Kinds (``kind`` field) and their labels:

- ``copy`` (IsSup, Fully): a sentence of the passage, verbatim.
- ``swap`` (IsSup, No support / Contradictory): that sentence with one year, number, rank, superlative or
  name replaced by another of the same kind from another passage.
- ``neighbour`` (IsSup, No support / Contradictory): a sentence of a passage about another entity, judged
  against this passage.
- ``added`` (IsSup, Partially): the sentence followed by a sentence of another passage.
- ``entity`` / ``neighbour_entity`` (IsRel, Relevant / Irrelevant): a question about the passage's title
  entity against its passage, and against a passage about a similar entity that does not name it.
- ``answer`` / ``other_entity`` / ``declined`` (IsUse, 5 / 2 / 1): the entity passage's first sentence, a
  neighbour's first sentence, or a refusal, as the output for the question.

Examples:
    selfrag train judge-data --critic ../shared/data/critic_train.jsonl \\
        --passages ../shared/data/popqa_longtail_dev.jsonl ../shared/data/arc_challenge_dev.jsonl \\
        --out judge_synthetic.jsonl
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import write_text_atomic
from selfrag_langchain.prompts import critic_input
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.tokens import (
    FULLY_SUPPORTED,
    IRRELEVANT,
    NO_SUPPORT,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    Group,
)
from selfrag_langchain.trainer.config import SYNTHETIC_TASKS, TASK_GROUPS, JudgeDataConfig
from selfrag_langchain.trainer.critic_rows import CriticRow, read_critic_rows
from selfrag_langchain.trainer.data import jsonl_text, read_jsonl

TASK_OF = {TASK_GROUPS[task]: task for task in SYNTHETIC_TASKS}
"""The critic-data task of each group a synthetic row judges."""

QUESTION_TEMPLATES = (
    "Tell me about {e}.",
    "Who or what is {e}?",
    "What is {e} known for?",
    "What do you know about {e}?",
    "Give a short description of {e}.",
)
"""Questions about an entity named by a passage title (a template per question, chosen by the seed)."""

DECLINES = (
    "I'm sorry, I don't know.",
    "I do not have information about that.",
    "The passage does not say.",
    "It is unclear.",
)

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
SUPERLATIVES = ("largest", "smallest", "highest", "lowest", "longest", "shortest", "oldest", "youngest",
                 "biggest", "most populous", "deepest", "tallest")

SPAN_PATTERNS: dict[str, re.Pattern[str]] = {
    "year": re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b"),
    "number": re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})*(?:\.\d+)?(?![\w,.]\d)"),
    "ordinal": re.compile(r"\b(?:" + "|".join(ORDINALS) + r"|\d+(?:st|nd|rd|th))\b", re.IGNORECASE),
    "superlative": re.compile(r"\b(?:" + "|".join(SUPERLATIVES) + r")\b"),
    "name": re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+|de\s+|von\s+|van\s+)?[A-Z][a-z]+)+\b"),
}
"""What a swap may replace, by kind; a replacement comes from another passage's span of the same kind."""


@dataclass(frozen=True)
class Passage:
    """A training-side passage: its title (the entity it is about, when it has one), text, and group (the
    eval row or critic file it came from: passages of one group are neighbours of each other)."""

    title: str
    text: str
    group: str

    @property
    def evidence(self) -> str:
        """The passage as the judge reads it (``title\\ntext``, as :func:`format_passage` writes it)."""
        return f"{self.title}\n{self.text}" if self.title else self.text

    @property
    def entity(self) -> str:
        """The title without a disambiguation in parentheses ("Henry Feilden (politician)" -> "Henry Feilden")."""
        return re.sub(r"\s*\([^)]*\)\s*$", "", self.title).strip()


def _clean(text: str) -> str:
    text = re.sub(r"<ref[^>]*/>|<ref[^>]*>.*?</ref>", "", text)
    return re.sub(r"\s+", " ", text).strip()


def critic_passages(files: dict[str, list[CriticRow]]) -> list[Passage]:
    """The distinct evidence passages (``title\\ntext``) of critic rows, by file name; one group per file."""
    out: dict[str, Passage] = {}
    for name, rows in files.items():
        for row in rows:
            fields = row.fields()
            evidence = fields.get("evidence") if fields else None
            if not evidence or "\n" not in evidence:
                continue
            title, text = evidence.split("\n", 1)
            out.setdefault(evidence, Passage(title.strip(), _clean(text), f"critic:{name}"))
    return list(out.values())


def eval_file_passages(paths: Sequence[str | Path]) -> list[Passage]:
    """Passages of eval files (``ctxs``), grouped by row, without each row's own subject."""
    out = []
    for path in paths:
        for number, record in enumerate(read_jsonl(path), start=1):
            subject = str(record.get("s_wiki_title") or "")
            for ctx in record.get("ctxs") or []:
                title = str(ctx.get("title") or "").strip()
                if subject and title == subject:
                    continue
                text = _clean(str(ctx.get("text") or ""))
                if text.startswith(title + " "):
                    text = text[len(title):].strip()
                if text:
                    out.append(Passage(title, text, f"{Path(path).name}:{number}"))
    return out


def instructions_by_task(rows: Iterable[CriticRow], tasks: Sequence[str] = SYNTHETIC_TASKS) -> dict[str, str]:
    """The critic instruction of each task, byte for byte as the critic files write it; each of ``tasks``
    must have one."""
    found: dict[str, str] = {}
    for row in rows:
        found.setdefault(row.task, row.instruction)
    missing = [t for t in tasks if t not in found]
    if missing:
        msg = f"the critic files hold no rows of {', '.join(missing)}: the instructions cannot be copied"
        raise InputError(msg)
    return found


def spans(sentence: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every swappable span, years before plain numbers (a year is not also a number)."""
    found: list[tuple[str, int, int]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in SPAN_PATTERNS.items():
        for m in pattern.finditer(sentence):
            if m.start() == 0 and kind == "name":
                continue  # a sentence's subject is usually the passage's entity: swapped by ``neighbour``
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            found.append((kind, m.start(), m.end()))
            taken.append((m.start(), m.end()))
    return found


def swap(sentence: str, pool: dict[str, list[str]], rng: random.Random) -> tuple[str, str] | None:
    """The sentence with one span replaced by a different one of the same kind, and the kind; None if no
    span has a replacement."""
    options = spans(sentence)
    rng.shuffle(options)
    for kind, start, end in options:
        old = sentence[start:end]
        candidates = [c for c in pool.get(kind, []) if c.lower() != old.lower()]
        if not candidates:
            continue
        new = rng.choice(candidates)
        if old[:1].isupper() and kind in ("ordinal", "superlative"):
            new = new[:1].upper() + new[1:]
        return sentence[:start] + new + sentence[end:], kind
    return None


def passage_sentences(passage: Passage) -> list[str]:
    """Whole sentences of a passage (not a fragment cut at the passage's start), 6 to 45 words."""
    return [s for s in split_sentences(passage.text) if 6 <= len(s.split()) <= 45 and s[0].isupper()]


def _row(instructions: dict[str, str], group: Group, instruction: str, label: str, kind: str, *,
         evidence: str | None = None, output: str | None = None) -> dict[str, Any]:
    task = TASK_OF[group]
    # A task not asked for may have no instruction: its rows are drawn (the draw stays the same) and dropped.
    return {"instruction": instructions.get(task, ""),
            "input": critic_input(instruction, evidence=evidence, output=output),
            "output": label, "task": task, "source": "synthetic", "kind": kind}


def _names(passage: Passage) -> set[str]:
    return {w for w in re.findall(r"[A-Za-z]+", passage.entity.lower()) if len(w) > 2}


def _mentions(passage: Passage, entity: Passage) -> bool:
    """Whether ``passage`` names ``entity`` (most of its name's words occur in it): not a clean negative."""
    names = _names(entity)
    words = set(re.findall(r"[a-z]+", passage.evidence.lower()))
    return bool(names) and len(names & words) >= max(1, (len(names) + 1) // 2)


def generate(config: JudgeDataConfig) -> list[dict[str, Any]]:
    """The synthetic rows of ``config.tasks``, the same for the same files and seed."""
    rng = random.Random(config.seed)
    files = {Path(path).name: read_critic_rows(path) for path in config.critic}
    instructions = instructions_by_task((row for rows in files.values() for row in rows), config.tasks)
    passages = critic_passages(files) + eval_file_passages(config.passages)
    if not passages:
        msg = "no passages with a title line found in the given files"
        raise InputError(msg)
    sentences_of = {p: passage_sentences(p) for p in passages}  # pysbd once per passage
    pool: dict[str, list[str]] = defaultdict(list)
    for p in passages:
        for sentence in sentences_of[p]:
            for kind, start, end in spans(sentence):
                pool[kind].append(sentence[start:end])
    pool = {k: sorted(set(v)) for k, v in pool.items()}
    neighbours: dict[str, list[Passage]] = defaultdict(list)
    for p in passages:
        neighbours[p.group].append(p)
    order = list(passages)
    rng.shuffle(order)
    rows: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()

    def add(kind: str, row: dict[str, Any]) -> None:
        if counts[kind] < config.per_kind:
            counts[kind] += 1
            rows.append(row)

    for p in order:
        sentences = sentences_of[p]
        entity = p.entity
        if not sentences or not entity:
            continue
        question = rng.choice(QUESTION_TEMPLATES).format(e=entity)
        sentence = rng.choice(sentences)
        others = [o for o in neighbours[p.group] if o.entity != entity and not _mentions(o, p) and sentences_of[o]]
        stranger = rng.choice(order)
        # IsSup
        add("copy", _row(instructions, Group.ISSUP, question, FULLY_SUPPORTED, "copy",
                         evidence=p.evidence, output=sentence))
        swapped = swap(sentence, pool, rng)
        if swapped is not None:
            add("swap", _row(instructions, Group.ISSUP, question, NO_SUPPORT, "swap",
                             evidence=p.evidence, output=swapped[0]))
        if others:
            other = rng.choice(others)
            add("neighbour", _row(instructions, Group.ISSUP, question, NO_SUPPORT, "neighbour",
                                  evidence=p.evidence, output=rng.choice(sentences_of[other])))
        if stranger is not p and sentences_of[stranger]:
            add("added", _row(instructions, Group.ISSUP, question, PARTIALLY_SUPPORTED, "added",
                              evidence=p.evidence, output=f"{sentence} {rng.choice(sentences_of[stranger])}"))
        # IsRel and IsUse need a passage about a similar entity that does not name this one.
        if not others:
            continue
        other = rng.choice(others)
        add("entity", _row(instructions, Group.ISREL, question, RELEVANT, "entity", evidence=p.evidence))
        add("neighbour_entity", _row(instructions, Group.ISREL, question, IRRELEVANT, "neighbour_entity",
                                     evidence=other.evidence))
        add("answer", _row(instructions, Group.ISUSE, question, "[Utility:5]", "answer", output=sentences[0]))
        add("other_entity", _row(instructions, Group.ISUSE, question, "[Utility:2]", "other_entity",
                                 output=sentences_of[other][0]))
        if counts["declined"] < config.per_kind // 3:
            add("declined", _row(instructions, Group.ISUSE, question, "[Utility:1]", "declined",
                                 output=rng.choice(DECLINES)))
    # Filtered only now, so every task's rows are drawn as they are in a file of all tasks.
    return [row for row in rows if row["task"] in config.tasks]


def kind_counts(rows: Iterable[dict[str, Any]], key: str = "kind") -> dict[str, int]:
    """Rows per kind (the ``key`` field), for the data card."""
    return dict(sorted(Counter(str(r[key]) for r in rows).items()))


def create(config: JudgeDataConfig) -> dict[str, int]:
    """Generate the rows and write them whole (a temporary file and a rename); returns rows per kind."""
    rows = generate(config)
    write_text_atomic(config.out, jsonl_text(rows))
    return kind_counts(rows)
