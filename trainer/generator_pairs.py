"""(x, y) pairs for generator data (Algorithm 3), made from training-side critic files with a fixed seed.

Self-RAG's released generator rows are mostly instructions that need no passage: in the first 1,000, 118
open with ``[Retrieval]`` and 52 of those hold exactly one IsSup. A generator trained on
them rarely learns to close a one-sentence answer after a passage with IsSup and IsUse. This module makes
pairs whose answers rest on a passage, for :mod:`~selfrag_langchain.trainer.generator_data` to judge and
wrap, from what the critic files already hold:

- ``critic``: the distinct (task instruction, whole output) pairs of critic rows, outputs of at most
  ``max_words`` words (real instructions and answers; Algorithm 3 decides whether they need a passage).
- ``entity``: a question about a passage's entity (``judge_data.QUESTION_TEMPLATES``) answered by the
  passage's first sentence that names the entity, so the answer is what the passage says about it. The
  passages are the critic files' evidence and, when given, the ``ctxs`` of eval files in Self-RAG's format
  (each row's own subject skipped, its question and answers never read, as ``judge-data`` reads them).

It also writes the evidence passages as JSON Lines (``title``, ``text``) for ``selfrag index``, so that
Algorithm 3 retrieves from the training side rather than from the demo corpus, whose passages serve held-out
questions. Give it training files only (never ``critic_dev.jsonl``, nor the eval file a generator is checked on).

Example:
    selfrag train generator-pairs --critic ../shared/data/critic_train.jsonl \\
        ../shared/data/critic_extra/selfrag_train_1k.jsonl --out pairs.jsonl --passages-out passages.jsonl
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import write_text_atomic
from selfrag_langchain.trainer.config import GeneratorPairsConfig
from selfrag_langchain.trainer.critic_rows import CriticRow, read_critic_rows
from selfrag_langchain.trainer.data import jsonl_text, stable_id
from selfrag_langchain.trainer.judge_data import (
    QUESTION_TEMPLATES,
    Passage,
    critic_passages,
    eval_file_passages,
    kind_counts,
    passage_sentences,
)

KINDS = ("critic", "entity")
"""What a pair is made from (its ``dataset_name``)."""


def critic_pairs(rows: Iterable[CriticRow], max_words: int) -> list[tuple[str, str]]:
    """The distinct (instruction, output) pairs of critic rows with a whole output (no preceding sentences)
    of at most ``max_words`` words, in file order."""
    seen: dict[tuple[str, str], None] = {}
    for row in rows:
        fields = row.fields()
        if not fields or not fields["output"] or fields["preceding"]:
            continue
        instruction, output = str(fields["instruction"]).strip(), str(fields["output"]).strip()
        if instruction and output and len(output.split()) <= max_words:
            seen.setdefault((instruction, output), None)
    return list(seen)


_ARTICLES = frozenset({"the", "a", "an"})


def names_entity(passage: Passage, sentence: str) -> bool:
    """Whether ``sentence`` names the passage's entity (its first word that is not an article), as a sentence
    that answers a question about the entity does ("Babe Martin (1920-2013) was ...")."""
    words = [w for w in re.findall(r"\w+", passage.entity) if w.lower() not in _ARTICLES]
    return bool(words) and re.search(rf"\b{re.escape(words[0])}", sentence, re.IGNORECASE) is not None


def without_title(sentence: str, title: str) -> str:
    """The sentence without the title that Self-RAG's passages repeat before the article's text
    ("FlightGear FlightGear Flight Simulator ..." -> "FlightGear Flight Simulator ...")."""
    rest = sentence[len(title) + 1 :]
    if title and sentence.startswith(title + " ") and (rest[:1].isupper() or rest[:1] in "\"“"):
        return rest
    return sentence


def entity_pairs(passages: Iterable[Passage], rng: random.Random) -> list[tuple[str, str]]:
    """A question about each passage's entity, answered by the passage's first sentence that names it."""
    pairs = []
    for passage in passages:
        naming = [s for s in passage_sentences(passage) if names_entity(passage, s)]
        if passage.entity and naming:
            answer = without_title(naming[0], passage.title)
            pairs.append((rng.choice(QUESTION_TEMPLATES).format(e=passage.entity), answer))
    return pairs


def generate(config: GeneratorPairsConfig) -> tuple[list[dict[str, Any]], list[Passage]]:
    """The pairs (``instruction``, ``output``, ``id``, ``dataset_name``) and the passages they came with,
    the same for the same files and seed."""
    rng = random.Random(config.seed)
    files = {Path(path).name: read_critic_rows(path) for path in config.critic}
    passages = critic_passages(files) + eval_file_passages(config.passages)
    made = {"critic": critic_pairs((r for rows in files.values() for r in rows), config.max_words),
            "entity": entity_pairs(passages, rng)}
    out = []
    for kind in KINDS:
        pairs = made[kind]
        rng.shuffle(pairs)
        for instruction, output in pairs[: config.per_kind]:
            out.append({"instruction": instruction, "output": output, "id": stable_id(kind, instruction, output),
                        "dataset_name": kind})
    rng.shuffle(out)  # kinds mixed, so that the last rows (held out from training) hold both
    if not out:
        msg = "no pairs found: the files hold no whole outputs and no passages whose sentences name their entity"
        raise InputError(msg)
    return out, passages


def create(config: GeneratorPairsConfig) -> dict[str, int]:
    """Write the pairs (and the passages, when asked) whole; returns pairs per kind."""
    rows, passages = generate(config)
    if config.passages_out:
        write_text_atomic(config.passages_out, jsonl_text({"title": p.title, "text": p.text} for p in passages))
    write_text_atomic(config.out, jsonl_text(rows))
    return kind_counts(rows, key="dataset_name")
