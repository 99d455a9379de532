"""A branch whose best prospect is out of reach is left unwritten: ``writing_margin``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.documents import Document
from pydantic import Field, ValidationError

from selfrag_langchain.chains.inputs import to_question
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.chains.prospects import beam_bound, out_of_reach, prospect
from selfrag_langchain.chains.quotes import PassageQuoter, Quote
from selfrag_langchain.chains.selection import select
from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.judging import Branch, CalibratedReflector, Critique
from selfrag_langchain.pipeline import PipelineSettings
from selfrag_langchain.results import LongFormResult, SelfRAGResult
from selfrag_langchain.scoring import HardConstraints, ScoringWeights
from selfrag_langchain.tokens import IRRELEVANT, RELEVANT, ParsedGeneration
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.prompt_llm import PromptLLM
from tests.fakes.scripted_long_form import RecordingRetriever
from tests.fakes.table_reader import TableReader

KANT = Document(page_content="Immanuel Kant was a German philosopher. Königsberg was the city where he taught all his "
                             "life.", metadata={"title": "Immanuel Kant"})
FICHTE = Document(page_content="Johann Gottlieb Fichte was a German philosopher who studied the writings of "
                               "Immanuel Kant.", metadata={"title": "Johann Gottlieb Fichte"})
QUESTION = "In which city was the philosopher Immanuel Kant born?"


def _rag(fichte_reads: float, *, reader: bool = True, k: int = 2, **knobs: Any
         ) -> tuple[SelfRAG, PromptLLM, TableReader]:
    readings = TableReader(answering=lambda q, s: 0.9 if "Königsberg" in s else fichte_reads if "Fichte" in s
                           else 0.05)
    llm = PromptLLM(responses=["Kant was born in Königsberg.", "Fichte studied Kant.", "Kant was German."])
    knobs = {"min_name_coverage": 0.0, "settle_quotes": False, **knobs}
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=k,
                  quoter=PassageQuoter(embeddings=BagOfWords(), reader=readings if reader else None),
                  decline=False, **knobs)
    return rag, llm, readings


def _run(fichte_reads: float, *, asynchronous: bool = False, reader: bool = True,
         passages: list[Document] | None = None, **knobs: Any) -> tuple[SelfRAGResult, PromptLLM]:
    rag, llm, _ = _rag(fichte_reads, reader=reader, **knobs)
    request: dict[str, Any] = {"question": QUESTION, "passages": passages or [KANT, FICHTE]}
    if "choices" in knobs:
        request["choices"] = knobs.pop("choices")
    result = asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)
    return result, llm


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_branch_whose_best_sentence_cannot_bring_it_near_the_best_is_not_written(asynchronous: bool) -> None:
    result, llm = _run(0.05, asynchronous=asynchronous)
    assert len(llm.prompts) == 1 and "Königsberg" in llm.prompts[0] and "Fichte" not in llm.prompts[0]
    assert result.selected == 0 and "Königsberg" in result.answer
    kant, fichte = result.branches
    assert kant.written and not fichte.written and fichte.raw_generation == ""
    assert any("more than 0.2 below the best branch's" in note and "(writing_margin)" in note
               for note in fichte.notes)
    assert fichte.distributions["IsRel"] is not None  # still read, as a declined answer's closest passages are
    assert result.settings["writing_margin"] == 0.2


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_branch_within_the_margin_or_with_a_wide_margin_or_none_is_written(asynchronous: bool) -> None:
    result, llm = _run(0.95, asynchronous=asynchronous)  # its best sentence reads as answering
    kant, fichte = (b.scores.total for b in result.branches)
    assert 0.0 < kant - fichte < 0.2  # its prospect, its score as quoted, is within the margin
    assert len(llm.prompts) == 2 and all(b.written for b in result.branches)
    for margin in (2.0, None):
        result, llm = _run(0.05, asynchronous=asynchronous, writing_margin=margin)
        assert len(llm.prompts) == 2 and all(b.written for b in result.branches)
        assert result.settings["writing_margin"] == margin


def test_the_margin_is_never_narrower_than_the_near_ties_margin() -> None:
    # Fichte's passage first: its prospect is 0.25 below Kant's, out of a 0.2 margin but within near ties of 0.3,
    # where the retriever's first passage would win.
    result, llm = _run(0.84, passages=[FICHTE, KANT])
    assert len(llm.prompts) == 1 and not result.branches[0].written
    result, llm = _run(0.84, passages=[FICHTE, KANT], retrieval_order_margin=0.3)
    assert len(llm.prompts) == 2 and result.selected == 0


def test_a_question_with_answer_choices_writes_every_branch() -> None:
    result, llm = _run(0.05, choices={"A": "Königsberg", "B": "Berlin"})
    assert len(llm.prompts) == 2 and all(b.written for b in result.branches)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_unwritten_branches_keep_their_own_isrel_whichever_rule_left_them(asynchronous: bool) -> None:
    bakery = Document(page_content="The bakery sells bread every morning.", metadata={"title": "Bakery"})
    rag, llm, readings = _rag(0.05, k=3, min_name_coverage=0.6)
    request = {"question": QUESTION, "passages": [KANT, FICHTE, bakery]}
    result = asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)
    kant, fichte, bread = result.branches
    assert kant.written and not fichte.written and not bread.written and len(llm.prompts) == 1
    assert any("names" in note for note in bread.notes) and any("writing_margin" in note for note in fichte.notes)
    judge = CalibratedReflector(embeddings=BagOfWords())
    expected = judge.relevance_distributions(QUESTION, [rag._prepare(to_question(request), [d])[0].evidence
                                                        for d in (KANT, FICHTE, bakery)])
    for branch, dist in zip(result.branches, expected, strict=True):  # the three IsRel differ, each its own
        assert branch.distributions["IsRel"] == pytest.approx(dist)
    assert len({round(d["[Relevant]"], 3) for d in expected}) == 3
    # Quoting read no sentence the prospects had not: the reader's cache serves it.
    asked = {(question, sentence) for _, question, sentence in readings.asked}
    assert len(asked) == 3 and all("Bakery" not in sentence for _, sentence in asked)


def test_without_a_reader_no_prospect_is_known_and_every_branch_is_written() -> None:
    result, llm = _run(0.05, reader=False)
    assert len(llm.prompts) == 2 and all(b.written for b in result.branches)


def test_a_prospect_is_the_score_of_the_branch_quoting_its_best_sentence() -> None:
    relevance = {RELEVANT: 0.7, IRRELEVANT: 0.3}
    weights = ScoringWeights(w_rel=2.0, w_use=1.5)
    branch = Branch(passage=KANT, evidence=KANT.page_content, raw="Kant was born in Königsberg.",
                    answer="Kant was born in Königsberg.", parsed=ParsedGeneration())
    chosen = select([branch], [Critique(relevance=relevance)], weights=weights, constraints=HardConstraints(),
                    quotes=[Quote("Königsberg was the city where he taught all his life.", 0.9)])
    assert prospect(relevance, 0.9, weights) == pytest.approx(chosen.traces[0].scores.total)
    assert prospect(relevance, 0.9, weights) > prospect(relevance, 0.5, weights)


def test_a_branch_a_constraint_will_drop_sets_no_bar() -> None:
    assert out_of_reach([2.0, 1.7], 0.2, [None, 1.7]) == [None, None]
    assert out_of_reach([2.0, 1.7], 0.2)[1] is not None
    assert out_of_reach([2.0, 1.7], 0.2, [None, None]) == [None, None]
    assert out_of_reach([2.0, 1.7], 0.2, [1.95, 1.7])[1] is not None  # the bar is what a branch counts


def test_a_branch_counts_towards_the_bar_only_what_its_quotes_speaking_of_the_asked_could_score() -> None:
    from selfrag_langchain.chains.prospects import prospects_of

    relevance = [{"[Relevant]": 0.95, "[Irrelevant]": 0.05}, {"[Relevant]": 0.6, "[Irrelevant]": 0.4}]
    on = HardConstraints(min_name_coverage=0.6)
    weights = ScoringWeights()
    prospects, bars = prospects_of(relevance, [0.9, 0.5], weights, on, [0.2, 0.5])
    assert prospects == [prospect(relevance[0], 0.9, weights), prospect(relevance[1], 0.5, weights)]
    assert bars == [prospect(relevance[0], 0.2, weights), prospects[1]]
    assert prospects_of(relevance, [0.9, 0.5], weights, on, [None, 0.5])[1] == [None, prospects[1]]
    # Not asked, the names rules off, or no passage with a quote that passes (selection then drops none for it):
    # every branch counts its prospect.
    assert prospects_of(relevance, [0.9, 0.5], weights, on)[1] == prospects
    assert prospects_of(relevance, [0.9, 0.5], weights, HardConstraints(), [None, 0.5])[1] == prospects
    assert prospects_of(relevance, [0.9, 0.5], weights, on, [None, None])[1] == prospects


DAGESTAN = Document(page_content="Dagestan is a republic of Russia in the North Caucasus. Makhachkala is the "
                                 "republic's capital and largest city. Dagestan borders Chechnya to the west.",
                    metadata={"title": "Dagestan"})
CHECHNYA = Document(page_content="Chechnya is a republic of Russia in the North Caucasus. Grozny is the seat of "
                                 "its government.", metadata={"title": "Chechnya"})


def _chechnya(best_read: str, *, asynchronous: bool = False, long: bool = False
              ) -> tuple[SelfRAGResult | LongFormResult, PromptLLM]:
    readings = TableReader(answering=lambda q, s: 0.95 if best_read in s else 0.4 if "Grozny" in s else 0.05)
    llm = PromptLLM(responses=["The capital is Makhachkala.", "The capital is Grozny."])
    common: dict[str, Any] = {"generator": llm, "reflector": CalibratedReflector(embeddings=BagOfWords()),
                              "mode": "always", "k": 2, "decline": False, "settle_quotes": False,
                              "quoter": PassageQuoter(embeddings=BagOfWords(), reader=readings)}
    rag = SelfRAGLongForm(beam_width=1, max_depth=1, **common) if long else SelfRAG(**common)
    request = {"question": "What is the capital of Chechnya?", "passages": [DAGESTAN, CHECHNYA]}
    return (asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)), llm


def test_off_subject_quotes_are_the_sentences_speaking_of_another_thing() -> None:
    from selfrag_langchain.chains.declining import off_subject_quotes

    dagestan = SelfRAG(generator=PromptLLM(responses=[]), reflector=CalibratedReflector(embeddings=BagOfWords()),
                       mode="always")._prepare(to_question("What is the capital of Chechnya?"), [DAGESTAN])[0]
    off = off_subject_quotes("What is the capital of Chechnya?", dagestan)
    assert len(off) == 2 and any("Makhachkala" in quote for quote in off)
    assert not any("borders Chechnya" in quote for quote in off)
    assert off_subject_quotes("What is the capital of Dagestan?", dagestan) == frozenset()


@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize("long", [False, True])
def test_a_passage_naming_the_asked_thing_sets_the_bar_only_with_a_sentence_that_speaks_of_it(
        asynchronous: bool, long: bool) -> None:
    # Dagestan's best-read sentence speaks of Dagestan: it sets no bar, so Chechnya's branch is written and chosen.
    result, llm = _chechnya("Makhachkala", asynchronous=asynchronous, long=long)
    assert len(llm.prompts) == 2 and "Grozny" in result.answer
    # Read best, the sentence that speaks of Chechnya sets the bar, and Chechnya's branch is out of reach.
    result, llm = _chechnya("borders Chechnya", asynchronous=asynchronous, long=long)
    assert len(llm.prompts) == 1 and "Grozny" not in result.answer


def test_out_of_reach_leaves_the_best_and_those_within_the_margin_and_unknown_prospects() -> None:
    reasons = out_of_reach([1.9, None, 1.75, 1.6], 0.2)
    assert reasons[:3] == [None, None, None]
    assert reasons[3] is not None and "1.60" in reasons[3] and "1.90" in reasons[3]
    assert out_of_reach([None, None], 0.0) == [None, None]
    assert out_of_reach([1.0, 1.0], 0.0) == [None, None]  # ties are both written


def test_a_negative_margin_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"writing_margin must be >= 0, got -0\.1"):
        PipelineSettings(writing_margin=-0.1)
    with pytest.raises(ValidationError, match="writing_margin must be >= 0"):
        _run(0.05, writing_margin=-1.0)


# ---------------------------------------------------------------------- long form

BAKERY = Document(page_content="The bakery sells bread every morning. It opens at six.", metadata={"title": "Bakery"})


class PassageLLM(PromptLLM):
    """Writes, for each prompt, the reply keyed by words of the passage it holds (the last key found wins, so a
    later step's passage outweighs the answer so far in its prompt)."""

    replies: dict[str, str] = Field(default_factory=dict)

    def _call(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        self.prompts.append(prompt)
        found = [(prompt.rfind(key), reply) for key, reply in self.replies.items() if key in prompt]
        return max(found)[1] if found else ""


def _long(fichte_reads: float, *, beam_width: int, max_depth: int = 1, reader: bool = True, **knobs: Any
          ) -> tuple[SelfRAGLongForm, PromptLLM]:
    readings = TableReader(answering=lambda q, s: 0.9 if "Königsberg" in s else fichte_reads if "Fichte" in s
                           else 0.05)
    llm = PromptLLM(responses=["Kant was born in Königsberg."])
    rag = SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always",
                          k=3, beam_width=beam_width, max_depth=max_depth, min_name_coverage=0.0, decline=False,
                          quoter=PassageQuoter(embeddings=BagOfWords(), reader=readings if reader else None),
                          **{"answer_first": False, **knobs})
    return rag, llm


def _written_from(llm: PromptLLM) -> list[str]:
    """Which passage each prompt was written from, by the passage's opening words."""
    openings = {"Immanuel Kant was": "Kant", "Johann Gottlieb Fichte was": "Fichte", "The bakery": "Bakery"}
    return [name for prompt in llm.prompts for opening, name in openings.items() if opening in prompt]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_long_form_leaves_unwritten_a_candidate_whose_beam_could_not_be_among_the_kept(asynchronous: bool) -> None:
    rag, llm = _long(0.9, beam_width=2)  # Fichte's passage reads as answering too: two beams worth keeping
    request = {"question": QUESTION, "passages": [KANT, FICHTE, BAKERY]}
    result = asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)
    assert sorted(_written_from(llm)) == ["Fichte", "Kant"]
    (bakery,) = (c for c in result.candidates if c.passage is not None and c.passage.metadata["title"] == "Bakery")
    assert not bakery.written and bakery.dropped is not None
    assert "below the second best beam's" in bakery.dropped and "(writing_margin)" in bakery.dropped
    assert bakery.distributions["IsRel"] is not None  # read with its prospect, kept for a declined answer
    assert "Königsberg" in result.answer


