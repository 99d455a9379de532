"""What English's lexicon knows a word as, for the rules that read questions and passages."""

from __future__ import annotations

__all__ = ["parts_of_speech"]


def parts_of_speech(word: str) -> frozenset[str]:
    """What English's lexicon (LemmInflect's word lists) knows the word as: none for a name or a word it does
    not know."""
    from lemminflect import getAllLemmas

    return frozenset(getAllLemmas(word))
