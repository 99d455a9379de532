"""A name numbered with a Roman numeral names one person, and a quote speaks of that person only with the number."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.names import speaks_of_asked
from selfrag_langchain.chains.regnal import holds_regnal, regnal_names


@pytest.mark.parametrize(("question", "names"), [
    ("What grim nickname did later writers give to Mary I of England?", [("Mary", "I")]),
    ("In which year did Henry VIII's warship the Mary Rose sink?", [("Henry", "VIII")]),
    ("What was Pope John Paul II's name before he became pope?", [("Paul", "II")]),
    ("Which church office did Thomas Cranmer hold under Henry VIII and Edward VI?", [("Henry", "VIII"),
                                                                                    ("Edward", "VI")]),
    # a numbered thing, not a person: the word before the numeral is one English's lexicon knows
    ("Which alliance fought against the Allies in World War I?", []),
    ("By what grim epithet is the Byzantine emperor Basil II known?", []),
    # a pronoun after a name is no numeral of it
    ("When Mary I'll ask, what is the capital of Peru?", []),
    ("Who was the first queen of England?", []),
])
def test_a_name_numbered_with_a_roman_numeral_is_read_with_its_number(question: str,
                                                                      names: list[tuple[str, str]]) -> None:
    assert regnal_names(question) == names


@pytest.mark.parametrize(("name", "text", "held"), [
    (("Mary", "I"), "Mary I was Queen of England and Ireland from July 1553 until her death in 1558.", True),
    (("Mary", "I"), "Queen Mary I's persecution of Protestants earned her the name Bloody Mary.", True),
    (("Henry", "VIII"), "Henry the Eighth had six wives.", True),
    (("Mary", "I"), "Mary Wollstonecraft was an English writer and philosopher.", False),
    (("Mary", "I"), "Mary II reigned jointly with William III.", False),
    (("Henry", "VIII"), "Henry VII founded the Tudor dynasty.", False),
    (("Mary", "I"), "Mary Is a Name", False),
])
def test_a_text_holds_the_name_only_with_its_number(name: tuple[str, str], text: str, held: bool) -> None:
    assert holds_regnal(name, text) is held


MARY_I = ("Mary I\nMary I was Queen of England and Ireland from July 1553 until her death in 1558. Her executions of "
          "Protestants led her opponents to call her Bloody Mary.")
WOLLSTONECRAFT = ("Mary Wollstonecraft\nMary Wollstonecraft was an English writer and philosopher. Later writers gave "
                  "her the name hyena in petticoats.")


def test_a_quote_about_another_mary_does_not_speak_of_mary_i() -> None:
    question = "What grim nickname did later writers give to Mary I of England?"
    assert speaks_of_asked(question, "Her executions of Protestants led her opponents to call her Bloody Mary.",
                           MARY_I, "Mary I")
    assert not speaks_of_asked(question, "Later writers gave her the name hyena in petticoats.", WOLLSTONECRAFT,
                               "Mary Wollstonecraft")
    # without the numeral the question asks of any Mary of England, and her article speaks of one
    assert speaks_of_asked("What grim nickname did later writers give to Mary of England?",
                           "Later writers gave her the name hyena in petticoats.", WOLLSTONECRAFT,
                           "Mary Wollstonecraft")


def test_a_question_offering_numbered_alternatives_needs_one_of_them() -> None:
    question = "Who reigned longer, Henry VIII or Elizabeth I?"
    elizabeth = "Elizabeth I\nElizabeth I was Queen of England from 1558 until her death in 1603."
    assert speaks_of_asked(question, "Elizabeth I was Queen of England from 1558 until her death in 1603.",
                           elizabeth, "Elizabeth I")
    assert not speaks_of_asked(question, "Elizabeth II was Queen of the United Kingdom from 1952 to 2022.",
                               "Elizabeth II\nElizabeth II was Queen of the United Kingdom from 1952 to 2022.",
                               "Elizabeth II")