def test_long_form_keeps_as_many_candidates_as_beams_and_writes_all_without_a_margin_or_a_reader() -> None:
    request = {"question": QUESTION, "passages": [KANT, FICHTE, BAKERY]}
    rag, llm = _long(0.05, beam_width=1)
    rag.invoke(request)
    assert _written_from(llm) == ["Kant"]
    rag, llm = _long(0.05, beam_width=3)  # the third best bar is the bakery's own: nothing is out of reach
    rag.invoke(request)
    assert len(llm.prompts) == 3
    for knobs in ({"writing_margin": None}, {"reader": False}):
        rag, llm = _long(0.05, beam_width=1, **knobs)
        result = rag.invoke(request)
        assert len(llm.prompts) == 3 and all(c.written for c in result.candidates)


def test_both_forms_read_prospects_in_a_run_of_their_own_before_writing() -> None:
    request = {"question": QUESTION, "passages": [KANT, FICHTE]}

    async def names(rag: Any) -> list[str]:
        return [e["name"] async for e in rag.astream_events(request, version="v2") if e["event"] == "on_chain_end"]

    ended = asyncio.run(names(_long(0.05, beam_width=1)[0]))
    assert ended.index("prospects") < ended.index("generate_segments") < ended.index("quote")
    ended = asyncio.run(names(_rag(0.05)[0]))
    assert ended.index("retrieve_decision") < ended.index("prospects") < ended.index("generate_branches")
    assert "prospects" not in asyncio.run(names(_rag(0.05, reader=False)[0]))


