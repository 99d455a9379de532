"""The paper's metrics on hand-made cases, normalisation corner cases included."""

from __future__ import annotations

import pytest

from selfrag_langchain.eval.metrics import (
    accuracy,
    citation_scores,
    citations_in,
    closed_set_label,
    match,
    normalize_answer,
    pubhealth_label,
    remove_citations,
    rouge_l,
    split_sentences,
    str_em,
)
from tests.fakes.table_judge import TableJudge

CHOICES = {"A": "Planetary density will decrease.", "B": "Planetary years will become longer.",
           "C": "Planetary days will become shorter.", "D": "Planetary gravity will become stronger."}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  an   apple, a pear ", "apple pear"),
        ("Theatre", "theatre"),  # "the" inside a word stays
        ("U.S.A.", "usa"),
        ("", ""),
    ],
)
def test_normalize_answer(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected


@pytest.mark.parametrize(
    ("prediction", "answers", "expected"),
    [
        ("Henry Feilden was a Conservative politician.", ["politician", "political leader"], True),
        ("He was a POLITICIAN", ["politician"], True),  # case
        ("It's in the U.S.A.", ["USA"], True),  # punctuation
        ("The answer is The Beatles", ["Beatles"], True),  # articles
        ("He was a journalist.", ["politician", "pol"], False),
        ("He was a politician", ["pol"], True),  # substring, as the paper counts it
        ("Anything at all", ["The", "."], False),  # golds that normalise to nothing never match
        ("", ["Paris"], False),
        ("Paris", [], False),
    ],
)
def test_match(prediction: str, answers: list[str], expected: bool) -> None:
    assert match(prediction, answers) is expected


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        ("true", "true"),
        ("True.", "true"),
        (" FALSE", "false"),
        ("False, the claim is not supported.", "false"),
        ("The statement is true.", "true"),
        ("This is not true.", "false"),
        ("The claim is incorrect", "false"),
        ("That is untrue", "false"),
        ("SUPPORTS", "true"),
        ("REFUTES", "false"),
        ("I cannot tell.", None),
        ("", None),
    ],
)
def test_pubhealth_label_lowercases_and_reads_negations(prediction: str, expected: str | None) -> None:
    assert pubhealth_label(prediction) == expected


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        ("C", "C"),
        ("(C)", "C"),
        ("C: Planetary days will become shorter.", "C"),
        ("c.", "C"),
        ("Answer: B", "B"),
        ("The answer is (D)", "D"),
        ("The best answer choice is C.", "C"),
        ("I would pick option B here", "B"),
        ("Planetary days will become shorter.", "C"),  # the option's text
        ("A lot of things could happen", None),  # "A" followed by a word is not a label
        ("the answer is a good one", None),  # the article "a" is not option A
        ("", None),
    ],
)
def test_closed_set_label_variants(prediction: str, expected: str | None) -> None:
    assert closed_set_label(prediction, CHOICES) == expected


def test_accuracy_counts_missing_labels_wrong_and_checks_lengths() -> None:
    assert accuracy(["A", None, "C", "d"], ["A", "B", "C", "D"]) == pytest.approx(0.5)
    assert accuracy([], []) == 0.0
    with pytest.raises(ValueError, match="as many predictions"):
        accuracy(["A"], ["A", "B"])


def test_str_em_is_the_fraction_of_interpretations_answered() -> None:
    sets = [("Emperor Constantine", "Constantine I"), ("321 AD", "AD 321"), ("1st century",)]
    answer = "Constantine I made Sunday a day of rest in AD 321."
    assert str_em(answer, sets) == pytest.approx(2 / 3)
    assert str_em("", sets) == 0.0
    assert str_em(answer, []) == 0.0


def test_rouge_l() -> None:
    ref = "The cat sat on the mat. It was happy."
    assert rouge_l(ref, [ref]) == pytest.approx(1.0)
    assert rouge_l("Quantum chromodynamics.", [ref]) == 0.0
    # The best of several references counts; stemming makes "cats" meet "cat".
    assert rouge_l("The cats sat on the mat.", ["Dogs bark.", "The cat sat on the mat."]) == pytest.approx(1.0)
    partial = rouge_l("The cat sat.", [ref])
    assert 0.0 < partial < 1.0
    assert rouge_l("", [ref]) == 0.0
    assert rouge_l("x", []) == 0.0


def test_sentence_split_and_citation_markers() -> None:
    assert split_sentences("Dr. Smith left at 5 p.m. on Monday. He came back [1].") == [
        "Dr. Smith left at 5 p.m. on Monday.", "He came back [1]."]
    assert citations_in("Paris [2][1] is big [2].") == [2, 1]
    assert remove_citations("Paris is big [1][3].") == "Paris is big."


def test_citation_recall_and_precision_follow_alce() -> None:
    p1, p2, p3 = "Paris is the capital of France.", "Paris has 2 million people.", "Bananas are yellow."
    # Sentence 1 cites [1][3]: [1] alone suffices, so [3] is not needed; sentence 3 cites nothing.
    answer = "Paris is the capital of France [1][3]. It has 2 million people [2]. It is lovely."
    judge = TableJudge({
        (f"{p1}\n{p3}", "Paris is the capital of France."),
        (p1, "Paris is the capital of France."),
        (p2, "It has 2 million people."),
    })
    scores = citation_scores(answer, [p1, p2, p3], judge)
    assert scores.sentences == 3
    assert scores.citations == 3
    assert scores.recall == pytest.approx(2 / 3)  # sentences 1 and 2 supported, 3 uncited
    assert scores.precision == pytest.approx(2 / 3)  # [1] and [2] needed, [3] not


def test_citations_that_do_not_support_or_do_not_exist_count_against() -> None:
    judge = TableJudge(set())
    scores = citation_scores("Paris is big [1]. Rome is old [7].", ["Paris is small."], judge)
    assert scores.recall == 0.0
    assert scores.precision == 0.0
    assert scores.citations == 1  # the citation of a passage that does not exist is not counted
    assert judge.calls == 1
    assert citation_scores("", ["x"], judge).sentences == 0


def test_an_alone_insufficient_citation_is_needed_when_the_rest_do_not_suffice() -> None:
    p1, p2 = "Marie Curie won a Nobel Prize in physics.", "Marie Curie won a Nobel Prize in chemistry."
    claim = "Marie Curie won Nobel Prizes in physics and chemistry."
    judge = TableJudge({(f"{p1}\n{p2}", claim)})  # only both together support it
    scores = citation_scores("Marie Curie won Nobel Prizes in physics and chemistry [1][2].", [p1, p2], judge)
    assert scores.recall == 1.0
    assert scores.precision == 1.0


def test_the_eval_package_exports_its_public_names() -> None:
    import selfrag_langchain.eval as public

    assert {"match", "str_em", "rouge_l", "citation_scores", "load_examples", "evaluate", "IsSupJudge"} <= set(
        public.__all__)
    assert all(getattr(public, name) is not None for name in public.__all__)
