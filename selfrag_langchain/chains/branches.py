"""Building branch prompts from passages and turning generations into branches: shared by sync and async."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import LLMResult

from selfrag_langchain.judging import Branch
from selfrag_langchain.llms.base import stats_of
from selfrag_langchain.prompts import format_passage, passage_body, rag_prompt, selfrag_branch_prompt
from selfrag_langchain.text.boundary import DEFAULT_BOUNDARY, Boundary
from selfrag_langchain.tokens import ParsedGeneration, parse_generation

T = TypeVar("T")


@dataclass(frozen=True)
class PreparedPassage:
    """A retrieved passage and the (possibly truncated, always neutralised) text the models read."""

    document: Document
    evidence: str
    note: str | None = None

    @property
    def body(self) -> str:
        """The text the models read without the title line :func:`format_passage` puts first: what an answer
        may quote."""
        return passage_body(self.evidence, self.title)

    @property
    def title(self) -> str | None:
        """The passage's title, from its document's metadata: what names its subject."""
        return self.document.metadata.get("title")


def prepare_passages(
    docs: Sequence[Document], generator: Any, *, instruction: str, max_new_tokens: int, max_tokens: int | None,
    boundary: Boundary = DEFAULT_BOUNDARY,
) -> list[PreparedPassage]:
    """Neutralise each passage at ``boundary`` and cut it to fit the generator's context window (and
    ``max_tokens``).

    A cut passage carries a note for the trace; the citation keeps the full document.
    """
    budget = max_tokens
    count = getattr(generator, "count_tokens", None)
    window = getattr(generator, "context_window", None) if count else None
    if window:
        room = window - max_new_tokens - count(selfrag_branch_prompt(instruction, "")) - 16
        budget = room if budget is None else min(budget, room)
    prepared = []
    for doc in docs:
        evidence = format_passage(doc.metadata.get("title"), doc.page_content, boundary)
        note = None
        if budget is not None and count is not None:
            size = count(evidence)
            if size > budget:
                evidence = _cut_to_tokens(evidence, max(budget, 1), size, count)
                note = f"passage truncated from {size} to at most {max(budget, 1)} tokens to fit the context window"
        prepared.append(PreparedPassage(doc, evidence, note))
    return prepared


def _cut_to_tokens(text: str, budget: int, size: int, count: Any) -> str:
    """Shorten ``text`` to at most ``budget`` tokens, cutting at a character estimate and tightening."""
    chars = int(len(text) * budget / size)
    while chars > 0 and count(text[:chars]) > budget:
        chars = int(chars * 0.9)
    return text[:chars]


def branch_prompts(instruction: str, passages: Sequence[PreparedPassage] | None, prompt_format: str) -> list[str]:
    """One prompt per passage, or a single no-retrieval prompt when ``passages`` is None."""
    build = selfrag_branch_prompt if prompt_format == "selfrag" else rag_prompt
    if passages is None:
        return [build(instruction, None)]
    return [build(instruction, p.evidence) for p in passages]


def generation_inputs(generator: Any, prompts: list[str]) -> list[Any]:
    """Prompts as the generator takes them: strings for LLMs, one human message each for chat models."""
    if isinstance(generator, BaseChatModel):
        from langchain_core.messages import HumanMessage

        return [[HumanMessage(p)] for p in prompts]
    return prompts


def generation_kwargs(generator: Any, max_new_tokens: int) -> dict[str, Any]:
    """The token budget, passed only to backends that take it by this name."""
    fields = getattr(type(generator), "model_fields", {})
    return {"max_new_tokens": max_new_tokens} if "max_new_tokens" in fields else {}


def branch_budget(max_new_tokens: int, max_quoted_branch_tokens: int, *, quoted: bool, prompt_format: str
                  ) -> tuple[int, str]:
    """A branch's generation budget and the setting it comes from: ``max_quoted_branch_tokens`` for a branch
    answered by its quote and written with a plain prompt (its answer is the sentence the generation points at;
    the released generator's format writes its judgement after the answer), else ``max_new_tokens``."""
    if quoted and prompt_format == "rag" and max_quoted_branch_tokens < max_new_tokens:
        return max_quoted_branch_tokens, "max_quoted_branch_tokens"
    return max_new_tokens, "max_new_tokens"


def to_branches(result: LLMResult, passages: Sequence[PreparedPassage] | None,
                moot: Sequence[str | None] | None = None, *, budget: str = "max_new_tokens") -> list[Branch]:
    """Pair each generation with its passage; parse and strip the text. With ``moot`` (for each passage, why its
    branch was not written, or None where it was), the generations are the written passages' only, and each
    other passage gets its :func:`unwritten_branch`, all in passage order. ``budget``: the setting that capped
    the generations, named in the note of a generation that reached it."""
    if passages is not None and moot is not None and any(moot):
        written = to_branches(result, [p for p, reason in zip(passages, moot, strict=True) if reason is None],
                              budget=budget)
        unwritten = [unwritten_branch(p, reason) for p, reason in zip(passages, moot, strict=True) if reason]
        return interleaved(moot, written, unwritten)
    branches = []
    items: list[PreparedPassage | None] = list(passages) if passages is not None else [None]
    for gens, prepared in zip(result.generations, items, strict=True):
        gen = gens[0]
        parsed = parse_generation(gen.text)
        branch = Branch(
            passage=prepared.document if prepared else None,
            evidence=prepared.evidence if prepared else None,
            raw=gen.text,
            answer=parsed.answer,
            parsed=parsed,
            stats=stats_of(gen),
        )
        if prepared and prepared.note:
            branch.notes.append(prepared.note)
        if branch.stats and branch.stats.finish_reason == "length":
            branch.notes.append(f"generation reached {budget}")
        branches.append(branch)
    return branches


def unwritten_branch(prepared: PreparedPassage, reason: str) -> Branch:
    """The branch of a passage that settles it before anything is written (``reason``:
    :func:`~selfrag_langchain.chains.names.moot_reasons`): no generation, and a note saying why."""
    return Branch(passage=prepared.document, evidence=prepared.evidence, raw="", answer="",
                  parsed=ParsedGeneration(), notes=[f"not written: {reason}"])


def interleaved(moot: Sequence[str | None], written: Iterable[T], unwritten: Iterable[T]) -> list[T]:
    """One item per branch, in branch order, from the items of the written branches (``moot`` None) and those of
    the unwritten ones, each in order."""
    from_written, from_unwritten = iter(written), iter(unwritten)
    return [next(from_written) if reason is None else next(from_unwritten) for reason in moot]
