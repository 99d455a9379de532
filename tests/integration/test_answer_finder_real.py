"""The shipped answer finder on sentences written for this test: it points at the asked phrase, and reads a
sentence that answers above the same article's sentence that only names the asked subject, every one."""

from __future__ import annotations

import unicodedata

import pytest

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.judging.finder import AnswerFinder

pytestmark = pytest.mark.slow

CASES = [
    # question, the article's sentence that answers (with the phrase), one about the subject that does not
    ("Which planet does the moon Titania orbit?", "Titania: Titania is the largest moon of Uranus.", "Uranus",
     "Titania: Titania was discovered by William Herschel in 1787."),
    ("In which city was the painter Frida Kahlo born?", "Frida Kahlo: Frida Kahlo was born in Coyoacán.",
     "Coyoacán", "Frida Kahlo: Frida Kahlo was a Mexican painter known for her self-portraits."),
    ("Who wrote the novel Middlemarch?", "Middlemarch: Middlemarch is a novel by the English author George Eliot.",
     "George Eliot", "Middlemarch: The novel is set in a fictional Midlands town from 1829 to 1832."),
    ("How tall is the Burj Khalifa?", "Burj Khalifa: The Burj Khalifa stands 828 metres tall.", "828 metres",
     "Burj Khalifa: The Burj Khalifa is a skyscraper in Dubai."),
    ("What is the capital of Mongolia?", "Mongolia: Its capital and largest city is Ulaanbaatar.", "Ulaanbaatar",
     "Mongolia: Mongolia is a landlocked country in East Asia."),
]


def _id(phrase: str) -> str:
    """A case's test id: its phrase in ASCII ("Coyoacan"), as node ids and the allowed list spell it."""
    return unicodedata.normalize("NFKD", phrase).encode("ascii", "ignore").decode()


@pytest.fixture(scope="module")
def finder() -> AnswerFinder:
    return AnswerFinder()


@pytest.mark.parametrize(("question", "answers", "phrase", "other"), CASES, ids=[_id(c[2]) for c in CASES])
def test_the_answering_sentence_holds_the_asked_phrase_and_reads_above_one_naming_only_the_subject(
        finder: AnswerFinder, question: str, answers: str, phrase: str, other: str) -> None:
    found, elsewhere = finder.find([(question, answers), (question, other)])
    assert phrase in found.text
    assert found.probability > elsewhere.probability


NOT_YET: dict[str, str] = {}
"""Cases the shipped finder does not yet read right, each with why (the finder trained on SQuAD alone read Frida
Kahlo's "Mexican painter" above its threshold for her birthplace; the second stage reads it below)."""


@pytest.mark.parametrize(("question", "answers", "phrase", "other"), [
    pytest.param(*case, id=_id(case[2]), marks=pytest.mark.xfail(reason=f"not yet: {NOT_YET[_id(case[2])]}",
                                                                 strict=True))
    if _id(case[2]) in NOT_YET else pytest.param(*case, id=_id(case[2])) for case in CASES])
def test_declining_keeps_the_answering_sentence_and_declines_the_other(
        finder: AnswerFinder, question: str, answers: str, phrase: str, other: str) -> None:
    threshold = LoopSettings().min_quote_holds_answer
    found, elsewhere = finder.find([(question, answers), (question, other)])
    assert found.probability >= threshold > elsewhere.probability
