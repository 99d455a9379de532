"""Long-form beam search on a scripted Self-RAG generator: which beam wins, the per-segment retrieval
queries, [Continue to Use Evidence], hard constraints, one generate call per depth, and faults."""

from __future__ import annotations

import math

import pytest

from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.judging import InlineReflector
from selfrag_langchain.tokens import CONTINUE_EVIDENCE, NO_RETRIEVAL, RETRIEVAL, UTILITY, Group
from tests.fakes.scripted_long_form import (
    FULL,
    IRR,
    NOSUP,
    PART,
    QUESTION,
    REL,
    RecordingRetriever,
    ScriptedLongFormLLM,
    doc,
    greedy_trap,
    judged,
    reading,
    stats,
)


def _total(rel: dict[str, float], sup: dict[str, float], mean_logprob: float = -0.1) -> float:
    """The paper's segment score, by hand: exp(mean logprob) + s_rel + s_sup (no IsUse emitted)."""
    s_rel = rel["[Relevant]"] / (rel["[Relevant]"] + rel["[Irrelevant]"])
    s_sup = sup["[Fully supported]"] + 0.5 * sup["[Partially supported]"]
    return math.exp(mean_logprob) + s_rel + s_sup


def _rag(llm: ScriptedLongFormLLM, retriever: RecordingRetriever, **kwargs) -> SelfRAGLongForm:
    # The paper's score, and its search: beams compete from the first step.
    settings = {"k": 2, "max_depth": 2, "use_sequence_probability": True, "answer_first": False, **kwargs}
    return SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                           **settings)


def test_beam_two_finds_the_answer_greedy_search_misses() -> None:
    llm, retriever = greedy_trap()
    wide = _rag(llm, retriever, beam_width=2).invoke(QUESTION)
    assert wide.answer == "Paris is the capital of France [1]. The Louvre is in Paris [2]."
    assert wide.beams[0].score == pytest.approx((_total(REL, PART) + _total(REL, FULL)) / 2)  # the mean
    assert [wide.candidate(i).passage.metadata["title"] for i in wide.beams[0].segments] == ["Paris", "Louvre"]

    llm, retriever = greedy_trap()
    greedy = _rag(llm, retriever, beam_width=1).invoke(QUESTION)
    assert greedy.answer.startswith("The Eiffel Tower is in Paris [1].")
    assert greedy.beams[0].score < wide.beams[0].score
    # Every candidate's total is the paper's formula.
    gustave = next(c for c in greedy.candidates if c.passage.metadata["title"] == "Gustave Eiffel")
    assert gustave.scores.total == pytest.approx(_total(IRR, NOSUP))


def test_by_default_the_first_segment_is_chosen_as_short_form_chooses_and_later_steps_extend_it() -> None:
    llm, retriever = greedy_trap()
    result = _rag(llm, retriever, beam_width=2, answer_first=True).invoke(QUESTION)
    # The Paris beam's better second segment does not outweigh the Eiffel Tower's better answer.
    assert result.answer.startswith("The Eiffel Tower is in Paris [1].")
    assert {c.parent for c in result.candidates if c.depth == 1} == {"0.0"}
    assert result.settings["answer_first"] is True


@pytest.mark.parametrize(("margin", "first"), [(0.1, "Paris"), (0.0, "Eiffel Tower")])
def test_a_first_segment_within_the_retrieval_order_margin_of_the_best_is_kept_from_the_first_passage(
        margin: float, first: str) -> None:
    llm, retriever = greedy_trap()
    retriever.results[QUESTION] = [doc("Paris"), doc("Eiffel Tower")]
    nearly = {"[Fully supported]": 0.65, "[Partially supported]": 0.2, "[No support / Contradictory]": 0.15}
    llm.script[(0, "Paris")] = judged("Paris is the capital of France.", REL, nearly)  # 0.05 below the Eiffel Tower
    result = _rag(llm, retriever, beam_width=2, answer_first=True, retrieval_order_margin=margin).invoke(QUESTION)
    assert result.candidate(result.beams[0].segments[0]).passage.metadata["title"] == first


