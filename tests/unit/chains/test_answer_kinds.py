"""A question that asks for a year is answered only by a claim that gives a number."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.answer_kinds import asks_year, gives_asked_kind


@pytest.mark.parametrize(("question", "asks"), [
    ("In what year was NBC founded?", True),
    ("in which year did the war end", True),  # as typed
    ("What year was the Eiffel Tower built?", True),
    ("By what year will the bridge be finished?", True),
    ("¿In which year was it built?", True),
    ("When was Jane Austen born?", False),  # "when" may be answered "in spring"
    ("What yearly festival is held in Cannes?", False),
    ("How many years did Ramesses II rule?", False),
    ("Which film of that year won the award?", False),
])
def test_a_question_asks_for_a_year_when_it_opens_by_asking_what_year(question: str, asks: bool) -> None:
    assert asks_year(question) is asks


@pytest.mark.parametrize(("claim", "gives"), [
    ("The Federal District was created in 1824.", True),
    ("The operation ended in the 1980s.", True),
    ("The war began in the 5th century BC.", True),
    ("NBC is the first and oldest major broadcast network in the United States.", False),
    ("Maputo was formerly named Lourenço Marques.", False),
])
def test_a_year_question_is_answered_only_by_a_claim_with_a_number(claim: str, gives: bool) -> None:
    assert gives_asked_kind("In what year did it happen?", claim) is gives
    assert gives_asked_kind("Who founded it?", claim)  # other kinds of question are not checked
