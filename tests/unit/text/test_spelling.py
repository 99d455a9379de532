"""British and American spellings of a word are written alike, and different words stay apart."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.names import holds
from selfrag_langchain.text.spelling import american_spelling


@pytest.mark.parametrize(("british", "american"), [
    ("fibres", "fibers"), ("centre", "center"), ("theatre", "theater"), ("colour", "color"),
    ("colourful", "colorful"), ("favourite", "favorite"), ("neighbourhood", "neighborhood"),
    ("civilisation", "civilization"), ("organised", "organized"), ("analyse", "analyze"), ("catalogue", "catalog"),
    ("palaeontology", "paleontology"), ("haemoglobin", "hemoglobin"), ("encyclopaedia", "encyclopedia"),
    ("foetus", "fetus"), ("oestrogen", "estrogen"), ("manoeuvre", "maneuver"), ("sulphuric", "sulfuric"),
    ("aluminium", "aluminum"), ("grey", "gray"), ("defence", "defense"),
])
def test_the_two_spellings_of_a_word_are_written_alike(british: str, american: str) -> None:
    assert american_spelling(british) == american_spelling(american)


@pytest.mark.parametrize(("one", "other"), [
    ("filled", "filed"), ("canoe", "cane"), ("four", "for"), ("tour", "tor"), ("rogue", "rog"), ("ore", "or"),
    ("michael", "michel"), ("raphael", "raphel"),
])
def test_different_words_and_names_stay_apart(one: str, other: str) -> None:
    assert american_spelling(one) != american_spelling(other)


def test_the_names_rule_holds_a_word_a_passage_spells_the_other_way() -> None:
    linen = "Linen\nLinen is a textile made from the bast fibers of the flax plant."
    assert holds("fibres", linen)
    assert holds("color", "Colour is the visual perception of light.")
    assert not holds("michael", "Michel Foucault was a French philosopher.")
