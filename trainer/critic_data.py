"""Critic data collection (paper §3.2.1): a teacher LM labels (x, y) pairs for each reflection group.

The teacher is any model behind an OpenAI-compatible chat API (OpenAI, vLLM serve, llama.cpp server),
asked with the paper's Appendix D instruction and demonstrations for the group. Its answer is read as one
label (:func:`~selfrag_langchain.trainer.labels.parse_label`); answers that match no label are discarded
and counted. Each accepted label is appended as one line in the released critic format (``instruction``,
``input``, ``output``, ``task``) plus a stable ``id``, so a re-run resumes where the last one stopped.

Example:
    selfrag train critic-data --input pairs.jsonl --out critic_train.jsonl --model gpt-4o
    selfrag train critic-data --input pairs.jsonl --out critic.jsonl --model smollm2-135m-instruct \\
        --base-url http://127.0.0.1:8000/v1 --groups relevance groundedness
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import BackendError, ConfigurationError
from selfrag_langchain.prompts import PAPER_CRITIC, build_instruction, critic_input, format_passage
from selfrag_langchain.trainer.config import CriticDataConfig
from selfrag_langchain.trainer.data import JsonlAppender, read_jsonl, stable_id, written_ids
from selfrag_langchain.trainer.labels import parse_label
from selfrag_langchain.trainer.teacher_prompts import TEACHER_PROMPTS, TeacherPrompt

Ask = Callable[[str], str]
"""Sends one prompt to the teacher and returns its answer text."""


@dataclass
class CollectionStats:
    """What one run did: labels written, answers discarded, items skipped and why."""

    written: int = 0
    rejected: int = 0
    already_done: int = 0
    missing_fields: int = 0

    def summary(self) -> str:
        return (f"{self.written} labels written, {self.rejected} answers matched no label (discarded), "
                f"{self.already_done} already done, {self.missing_fields} skipped for missing fields")


@dataclass(frozen=True)
class Job:
    """One question to the teacher: an item, a group, the prompt, and the critic row it will become."""

    id: str
    prompt: TeacherPrompt
    text: str
    row: Mapping[str, str]


def item_fields(record: Mapping[str, Any]) -> dict[str, str | None]:
    """An input record as the fields prompts show: the task text (instruction with its input folded in as
    the generator sees it), the output, the evidence (``evidence``, or the first of ``ctxs``), and
    preceding sentences."""
    evidence = record.get("evidence")
    ctxs = record.get("ctxs")
    if evidence is None and isinstance(ctxs, list) and ctxs and isinstance(ctxs[0], Mapping):
        evidence = format_passage(ctxs[0].get("title"), str(ctxs[0].get("text", "")))
    instruction = str(record["instruction"])
    extra = record.get("input")
    return {
        "instruction": build_instruction(extra, instruction) if extra else instruction,
        "output": record.get("output") or None,
        "evidence": evidence or None,
        "preceding": record.get("preceding") or None,
    }


def critic_row(prompt: TeacherPrompt, fields: Mapping[str, str | None], label: str, job_id: str) -> dict[str, str]:
    """A labelled example in the released critic format, whose prompt the critic reflector rebuilds exactly."""
    shown = {name: fields.get(name) if name in prompt.fields else None for name in ("evidence", "output", "preceding")}
    return {
        "instruction": PAPER_CRITIC.questions[prompt.critic_group].instruction,
        "input": critic_input(str(fields["instruction"]), **shown),
        "output": label,
        "task": prompt.task,
        "id": job_id,
    }


def plan_jobs(records: list[dict[str, Any]], groups: list[str], done: set[str],
              stats: CollectionStats) -> list[Job]:
    """Every (item, group) question still to ask; items lacking a group's fields are skipped and counted."""
    jobs = []
    for record in records:
        fields = item_fields(record)
        item_id = str(record.get("id") or stable_id(*(fields[k] for k in sorted(fields))))
        for group in groups:
            prompt = TEACHER_PROMPTS[group]
            if any(not fields.get(name) for name in prompt.required):
                stats.missing_fields += 1
                continue
            job_id = f"{item_id}:{group}"
            if job_id in done:
                stats.already_done += 1
                continue
            row = {k: v for k, v in fields.items() if v is not None}
            jobs.append(Job(job_id, prompt, prompt.render(fields), row))
    return jobs


def collect(config: CriticDataConfig, ask: Ask | None = None, *, progress: bool = True) -> CollectionStats:
    """Ask the teacher about every pending (item, group) and append the labels to ``config.out``.

    Discarded answers go to ``<out>.rejected.jsonl`` (with the answer, for inspection) and are not asked
    again on a re-run.

    Raises:
        InputError: for a bad input file. BackendError: when the teacher cannot be reached or refuses.
    """
    from tqdm import tqdm

    records = read_jsonl(config.input, required=("instruction",),
                         optional_text=("input", "output", "evidence", "preceding"))
    if config.limit is not None:
        records = records[: config.limit]
    out = Path(config.out)
    rejected_path = out.with_name(out.name + ".rejected.jsonl")
    stats = CollectionStats()
    jobs = plan_jobs(records, config.groups, written_ids(out) | written_ids(rejected_path), stats)
    ask = ask or openai_teacher(config)
    with JsonlAppender(out) as accepted, JsonlAppender(rejected_path) as rejected, \
            ThreadPoolExecutor(max_workers=config.concurrency) as pool:
        futures = {pool.submit(ask, job.text): job for job in jobs}
        try:
            for future in tqdm(as_completed(futures), total=len(futures), desc="critic labels",
                               disable=not progress):
                job = futures[future]
                answer = future.result()
                label = parse_label(job.prompt.group, answer)
                if label is None:
                    rejected.write({"id": job.id, "group": job.prompt.group, "answer": answer})
                    stats.rejected += 1
                    continue
                accepted.write(critic_row(job.prompt, job.row, label, job.id))
                stats.written += 1
        except BaseException:
            for pending in futures:  # what was written stays; the next run resumes from there
                pending.cancel()
            raise
    return stats


def openai_teacher(config: CriticDataConfig) -> Ask:
    """A teacher behind an OpenAI-compatible chat API. The client retries timeouts, connection errors and
    HTTP 408/409/429/5xx with exponential backoff (``max_retries``); what still fails becomes a
    :class:`BackendError` naming the server."""
    try:
        import openai
    except ImportError as e:
        msg = "critic data collection needs the openai package: pip install 'selfrag-langchain[train]'"
        raise ConfigurationError(msg) from e
    api_key = config.api_key or os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if config.base_url is None:
            msg = "no API key: set OPENAI_API_KEY or --api-key (a local server takes any key)"
            raise ConfigurationError(msg)
        api_key = "EMPTY"
    client = openai.OpenAI(base_url=config.base_url, api_key=api_key, timeout=config.timeout,
                           max_retries=config.max_retries)
    where = config.base_url or str(client.base_url)

    def ask(text: str) -> str:
        try:
            response = client.chat.completions.create(
                model=config.model, messages=[{"role": "user", "content": text}],
                temperature=config.temperature, max_tokens=config.max_tokens)
        except openai.APIStatusError as e:
            msg = f"the teacher at {where} refused the request (HTTP {e.status_code}): {_short(e.message)}"
            raise BackendError(msg) from e
        except openai.APIError as e:
            msg = f"the teacher at {where} cannot be reached after {config.max_retries} retries: {_short(str(e))}"
            raise BackendError(msg) from e
        return (response.choices[0].message.content or "") if response.choices else ""

    return ask


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