def test_each_segment_retrieves_with_the_question_and_its_previous_segment() -> None:
    llm, retriever = greedy_trap()
    result = _rag(llm, retriever, beam_width=2).invoke(QUESTION)
    assert retriever.queries == [QUESTION, f"{QUESTION} The Eiffel Tower is in Paris.",
                                 f"{QUESTION} Paris is the capital of France."]
    assert result.retrievals == 3
    assert [s.query for s in result.steps] == retriever.queries
    # The depth-1 prompts carry the new passages, not the first step's.
    depth1 = llm.calls[1]
    assert all(p.count("<paragraph>") == 2 for p in depth1)
    assert any("Louvre" in p for p in depth1) and any("Gustave Eiffel" in p for p in depth1)


def test_later_segments_judge_the_first_later_k_passages_found() -> None:
    llm, retriever = greedy_trap()
    result = _rag(llm, retriever, beam_width=2, later_k=1).invoke(QUESTION)
    first, later = llm.calls[0], llm.calls[1]
    assert len(first) == 2  # the first segment: a branch for each of the k passages
    assert len(later) == 2  # later: one branch a beam (four with later_k=None)
    later_steps = [s for s in result.steps if s.depth == 1]
    assert len(later_steps) == 2
    for step in later_steps:  # the first its query found
        assert step.passages == [retriever.results[step.query][0].metadata["title"]]
    assert result.settings["later_k"] == 1


def test_all_branches_of_all_beams_are_generated_in_one_call_per_depth() -> None:
    llm, retriever = greedy_trap()
    _rag(llm, retriever, beam_width=2).invoke(QUESTION)
    assert [len(prompts) for prompts in llm.calls] == [2, 4]
    assert all(stop == [RETRIEVAL, NO_RETRIEVAL, CONTINUE_EVIDENCE] for stop in llm.stops)


def test_retrieve_decision_per_step_follows_the_threshold() -> None:
    llm, retriever = greedy_trap()
    # After one segment the judge prefers [No Retrieval]: p(Retrieve) = 1 / (1 + e^2) = 0.12 < 0.2.
    llm.retrieve_logprobs[1] = {RETRIEVAL: -2.0, NO_RETRIEVAL: 0.0, CONTINUE_EVIDENCE: -9.0}
    llm.script[(1, None)] = judged("It is tall.", REL, FULL)
    result = _rag(llm, retriever, beam_width=1).invoke(QUESTION)
    assert retriever.queries == [QUESTION]
    depth1 = result.steps[1]
    assert depth1.action == "no_retrieval" and depth1.decision_source == "judge"
    assert depth1.decision.probability == pytest.approx(1 / (1 + math.e**2))
    assert llm.calls[1][0].endswith(NO_RETRIEVAL)
    assert result.answer == "The Eiffel Tower is in Paris [1]. It is tall."
    # The inline judge read the answer so far: the request continues the generator's own text.
    assert llm.judged[1].endswith("The Eiffel Tower is in Paris.[Fully supported]")
    # mode="always" retrieves at every depth without asking.
    llm2, retriever2 = greedy_trap()
    always = _rag(llm2, retriever2, beam_width=1, mode="always").invoke(QUESTION)
    assert len(retriever2.queries) == 2 and all(s.decision_source == "mode" for s in always.steps)
    assert llm2.judged == []


