"""Sentences as the project cuts them: pysbd, with an abbreviation before a date kept inside its sentence."""

from __future__ import annotations

import pytest

from selfrag_langchain.text.sentences import (
    PYSBD_PLACEHOLDERS,
    sentence_finished,
    sentence_pieces,
    split_sentences,
)

AKHENATEN = ("Akhenaten, also spelled Akhenaton, Echnaton, and Khuenaten, was an ancient Egyptian pharaoh reigning "
             "c. 1353–1336 or 1351–1334 BC, the tenth ruler of the Eighteenth Dynasty. Originally named Amenhotep "
             "IV, in the fifth year of his reign he adopted the name \"Akhenaten\".")


def test_circa_before_a_year_stays_inside_its_sentence() -> None:
    first, second = split_sentences(AKHENATEN)
    assert first.endswith("reigning c. 1353–1336 or 1351–1334 BC, the tenth ruler of the Eighteenth Dynasty.")
    assert second.startswith("Originally named Amenhotep IV")


@pytest.mark.parametrize("abbreviation", ["c.", "ca.", "fl.", "r."])
def test_each_abbreviation_before_a_date_is_joined_and_the_pieces_still_give_the_text_back(abbreviation: str) -> None:
    text = f"The poet lived in Athens, {abbreviation} 450 BC. His plays are lost."
    assert split_sentences(text) == [f"The poet lived in Athens, {abbreviation} 450 BC.", "His plays are lost."]
    assert "".join(sentence_pieces(text)) == text


def test_a_sentence_ending_in_other_words_before_a_number_is_still_ended() -> None:
    assert split_sentences("He moved to the city. 1960 was the year he married.") == [
        "He moved to the city.", "1960 was the year he married."]
    assert split_sentences("The tower is the abc. 12 men built it.") == ["The tower is the abc.", "12 men built it."]
    assert not sentence_finished("The pharaoh reigned c. 1353")  # the date goes on the same sentence


@pytest.mark.parametrize("mark", list(PYSBD_PLACEHOLDERS))
def test_a_text_holding_a_character_pysbd_uses_as_a_placeholder_keeps_every_sentence(mark: str) -> None:
    text = f"The Symphony No. 3 in E{mark} major, Op. 55, is a symphony. It has four movements."
    assert split_sentences(text) == [f"The Symphony No. 3 in E{mark} major, Op. 55, is a symphony.",
                                     "It has four movements."]
    assert "".join(sentence_pieces(text)) == text


def test_private_use_characters_in_the_text_are_given_back_as_written() -> None:
    text = "A star of 1.4 M☉ and a glyph \ue000 here. Next one."
    assert split_sentences(text) == ["A star of 1.4 M☉ and a glyph \ue000 here.", "Next one."]


def test_a_space_pysbd_drops_is_kept_and_the_sentences_are_still_cut() -> None:
    text = "I was not very happy............ Is the review positive or negative?  Yes."
    assert split_sentences(text)[-2:] == ["Is the review positive or negative?", "Yes."]
    assert "".join(sentence_pieces(text)) == text
