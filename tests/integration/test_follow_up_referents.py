"""What a follow-up's reference stands for, read with the shipped answer finder on conversations written for this
test: a demonstrative or a "who" question's "he" or "she" points at the name the previous answer gave, a pronoun and
a noun of the subject's title keep to the subject."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from selfrag_langchain.chains.declining import DECLINED
from selfrag_langchain.chains.follow_ups import referent, with_subject
from selfrag_langchain.judging.finder import AnswerFinder

pytestmark = pytest.mark.slow


def _turn(standalone: str, answer: str) -> list[BaseMessage]:
    return [HumanMessage(standalone, additional_kwargs={"standalone_question": standalone}), AIMessage(answer)]


CASES = [
    # previous standalone question, previous answer, subject, follow-up, the follow-up made standalone
    ("Which Roman emperor appointed Saint Maurice?", "Saint Maurice served in the legion of the Roman emperor "
     "Maximian [1].", "Saint Maurice", "When did that emperor die?", "When did Roman emperor Maximian die?"),
    ("In which city did Ada Lovelace's family live?", "Ada Lovelace's family lived in London, England [1].",
     "Ada Lovelace", "What river runs through that city?", "What river runs through London, England?"),
    ("Who designed the Sydney Opera House?", "The Sydney Opera House was designed by the Danish architect Jørn "
     "Utzon [1].", "Sydney Opera House", "When was he born?", "When was Jørn Utzon born?"),
    ("Which lake does the Rhône flow through?", "The Rhône flows through Lake Geneva [1].", "Rhône",
     "How deep is that at its deepest?", "How deep is Lake Geneva at its deepest?"),
    # kept to the subject: a pronoun that is not "he" or "she", a "who" question about the subject itself, a noun
    # of the subject's title, a declined answer
    ("Where is the Leaning Tower of Pisa?", "The Leaning Tower of Pisa stands in Pisa, Italy [1].",
     "Leaning Tower of Pisa", "When was it built?", "When was Leaning Tower of Pisa built?"),
    ("Who was Ada Lovelace?", "Ada Lovelace was an English mathematician and writer [1].", "Ada Lovelace",
     "When did she die?", "When did Ada Lovelace die?"),
    ("Who was Gregor Mendel?", "Gregor Mendel, like Charles Darwin, studied heredity [1].", "Gregor Mendel",
     "Where was he born?", "Where was Gregor Mendel born?"),  # who someone is: the answer may name others
    ("Where is the Leaning Tower of Pisa?", "The Leaning Tower of Pisa stands in Pisa, Italy [1].",
     "Leaning Tower of Pisa", "How tall is that tower?", "How tall is Leaning Tower of Pisa?"),
    ("Who designed the Sydney Opera House?", f"{DECLINED} Closest: Sydney Opera House [1].", "Sydney Opera House",
     "When was he born?", "When was Sydney Opera House born?"),
    # asked as it is: a demonstrative whose noun neither the answer's name holds nor the question asked for
    ("In which city did Ada Lovelace's family live?", "Ada Lovelace's family lived in London, England [1].",
     "Ada Lovelace", "How old was that house?", "How old was that house?"),
]


@pytest.fixture(scope="module")
def finder() -> AnswerFinder:
    return AnswerFinder()


@pytest.mark.parametrize(("asked", "answer", "subject", "follow_up", "standalone"), CASES,
                         ids=[c[3] + " / " + c[2] for c in CASES])
def test_a_follow_up_refers_to_the_previous_answer_or_keeps_to_the_subject(
        finder: AnswerFinder, asked: str, answer: str, subject: str, follow_up: str, standalone: str) -> None:
    meant = referent(follow_up, _turn(asked, answer), subject, finder.find)
    assert (with_subject(follow_up, meant) if meant is not None else follow_up) == standalone


def test_without_a_finder_a_pronoun_is_the_subject_and_a_demonstrative_is_read_from_the_answer_s_words() -> None:
    messages = _turn(CASES[0][0], CASES[0][1])
    assert referent("When did he die?", messages, "Saint Maurice", None) == "Saint Maurice"
    # the name the answer gives the noun ("the Roman emperor Maximian"); alone, no name to read it by
    assert referent("When did that emperor die?", messages, "Saint Maurice", None) == "Maximian"
    assert referent("How wide is that at its widest?", messages, "Saint Maurice", None) is None