def test_continue_to_use_evidence_keeps_the_passage_without_retrieving() -> None:
    keep = {RETRIEVAL: 0.1, NO_RETRIEVAL: 0.1, CONTINUE_EVIDENCE: 0.8}
    llm = ScriptedLongFormLLM(script={
        (0, "Eiffel Tower"): judged("The Eiffel Tower is in Paris.", REL, FULL, reading(Group.RETRIEVE, keep)),
        (1, "continue"): judged("It opened in 1889.", REL, FULL,
                                reading(Group.ISUSE, {u: 0.2 for u in UTILITY})),
    })
    retriever = RecordingRetriever(results={QUESTION: [doc("Eiffel Tower")]})
    result = _rag(llm, retriever, beam_width=1, k=1, max_depth=4).invoke(QUESTION)
    assert retriever.queries == [QUESTION]
    step = result.steps[1]
    assert (step.action, step.decision_source, step.passages) == ("continue_evidence", "generation",
                                                                  ["Eiffel Tower"])
    # The generation stopped before [Continue to Use Evidence]; the next prompt continues with it.
    prompt = llm.calls[1][0]
    assert prompt.endswith("[Fully supported][Continue to Use Evidence]") and prompt.count("<paragraph>") == 1
    assert result.answer == "The Eiffel Tower is in Paris [1]. It opened in 1889 [1]."
    assert [s.citation for s in result.segments] == [1, 1] and len(result.citations) == 1
    assert result.beams[0].finished.startswith("the generator judged the answer complete")


def test_hard_constraint_drops_unsupported_segments() -> None:
    llm, retriever = greedy_trap()
    result = _rag(llm, retriever, beam_width=1, drop_unsupported=True).invoke(QUESTION)
    dropped = [c for c in result.candidates if c.dropped]
    assert {c.passage.metadata["title"] for c in dropped} == {"Gustave Eiffel", "Wrought iron"}
    assert all("No support" in c.dropped for c in dropped)
    # No continuation survived: the beam ends with its first segment rather than an unsupported one.
    assert result.answer == "The Eiffel Tower is in Paris [1]."
    assert "no continuation survived" in result.beams[0].finished
    # Without the constraint the same search keeps an unsupported continuation.
    llm, retriever = greedy_trap()
    assert len(_rag(llm, retriever, beam_width=1).invoke(QUESTION).segments) == 2


def test_irrelevant_first_segments_are_kept_when_nothing_else_exists() -> None:
    llm, retriever = greedy_trap()
    retriever.results[QUESTION] = [doc("Gustave Eiffel")]
    llm.script[(0, "Gustave Eiffel")] = judged("Gustave Eiffel was born in Dijon.", IRR, NOSUP)
    result = _rag(llm, retriever, beam_width=1, max_depth=1, drop_irrelevant=True, decline=False).invoke(QUESTION)
    assert result.answer == "Gustave Eiffel was born in Dijon [1]."
    assert any("hard constraint" in n for n in result.notes)


def test_retriever_failing_mid_answer_finishes_the_segment_without_retrieval() -> None:
    llm, retriever = greedy_trap()
    retriever.fail_on = {1}
    llm.script[(1, None)] = judged("It is tall.", REL, FULL)
    result = _rag(llm, retriever, beam_width=1).invoke(QUESTION)
    assert result.answer == "The Eiffel Tower is in Paris [1]. It is tall."
    step = result.steps[1]
    assert step.action == "no_retrieval" and step.query is not None
    assert any("store offline" in n and "segment written without retrieval" in n for n in step.notes)
    assert result.segments[1].citation is None


def test_a_generation_that_never_ends_its_segment_is_cut_at_the_budget() -> None:
    llm = ScriptedLongFormLLM(script={
        (0, "Eiffel Tower"): ("[Relevant]The tower goes on and on and on",
                              stats(8, -0.8, reading(Group.ISREL, REL), finish="length")),
        (1, "Eiffel Tower"): judged("It is tall.", REL, FULL),
    })
    retriever = RecordingRetriever(default=[doc("Eiffel Tower")])
    result = _rag(llm, retriever, beam_width=1, k=1, max_segment_tokens=8).invoke(QUESTION)
    first = result.candidate(result.beams[0].segments[0])
    assert first.answer == "The tower goes on and on and on"
    assert any("no segment end within 8 tokens" in n for n in first.notes)
    assert len(result.segments) == 2


def test_answer_budget_stops_a_beam() -> None:
    llm, retriever = greedy_trap()
    # Each segment costs 6 words (tokens of the scripted model): a 6-token budget allows one segment.
    result = _rag(llm, retriever, beam_width=1, max_new_tokens=6).invoke(QUESTION)
    assert len(result.segments) == 1 and "max_new_tokens" in result.beams[0].finished
    assert len(llm.calls) == 1


