"""Titles: a sentence that calls someone the father of other things than the question asks about does not answer
it, and the quoter reads it so."""

from __future__ import annotations

import math

import pytest

from selfrag_langchain.chains.epithets import asked_epithet, states_other_epithet
from selfrag_langchain.chains.quotes import PassageQuoter
from tests.fakes.bag_of_words import BagOfWords

GIS = "Who is known as the father of geographic information systems?"
SHANNON = ("Claude Elwood Shannon was an American polymath who was a mathematician, electrical engineer and inventor "
           "known as the \"father of information theory\" and the man who laid the foundations of the Information Age.")


@pytest.mark.parametrize(("question", "asked"), [
    (GIS, ("geographic", "information", "systems")),
    ("Who is often called the father of chemical engineering?", ("chemical", "engineering")),
    ("Who is regarded as a founding father of econometrics?", ("econometrics",)),
    ("Which Hawaiian swimmer is known as the mother of modern surfing?", ("modern", "surfing")),
    ("John Locke is often called the father of which political philosophy?", None),  # the thing is asked
    ("Who was the father of the Athenian statesman Pericles?", None),  # a relative
    ("What is the capital of France?", None),
])
def test_a_question_asks_a_title_of_the_thing_it_names(question: str, asked: tuple[str, ...] | None) -> None:
    assert asked_epithet(question) == asked


@pytest.mark.parametrize(("question", "sentence"), [
    (GIS, SHANNON),
    ("Who is often called the father of chemical engineering?",
     "Edward Teller was a theoretical physicist and chemical engineer who is known colloquially as \"the father of "
     "the hydrogen bomb\"."),
    ("Who is regarded as the father of the modern circus?",
     "Pierre de Coubertin is known as the father of the modern Olympic Games."),
])
def test_a_sentence_giving_the_title_of_other_things_only_does_not_answer(question: str, sentence: str) -> None:
    assert states_other_epithet(question, sentence)


@pytest.mark.parametrize(("question", "sentence"), [
    (GIS, "Roger Tomlinson is known as the father of GIS."),  # the asked words' initials
    (GIS, "Roger Tomlinson is the father of geographic information systems and of information theory."),
    ("Who is known as the father of modern toxicology?", "Paracelsus is called the father of toxicology."),
    ("Which German mathematician is often cited as the father of modern analysis?",
     "Karl Weierstrass was a German mathematician often cited as the \"father of modern analysis\"."),
    ("Which ancient Greek playwright is known as the father of tragedy?",
     "Aeschylus was an ancient Greek tragedian, often described as the father of tragedy."),
    (GIS, "Roger Tomlinson was an English geographer."),  # no title: left to the models
    ("Who was the father of Pericles?", "Xanthippus was the father of Ariphron."),  # no title asked
])
def test_a_sentence_giving_the_asked_title_or_none_is_left_to_the_models(question: str, sentence: str) -> None:
    assert not states_other_epithet(question, sentence)


def test_the_quoter_neither_quotes_nor_reads_as_holding_an_answer_a_sentence_giving_another_title() -> None:
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    passage = f"{SHANNON} He worked at Bell Labs."
    # both models read the sentence naming a father as answering, as the shipped ones do (0.93)
    reader = TableReader(answering=lambda q, s: 0.9 if "father" in s else 0.5)
    finder = TableFinder(odds=lambda q, s: 3.0 if "father" in s else -1.0)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=finder)
    found = quoter.find(GIS, [("Yes.", passage)], titles=["Claude Shannon"])[0]  # the readings choose
    assert found is not None and found.text == "Claude Shannon worked at Bell Labs."  # its pronoun named
    assert found.holds_answer == pytest.approx(1 / (1 + math.exp(1)), rel=1e-3)
    assert quoter.best_holding(GIS, [(passage, "Claude Shannon")]) == [pytest.approx(found.holds_answer)]
    # asked of information theory, the same sentence answers and is read as the models read it
    asked = "Who is known as the father of information theory?"
    found = quoter.find(asked, [("Claude Shannon.", passage)], titles=["Claude Shannon"])[0]
    assert found is not None and found.text.startswith("Claude Elwood Shannon")
    assert found.holds_answer == pytest.approx(1 / (1 + math.exp(-3)), rel=1e-3)