def test_a_prospect_counts_only_the_sentences_a_beam_may_still_quote() -> None:
    readings = TableReader(answering=lambda q, s: 0.9 if "Königsberg" in s else 0.2)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=readings)
    sources = [(KANT.page_content, "Immanuel Kant")]
    assert quoter.best_answering(QUESTION, sources) == [pytest.approx(0.9)]
    taken = [frozenset({"Königsberg was the city where he taught all his life."})]
    assert quoter.best_answering(QUESTION, sources, taken) == [pytest.approx(0.2)]
    everything = [frozenset({"Immanuel Kant was a German philosopher.",
                             "Königsberg was the city where he taught all his life."})]
    assert quoter.best_answering(QUESTION, sources, everything) == [None]
    with pytest.raises(ValueError, match="1 taken quote sets for 2 passages"):
        quoter.best_answering(QUESTION, sources * 2, taken)


def test_a_beams_bound_is_its_sequence_score_with_the_prospect_added() -> None:
    assert beam_bound(1.5, 0.0, 0, "mean") == beam_bound(1.5, 0.0, 0, "sum") == 1.5
    assert beam_bound(1.0, 3.0, 2, "mean") == pytest.approx(4.0 / 3)
    assert beam_bound(1.0, 3.0, 2, "sum") == pytest.approx(4.0)
    # The bar is the kept-th best of the bounds and the finished beams' scores.
    assert out_of_reach([2.0, 1.9, 1.5], 0.2, kept=2, beams=True)[2] is not None
    assert out_of_reach([2.0, 1.9, 1.5], 0.2, kept=3, beams=True) == [None, None, None]
    assert out_of_reach([2.0, 1.5], 0.2, kept=2, settled=[1.95], beams=True)[1] is not None
    assert out_of_reach([2.0], 0.2, kept=2) == [None]