def test_a_repeated_segment_ends_the_beam() -> None:
    llm, retriever = greedy_trap()
    for title in ("Gustave Eiffel", "Wrought iron"):
        llm.script[(1, title)] = judged("The Eiffel Tower is in Paris.", REL, FULL)
    result = _rag(llm, retriever, beam_width=1).invoke(QUESTION)
    assert result.answer == "The Eiffel Tower is in Paris [1]."
    assert all(c.dropped == "repeats an earlier segment of its beam" for c in result.candidates if c.depth == 1)


def test_passages_given_with_the_question_are_used_at_every_step() -> None:
    llm, retriever = greedy_trap()
    llm.script[(0, "Gustave Eiffel")] = judged("Gustave Eiffel was born in Dijon.", IRR, NOSUP)
    llm.script[(1, "Eiffel Tower")] = judged("It is tall.", REL, FULL)
    result = _rag(llm, None, beam_width=1).invoke(
        {"question": QUESTION, "passages": [doc("Eiffel Tower"), doc("Gustave Eiffel")]})
    assert retriever.queries == []
    assert result.steps[1].passages == ["Eiffel Tower", "Gustave Eiffel"]


@pytest.mark.parametrize(("field", "value"), [("beam_width", 0), ("max_depth", 0), ("max_segment_tokens", 0),
                                              ("threshold", 1.5), ("k", 0), ("later_k", 0)])
def test_invalid_settings_are_one_line_errors(field: str, value: float) -> None:
    llm, retriever = greedy_trap()
    with pytest.raises(ValueError, match=f"{field} must be"):
        _rag(llm, retriever, **{field: value})


def test_knobs_are_configurable_at_run_time() -> None:
    from langchain_core.runnables import ConfigurableField

    llm, retriever = greedy_trap()
    rag = _rag(llm, retriever, beam_width=2).configurable_fields(beam_width=ConfigurableField(id="beam_width"))
    greedy = rag.with_config(configurable={"beam_width": 1}).invoke(QUESTION)
    assert greedy.answer.startswith("The Eiffel Tower is in Paris [1].")
    assert greedy.settings["beam_width"] == 1
    assert rag.invoke(QUESTION).answer.startswith("Paris is the capital of France [1].")


@pytest.mark.parametrize(("how", "answer"), [
    ("sum", "Paris is the capital of France [1]. The Louvre is in Paris [2]."),
    ("mean", "The Eiffel Tower is in Paris [1]."),
])
def test_beam_score_sum_prefers_judged_continuations_mean_is_length_neutral(how: str, answer: str) -> None:
    llm, retriever = greedy_trap()
    # The Eiffel beam ends after its first segment (an IsUse token, neutral utility): mean 2.605 beats the
    # Paris beam's mean (2.355 + 2.605) / 2, its sum does not.
    neutral = {u: 0.2 for u in UTILITY}
    llm.script[(0, "Eiffel Tower")] = judged("The Eiffel Tower is in Paris.", REL, FULL,
                                             reading(Group.ISUSE, neutral))
    result = _rag(llm, retriever, beam_score=how).invoke(QUESTION)
    assert result.answer == answer
    assert result.settings["beam_score"] == how


def test_the_search_reads_only_what_its_host_protocol_names() -> None:
    """BeamSearch reads the Runnable through SearchHost alone: the long-form Runnable provides every name of
    it, and the search's source reaches for nothing else of the Runnable (no private attribute either)."""
    import inspect
    import re

    from selfrag_langchain.chains import beam
    from selfrag_langchain.chains.long_form import SelfRAGLongForm

    named = set(inspect.get_annotations(beam.SearchHost)) | {
        n for n, v in vars(beam.SearchHost).items() if callable(v) and not n.startswith("_")}
    for name in named:
        assert hasattr(SelfRAGLongForm, name) or name in SelfRAGLongForm.model_fields, name
    read = set(re.findall(r"(?:self\.rag|runnable)\.(\w+)", inspect.getsource(beam.BeamSearch)))
    assert read <= named, sorted(read - named)
