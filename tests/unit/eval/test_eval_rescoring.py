"""Re-selecting from a trace equals generating again; sweeps re-decide from one set of generations; PubHealth
sums branch scores per label. Checked on a scripted Self-RAG model with known judgements."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document

from selfrag_langchain import InlineReflector, SelfRAG
from selfrag_langchain.chains.declining import DECLINED
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.methods import SelfRAGMethod
from selfrag_langchain.eval.rescoring import reselect
from selfrag_langchain.eval.sweep import Decision, generation_settings, sweep, sweep_record
from selfrag_langchain.eval.tasks import get_task
from selfrag_langchain.scoring import HardConstraints, RetrieveMode, ScoringWeights
from tests.fakes.eiffel import EIFFEL, FULL, REL, USE5, scripted, stats
from tests.fakes.scripted_llm import ScriptedSelfRAGLLM

PASSAGES = [Document("The Louvre is a museum in Paris.", metadata={"title": "Louvre"}),
            Document("The Eiffel Tower was built by Gustave Eiffel's company.", metadata={"title": "Eiffel Tower"})]
QUESTION = EvalExample(key="q", line=1, question="Who built the Eiffel Tower?", answers=("Gustave Eiffel",),
                       passages=PASSAGES)
POPQA = get_task("popqa")


def rag(llm: ScriptedSelfRAGLLM, **knobs: Any) -> SelfRAG:
    # The paper's score, sequence term included, and the best score alone: these scenarios are computed by hand
    # from it. The toy passages name nothing, so the names rule is off (tests/unit/chains/test_names.py tests it).
    return SelfRAG(generator=llm, reflector=InlineReflector(llm), **{"use_sequence_probability": True,
                   "min_name_coverage": 0.0, "retrieval_order_margin": 0.0, **knobs})


@pytest.mark.parametrize("w_sup", [0.0, 0.1, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("drop_unsupported", [False, True])
def test_reselecting_from_a_trace_equals_generating_again(w_sup: float, drop_unsupported: bool) -> None:
    llm = scripted(EIFFEL)
    recorded = rag(llm, mode="always").invoke(POPQA.runnable_input(QUESTION))
    regenerated = rag(llm, mode="always", w_rel=0.0, w_use=0.0, w_sup=w_sup,
                      drop_unsupported=drop_unsupported).invoke(POPQA.runnable_input(QUESTION))
    again = reselect(recorded, POPQA, QUESTION, weights=ScoringWeights(0.0, w_sup, 0.0),
                     constraints=HardConstraints(drop_unsupported=drop_unsupported))
    assert again == (DECLINED if regenerated.declined else regenerated.answer)


def test_w_sup_decides_between_the_likelier_and_the_supported_branch() -> None:
    # With w_rel = w_use = 0: Eiffel scores e^-0.2 + 0.8 w_sup, Louvre e^-0.1 + 0.15 w_sup; they cross at 0.13.
    llm = scripted(EIFFEL)
    recorded = rag(llm, mode="always").invoke(POPQA.runnable_input(QUESTION))
    low = reselect(recorded, POPQA, QUESTION, weights=ScoringWeights(0.0, 0.1, 0.0), constraints=HardConstraints())
    high = reselect(recorded, POPQA, QUESTION, weights=ScoringWeights(0.0, 0.2, 0.0), constraints=HardConstraints())
    assert (low, high) == (DECLINED, "Gustave Eiffel's company built it.")  # Louis XIV's branch: judged irrelevant
    answering = rag(llm, mode="always", decline=False).invoke(POPQA.runnable_input(QUESTION))
    assert reselect(answering, POPQA, QUESTION, weights=ScoringWeights(0.0, 0.1, 0.0),
                    constraints=HardConstraints()) == "Louis XIV built it."


def test_reselecting_reads_the_runs_retrieval_order_margin() -> None:
    # With w_sup = 0.2 alone, Eiffel (second passage) scores 0.04 above the Louvre's branch; within a margin of 0.1 the
    # first-ranked passage's branch is chosen, and declined (judged irrelevant), in the run and on reselecting.
    llm = scripted(EIFFEL)
    weights = ScoringWeights(0.0, 0.2, 0.0)
    alone = rag(llm, mode="always", w_rel=0.0, w_use=0.0, w_sup=0.2).invoke(POPQA.runnable_input(QUESTION))
    near = rag(llm, mode="always", w_rel=0.0, w_use=0.0, w_sup=0.2,
               retrieval_order_margin=0.1).invoke(POPQA.runnable_input(QUESTION))
    assert (alone.answer, near.declined) == ("Gustave Eiffel's company built it.", True)
    assert near.settings["retrieval_order_margin"] == 0.1
    assert reselect(near, POPQA, QUESTION, weights=weights, constraints=HardConstraints()) == DECLINED
    assert reselect(alone, POPQA, QUESTION, weights=weights,
                    constraints=HardConstraints()) == "Gustave Eiffel's company built it."


def test_sweeps_re_decide_from_one_generation_per_path() -> None:
    llm = scripted(EIFFEL)
    runnable = rag(llm, w_rel=0.0, w_use=0.0)
    record = sweep_record(runnable, POPQA, QUESTION)
    assert llm.calls == 2  # the retrieval branches in one call, the no-retrieval answer in another
    assert record["retrieve_probability"] == pytest.approx(0.8176, abs=1e-4)
    base = Decision(RetrieveMode.ADAPTIVE, 0.2, runnable.weights(), runnable.constraints())
    records = {"q": record}
    by_threshold = sweep(records, POPQA, [QUESTION], base, "threshold", [0.0, 0.8, 0.85, 1.0])
    assert [(p.accuracy, p.retrieval_frequency) for p in by_threshold] == [(1.0, 1.0), (1.0, 1.0), (0.0, 0.0),
                                                                           (0.0, 0.0)]
    by_w_sup = sweep(records, POPQA, [QUESTION], base, "w_sup", [0.0, 0.1, 0.2, 2.0])
    assert [p.accuracy for p in by_w_sup] == [0.0, 0.0, 1.0, 1.0]
    assert llm.calls == 2  # no generation for any swept value


def test_a_sweep_reuses_the_path_an_adaptive_run_generated() -> None:
    llm = scripted(EIFFEL)
    runnable = rag(llm)
    method = SelfRAGMethod(runnable)
    outcome = method.answer(QUESTION, POPQA)
    assert outcome.retrieved and llm.calls == 1
    record = sweep_record(runnable, POPQA, QUESTION, prior={"trace": outcome.trace})
    assert record["reused"] == ["retrieval"]
    assert llm.calls == 2  # only the no-retrieval answer was generated
    assert record["retrieval"] == outcome.trace
    assert record["no_retrieval"]["answer"] == "Nobody knows."


def test_generation_settings_leave_out_what_only_decides() -> None:
    settings = rag(scripted(EIFFEL), threshold=0.7, w_sup=2.0).settings()
    kept = generation_settings(settings)
    assert "threshold" not in kept and "w_sup" not in kept and "mode" not in kept
    assert kept["k"] == settings["k"] and kept["max_new_tokens"] == settings["max_new_tokens"]
    # The names rule decides which branches are written at all: a sweep resumed under another is regenerated.
    assert kept["min_name_coverage"] == settings["min_name_coverage"] and kept["decline"] == settings["decline"]


def test_pubhealth_sums_branch_scores_per_label() -> None:
    # The single best branch says False, but two slightly weaker branches say true: their sum wins.
    llm = scripted({
        "Evidence one": ("[Relevant]False.[Fully supported][Utility:5]", stats(REL, FULL, USE5, -2.0)),
        "Evidence two": ("[Relevant]True.[Fully supported][Utility:5]", stats(REL, FULL, USE5, -3.0)),
        "Evidence three": ("[Relevant]It is true.[Fully supported][Utility:5]", stats(REL, FULL, USE5, -3.0)),
    })
    claim = EvalExample(key="c", line=1, question="Vitamin D helps bones.", label="true",
                        passages=[Document(f"Evidence {n}.") for n in ("one", "two", "three")])
    task = get_task("pubhealth")
    runnable = rag(llm, mode="always")
    best_single = runnable.invoke(task.runnable_input(claim)).answer
    assert best_single == "False."
    outcome = SelfRAGMethod(runnable).answer(claim, task)
    assert outcome.prediction == "true"
    assert task.score(claim, outcome.prediction).correct is True
    assert "Is the following statement correct or not?" in llm.prompts_seen[0]
    assert "true: true" not in llm.prompts_seen[0]  # the paper's prompt: no options listed
