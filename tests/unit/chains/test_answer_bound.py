"""Declining before writing when no sentence of the passages found holds an answer, as the answer finder reads
quotes: the answer is the one writing every branch would give, without a word generated."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document

from selfrag_langchain import InlineReflector, SelfRAG, SelfRAGLongForm
from selfrag_langchain.chains import short_form
from selfrag_langchain.chains.declining import ANSWER_UNHELD, DECLINED, answer_unheld
from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.retrievers.passages import PassageRetriever
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.eiffel import eiffel_llm
from tests.fakes.scripted_long_form import FULL, REL, RecordingRetriever, ScriptedLongFormLLM, judged
from tests.fakes.scripted_long_form import doc as passage
from tests.fakes.table_finder import TableFinder

QUESTION = "Who built the Eiffel Tower?"
PASSAGES = [Document("The Louvre is a museum in Paris.", metadata={"title": "Louvre"}),
            Document("The Eiffel Tower was built by Gustave Eiffel's company. It is in Paris.",
                     metadata={"title": "Eiffel Tower"})]


def _finder(answering: str | None) -> TableFinder:
    """Reads a sentence holding ``answering`` as holding an answer (odds 4: 0.98), every other as not (-8)."""
    return TableFinder(odds=lambda _q, s: 4.0 if answering is not None and answering in s else -8.0)


def _short(finder: TableFinder, **kwargs) -> SelfRAG:
    llm = eiffel_llm()
    quoter = PassageQuoter(embeddings=BagOfWords(), finder=finder)
    return SelfRAG(generator=llm, reflector=InlineReflector(llm), retriever=PassageRetriever(passages=PASSAGES),
                   quoter=quoter, mode="always", **{"min_name_coverage": 0.0, **kwargs})


def test_each_passages_best_holding_is_read_as_its_quotes_are_and_skips_taken_sentences() -> None:
    finder = TableFinder(odds=lambda _q, s: {"Eiffel Tower: The Eiffel Tower is in Paris.": 1.0,
                                              "Eiffel Tower: The Eiffel Tower was built in 1889.": 3.0}.get(s, -5.0))
    quoter = PassageQuoter(embeddings=BagOfWords(), finder=finder)
    body = "The Eiffel Tower was built in 1889. It is in Paris."
    best = quoter.best_holding(QUESTION, [(body, "Eiffel Tower"), ("", None)])
    # The opening "It" is named from the title, as the quote shows it; the empty passage has nothing to quote.
    assert best == pytest.approx([0.9526, None], abs=1e-4)
    assert ("Who built the Eiffel Tower?", "Eiffel Tower: The Eiffel Tower is in Paris.") in finder.asked
    taken = [frozenset({"The Eiffel Tower was built in 1889."}), frozenset()]
    assert quoter.best_holding(QUESTION, [(body, "Eiffel Tower"), ("", None)], taken) == pytest.approx(
        [0.7311, None], abs=1e-4)
    assert asyncio.run(quoter.abest_holding(QUESTION, [(body, "Eiffel Tower")])) == pytest.approx([0.9526], abs=1e-4)
    assert PassageQuoter(embeddings=BagOfWords()).best_holding(QUESTION, [(body, "Eiffel Tower")]) == [None]
    with pytest.raises(ValueError, match="1 taken quote sets for 2 passages"):
        quoter.best_holding(QUESTION, [(body, None), (body, None)], [frozenset()])


def test_an_answer_is_unheld_only_when_every_passage_is_read_and_below_the_threshold() -> None:
    assert answer_unheld([0.01, 0.04], 0.05)
    assert not answer_unheld([0.01, 0.06], 0.05)
    assert not answer_unheld([0.01, None], 0.05)  # a passage not read keeps its branch
    assert not answer_unheld([0.01], 0.0)  # the threshold off
    assert not answer_unheld([], 0.05)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_short_form_declines_without_writing_when_no_sentence_holds_an_answer(mode: str) -> None:
    rag = _short(_finder(None))
    result = rag.invoke(QUESTION) if mode == "sync" else asyncio.run(rag.ainvoke(QUESTION))
    assert result.declined and result.answer.startswith(DECLINED)
    assert rag.generator.calls == 0 and not any(b.written for b in result.branches)
    assert all(b.notes == [f"not written: {ANSWER_UNHELD}"] for b in result.branches)
    assert "no branch was written: no sentence of the passages found holds an answer" in result.notes
    assert all(b.distributions["IsRel"] is not None for b in result.branches)  # the closest are still ranked


def test_short_form_gives_the_answer_writing_every_branch_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    bounded = _short(_finder(None)).invoke(QUESTION)
    monkeypatch.setattr(short_form, "answer_unheld", lambda *_: False)
    written = _short(_finder(None))
    unbounded = written.invoke(QUESTION)
    assert written.generator.calls > 0 and all(b.written for b in unbounded.branches)
    assert unbounded.declined and unbounded.answer == bounded.answer


def test_short_form_writes_when_a_sentence_holds_an_answer_or_declining_is_off() -> None:
    rag = _short(_finder("Gustave Eiffel"))
    result = rag.invoke(QUESTION)
    assert not result.declined and rag.generator.calls > 0
    assert result.answer == "The Eiffel Tower was built by Gustave Eiffel's company."
    quiet = _short(_finder(None), decline=False)
    assert quiet.invoke(QUESTION).branches[1].written and quiet.generator.calls > 0
    off = _short(_finder(None), min_quote_holds_answer=0.0)
    assert off.invoke(QUESTION).branches[1].written


def _long(finder: TableFinder, depth: int = 1) -> SelfRAGLongForm:
    question = "Tell me about the Eiffel Tower."
    retriever = RecordingRetriever(results={question: [passage("Eiffel Tower"), passage("Paris")]})
    llm = ScriptedLongFormLLM(script={(0, t): judged(f"{t} is worth a visit.", REL, FULL)
                                      for t in ("Eiffel Tower", "Paris")})
    return SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm), retriever=retriever, k=2, max_depth=depth,
                           min_name_coverage=0.0, quoter=PassageQuoter(embeddings=BagOfWords(), finder=finder))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_long_form_declines_at_its_first_step_without_writing_when_no_sentence_holds_an_answer(mode: str) -> None:
    rag = _long(_finder(None), depth=3)
    question = "Tell me about the Eiffel Tower."
    result = rag.invoke(question) if mode == "sync" else asyncio.run(rag.ainvoke(question))
    assert result.declined and result.segments[0].text == DECLINED
    assert rag.generator.calls == [] and [c.written for c in result.candidates] == [False, False]
    assert f"nothing was written: {ANSWER_UNHELD}" in result.notes
    assert len(result.steps) == 1  # no later step: the answer was declined at the first


def test_long_form_writes_when_a_sentence_of_its_passages_holds_an_answer() -> None:
    rag = _long(_finder("about Eiffel Tower"))
    result = rag.invoke("Tell me about the Eiffel Tower.")
    assert not result.declined and rag.generator.calls
    assert result.segments[0].text == "What the encyclopedia says about Eiffel Tower."
