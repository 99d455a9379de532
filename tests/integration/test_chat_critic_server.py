"""ChatCriticReflector on a real chat endpoint: ChatOpenAI against llama-cpp-python's server (SmolLM2) on
loopback, checked against the project's completions path on the same server.

Why the comparison is sound: llama-cpp-python's ``/v1/chat/completions`` wraps the message in the GGUF's
chat template, and ``OpenAICompatibleLLM(tokenizer="smollm2-135m-instruct")`` wraps the same prompt in the
same template (the tokenizer's) before ``/v1/completions`` (``ContinuationRequest.chat`` is True for the
critic's label prompts). Same server, same weights, same text: for labels of one token (Yes/No, 1-5) the
chat critic's first-token reading and CriticReflector's label likelihoods (calibration off, IsRel by
labels) are the same numbers. Not for IsSup: "Fully" and "Partially" are several tokens, which the chat
critic reads by their first piece and the completions path scores whole, so IsSup is only checked to be a
proper distribution. A ranking check (on-topic against off-topic passage) would not be sound here:
SmolLM2-135M answers the IsRel question near chance (README), and did rank this pair the wrong way round.
"""

from __future__ import annotations

import math

import pytest
from langchain_core.documents import Document
from langchain_openai import ChatOpenAI

from selfrag_langchain import ChatCriticReflector, CriticReflector
from selfrag_langchain.judging import Branch, CriticQuery
from selfrag_langchain.llms.openai import OpenAICompatibleLLM
from selfrag_langchain.tokens import Group, parse_generation
from tests.servers import SERVER_MODEL_ALIAS

pytestmark = pytest.mark.slow

TOL = 0.05
"""Largest probability gap allowed between the two paths: the same engine on the same text, but
llama.cpp's arithmetic depends on how the prompt is batched (the server reuses cached prefixes
differently for the two requests; up to 0.09 nats per token, test_llamacpp_llm.py); measured gap 0.000."""
QUESTION = "Who wrote Hamlet?"
HAMLET = "Hamlet is a tragedy written by William Shakespeare around 1600."
EIFFEL = "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."
ONE_TOKEN_LABELS = [
    CriticQuery(Group.RETRIEVE, QUESTION),
    CriticQuery(Group.RETRIEVE, "Write a haiku about autumn."),
    CriticQuery(Group.ISREL, QUESTION, evidence=HAMLET),
    CriticQuery(Group.ISREL, QUESTION, evidence=EIFFEL),
    CriticQuery(Group.ISUSE, QUESTION, evidence=HAMLET, output="William Shakespeare wrote Hamlet."),
    CriticQuery(Group.ISUSE, QUESTION, evidence=HAMLET, output="I like trains."),
]


@pytest.fixture(scope="module")
def chat_critic(llama_server: str) -> ChatCriticReflector:
    chat = ChatOpenAI(base_url=llama_server, api_key="none", model=SERVER_MODEL_ALIAS, temperature=0, timeout=120)
    # llama-cpp-python reads max_tokens; ChatOpenAI sends max_completion_tokens, which it ignores.
    # One request at a time: the server has one prompt cache slot.
    return ChatCriticReflector(chat, bind_kwargs={"extra_body": {"max_tokens": 1}}, max_concurrency=1)


def branch(evidence: str, answer: str) -> Branch:
    return Branch(passage=Document(evidence), evidence=evidence, raw=answer, answer=answer,
                  parsed=parse_generation(answer))


def assert_proper(dist: dict[str, float], missing: tuple[str, ...] = ()) -> None:
    assert math.isclose(sum(dist.values()), 1.0, abs_tol=1e-9)
    assert all(0.0 <= p <= 1.0 for p in dist.values())
    assert all(dist[tok] == 0.0 for tok in missing)


def test_readings_are_proper_and_not_degenerate(chat_critic: ChatCriticReflector) -> None:
    queries = [*ONE_TOKEN_LABELS, CriticQuery(Group.ISSUP, QUESTION, evidence=HAMLET, output="Shakespeare.")]
    readings = chat_critic.readings(queries)
    for reading in readings:
        seen = {tok: p for tok, p in reading.probs.items() if tok not in reading.missing}
        assert seen, f"{reading.group}: no label among the top-k ({reading})"
        assert math.isclose(sum(seen.values()), 1.0, abs_tol=1e-9)
        assert all(reading.probs[tok] == 0.0 for tok in reading.missing)
        assert reading.exact == (not reading.missing)
        assert 0.0 < reading.mass <= 1.0 + 1e-9
    assert any(0.05 < max(r.probs.values()) < 0.95 for r in readings)


def test_one_token_labels_match_the_completions_path(chat_critic: ChatCriticReflector, llama_server: str) -> None:
    llm = OpenAICompatibleLLM(base_url=llama_server, model=SERVER_MODEL_ALIAS, tokenizer=SERVER_MODEL_ALIAS,
                              extra_body={"repeat_penalty": 1.0}, concurrency=1, timeout=120)
    completions = CriticReflector(llm, calibrate=False, relevance="labels").judge(ONE_TOKEN_LABELS)
    chat = chat_critic.judge(ONE_TOKEN_LABELS)
    for query, here, there in zip(ONE_TOKEN_LABELS, chat, completions, strict=True):
        assert here == pytest.approx(there, abs=TOL), query


async def test_critique_and_its_async_twin(chat_critic: ChatCriticReflector) -> None:
    branches = [branch(HAMLET, "William Shakespeare wrote Hamlet."), branch(EIFFEL, "Gustave Eiffel.")]
    critiques = chat_critic.critique(QUESTION, branches)
    for critique in critiques:
        for dist in (critique.relevance, critique.support, critique.utility):
            assert dist is not None
            assert_proper(dist)
        assert all("outside the backend's top-k, taken as 0" in note for note in critique.notes)
    again = await chat_critic.acritique(QUESTION, branches)
    for sync, async_ in zip(critiques, again, strict=True):
        assert async_.notes == sync.notes
        for a, b in zip(async_.distributions().values(), sync.distributions().values(), strict=True):
            assert a == pytest.approx(b, abs=TOL)
