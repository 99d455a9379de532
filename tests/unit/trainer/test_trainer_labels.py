"""Reading a teacher's answer as one label: tolerant of shape, strict about ambiguity."""

from __future__ import annotations

import pytest

from selfrag_langchain.tokens import (
    CONTINUE_EVIDENCE,
    FULLY_SUPPORTED,
    IRRELEVANT,
    NO_RETRIEVAL,
    NO_SUPPORT,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    RETRIEVAL,
)
from selfrag_langchain.trainer.labels import parse_label


@pytest.mark.parametrize(("group", "answer", "label"), [
    ("relevance", "Relevant", RELEVANT),
    ("relevance", "[relevant]", RELEVANT),
    ("relevance", "  **[ Relevant ]**  ", RELEVANT),
    ("relevance", "Rating: [Irrelevant]\nExplanation: it would be relevant if it named the year.", IRRELEVANT),
    ("relevance", "The evidence is not relevant to the question.", IRRELEVANT),
    ("utility", "Utility: 5", "[Utility:5]"),
    ("utility", "[Utility:2]", "[Utility:2]"),
    ("utility", "Perceived utility 4\nExplanation: it could be a 5 with more detail.", "[Utility:4]"),
    ("utility", "4/5", "[Utility:4]"),
    ("utility", "3 out of 5", "[Utility:3]"),
    ("retrieval", "Need retrieval? [Yes]\nExplanation: no personal experience involved.", RETRIEVAL),
    ("retrieval", "[No]", NO_RETRIEVAL),
    ("retrieval", "No Retrieval", NO_RETRIEVAL),
    ("retrieval", "[Retrieval]", RETRIEVAL),
    ("retrieval_preceding", "Rating: [Continue to Use Evidence]", CONTINUE_EVIDENCE),
    ("retrieval_preceding", "[No Retrieval]", NO_RETRIEVAL),
    ("retrieval_preceding", "[Retrieval] because the output needs a source", RETRIEVAL),
    ("groundedness", "Score: [Fully supported]", FULLY_SUPPORTED),
    ("groundedness", "partially supported", PARTIALLY_SUPPORTED),
    ("groundedness", "[No support / Contradictory]", NO_SUPPORT),
    ("groundedness", "The output contradicts the evidence.", NO_SUPPORT),
])
def test_reads_the_label(group: str, answer: str, label: str) -> None:
    assert parse_label(group, answer) == label


@pytest.mark.parametrize(("group", "answer"), [
    ("relevance", ""),
    ("relevance", "I cannot tell."),
    ("relevance", "Relevant or irrelevant, hard to say"),
    ("utility", "4 or 5"),
    ("utility", "3.5"),
    ("utility", "Utility: 7"),
    ("utility", "five"),
    ("groundedness", "Fully or partially supported"),
    ("groundedness", "Supported."),
    ("retrieval", "Maybe."),
    ("retrieval", "Yes and no"),
    ("retrieval_preceding", "[Retrieval] or [No Retrieval]"),
])
def test_rejects_malformed_or_ambiguous_answers(group: str, answer: str) -> None:
    assert parse_label(group, answer) is None


def test_unknown_group_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="unknown group 'isrel'"):
        parse_label("isrel", "[Relevant]")
