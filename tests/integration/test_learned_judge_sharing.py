"""The learned judge reads the shipped MiniLM once: its encoder uses the embedding model's frozen layers
(loaded for the calibrated signals) rather than a second copy, and neither changes the other's outputs."""

from __future__ import annotations

import pytest

from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.judging.base import CriticQuery
from selfrag_langchain.judging.encoder import EncoderJudge
from selfrag_langchain.judging.learned import SHIPPED_ENCODER, LearnedReflector
from selfrag_langchain.tokens import Group

pytestmark = pytest.mark.slow

QUERIES = [
    CriticQuery(Group.ISSUP, "What is the capital of Australia?", output=output,
                evidence="Canberra\nCanberra is the capital city of Australia.")
    for output in ("Canberra is the capital of Australia.", "Sydney is the capital of Australia.")
] + [CriticQuery(Group.ISUSE, "Who painted the Mona Lisa?", output="Leonardo da Vinci painted it.")]


def test_the_learned_judge_shares_minilm_and_judges_as_a_copy_of_its_own_would() -> None:
    embeddings = MiniLMEmbeddings(runtime="torch")
    before = embeddings.embed_query("capital of France")
    alone = EncoderJudge(SHIPPED_ENCODER).distributions(QUERIES)  # its own copy of MiniLM

    judge = LearnedReflector()
    bert = judge.signals.embeddings.transformer()
    layers = judge.encoder.model.encoder.encoder.layer
    assert judge.encoder.model.encoder.embeddings is bert.embeddings
    assert layers[0] is bert.encoder.layer[0]  # frozen bottom layers shared
    assert layers[-1] is not bert.encoder.layer[-1]  # trained top layers its own
    assert judge.encoder.distributions(QUERIES) == alone
    assert embeddings.embed_query("capital of France") == before
