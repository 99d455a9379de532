"""Whether a sentence gives someone another title of the kind a question asks about.

"Who is known as the father of geographic information systems?" is not answered by "Claude Shannon was an
American polymath ... known as the 'father of information theory'", nor "Who is often called the father of
chemical engineering?" by "Edward Teller was a ... chemical engineer who is known colloquially as 'the father of
the hydrogen bomb'": the sentence calls someone exactly what the question asks about, a father of a field, and
shares its words ("information", "chemical engineer"), so the sentence reader and the answer finder read it as
answering. What it states is another title. A question asks such a title when someone is known, called, regarded
or cited as "the father (mother, founding father, godfather ...) of" a thing it names; a sentence that calls
someone the father of other things only, none of which holds the asked thing's last word in any form
(:func:`~selfrag_langchain.chains.names.holds`: "modern toxicology" is held by "the father of toxicology"), or
spells its initials ("the father of GIS"), does not answer it (:func:`states_other_epithet`). The quoter
(:class:`~selfrag_langchain.chains.quotes.PassageQuoter`) reads it so, as it reads a sentence stating another rank
(:mod:`~selfrag_langchain.chains.ranks`): its readings are zero, so that it is neither quoted nor read as holding
an answer. A question asking which thing someone is the father of ("John Locke is often called the father of
which political philosophy?"), or a relative ("Who was the father of Pericles?"), is not read.
"""

from __future__ import annotations

import functools
import re

from selfrag_langchain.chains.names import holds
from selfrag_langchain.judging.signals import STOPWORDS, folded

__all__ = ["asked_epithet", "states_other_epithet"]

_TITLE = r"(?:founding\s+)?(?:god|grand)?(?:father|mother)s?"
"""The titles read: a father or mother of something, founding father, godfather, grandmother."""
_CALLED = (r"\b(?:known|regarded|called|considered|cited|hono(?:u)?red|hailed|dubbed|described|referred\s+to|styled|"
           r"remembered|recogni[sz]ed|seen)\s+(?:as\s+)?")
_ASKED = re.compile(rf"{_CALLED}(?:the\s+|an?\s+)?{_TITLE}\s+of\s+(?!(?:which|what)\b)(?P<asked>[^?,;]+)",
                    re.IGNORECASE)
"""How a question asks who holds a title: "Who is known as the father of geographic information systems?"."""
_STATED = re.compile(rf"\b{_TITLE}\s+of\s+(?P<stated>[^,;.\"'“”‘’()]+)", re.IGNORECASE)
"""A title a sentence gives, with the words it is of, up to a mark."""
_WORDS = re.compile(r"[\w-]+")


@functools.lru_cache(maxsize=256)
def asked_epithet(question: str) -> tuple[str, ...] | None:
    """The content words of the thing whose father (mother ...) the question asks for, lower-cased and without
    accents ("geographic", "information", "systems"); None when it asks no such title."""
    asked = _ASKED.search(folded(question))
    if asked is None:
        return None
    words = tuple(w for w in _WORDS.findall(asked.group("asked").lower()) if w not in STOPWORDS)
    return words or None


def states_other_epithet(question: str, sentence: str) -> bool:
    """Whether ``sentence`` gives the title ``question`` asks about only of other things (the module's
    docstring): every thing it calls someone the father (mother ...) of lacks the asked thing's last word and
    does not spell the asked words' initials."""
    asked = asked_epithet(question)
    if asked is None:
        return False
    stated = [title.group("stated") for title in _STATED.finditer(folded(sentence))]
    initials = "".join(word[0] for word in asked)
    return bool(stated) and not any(
        holds(asked[-1], thing) or initials in {w.lower() for w in _WORDS.findall(thing) if w.isupper()}
        for thing in stated)