def test_a_beam_whose_candidates_are_all_out_of_reach_leaves_the_search_as_an_outranked_one_does() -> None:
    prussia = Document(page_content="Königsberg was the capital of East Prussia, where Immanuel Kant was born.",
                       metadata={"title": "East Prussia"})
    castle = Document(page_content="Königsberg Castle stood in the city where Immanuel Kant was born.",
                      metadata={"title": "Königsberg Castle"})

    def run(margin: float | None) -> tuple[LongFormResult, PassageLLM]:
        # Read after its title, a sentence answers when it names Königsberg itself.
        readings = TableReader(answering=lambda q, s: 0.9 if "Königsberg" in s.split(":")[-1] else 0.3
                               if "Fichte" in s else 0.05)
        llm = PassageLLM(responses=[], replies={"Immanuel Kant was a German": "Kant was born in Königsberg.",
                                                "Johann Gottlieb Fichte was": "Fichte studied Kant.",
                                                "capital of East Prussia": "Königsberg was in Prussia.",
                                                "Königsberg Castle stood": "Königsberg had a castle.",
                                                "The bakery": "Bread is sold."})
        retriever = RecordingRetriever(default=[KANT, FICHTE, BAKERY], results={
            f"{QUESTION} Kant was born in Königsberg.": [prussia, castle],
            f"{QUESTION} Fichte studied Kant.": [BAKERY]})
        rag = SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always",
                              retriever=retriever, k=3, beam_width=2, max_depth=2, min_name_coverage=0.0,
                              decline=False, writing_margin=margin, answer_first=False,
                              quoter=PassageQuoter(embeddings=BagOfWords(), reader=readings))
        return rag.invoke(QUESTION), llm

    result, llm = run(0.2)
    everything, all_llm = run(None)
    assert len(llm.prompts) == 4 and len(all_llm.prompts) == 6  # the bakery, at both depths, is not written
    # The second beam's one candidate is out of reach: the beam is not continued, and does not stay in the running
    # as a finished beam either, as it would if its candidates had been dropped.
    (weaker,) = (s for s in result.steps if s.depth == 1 and s.beam == "0.1")
    assert any("not continued" in note for note in weaker.notes)
    assert all(b.finished == "reached max_depth (2)" for b in result.beams)
    assert result.answer == everything.answer and [b.segments for b in result.beams] == [
        b.segments for b in everything.beams]


