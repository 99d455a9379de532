"""Units a question names in words, read as the passage writes them."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.unit_symbols import as_written


@pytest.mark.parametrize(("question", "passage", "expected"), [
    ("About how large is it in square kilometres?", "It covers some 4,500,000 km2 of Brazil.",
     "About how large is it in km2?"),
    ("What is its area in square kilometers?", "Its area is 1,849 km² in all.", "What is its area in km²?"),
    ("How many pascals is one atmosphere?", "It is defined as 101325 Pa.", "How many Pa is one atmosphere?"),
    ("How tall is it in feet?", "It is 330 m (1,083 ft) tall.", "How tall is it in ft?"),
    ("How tall is it in metres?", "It is 330 m (1,083 ft) tall.", "How tall is it in m?"),
    ("How fast does it go in miles per hour?", "It reaches 120 mph.", "How fast does it go in mph?"),
    ("At what temperature in degrees Celsius does it melt?", "It melts at 1,064 °C.",
     "At what temperature in °C does it melt?"),
    ("How many kilopascals is it?", "It is about 101.3 kPa.", "How many kPa is it?"),  # the names rule's units
    ("How many kelvins is it?", "It is 77 K cold.", "How many K is it?"),
])
def test_a_unit_named_in_words_is_read_as_the_passage_writes_it(question: str, passage: str, expected: str) -> None:
    assert as_written(question, passage) == expected


@pytest.mark.parametrize(("question", "passage"), [
    ("How many metres deep is it?", "It is 10,935 meters deep."),  # the passage names it in words too
    ("How many kilometres long is it?", "It is 6,650 km long, 6650 kilometres in all."),
    ("How many miles long is it?", "It is 6,650 km long."),  # another unit: nothing to read it as
    ("How far is it in metres?", "The M25 motorway runs round it."),  # a letter that follows no number
    ("Who first climbed it?", "It is 8,849 m high."),  # no unit asked
    ("What is at the foot of Mount Fuji?", "It is 3,776 m (12,388 ft) high."),  # a unit's word, not asked as one
    ("Who was Lord Kelvin?", "Absolute zero is 0 K."),
    ("How many kelvins is it?", "In 1990 K. Smith filmed it in 4K."),  # an initial and a code, no kelvins
    ("How many metres long is it?", "It cost £20m."),
])
def test_a_unit_is_left_as_asked_where_the_passage_does_not_write_it_as_a_symbol(question: str, passage: str) -> None:
    assert as_written(question, passage) == question


def test_the_quoter_reads_the_question_with_the_units_the_passage_writes() -> None:
    from selfrag_langchain.chains.quotes import PassageQuoter
    from tests.fakes.bag_of_words import BagOfWords
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    # as the shipped finder reads them: "square kilometres" is not "km2" to it
    def odds(question: str, sentence: str) -> float:
        return 4.0 if "km2" in sentence and "km2" in question else -6.0

    reader = TableReader(answering=lambda q, s: 0.5)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=TableFinder(odds=odds))
    asked = "About how large are the Brazilian Highlands in square kilometres?"
    passage = "The Brazilian Highlands cover some 4,500,000 km2. Most of Brazil's people live there."
    assert quoter.best_holding(asked, [(passage, "Brazilian Highlands")]) == [
        pytest.approx(1 / (1 + 2.718281828 ** -4), rel=1e-3)]
    in_words = passage.replace("4,500,000 km2", "4,500,000 square kilometres")
    assert quoter.best_holding(asked, [(in_words, "Brazilian Highlands")]) == [
        pytest.approx(1 / (1 + 2.718281828 ** 6), rel=1e-3)]
