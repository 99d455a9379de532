"""The shipped learned judge on outputs that contradict their passage: a capital, a year, a rank, a name, a
number. Each right output must score an s_sup at least 0.2 above its contradicting twin's, and a passage
about the asked entity a higher s_rel than one about a neighbouring entity.

Every case written for this test is here. Those the shipped judge does not yet separate are strict xfails:
a judge that learns them turns them into failures to be promoted (benchmarks/log.md, "The learned judge")."""

from __future__ import annotations

import pytest

from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.judging.learned import LearnedReflector
from selfrag_langchain.scoring import relevance_score, support_score
from selfrag_langchain.tokens import Group

pytestmark = pytest.mark.slow

NOT_YET = pytest.mark.xfail(strict=True, reason="the shipped learned judge does not yet separate this case")

CONTRADICTIONS = [
    pytest.param("What is the capital of Australia?",
     "Sydney\nSydney is the largest city in Australia, though the capital of Australia is Canberra.",
     "Canberra is the capital of Australia.", "Sydney is the capital of Australia.", id="capital",
     marks=NOT_YET),
    pytest.param("When was the Eiffel Tower completed?",
     "Eiffel Tower\nThe Eiffel Tower is a wrought-iron lattice tower in Paris. It was completed in 1889 as the "
     "entrance arch to the World's Fair.",
     "The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1899.", id="year"),
    pytest.param("Which planet is the largest in the Solar System?",
     "Neptune\nNeptune is the eighth planet from the Sun. It is the fourth-largest planet in the Solar System "
     "by diameter.",
     "Neptune is the fourth-largest planet in the Solar System.", "Neptune is the largest planet in the Solar System.",
     id="rank", marks=NOT_YET),
    pytest.param("Who was the first President of the United States?",
     "John Adams\nJohn Adams was the second President of the United States, after George Washington.",
     "George Washington was the first President of the United States.",
     "John Adams was the first President of the United States.", id="ordinal", marks=NOT_YET),
    pytest.param("Who painted the Mona Lisa?",
                 "Mona Lisa\nThe Mona Lisa is a half-length portrait painting by the Italian artist Leonardo da "
                 "Vinci. It hangs in the Louvre in Paris.",
                 "The Mona Lisa was painted by Leonardo da Vinci.", "The Mona Lisa was painted by Michelangelo.",
                 id="name"),
    pytest.param("What is the capital of Canada?",
                 "Canada\nCanada is a country in North America. Its capital is Ottawa, and its largest city is "
                 "Toronto.",
                 "The capital of Canada is Ottawa.", "The capital of Canada is Vancouver.", id="absent-city",
                 marks=NOT_YET),
    pytest.param("How many moons does Mars have?",
                 "Mars\nMars is the fourth planet from the Sun. It has two small moons, Phobos and Deimos.",
                 "Mars has two moons.", "Mars has five moons.", id="count", marks=NOT_YET),
]

NEIGHBOURS = [
    ("What is Greta Thunberg known for?",
     "Greta Thunberg\nGreta Thunberg is a Swedish climate activist known for the school strike for climate.",
     "Greta Garbo\nGreta Garbo was a Swedish-American actress of the silent and early sound film era."),
    ("Who is Emmanuel Macron?",
     "Emmanuel Macron\nEmmanuel Macron is a French politician who has been President of France since 2017.",
     "Napoleon III\nNapoleon III was the first President of France from 1848 to 1852 and then Emperor."),
]


@pytest.fixture(scope="module")
def judge() -> LearnedReflector:
    return LearnedReflector()


@pytest.mark.parametrize(("question", "passage", "right", "wrong"), CONTRADICTIONS)
def test_a_contradicting_output_scores_below_the_right_one(judge: LearnedReflector, question: str, passage: str,
                                                           right: str, wrong: str) -> None:
    right_dist, wrong_dist = judge.judge([CriticQuery(Group.ISSUP, question, evidence=passage, output=right),
                                          CriticQuery(Group.ISSUP, question, evidence=passage, output=wrong)])
    assert support_score(right_dist) >= support_score(wrong_dist) + 0.2


@pytest.mark.parametrize(("question", "asked", "neighbour"), NEIGHBOURS, ids=["Thunberg", "Macron"])
def test_the_asked_entitys_passage_is_more_relevant_than_a_neighbours(judge: LearnedReflector, question: str,
                                                                       asked: str, neighbour: str) -> None:
    asked_dist, neighbour_dist = judge.relevance_distributions(question, [asked, neighbour])
    assert relevance_score(asked_dist) > relevance_score(neighbour_dist)
