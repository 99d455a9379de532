"""What the judge's verdict on a claim is, in words, and the answer given when no claim stands.

An answer stands when the judge found its evidence relevant and the claim supported by it (the most likely
IsRel token is ``[Relevant]`` and the most likely IsSup token is ``[Fully supported]`` or ``[Partially
supported]``: the judge's own decisions, no threshold on them), it gives the kind of value the question asks
for (a number for a year, a name besides the subject's for "in which town" or "who wrote":
:mod:`~selfrag_langchain.chains.answer_kinds`), and its passage holds enough of the
names the question names (:mod:`~selfrag_langchain.chains.names`, ``min_name_coverage``). A quote is its passage's own
words, so it stands when its passage was judged relevant and it holds an answer: a passage about the right entity
that does not state what was asked gives a quote that names the entity but does not answer. Read by an answer
finder (:mod:`~selfrag_langchain.judging.finder`), the quote must hold a phrase answering the question
with at least ``min_quote_holds_answer`` probability; read by a sentence reader alone, it must answer with at
least ``min_quote_answering``. When no claim stands, a
cited claim would only look grounded: Self-RAG then says that the sources found do not answer the question
and lists the closest ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal

from langchain_core.documents import Document

from selfrag_langchain.chains.answer_kinds import gives_asked_kind
from selfrag_langchain.chains.branches import PreparedPassage
from selfrag_langchain.chains.citations import passage_key
from selfrag_langchain.chains.names import names_enough, quotes_speaking_of_asked, speaks_of_asked
from selfrag_langchain.chains.quotes import QUOTE_SUPPORT
from selfrag_langchain.judging.claims import named
from selfrag_langchain.results import BranchTrace, CitedSegment, join_segments
from selfrag_langchain.scoring import argmax
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.tokens import FULLY_SUPPORTED, IRRELEVANT, NO_SUPPORT, PARTIALLY_SUPPORTED, Group

Verdict = Literal["supported", "partially supported", "not supported"]
VERDICTS: dict[str, Verdict] = {FULLY_SUPPORTED: "supported", PARTIALLY_SUPPORTED: "partially supported",
                                NO_SUPPORT: "not supported"}
DECLINED = "The sources found do not answer this question."
"""The first sentence of a declined answer; the closest passages follow it, each with its marker."""
CLOSEST = 3
"""How many of the closest passages a declined answer lists."""


def verdict(distributions: Mapping[str, Mapping[str, float] | None]) -> Verdict | None:
    """The judge's verdict on a claim from its passage's IsRel and IsSup distributions: a claim from an
    irrelevant passage is not supported by it. None when the claim was not judged against a passage."""
    relevance = distributions.get(str(Group.ISREL))
    support = distributions.get(str(Group.ISSUP))
    if relevance and argmax(relevance) == IRRELEVANT:
        return "not supported"
    if not support:
        return None
    return VERDICTS.get(argmax(support))


def quote_verdict(distributions: Mapping[str, Mapping[str, float] | None]) -> Verdict | None:
    """The verdict on a quote of its passage: the passage states it word for word, so only whether the passage
    was judged relevant stands."""
    return verdict({**distributions, str(Group.ISSUP): QUOTE_SUPPORT})


def grounded(distributions: Mapping[str, Mapping[str, float] | None]) -> bool:
    """Whether the judge found the passage relevant and the claim (fully or partially) supported by it."""
    relevance = distributions.get(str(Group.ISREL))
    return bool(relevance) and argmax(relevance) != IRRELEVANT and verdict(distributions) in (
        "supported", "partially supported")


def unfounded(chosen: BranchTrace | None, min_quote_answering: float = 0.0, min_quote_holds_answer: float = 0.0
              ) -> bool:
    """Whether the answer of ``chosen`` is to be declined for its judgement: written from a passage that the judge
    did not find relevant and supporting, or, quoted, from a passage judged irrelevant or with a quote that, read
    by an answer finder, holds an answer with less than ``min_quote_holds_answer`` probability, or, read by a
    sentence reader alone, answers the question with less than ``min_quote_answering``."""
    if chosen is None or chosen.passage is None:
        return False
    if chosen.quote is None:
        return not grounded(chosen.distributions)
    if quote_verdict(chosen.distributions) == "not supported":
        return True
    if chosen.quote_holds_answer is not None:
        return chosen.quote_holds_answer < min_quote_holds_answer
    return chosen.quote_answering is not None and chosen.quote_answering < min_quote_answering


ANSWER_UNHELD = ("no sentence of the passages found holds an answer to the question (min_quote_holds_answer): the "
                 "answer is declined")
"""Why no branch is written when quoting with an answer finder and declining: whatever the branches write, their
quotes are declined (:func:`answer_unheld`)."""


def answer_unheld(holding: Sequence[float | None], min_quote_holds_answer: float) -> bool:
    """Whether every quote the branches could give would be declined before a word of them is written: each
    passage's best finder reading (:meth:`~selfrag_langchain.chains.quotes.PassageQuoter.best_holding`), the most
    any of its quotes can hold an answer with, is below ``min_quote_holds_answer`` (:func:`unfounded`). A passage
    without that reading (no sentence to quote, or no finder) keeps its branch."""
    return min_quote_holds_answer > 0.0 and bool(holding) and all(
        best is not None and best < min_quote_holds_answer for best in holding)


def declines(question: str, chosen: BranchTrace | None, evidence: Sequence[str | None], min_name_coverage: float,
             min_quote_answering: float = 0.0, min_quote_holds_answer: float = 0.0) -> bool:
    """Whether the answer of ``chosen`` is to be declined: it is :func:`unfounded`, it does not give the kind of
    value the question asks for (:func:`~selfrag_langchain.chains.answer_kinds.gives_asked_kind`: no number for
    a year, no name besides the subject's for a place or an agent), its passage holds too few of the question's names
    (:func:`~selfrag_langchain.chains.names.names_enough`), or its quote speaks of another thing than the question
    names (:func:`trace_speaks_of_asked`). ``evidence``: each branch's passage as the models
    read it, in the order of the traces (``chosen.index``)."""
    if chosen is None or chosen.passage is None:
        return False
    return (unfounded(chosen, min_quote_answering, min_quote_holds_answer)
            or not gives_asked_kind(question, shown_answer(chosen))
            or not names_enough(question, evidence[chosen.index], evidence, min_name_coverage)
            or not trace_speaks_of_asked(question, chosen, evidence[chosen.index], min_name_coverage))


def trace_speaks_of_asked(question: str, trace: BranchTrace, passage: str | None, min_name_coverage: float) -> bool:
    """Whether a quoted answer speaks of what the question names (:func:`~selfrag_langchain.chains.names.
    speaks_of_asked`); always for an answer that is not a quote, and when the names rules are off
    (``min_name_coverage`` 0). ``passage``: the trace's passage as the models read it."""
    return min_name_coverage <= 0.0 or _quote_of_asked(question, trace.quote, trace.passage, passage) is not False


def branch_subject_checks(question: str, quotes: Sequence[str | None], passages: Sequence[Document | None],
                             evidence: Sequence[str | None], min_name_coverage: float) -> list[bool | None] | None:
    """For each branch's quote (None: not quoted), its passage and that passage as the models read it, whether the
    quote speaks of what the question names (None for a branch not quoted), for the selection constraint
    (:meth:`~selfrag_langchain.scoring.HardConstraints.violation`); None, so that nothing is dropped for it, when
    the names rules are off or no quote does (a quoted answer is then declined whichever is chosen)."""
    if min_name_coverage <= 0.0:
        return None
    checks = [_quote_of_asked(question, *branch) for branch in zip(quotes, passages, evidence, strict=True)]
    return checks if any(checks) else None


def _quote_of_asked(question: str, quote: str | None, document: Document | None, text: str | None) -> bool | None:
    """Whether ``quote``, from ``document`` read as ``text``, speaks of what the question names; None without one."""
    if quote is None or document is None or text is None:
        return None
    return speaks_of_asked(question, quote, text, document.metadata.get("title"))


def off_subject_quotes(question: str, passage: PreparedPassage) -> frozenset[str]:
    """The quotes ``passage``'s sentences would give (each opening pronoun named, as the quoter names it) that
    speak of another thing than the question names (:func:`~selfrag_langchain.chains.names.speaks_of_asked`):
    selection drops such a quote's branch while another's quote passes, so none of them may set the prospects'
    bar (:func:`~selfrag_langchain.chains.prospects.prospects_of`). Dagestan's article names Chechnya, but its
    best-read sentence for "What is the capital of Chechnya?" speaks of Dagestan."""
    parts = split_sentences(passage.body)
    if not parts:
        return frozenset()
    quotes = [named(sentence, passage.title, parts[0]) for sentence in parts]
    speaking = quotes_speaking_of_asked(question, quotes, passage.evidence, passage.title)
    return frozenset(quote for quote, speaks in zip(quotes, speaking, strict=True) if not speaks)


def shown_answer(trace: BranchTrace) -> str:
    """What a branch answers with: its quote when it was quoted, else its generation."""
    return trace.quote or trace.answer


def declined_answer(traces: Iterable[BranchTrace], clean: Callable[[str], str] = str
                    ) -> tuple[str, list[Document]]:
    """The declined answer's text and the closest passages it lists (numbered from 1)."""
    passages = closest_passages(traces)
    return join_segments(declined_segments(passages, clean)), passages


def closest_passages(traces: Iterable[BranchTrace], limit: int = CLOSEST) -> list[Document]:
    """The passages judged most relevant, each once, best first (by the IsRel score of its best claim)."""
    best: dict[object, tuple[float, Document]] = {}
    for trace in traces:
        if trace.passage is None:
            continue
        score = trace.scores.relevance if trace.scores.relevance is not None else 0.0
        key = passage_key(trace.passage)
        if key not in best or score > best[key][0]:
            best[key] = (score, trace.passage)
    ranked = sorted(best.values(), key=lambda pair: pair[0], reverse=True)  # stable: retrieval order on ties
    return [Document(id=doc.id, page_content=doc.page_content, metadata={**doc.metadata, "citation": n})
            for n, (_, doc) in enumerate(ranked[:limit], start=1)]


def declined_segments(passages: list[Document], clean: Callable[[str], str] = str) -> list[CitedSegment]:
    """A declined answer as segments: the statement, then each closest passage's title with its marker
    ("The sources found do not answer this question. Closest: Mona Lisa [1]. Louvre [2]."). ``clean`` is
    the boundary of the models that read the answer later (a chat's history): a title is document text."""
    segments = [CitedSegment(text=DECLINED)]
    for i, doc in enumerate(passages):
        title = clean(str(doc.metadata.get("title") or " ".join(doc.page_content.split()[:8]) + "…")).strip()
        segments.append(CitedSegment(text=f"{'Closest: ' if i == 0 else ''}{title}.",
                                     citation=doc.metadata["citation"], source=doc))
    return segments
