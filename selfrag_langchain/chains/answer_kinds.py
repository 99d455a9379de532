"""What kind of value a question asks for, and whether a claim gives one.

A question that asks for a year ("In what year was NBC founded?") is not answered by a sentence that holds no
number ("NBC is the first and oldest major broadcast network in the United States."), however much of the
question's subject it names. Declining (:mod:`~selfrag_langchain.chains.declining`) reads such an answer as one
that does not answer. Of SQuAD's 2,593 training questions that ask "what year" or "which year", 99.8% have a
digit in their answer (the rest ask another kind of year: "what year of high school"). Questions of other
kinds are not checked: "when" may be answered "in spring", and "how many" by "every one of them".
"""

from __future__ import annotations

import re

__all__ = ["asks_year", "gives_asked_kind"]

_ASKS_YEAR = re.compile(
    r"^\W*(?:(?:in|by|during|from|since|until|before|after|around) )?(?:what|which) year\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d")


def asks_year(question: str) -> bool:
    """Whether ``question`` opens by asking for a year ("In what year ...", "Which year ...")."""
    return bool(_ASKS_YEAR.search(question))


def gives_asked_kind(question: str, claim: str) -> bool:
    """Whether ``claim`` gives the kind of value ``question`` asks for: a number ("1976", "the 1990s", "the 5th
    century BC") when it asks for a year; True for a question of any other kind."""
    return not asks_year(question) or bool(_NUMBER.search(claim))
