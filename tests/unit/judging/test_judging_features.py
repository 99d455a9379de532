"""The named signals of each group, on hand-computed values."""

from __future__ import annotations

import pytest

from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.judging.features import GROUP_FEATURES, embedding_features, lexical_signals
from selfrag_langchain.tokens import Group

QUESTION = "What is Derek Wheatley's occupation?"
RIGHT = "Derek Wheatley\nDerek Wheatley is an English barrister."
WRONG = "Kevin Wheatley\nKevin Wheatley is a rugby player."


def test_relevance_reads_words_names_and_title() -> None:
    right = lexical_signals(CriticQuery(Group.ISREL, QUESTION, evidence=RIGHT))
    wrong = lexical_signals(CriticQuery(Group.ISREL, QUESTION, evidence=WRONG))
    assert right == {"question_coverage": pytest.approx(2 / 3), "question_bigram_coverage": 0.5,
                     "title_coverage": 1.0, "name_coverage": 1.0}
    assert wrong == {"question_coverage": pytest.approx(1 / 3), "question_bigram_coverage": 0.0,
                     "title_coverage": 0.5, "name_coverage": 0.5}
    untitled = lexical_signals(CriticQuery(Group.ISREL, QUESTION, evidence="Derek Wheatley is a barrister."))
    assert untitled["title_coverage"] == 0.0


def test_support_reads_the_answer_in_the_passage() -> None:
    signals = lexical_signals(CriticQuery(Group.ISSUP, QUESTION, evidence=RIGHT,
                                        output="Derek Wheatley is a Welsh barrister."))
    # derek wheatley welsh barrister: 3 of 4 words; new to the question: welsh barrister, 1 of 2;
    # word pairs: derek wheatley, wheatley welsh, welsh barrister: 1 of 3.
    assert signals == {"answer_coverage": pytest.approx(3 / 4), "novel_coverage": pytest.approx(1 / 2),
                       "answer_bigram_coverage": pytest.approx(1 / 3)}


def test_utility_reads_what_the_answer_adds_and_whether_it_declines() -> None:
    signals = lexical_signals(CriticQuery(Group.ISUSE, QUESTION, output="Derek Wheatley's occupation is unclear."))
    assert signals["novelty"] == pytest.approx(1 / 4)  # unclear
    assert signals["question_coverage"] == 1.0
    assert signals["hedging"] == 1.0


def test_every_group_feature_but_similarity_is_lexical() -> None:
    for group, names in GROUP_FEATURES.items():
        computed = lexical_signals(CriticQuery(group, QUESTION, evidence=RIGHT, output="An answer."))
        assert set(computed) | {"similarity"} == set(names)


def test_embedding_features_are_named_by_position() -> None:
    assert embedding_features([0.5, -1.0]) == {"embedding_0": 0.5, "embedding_1": -1.0}
