"""The table of places and peoples: each language it names is one of its people's words."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.names import describing_words
from selfrag_langchain.chains.peoples import LANGUAGES, PEOPLES, People, other_names


def test_a_peoples_language_is_one_of_its_words_and_holds_its_place() -> None:
    for people in PEOPLES:
        if people.language is not None:
            place = people.names[0]
            assert (place,) in other_names(people.language) or tuple(place.split()) in other_names(people.language)
    with pytest.raises(ValueError, match="names no word"):
        People(("norway", "norwegian"), language="bokmal")


def test_the_language_of_a_place_and_of_no_place_both_describe_an_asked_name() -> None:
    assert {"dutch", "latin"} <= LANGUAGES
    assert ("netherlands",) in other_names("dutch")
    assert describing_words("What is the tulip called in Dutch?") == {"dutch"}
    assert describing_words("What was Beijing known in Latin as?") == {"latin"}
    assert "swiss" not in LANGUAGES  # a people's word that names no language
