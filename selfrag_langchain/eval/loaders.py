"""Reading evaluation files in Self-RAG's published formats (PAPER.md §6) and ALCE's.

Formats: JSON Lines (one record a line, Self-RAG's eval files), a JSON array (ALCE's ``.json`` files), or
for the ``questions`` task a ``.txt`` file with one question a line. A record that lacks what the task
needs is reported with its line number and skipped; a file with no usable record is an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfrag_langchain.corpus.text_files import read_user_text
from selfrag_langchain.errors import InputError
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.files.durable import json_lines
from selfrag_langchain.retrievers.passages import documents_from_ctxs

TASK_FIELDS: dict[str, str] = {
    "popqa": "'question' and 'answers'",
    "triviaqa": "'question' and 'answers'",
    "arc_c": "'question', 'choices' {text, label} and 'answerKey'",
    "pubhealth": "'question' (or 'claim') and a true/false label ('answers', 'label' or 'answer')",
    "asqa": "'question' and 'qa_pairs' with 'short_answers' (ALCE format)",
    "questions": "'question' (optional 'answers')",
}
"""What each task needs from a record, for error messages."""


@dataclass
class LoadedFile:
    """The usable examples of a file and one line per record that was skipped."""

    examples: list[EvalExample]
    problems: list[str] = field(default_factory=list)


class _Skip(Exception):
    """A record the task cannot use; the message says why."""


def _question(record: Mapping[str, Any], *keys: str) -> str:
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    raise _Skip(f"missing {' or '.join(repr(k) for k in keys)} (a non-empty string)")


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str | int | float) for v in value):
        raise _Skip(f"{name!r} must be a non-empty list of strings")
    return tuple(str(v) for v in value)


def _passages(record: Mapping[str, Any]) -> list[Any] | None:
    raw = record.get("ctxs", record.get("docs"))
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise _Skip("'ctxs' / 'docs' must be a list of passages")
    try:
        return documents_from_ctxs(raw)
    except InputError as e:
        raise _Skip(str(e)) from e


def _answers_record(record: Mapping[str, Any]) -> dict[str, Any]:
    answers = record.get("answers", record.get("answer"))
    if answers is None:
        raise _Skip("missing 'answers' (the gold answer strings)")
    return {"question": _question(record, "question"), "answers": _strings(answers, "answers")}


_NUMERIC_LABELS = {str(i): chr(ord("A") + i - 1) for i in range(1, 10)}


def _arc_record(record: Mapping[str, Any]) -> dict[str, Any]:
    choices = record.get("choices")
    if not isinstance(choices, Mapping) or not isinstance(choices.get("text"), list) \
            or not isinstance(choices.get("label"), list):
        raise _Skip("missing 'choices' with lists 'text' and 'label'")
    texts, labels = choices["text"], [str(label) for label in choices["label"]]
    if len(texts) != len(labels) or not labels:
        raise _Skip(f"'choices' has {len(labels)} labels but {len(texts)} texts")
    # Some ARC questions number their options 1-4; the instruction names A-D, so map them (as the paper does).
    letters = [_NUMERIC_LABELS.get(label, label) for label in labels]
    key = record.get("answerKey")
    if key is None:
        raise _Skip("missing 'answerKey'")
    key = _NUMERIC_LABELS.get(str(key), str(key))
    if key not in letters:
        raise _Skip(f"'answerKey' {key!r} is not one of the choice labels {letters}")
    return {"question": _question(record, "question"), "choices": dict(zip(letters, map(str, texts), strict=True)),
            "label": key}


_PUBHEALTH_GOLD = {"true": "true", "false": "false", "supports": "true", "refutes": "false"}


def _pubhealth_record(record: Mapping[str, Any]) -> dict[str, Any]:
    raw = record.get("answers", record.get("label", record.get("answer", record.get("output"))))
    if isinstance(raw, list):
        raw = raw[0] if raw else None
    if raw is None:
        raise _Skip("missing the label ('answers', 'label' or 'answer': true or false)")
    label = _PUBHEALTH_GOLD.get(str(raw).strip().lower())
    if label is None:
        raise _Skip(f"label {raw!r} is not true or false")
    return {"question": _question(record, "question", "claim"), "label": label}


def _asqa_record(record: Mapping[str, Any]) -> dict[str, Any]:
    pairs = record.get("qa_pairs")
    if not isinstance(pairs, list) or not pairs:
        raise _Skip("missing 'qa_pairs' (ALCE: a list of {question, short_answers})")
    sets = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, Mapping) or "short_answers" not in pair:
            raise _Skip(f"qa_pairs[{i}] has no 'short_answers'")
        sets.append(_strings(pair["short_answers"], f"qa_pairs[{i}].short_answers"))
    annotations = record.get("annotations") or []
    references = tuple(
        a["long_answer"] for a in annotations if isinstance(a, Mapping) and isinstance(a.get("long_answer"), str)
    )
    if not references and isinstance(record.get("answer"), str):
        references = (record["answer"],)
    return {"question": _question(record, "question"), "short_answer_sets": tuple(sets), "references": references}


def _questions_record(record: Mapping[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {"question": _question(record, "question")}
    answers = record.get("answers", record.get("answer"))
    if answers is not None:
        fields["answers"] = _strings(answers, "answers")
    return fields


PARSERS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "popqa": _answers_record,
    "triviaqa": _answers_record,
    "arc_c": _arc_record,
    "pubhealth": _pubhealth_record,
    "asqa": _asqa_record,
    "questions": _questions_record,
}


def _records(path: Path, text: str, task: str) -> Iterator[tuple[int, str, Any]]:
    """(number, where, record or the reason it cannot be read) for each non-empty line or array item."""
    stripped = text.lstrip()
    if path.suffix == ".txt" and task == "questions":
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                yield number, f"{path}, line {number}", {"question": line.strip()}
        return
    if stripped.startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as e:
            msg = f"{path}: not a valid JSON array ({e.msg} at line {e.lineno}): use JSON Lines or a JSON array"
            raise InputError(msg) from e
        for number, item in enumerate(items, start=1):
            yield number, f"{path}, item {number}", item
        return
    for number, value, error in json_lines(text.splitlines()):
        yield number, f"{path}, line {number}", value if error is None else _Skip(f"not valid JSON ({error.msg})")


def load_examples(path: str | Path, task: str) -> LoadedFile:
    """The usable examples of an evaluation file for ``task``, and the records skipped (with line numbers).

    Raises:
        InputError: if the task is unknown, the file is missing, unreadable or empty, or no record in it
            has the fields the task needs.
    """
    if task not in PARSERS:
        msg = f"unknown task '{task}': choose one of {', '.join(PARSERS)}"
        raise InputError(msg)
    path = Path(path)
    text = read_user_text(path, "eval file")
    if not text.strip():
        msg = f"eval file {path} is empty"
        raise InputError(msg)

    loaded = LoadedFile(examples=[])
    seen: dict[str, int] = {}
    for number, where, record in _records(path, text, task):
        try:
            if isinstance(record, _Skip):
                raise record
            if not isinstance(record, Mapping):
                raise _Skip(f"expected a JSON object, got {type(record).__name__}")
            fields = PARSERS[task](record)
            passages = _passages(record)
        except _Skip as e:
            loaded.problems.append(f"{where}: {e}; skipped")
            continue
        key = str(record["id"]) if record.get("id") not in (None, "") else fields["question"]
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f"{key} #{seen[key]}"
        loaded.examples.append(EvalExample(key=key, line=number, passages=passages, **fields))
    if not loaded.examples:
        first = f" (first problem: {loaded.problems[0]})" if loaded.problems else ""
        msg = f"no usable question in {path} for task {task}: each record needs {TASK_FIELDS[task]}{first}"
        raise InputError(msg)
    return loaded