def _second_step(llm: PromptLLM) -> SelfRAGLongForm:
    """One beam, two steps: after Königsberg's sentence only Kant's opening sentence reads near it, so the other
    passages' candidates at the second step are out of reach."""
    readings = TableReader(answering=lambda q, s: 0.9 if "Königsberg" in s else 0.6 if "Immanuel Kant was" in s
                           else 0.05)
    return SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always",
                           k=3, beam_width=1, max_depth=2, min_name_coverage=0.0, decline=False,
                           quoter=PassageQuoter(embeddings=BagOfWords(), reader=readings))


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_beam_the_generator_ends_finishes_though_its_other_candidates_are_out_of_reach(asynchronous: bool) -> None:
    llm = PromptLLM(responses=["Kant was born in Königsberg.", ""])  # then the generator has nothing to add
    rag = _second_step(llm)
    request = {"question": QUESTION, "passages": [KANT, FICHTE, BAKERY]}
    result = asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)
    assert [s.text for s in result.segments] == ["Königsberg was the city where he taught all his life."]
    (second,) = (s for s in result.steps if s.depth == 1)
    assert any(c.dropped is not None and "(writing_margin)" in c.dropped
               for c in result.candidates if c.depth == 1)  # some were out of reach, as before
    assert any("no continuation survived" in note for note in second.notes)


