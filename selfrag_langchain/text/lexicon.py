"""What English's lexicon knows a word as, for the rules that read questions and passages."""

from __future__ import annotations

import functools

__all__ = ["adjective_lemma", "noun_lemma", "parts_of_speech", "past_participle"]


def parts_of_speech(word: str) -> frozenset[str]:
    """What English's lexicon (LemmInflect's word lists) knows the word as: none for a name or a word it does
    not know."""
    from lemminflect import getAllLemmas

    return frozenset(getAllLemmas(word))


@functools.lru_cache(maxsize=1 << 16)
def noun_lemma(word: str) -> str:
    """The word read as a noun, in its dictionary form ("narwhals" is "narwhal", "Zulus" "zulu")."""
    from lemminflect import getLemma

    return str(next(iter(getLemma(word, upos="NOUN")), word))


@functools.lru_cache(maxsize=1 << 14)
def adjective_lemma(word: str) -> str | None:
    """The adjective ``word`` is a form of, when the lexicon knows it as one ("largest": "large")."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word).get("ADJ")
    return str(lemmas[0]) if lemmas else None


@functools.lru_cache(maxsize=1 << 12)
def past_participle(word: str) -> bool:
    """Whether the lexicon knows ``word`` as a verb's past participle ("shot", "known", "spread"; not "record",
    whose participle is "recorded")."""
    from lemminflect import getAllLemmas, getInflection

    return any(word in getInflection(lemma, "VBN") for lemma in getAllLemmas(word).get("VERB", ()))
