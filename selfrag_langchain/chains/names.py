"""Whether the passages found name what the question names.

A question about Greta Thunberg is not answered by a passage about Greta Garbo, however close its topic:
the judge's IsRel reads topic and wording, so a passage that names nothing the question names can still look
relevant. Names are the question's capitalised words and numbers
(:func:`~selfrag_langchain.judging.signals.name_words`). Two rules read them, with one threshold
(:attr:`~selfrag_langchain.chains.controls.LoopSettings.min_name_coverage`):

- selection drops a branch whose passage holds less than that share of the names, unless no passage holds
  that much (a question that compares two things may find each in a passage of its own);
- an answer is declined unless a claim of it comes from a passage that holds that share, or, when no passage
  found holds it, unless the passages found hold it together.

Both apply to open questions; a question with answer choices always gets one of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from langchain_core.documents import Document

from selfrag_langchain.judging.signals import name_coverage


def passage_text(doc: Document) -> str:
    """A passage's title and text, where its names are looked for."""
    title = str(doc.metadata.get("title") or "")
    return f"{title}\n{doc.page_content}" if title else doc.page_content


def name_coverages(question: str, passages: Sequence[Document | None], minimum: float
                   ) -> list[float | None] | None:
    """Each passage's share of the question's names (None for a branch without one), for the selection
    constraint; None, so that nothing is dropped for its names, when the rule is off or no passage holds
    ``minimum`` of them."""
    if minimum <= 0.0:
        return None
    shares = [name_coverage(question, passage_text(p)) if p is not None else None for p in passages]
    if not any(share is not None and share >= minimum for share in shares):
        return None
    return shares


def names_found(question: str, passages: Iterable[Document | None], minimum: float) -> bool:
    """Whether the passages together hold at least ``minimum`` of the question's names (always, when the
    rule is off or there is no passage)."""
    texts = [passage_text(p) for p in passages if p is not None]
    if minimum <= 0.0 or not texts:
        return True
    return name_coverage(question, "\n".join(texts)) >= minimum


def names_enough(question: str, passage: Document | None, found: Sequence[Document | None], minimum: float) -> bool:
    """Whether a claim written from ``passage`` may stand for the question's names: its passage holds at least
    ``minimum`` of them, or no passage ``found`` does and they hold it together (always, when the rule is off
    or there is no passage)."""
    if minimum <= 0.0 or passage is None:
        return True
    if name_coverage(question, passage_text(passage)) >= minimum:
        return True
    return name_coverages(question, found, minimum) is None and names_found(question, found, minimum)
