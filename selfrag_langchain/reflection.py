"""The judges' former home: they live in :mod:`selfrag_langchain.judging` (``judging.base``, ``judging.inline``,
``judging.critic``). These names are kept here for one release, so existing imports keep working."""

from selfrag_langchain.judging.base import Branch, CriticQuery, Critique, Reflector, top_k_note
from selfrag_langchain.judging.critic import (
    CriticReflector,
    branch_queries,
    preceding_sentences,
    resolve_relevance,
)
from selfrag_langchain.judging.inline import InlineReflector

__all__ = ["Branch", "CriticQuery", "CriticReflector", "Critique", "InlineReflector", "Reflector",
           "branch_queries", "preceding_sentences", "resolve_relevance", "top_k_note"]
