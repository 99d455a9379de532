"""Claims read sentence by sentence: how texts are cut into windows and claims, and how readings fold into the
entailment judge's signals."""

from __future__ import annotations

from selfrag_langchain.judging.claims import (
    MAX_SENTENCES,
    aggregate_support,
    claims,
    passage_parts,
    titled,
    windows,
)


def test_a_passage_is_its_title_line_and_its_sentences():
    title, sentences = passage_parts("Neptune\nNeptune is a planet. It is the fourth-largest.")
    assert title == "Neptune" and sentences == ["Neptune is a planet.", "It is the fourth-largest."]
    assert passage_parts("No title here. Two sentences.") == ("", ["No title here.", "Two sentences."])
    long = " ".join(f"Sentence number {i} is here." for i in range(MAX_SENTENCES + 5))
    assert len(passage_parts(long)[1]) == MAX_SENTENCES


def test_windows_are_each_sentence_then_each_adjacent_pair():
    assert windows(["A.", "B.", "C."]) == ["A.", "B.", "C.", "A. B.", "B. C."]
    assert windows([]) == []


def test_claims_are_the_outputs_sentences():
    assert claims("Paris is a city. It is in France.") == ["Paris is a city.", "It is in France."]
    assert claims("  ") == []
    assert titled("Nile", "It flows north.") == "Nile: It flows north." and titled("", "X.") == "X."


def test_an_output_is_as_supported_as_its_least_supported_claim():
    # claim 1 entailed by window 2; claim 2 entailed nowhere
    table = [[(0.1, 0.8, 0.1), (0.9, 0.05, 0.05)], [(0.2, 0.7, 0.1), (0.3, 0.6, 0.1)]]
    reading = aggregate_support(table)
    assert reading.entailment == 0.3


def test_contradiction_is_read_where_the_passage_speaks_of_the_claim():
    # window 1 says nothing of the claim (neutral); window 2 speaks of it and denies it
    denied = aggregate_support([[(0.05, 0.6, 0.35), (0.1, 0.0, 0.9)]])
    assert denied.contradiction == 0.9
    # an unrelated window's contradiction does not count where another window entails the claim
    entailed = aggregate_support([[(0.0, 0.4, 0.6), (0.95, 0.05, 0.0)]])
    assert entailed.contradiction == 0.0 and entailed.entailment == 0.95


def test_nothing_to_read_supports_nothing_and_contradicts_nothing():
    assert aggregate_support([]) == aggregate_support([[]]) == aggregate_support([[], []])
    assert aggregate_support([]).entailment == 0.0 and aggregate_support([]).contradiction == 0.0


def test_a_claim_is_read_against_windows_whose_subject_pronouns_are_named_from_the_title():
    from selfrag_langchain.judging.claims import passage_windows

    evidence = "Zambezi\nThe Zambezi is a river in southern Africa. It is the fourth-longest river in Africa."
    assert passage_windows(evidence) == [
        "The Zambezi is a river in southern Africa.", "The Zambezi is the fourth-longest river in Africa.",
        "The Zambezi is a river in southern Africa. The Zambezi is the fourth-longest river in Africa."]
    # The one after an opening phrase too, as a quote names it.
    after = "Zambezi\nThe Zambezi is a river in southern Africa. In 1851, it was reached by Livingstone."
    assert passage_windows(after)[1] == "In 1851, the Zambezi was reached by Livingstone."
