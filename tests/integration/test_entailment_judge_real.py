"""The shipped entailment judge and its sentence reader on examples written for this test: each output that
contradicts its passage (a capital, a year, a rank read as a superlative, an ordinal, a name, a count) must get a
lower s_sup than the output the passage states (every one but the case marked not yet, a strict expected
failure: a reader that learns it turns it into a failure to be promoted); and among a passage's sentences, the
one that answers the question must be read as answering it above the ones that only share its words."""

from __future__ import annotations

import pytest

from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.judging.entailment import EntailmentReflector
from selfrag_langchain.scoring import support_score
from selfrag_langchain.tokens import Group

pytestmark = pytest.mark.slow

NOT_YET = pytest.mark.xfail(strict=True, reason="both cities are in the passage's one sentence: the shipped reader "
                                                "does not yet tell which the sentence calls the capital")

CONTRADICTIONS = [
    pytest.param("What is the capital of Canada?",
                 "Canada\nCanada is a country in North America. Its capital is Ottawa, and its largest city is "
                 "Toronto.", "The capital of Canada is Ottawa.", "The capital of Canada is Toronto.", id="capital",
                 marks=NOT_YET),
    pytest.param("When did the Berlin Wall fall?",
                 "Berlin Wall\nThe Berlin Wall was a guarded concrete barrier that divided Berlin. It fell on 9 "
                 "November 1989, after weeks of civil unrest.",
                 "The Berlin Wall fell in 1989.", "The Berlin Wall fell in 1961.", id="year"),
    pytest.param("What is the largest planet in the Solar System?",
                 "Saturn\nSaturn is the sixth planet from the Sun and the second-largest in the Solar System, after "
                 "Jupiter.",
                 "Saturn is the second-largest planet in the Solar System.",
                 "Saturn is the largest planet in the Solar System.", id="rank-read-as-superlative"),
    pytest.param("What is the longest river in Africa?",
                 "Zambezi\nThe Zambezi is a river in southern Africa. It is the fourth-longest river in Africa and "
                 "flows into the Indian Ocean.",
                 "The Zambezi is the fourth-longest river in Africa.", "The Zambezi is the longest river in Africa.",
                 id="fourth-longest"),
    pytest.param("Who was the first person to walk on the Moon?",
                 "Buzz Aldrin\nBuzz Aldrin is an American former astronaut. He was the second person to walk on the "
                 "Moon, after Neil Armstrong.",
                 "Buzz Aldrin was the second person to walk on the Moon.",
                 "Buzz Aldrin was the first person to walk on the Moon.", id="ordinal"),
    pytest.param("Who wrote Pride and Prejudice?",
                 "Pride and Prejudice\nPride and Prejudice is an 1813 novel of manners by Jane Austen.",
                 "Pride and Prejudice was written by Jane Austen.", "Pride and Prejudice was written by Emily Bronte.",
                 id="name"),
    pytest.param("How many strings does a standard violin have?",
                 "Violin\nThe violin is a wooden string instrument. It has four strings, usually tuned in perfect "
                 "fifths.", "A violin has four strings.", "A violin has six strings.", id="count"),
]


@pytest.fixture(scope="module")
def judge() -> EntailmentReflector:
    return EntailmentReflector()


@pytest.mark.parametrize(("question", "passage", "right", "wrong"), CONTRADICTIONS)
def test_a_contradicted_output_gets_less_support_than_the_stated_one(judge, question, passage, right, wrong):
    stated, contradicted = judge.judge([CriticQuery(Group.ISSUP, question, evidence=passage, output=right),
                                        CriticQuery(Group.ISSUP, question, evidence=passage, output=wrong)])
    assert support_score(stated) > support_score(contradicted), (stated, contradicted)


ANSWERING = [
    ("What is the chemical symbol of gold?", "Gold",
     ["Chemically, gold is a transition metal and a group 11 element.", "Gold has the chemical symbol Au.",
      "It is one of the least reactive chemical elements."], 1),
    ("Who painted the ceiling of the Sistine Chapel?", "Sistine Chapel",
     ["The Sistine Chapel is a chapel in the Apostolic Palace in Vatican City.",
      "Its ceiling was painted by Michelangelo between 1508 and 1512.",
      "The chapel takes its name from Pope Sixtus IV."], 1),
    ("When was Jane Austen born?", "Jane Austen",
     ["Jane Austen was an English novelist known for her six major novels.",
      "Austen was born on 16 December 1775 in Steventon, Hampshire.",
      "Her novels critique the British landed gentry."], 1),
]


@pytest.mark.parametrize(("question", "title", "sentences", "answer"), ANSWERING)
def test_the_sentence_that_answers_is_read_as_answering_above_those_that_share_its_words(
        judge, question, title, sentences, answer):
    read = judge.reader.answering([(question, f"{title}: {s}") for s in sentences])
    assert max(range(len(read)), key=read.__getitem__) == answer, read
