"""Follow-ups made standalone by putting the conversation's subject in place of their pronoun."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from selfrag_langchain.chains.follow_ups import (
    conversation_subject,
    keeps_question,
    named_title,
    reference,
    refers_back,
    turn_subject,
    with_subject,
)


@pytest.mark.parametrize(("question", "expected"), [
    ("When was it painted?", "When was Mona Lisa painted?"),
    ("What is its height?", "What is Mona Lisa's height?"),
    ("Where was he born?", "Where was Mona Lisa born?"),
    ("Who married her?", "Who married Mona Lisa?"),
    ("What did her husband do?", "What did Mona Lisa's husband do?"),
    ("Who owned it before it was stolen?", "Who owned Mona Lisa before it was stolen?"),  # the first pronoun only
    ("What language is spoken there?", "What language is spoken in Mona Lisa?"),
    ("Is there a guard? Who pays him?", "Is there a guard? Who pays Mona Lisa?"),  # existential "there" skipped
    ("How tall is the tower?", "How tall is the tower?"),
    ("Italy's capital? Itinerary?", "Italy's capital? Itinerary?"),  # whole words only
    ("When was that painting restored?", "When was Mona Lisa restored?"),  # a demonstrative and its noun
    ("How large is that at its widest?", "How large is Mona Lisa at its widest?"),  # a demonstrative alone
    ("Is there a copy besides that one?", "Is there a copy besides Mona Lisa?"),
    ("What is the largest one ever sold?", "What is the largest Mona Lisa ever sold?"),  # "one" for its kind
    ("Are old ones worth more?", "Are old Mona Lisa worth more?"),
    ("Who was the first one to copy it?", "Who was the first one to copy Mona Lisa?"),  # "first one" is someone
    ("Is one of them a copy?", "Is one of Mona Lisa a copy?"),  # "one of" is no reference
])
def test_with_subject(question: str, expected: str) -> None:
    assert with_subject(question, "Mona Lisa") == expected


def test_refers_back() -> None:
    assert refers_back("Where is it shown?")
    assert not refers_back("Where is the Mona Lisa shown?")
    assert not refers_back("Are there museums in Paris?")
    assert refers_back("Which lake is that city on?") and refers_back("What is the largest one?")
    assert not refers_back("Which is the river that flows through Paris?")  # "that" opens a clause
    assert not refers_back("Is the story true that cats purr?")  # "true that cats": no thing pointed at
    assert not refers_back("Which one is older?") and not refers_back("How many are left in the world?")


@pytest.mark.parametrize(("question", "kind", "noun"), [
    ("When did that emperor abdicate?", "demonstrative", "emperor"),
    ("How wide is that at its maximum?", "demonstrative", None),
    ("What abbreviation are residential ones called by?", "one", None),
    ("When was she born?", "pronoun", None),
])
def test_the_kind_of_reference(question: str, kind: str, noun: str | None) -> None:
    found = reference(question)
    assert found is not None and (found.kind, found.noun) == (kind, noun)


def test_the_subject_is_the_first_citation_of_the_latest_cited_answer() -> None:
    messages = [
        HumanMessage("Who painted the Mona Lisa?"),
        AIMessage("Leonardo [1].", additional_kwargs={"citations": [{"citation": 1, "title": "Mona Lisa"}]}),
        HumanMessage("Where is the Louvre?"),
        AIMessage("In Paris [1] [2].", additional_kwargs={"citations": [{"citation": 1, "title": "Louvre"},
                                                                      {"citation": 2, "title": "Paris"}]}),
        HumanMessage("Hello?"),
        AIMessage("(no answer)", additional_kwargs={"citations": []}),
    ]
    assert conversation_subject(messages) == "Louvre"
    assert conversation_subject(messages[:2]) == "Mona Lisa"
    assert conversation_subject([HumanMessage("hi"), AIMessage("hello")]) is None


def test_a_rewrite_must_keep_every_word_of_the_follow_up() -> None:
    assert keeps_question("Which ship did Charles Darwin sail on?", "Which ship did he sail on?")
    assert not keeps_question("Who was Charles Darwin?", "Which ship did he sail on?")
    assert keeps_question("Why did Leonardo paint the Mona Lisa?", "Why?")  # nothing to lose


def test_named_title_is_the_longest_title_the_question_names() -> None:
    titles = ["Red Fort", "Taj Mahal", "Mahal", "Agra"]
    assert named_title("Where is the Taj Mahal?", titles) == "Taj Mahal"
    assert named_title("Where is the palace?", titles) is None


def test_turn_subject() -> None:
    # Named by the question, though the answer cited another article.
    assert turn_subject("Where is the Taj Mahal?", "Where is the Taj Mahal?", None, ["Red Fort", "Taj Mahal"],
                        ["Red Fort"]) == "Taj Mahal"
    # A follow-up keeps what it inherited.
    assert turn_subject("Where is it shown?", "Where is it shown?", "Mona Lisa", ["Louvre"], ["Louvre"]) == "Mona Lisa"
    # A new question that names no retrieved title: what its answer cited.
    assert turn_subject("Who built the pyramids?", "Who built the pyramids?", "Mona Lisa", ["Giza"],
                        ["Giza"]) == "Giza"


def test_a_recorded_subject_wins_over_later_citations() -> None:
    messages = [
        HumanMessage("Who painted the Mona Lisa?", additional_kwargs={"subject": "Mona Lisa"}),
        AIMessage("Leonardo [1].", additional_kwargs={"citations": [{"citation": 1, "title": "Mona Lisa"}]}),
        HumanMessage("Where is it shown?", additional_kwargs={"subject": "Mona Lisa"}),
        AIMessage("In the Louvre [1].", additional_kwargs={"citations": [{"citation": 1, "title": "Louvre"}]}),
    ]
    assert conversation_subject(messages) == "Mona Lisa"
