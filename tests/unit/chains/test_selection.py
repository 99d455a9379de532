"""Closed-set option extraction and aggregation, passage truncation, input normalisation."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.prompt_values import StringPromptValue

from selfrag_langchain.chains.branches import prepare_passages
from selfrag_langchain.chains.inputs import to_question
from selfrag_langchain.chains.selection import extract_option, select
from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.judging import Branch, Critique
from selfrag_langchain.llms.base import GenerationStats
from selfrag_langchain.scoring import HardConstraints, ScoringWeights
from selfrag_langchain.tokens import NO_SUPPORT, parse_generation
from tests.fakes.scripted_llm import ScriptedSelfRAGLLM

CHOICES = {"A": "the cycling of AM and PM", "B": "the creation of volcanic eruptions", "C": "the tides",
           "D": "the creation of gravity"}


@pytest.mark.parametrize(
    ("answer", "option"),
    [("A", "A"), ("(B)", "B"), ("c: the tides", "C"), ("D.", "D"), ("The answer is A", "A"),
     ("Answer: (b)", "B"), ("It is the cycling of AM and PM.", "A"), ("Gravity, I think", None),
     ("A lot of things", None)],
)
def test_extract_option(answer: str, option: str | None) -> None:
    assert extract_option(answer, CHOICES) == option


def _branch(answer: str) -> Branch:
    return Branch(passage=Document(answer), evidence=answer, raw=answer, answer=answer,
                  parsed=parse_generation(answer))


def _critique(p_rel: float) -> Critique:
    return Critique(relevance={"[Relevant]": p_rel, "[Irrelevant]": 1 - p_rel})


def test_closed_set_picks_option_with_largest_sum_not_best_branch() -> None:
    # One strong B branch (0.9) against two weaker A branches (0.6 + 0.5 = 1.1): A wins.
    branches = [_branch("B"), _branch("A"), _branch("(A)")]
    critiques = [_critique(0.9), _critique(0.6), _critique(0.5)]
    weights = ScoringWeights(use_sequence_probability=False)
    selection = select(branches, critiques, weights=weights, constraints=HardConstraints(), choices=CHOICES)
    assert selection.option == "A"
    assert selection.option_scores == pytest.approx({"A": 1.1, "B": 0.9})
    assert selection.selected == 1  # the best branch among those that chose A


def test_open_questions_take_the_first_ranked_branch_within_the_margin() -> None:
    branches = [_branch("x"), _branch("y"), _branch("z")]
    critiques = [_critique(0.55), _critique(0.3), _critique(0.6)]  # scores 0.55, 0.3, 0.6
    weights = ScoringWeights(use_sequence_probability=False)
    pick = {margin: select(branches, critiques, weights=weights, constraints=HardConstraints(),
                           retrieval_order_margin=margin).selected for margin in (0.0, 0.04, 0.1)}
    assert pick == {0.0: 2, 0.04: 2, 0.1: 0}
    closed = select([_branch("B"), _branch("A")], [_critique(0.55), _critique(0.6)], weights=weights,
                    constraints=HardConstraints(), choices=CHOICES, retrieval_order_margin=0.1)
    assert closed.option == "A"  # answer options are still decided by their sums


def test_all_branches_dropped_still_answers_with_a_note() -> None:
    branches = [_branch("x"), _branch("y")]
    critiques = [_critique(0.1), _critique(0.3)]
    selection = select(branches, critiques, weights=ScoringWeights(), constraints=HardConstraints(drop_irrelevant=True))
    assert all(t.dropped for t in selection.traces)
    assert selection.selected == 1 and "every branch violated" in selection.notes[0]


def test_a_branch_left_unwritten_is_not_chosen_while_a_written_one_remains() -> None:
    branches = [_branch("x"), _branch("y"), _branch("")]
    critiques = [_critique(0.1), _critique(0.3), _critique(0.45)]  # every one judged irrelevant, dropped
    selection = select(branches, critiques, weights=ScoringWeights(), constraints=HardConstraints(drop_irrelevant=True),
                       written=[True, True, False])
    assert all(t.dropped for t in selection.traces)
    assert selection.selected == 1 and [t.written for t in selection.traces] == [True, True, False]
    best = select(branches, [_critique(0.6), _critique(0.7), _critique(0.9)], weights=ScoringWeights(),
                  constraints=HardConstraints(), written=[True, True, False])
    assert best.selected == 1  # the unwritten branch's better IsRel does not make it the answer
    alone = select(branches[2:], critiques[2:], weights=ScoringWeights(), constraints=HardConstraints(),
                   written=[False])
    assert alone.selected == 0  # none written: the rule has nothing to prefer


def test_a_branch_whose_quote_speaks_of_another_thing_is_dropped_while_one_that_does_not_remains() -> None:
    from selfrag_langchain.chains.declining import branch_subject_checks
    from selfrag_langchain.chains.quotes import Quote

    question = "Theodoric the Great was king of which Germanic people?"
    docs = [Document("Otto I, known as Otto the Great, was East Frankish king.", metadata={"title": "Otto the Great"}),
            Document("Theodoric the Great was king of the Ostrogoths.", metadata={"title": "Theodoric the Great"})]
    evidence = [f"{d.metadata['title']}\n{d.page_content}" for d in docs]
    branches = [Branch(passage=d, evidence=e, raw="x", answer="x", parsed=parse_generation("x"))
                for d, e in zip(docs, evidence, strict=True)]
    quotes = [Quote(d.page_content, 0.9) for d in docs]
    speaks = branch_subject_checks(question, [q.text for q in quotes], docs, evidence, 0.6)
    assert speaks == [False, True]
    constraints = HardConstraints(min_name_coverage=0.6)
    chosen = select(branches, [_critique(0.9), _critique(0.6)], weights=ScoringWeights(), constraints=constraints,
                    quotes=quotes, speaks_of_asked=speaks)
    assert chosen.selected == 1 and "another thing" in (chosen.traces[0].dropped or "")
    unread = select(branches, [_critique(0.9), _critique(0.6)], weights=ScoringWeights(), constraints=constraints,
                    quotes=quotes)
    assert unread.selected == 0  # the IsRel alone prefers Otto's article
    # no quote that does: nothing is dropped for it (the answer is declined whichever is chosen); names rules off
    assert branch_subject_checks(question, [quotes[0].text], docs[:1], evidence[:1], 0.6) is None
    assert branch_subject_checks(question, [q.text for q in quotes], docs, evidence, 0.0) is None


class _SmallWindowLLM(ScriptedSelfRAGLLM):
    @property
    def context_window(self) -> int | None:
        return 60


def test_passage_longer_than_context_window_is_cut_and_noted() -> None:
    llm = _SmallWindowLLM(script={})
    doc = Document(" ".join(f"word{i}" for i in range(500)), metadata={"title": "Long"})
    (prepared,) = prepare_passages([doc], llm, instruction="Q?", max_new_tokens=20, max_tokens=None)
    assert llm.count_tokens(prepared.evidence) <= 60 - 20 - 16
    assert prepared.note and "truncated from 501" in prepared.note
    assert prepared.document.page_content == doc.page_content  # the citation keeps the full text


def test_inputs_are_normalised() -> None:
    q = to_question({"question": "Earth's rotating causes", "choices": {"text": ["x", "y"], "label": ["A", "B"]},
                     "ctxs": [{"title": "T", "text": "body"}]})
    assert q.choices == {"A": "x", "B": "y"}
    assert q.passages[0].page_content == "body" and q.passages[0].metadata["title"] == "T"
    assert to_question(StringPromptValue(text="Who?")).question == "Who?"


@pytest.mark.parametrize(
    ("value", "message"),
    [("", "empty"), ("  \n", "empty"), ({"q": "x"}, "needs a 'question' key"), (42, "must be a question string"),
     ({"question": "x", "choices": {"text": ["a"], "label": ["A", "B"]}}, "2 labels but 1 texts")],
)
def test_bad_inputs(value: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        to_question(value)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("threshold", 1.5, "threshold must be in"), ("threshold", -0.1, "threshold must be in"),
     ("k", 0, "k must be >= 1"), ("k", -3, "k must be >= 1"), ("mode", "sometimes", "mode"),
     ("w_sup", float("inf"), "w_sup must be a finite number"),
     ("w_sup", -100, "w_sup must be between 0 and 10, got -100"), ("w_use", 11, "w_use must be between 0 and 10")],
)
def test_bad_knobs(field: str, value: object, message: str) -> None:
    from pydantic import ValidationError

    from selfrag_langchain import InlineReflector, SelfRAG

    llm = ScriptedSelfRAGLLM(script={})
    with pytest.raises((ValidationError, ConfigurationError), match=message):
        SelfRAG(generator=llm, reflector=InlineReflector(llm), **{field: value})


def _judged(p_rel: float, p_sup: float, p_use5: float) -> Critique:
    return Critique(relevance={"[Relevant]": p_rel, "[Irrelevant]": 1 - p_rel},
                    support={"[Fully supported]": p_sup, "[Partially supported]": 0.0, NO_SUPPORT: 1 - p_sup},
                    utility={"[Utility:5]": p_use5, "[Utility:1]": 1 - p_use5})


def test_a_quoted_branch_is_scored_as_its_quote_not_its_generation() -> None:
    from selfrag_langchain.chains.quotes import Quote
    from selfrag_langchain.chains.selection import quoted_critique

    critique = _judged(0.8, 0.1, 0.9)
    scored = quoted_critique(critique, 0.75)
    assert scored.relevance == critique.relevance
    assert scored.support == {"[Fully supported]": 1.0}
    assert scored.utility is not None and scored.utility["[Utility:5]"] == 0.75
    assert quoted_critique(critique, None).utility == critique.utility  # no reader: the judge's IsUse stays
    # the generation was judged unsupported (its own words garbled the answer) and unlikely as a sequence,
    # but its quote answers: it wins against a fluent, supported branch whose quote does not answer
    garbled, fluent = _branch("Blackbeard the Blackbeard."), _branch("Blackbeard was a pirate.")
    garbled.stats = GenerationStats(num_tokens=4, sum_logprob=-8.0)
    fluent.stats = GenerationStats(num_tokens=4, sum_logprob=-0.4)
    critiques = [_judged(0.9, 0.05, 0.8), _judged(0.9, 0.95, 0.9)]
    weights, constraints = ScoringWeights(), HardConstraints()
    assert select([garbled, fluent], critiques, weights=weights, constraints=constraints).selected == 1
    quotes = [Quote("Edward Teach, better known as Blackbeard, was a pirate.", 0.9),
              Quote("Blackbeard was a pirate of the Caribbean.", 0.1)]
    selection = select([garbled, fluent], critiques, weights=weights, constraints=constraints, quotes=quotes)
    assert selection.selected == 0
    first = selection.traces[0]
    assert first.quote == quotes[0].text and first.quote_answering == 0.9
    assert first.scores.sequence_probability is None and first.scores.support == 1.0
    assert first.scores.utility == pytest.approx(0.8)  # 2 p - 1
    assert first.distributions["IsSup"] == critiques[0].support  # the trace keeps what the judge said
    strict = HardConstraints(drop_unsupported=True)  # the quote is supported: only the generation would be dropped
    assert select([garbled, fluent], critiques, weights=weights, constraints=strict).traces[0].dropped
    assert select([garbled, fluent], critiques, weights=weights, constraints=strict,
                  quotes=quotes).traces[0].dropped is None