def test_a_beam_outranked_by_candidates_that_do_not_survive_ends_the_search_rather_than_none() -> None:
    llm = PromptLLM(responses=["Kant was born in Königsberg."])  # the second segment repeats the first
    rag = _second_step(llm)
    result = rag.invoke({"question": QUESTION, "passages": [KANT, FICHTE, BAKERY]})
    assert [s.text for s in result.segments] == ["Königsberg was the city where he taught all his life."]
    (second,) = (s for s in result.steps if s.depth == 1)
    assert any("repeats an earlier segment" in (c.dropped or "") for c in result.candidates if c.depth == 1)
    assert any("not continued" in note for note in second.notes)



INGUSHETIA = Document(page_content="Ingushetia is a republic of Russia in the North Caucasus. Magas is the "
                                   "republic's capital.", metadata={"title": "Ingushetia"})
ADYGEA = Document(page_content="Adygea is a republic of Russia in the North Caucasus. Maykop is its capital.",
                  metadata={"title": "Adygea"})


@pytest.mark.parametrize("asynchronous", [False, True])
def test_long_form_sets_the_bar_at_the_last_candidate_that_counts_when_fewer_count_than_it_keeps(
        asynchronous: bool) -> None:
    # The three passages hold enough of the question's names, but only Chechnya's has a sentence that speaks of
    # Chechnya: the other two count nothing towards the bar, and selection drops them while Chechnya's quote
    # passes, so a second kept beam could only be theirs. They are read against Chechnya's prospect, not written
    # for a second place.
    readings = TableReader(answering=lambda q, s: 0.95 if "Grozny" in s else 0.05)
    llm = PromptLLM(responses=["Grozny is the seat of its government."])
    rag = SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always",
                          k=3, beam_width=2, max_depth=1, decline=False,
                          quoter=PassageQuoter(embeddings=BagOfWords(), reader=readings))
    request = {"question": "What is the capital of Chechnya, a republic of Russia in the North Caucasus?",
               "passages": [INGUSHETIA, CHECHNYA, ADYGEA]}
    result = asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)
    assert len(llm.prompts) == 1 and "Grozny" in llm.prompts[0]
    assert "Grozny" in result.answer
    unwritten = [c for c in result.candidates if not c.written]
    assert {c.passage.metadata["title"] for c in unwritten if c.passage is not None} == {"Ingushetia", "Adygea"}
    assert all("below the best beam's" in (c.dropped or "") for c in unwritten)
