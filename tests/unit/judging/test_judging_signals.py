"""Lexical judgement signals, on hand-computed values."""

from __future__ import annotations

import math

import pytest

from selfrag_langchain.judging.signals import (
    content_bigrams,
    content_words,
    coverage,
    folded,
    hedging,
    log_length,
    name_coverage,
    name_words,
    novel_words,
    novelty,
)

QUESTION = "What is Derek Wheatley's occupation?"


def test_content_words_drop_function_words_case_and_possessives() -> None:
    assert content_words(QUESTION) == ["derek", "wheatley", "occupation"]
    assert content_words("The answer is: IN the passage.") == []


def test_content_bigrams_pair_adjacent_content_words() -> None:
    assert content_bigrams(QUESTION) == ["derek wheatley", "wheatley occupation"]
    assert content_bigrams("Wheatley") == []


@pytest.mark.parametrize(
    ("words", "reference", "expected"),
    [
        (["derek", "wheatley", "occupation"], ["kevin", "wheatley", "rugby"], 1 / 3),
        (["a", "a", "b"], ["a"], 2 / 3),  # each occurrence counts
        ([], ["anything"], 0.0),  # nothing to find is no evidence of support
        (["x"], [], 0.0),
    ],
)
def test_coverage(words: list[str], reference: list[str], expected: float) -> None:
    assert coverage(words, reference) == pytest.approx(expected)


def test_novel_words_and_novelty_measure_what_the_answer_adds() -> None:
    answer = "Derek Wheatley is an English barrister."
    assert novel_words(answer, QUESTION) == ["english", "barrister"]
    assert novelty(answer, QUESTION) == pytest.approx(2 / 4)
    assert novelty("Derek Wheatley's occupation.", QUESTION) == 0.0  # repeats the question
    assert novelty("", QUESTION) == 0.0


def test_log_length_counts_content_words() -> None:
    assert log_length("Derek Wheatley is an English barrister.") == pytest.approx(math.log(5))
    assert log_length("") == 0.0


@pytest.mark.parametrize(("text", "expected"), [
    ("Herlyn Espinal's occupation is a mystery.", 1.0),
    ("I'm sorry, I don't have that information.", 1.0),
    ("I don’t know.", 1.0),  # typographic apostrophe
    ("Herlyn Espinal is a journalist.", 0.0),
    ("The unknowns of physics.", 0.0),  # whole words only
])
def test_hedging_marks_answers_that_decline(text: str, expected: float) -> None:
    assert hedging(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("In which country was the climate activist Greta Thunberg born?", ["greta", "thunberg"]),
    ("Apart from swimming, which Olympic sport did Johnny Weissmuller play?", ["olympic", "johnny", "weissmuller"]),
    ("Mona Lisa was painted by whom?", ["mona", "lisa"]),
    ("Who won the 1998 FIFA World Cup?", ["1998", "fifa", "world", "cup"]),
    ("What is Derek Wheatley's occupation? Who is he.", ["derek", "wheatley"]),
    ("what is the boiling point of water?", []),
    ("Who wrote Moby-Dick? Was it O'Brien's friend?", ["moby", "dick", "o", "brien"]),
    ("What is Herman A. Barnett's occupation?", ["herman", "barnett"]),  # an initial ends no sentence
    ("He left. Then Paris fell.", ["paris"]),
])
def test_name_words_are_capitalised_words_and_numbers(text: str, expected: list[str]) -> None:
    assert name_words(text) == expected


def test_folded_drops_accents_so_names_match_either_way() -> None:
    assert folded("Bhāratanatyam in Tamil Nādu") == "Bharatanatyam in Tamil Nadu"
    assert name_coverage("What is Bhāratanatyam?", "Bharatanatyam\nBharatanatyam is a dance.") == 1.0


@pytest.mark.parametrize(("written", "typed"), [
    ("Łódź", "Lodz"), ("Ørsted", "Orsted"), ("Đà Nẵng", "Da Nang"), ("Straße", "Strasse"),
    ("Encyclopædia", "Encyclopaedia"), ("Baháʼí", "Bahai"), ("Hawaiʻi", "Hawaii"), ("Shiʿa", "Shia"),
    ("eigen\u2060values", "eigenvalues"), ("soft\u00adhyphen", "softhyphen"), ("two\u200bwords", "two words"),
])
def test_folded_writes_letters_and_marks_as_english_spells_them(written: str, typed: str) -> None:
    assert folded(written) == typed
    # A name typed in English letters is held by a passage that writes it in its own.
    assert name_coverage(f"Where is {typed}?", f"{written}\n{written} is far away.") == 1.0


def test_folded_keeps_apostrophes_hyphens_and_other_scripts() -> None:
    assert folded("O’Toole's Moby-Dick") == "O’Toole's Moby-Dick"
    assert folded("Αθήνα") == "Αθηνα"


def test_name_coverage_sees_a_passage_about_a_neighbouring_entity() -> None:
    question = "In which country was Greta Thunberg born?"
    assert name_coverage(question, "Greta Thunberg\nGreta Thunberg is a Swedish activist.") == 1.0
    assert name_coverage(question, "Greta Garbo\nGreta Garbo was a Swedish actress.") == 0.5
    assert name_coverage(question, "Narendra Modi\nNarendra Modi is a politician.") == 0.0
    assert name_coverage("what is the boiling point of water?", "Water\nWater boils at 100 degrees.") == 1.0
    assert name_coverage("Who wrote Moby-Dick?", "Moby-Dick\nMoby-Dick is a novel by Herman Melville.") == 1.0
