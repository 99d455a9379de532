"""The inline path end to end on a scripted Self-RAG model: the chosen branch and every reported total
equal the paper's formulas computed here by hand."""

from __future__ import annotations

import json
import math

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from selfrag_langchain import InlineReflector, SelfRAG, SelfRAGResult
from selfrag_langchain.retrievers.passages import PassageRetriever
from tests.fakes.eiffel import FULL, IRR, NOSUP, REL, USE3, USE5, eiffel_llm, eiffel_rag


def _expected_total(rel: dict, sup: dict, use: dict, mean_lp: float, w_use: float = 0.5) -> float:
    s_rel = rel["[Relevant]"] / (rel["[Relevant]"] + rel["[Irrelevant]"])
    s_sup = sup["[Fully supported]"] + 0.5 * sup["[Partially supported]"]
    s_use = (-1 * use["[Utility:1]"] - 0.5 * use["[Utility:2]"] + 0.5 * use["[Utility:4]"]
             + 1 * use["[Utility:5]"])
    return math.exp(mean_lp) + s_rel + s_sup + w_use * s_use


def test_inline_totals_equal_hand_computed_formulas() -> None:
    result = eiffel_rag().invoke("Who built the Eiffel Tower?")
    p_ret = math.exp(-0.5) / (math.exp(-0.5) + math.exp(-2.0))
    assert result.retrieve_decision.probability == pytest.approx(p_ret)
    assert result.retrieved
    totals = {b.passage.metadata["title"]: b.scores.total for b in result.branches}
    assert totals["Eiffel Tower"] == pytest.approx(_expected_total(REL, FULL, USE5, -0.2))
    assert totals["Louvre"] == pytest.approx(_expected_total(IRR, NOSUP, USE3, -0.1))
    assert result.answer == "Gustave Eiffel's company built it."
    assert [c.metadata["title"] for c in result.citations] == ["Eiffel Tower"]
    assert result.citations[0].metadata["citation"] == 1
    eiffel = next(b for b in result.branches if b.passage.metadata["title"] == "Eiffel Tower")
    assert eiffel.distributions["IsRel"] == REL and eiffel.distributions["IsUse"] == USE5
    assert "[Relevant]" in eiffel.raw_generation


def test_all_branches_generated_in_one_call() -> None:
    rag = eiffel_rag()
    rag.invoke("Who built the Eiffel Tower?")
    assert rag.generator.calls == 1
    assert len(rag.generator.prompts_seen) == 2
    assert all(p.startswith("### Instruction:\nWho built the Eiffel Tower?\n\n### Response:\n[Retrieval]<paragraph>")
               for p in rag.generator.prompts_seen)


def test_weights_change_the_winner() -> None:
    # With w_rel = w_sup = 0 and sequence probability only, the Louvre branch (higher p(y)) wins (and is
    # answered: it would be declined, being judged irrelevant).
    result = eiffel_rag(w_rel=0.0, w_sup=0.0, w_use=0.0, decline=False).invoke("Who built the Eiffel Tower?")
    assert result.citations[0].metadata["title"] == "Louvre"


def test_hard_constraint_drops_unsupported_branch() -> None:
    result = eiffel_rag(drop_unsupported=True, w_rel=0.0, w_sup=0.0, w_use=0.0).invoke("Who built the Eiffel Tower?")
    louvre = next(b for b in result.branches if b.passage.metadata["title"] == "Louvre")
    assert louvre.dropped and "No support" in louvre.dropped
    assert result.citations[0].metadata["title"] == "Eiffel Tower"


def test_threshold_above_p_retrieve_answers_without_retrieval() -> None:
    result = eiffel_rag(threshold=0.9).invoke("Who built the Eiffel Tower?")
    assert not result.retrieved and result.citations == []
    assert result.answer == "Nobody knows."
    (branch,) = result.branches
    assert branch.scores.total == pytest.approx(math.exp(-0.1) + 0.5 * (-0.05 - 0.1 + 0.05 + 0.1))


def test_result_round_trips_through_json() -> None:
    result = eiffel_rag().invoke("Who built the Eiffel Tower?")
    data = json.loads(result.model_dump_json())
    assert data["branches"][0]["distributions"]["IsSup"]
    again = SelfRAGResult.model_validate_json(result.model_dump_json())
    assert again.citations[0].page_content == result.citations[0].page_content
    assert again.branches[1].scores.total == result.branches[1].scores.total


class _FailingRetriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager) -> list[Document]:
        raise ConnectionError("store offline")


def test_failing_or_empty_retriever_falls_back_to_no_retrieval() -> None:
    llm = eiffel_llm()
    failing = SelfRAG(generator=llm, reflector=InlineReflector(llm), retriever=_FailingRetriever())
    result = failing.invoke("Who built the Eiffel Tower?")
    assert not result.retrieved and "store offline" in result.notes[0]
    empty = SelfRAG(generator=llm, reflector=InlineReflector(llm), retriever=PassageRetriever(passages=[]))
    result = empty.invoke("Who built the Eiffel Tower?")
    assert not result.retrieved and "no passages" in result.notes[0]


async def test_async_matches_sync() -> None:
    rag = eiffel_rag()
    sync = rag.invoke("Who built the Eiffel Tower?")
    asynchronous = await rag.ainvoke("Who built the Eiffel Tower?")
    assert asynchronous.model_dump() == sync.model_dump()
    batch = await rag.abatch(["Who built the Eiffel Tower?"] * 2)
    assert [r.answer for r in batch] == [sync.answer] * 2


async def test_astream_events_reports_each_stage() -> None:
    rag = eiffel_rag()
    names = [e["name"] async for e in rag.astream_events("Who built the Eiffel Tower?", version="v2")
             if e["event"] == "on_chain_end"]
    assert [n for n in names if n != "SelfRAG"] == ["retrieve_decision", "retrieve", "generate_branches",
                                                    "critique", "select"]


def test_passages_without_text_are_skipped_with_a_note() -> None:
    ctxs = [{"title": "Empty web result", "text": ""},
            {"title": "Eiffel Tower", "text": "The Eiffel Tower was built by Gustave Eiffel's company."}]
    result = eiffel_rag().invoke({"question": "Who built the Eiffel Tower?", "ctxs": ctxs})
    assert [b.passage.metadata["title"] for b in result.branches] == ["Eiffel Tower"]
    assert "skipped 1 passage(s) without text" in result.notes
