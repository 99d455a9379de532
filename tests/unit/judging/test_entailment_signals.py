"""The entailment judge's signals: which pairs the sentence reader is asked, one call per reading for a whole
batch of judgements, and how its readings become each group's signals beside the calibrated judge's."""

from __future__ import annotations

from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.judging.entailment import READER_FEATURES, ReadingSignals
from selfrag_langchain.judging.features import GROUP_FEATURES
from selfrag_langchain.judging.reader import Reading
from selfrag_langchain.tokens import Group
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.table_reader import TableReader

QUESTION = "What is the longest river in Africa?"
ZAMBEZI = "Zambezi\nThe Zambezi is a river in southern Africa. It is the fourth-longest river in Africa."


def _entailment(claim: str, premise: str) -> tuple[float, float, float]:
    if claim == premise or (claim in premise and "fourth" in claim):
        return (0.9, 0.05, 0.05)
    if "fourth-longest" in premise and "the longest" in claim:
        return (0.05, 0.05, 0.9)
    return (0.05, 0.9, 0.05)


def _reader() -> TableReader:
    return TableReader(answering=lambda q, s: 0.8 if "longest" in s else 0.1, entailment=_entailment)


def test_each_group_gets_the_readers_signals_beside_the_calibrated_ones():
    reader = _reader()
    signals = ReadingSignals(BagOfWords(), reader)
    queries = [CriticQuery(Group.ISREL, QUESTION, evidence=ZAMBEZI),
               CriticQuery(Group.ISSUP, QUESTION, evidence=ZAMBEZI,
                           output="The Zambezi is the longest river in Africa."),
               CriticQuery(Group.ISSUP, QUESTION, evidence=ZAMBEZI,
                           output="The Zambezi is the fourth-longest river in Africa."),
               CriticQuery(Group.ISUSE, QUESTION, output="The Zambezi is a river. It is the longest river."),
               CriticQuery(Group.RETRIEVE, QUESTION)]
    rel, wrong, right, use, retrieve = signals.read(queries)
    for row, group in ((rel, Group.ISREL), (wrong, Group.ISSUP), (use, Group.ISUSE)):
        assert set(row) == {"similarity", *GROUP_FEATURES[group], *READER_FEATURES[group]}
    assert rel["answering"] == 0.8  # the best of the passage's sentences
    assert use["answering"] == 0.8  # the best of the output's sentences
    assert wrong["contradiction"] == 0.9 and wrong["entailment"] == 0.05
    assert right["entailment"] == 0.9 and right["contradiction"] == 0.05
    assert "answering" not in retrieve and "entailment" not in retrieve
    # one call per reading for the whole batch: every pair once
    readings = [r for r, _, _ in reader.asked]
    assert readings.count(Reading.ANSWERING) == 2 + 2  # two titled passage sentences, two output claims
    assert readings.count(Reading.ENTAILMENT) == 2 * 3  # one claim each against 2 sentences and 1 adjacent pair
    assert (Reading.ANSWERING, QUESTION, "Zambezi: It is the fourth-longest river in Africa.") in reader.asked


def test_an_empty_output_or_passage_reads_as_no_support_and_no_answer():
    signals = ReadingSignals(BagOfWords(), _reader())
    sup, use, rel = signals.read([CriticQuery(Group.ISSUP, QUESTION, evidence="", output="Something."),
                                  CriticQuery(Group.ISUSE, QUESTION, output=""),
                                  CriticQuery(Group.ISREL, QUESTION, evidence="")])
    assert sup["entailment"] == 0.0 and sup["contradiction"] == 0.0
    assert use["answering"] == 0.0 and rel["answering"] == 0.0
