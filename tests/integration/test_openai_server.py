"""The OpenAI-compatible backend against a real server: llama-cpp-python's, with SmolLM2, on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from selfrag_langchain import CriticReflector, InlineReflector, SelfRAG
from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.llms.base import ContinuationRequest, stats_of
from selfrag_langchain.llms.llamacpp import LlamaCppLLM
from selfrag_langchain.llms.openai import OpenAICompatibleLLM
from selfrag_langchain.prompts import selfrag_branch_prompt
from selfrag_langchain.tokens import Group
from tests.servers import SERVER_CONTEXT

pytestmark = pytest.mark.slow

TOL = 0.1
"""Nats per token between the server and llama.cpp in process: the same engine and weights, but llama.cpp
rounds differently for different batch shapes (see test_llamacpp_llm.py)."""
GREEDY = {"repeat_penalty": 1.0}
"""llama-cpp-python's server applies a repeat penalty of 1.1 by default, even at temperature 0."""
PASSAGES = [
    {"title": "Henry Feilden (Conservative politician)",
     "text": "Henry Master Feilden (21 February 1818 - 5 September 1875) was an English Conservative Party "
             "politician."},
    {"title": "Feilden baronets",
     "text": "Henry Wemyss Feilden, second son of the second Baronet, was an Arctic explorer."},
]


@pytest.fixture(scope="module")
def server_llm(llama_server: str) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(base_url=llama_server, extra_body=GREEDY, max_new_tokens=8,
                               context_size=SERVER_CONTEXT, timeout=120)


@pytest.fixture(scope="module")
def local() -> LlamaCppLLM:
    return LlamaCppLLM(max_new_tokens=8, n_ctx=1024, n_threads=1, chat_template=False).load()


def test_generation_matches_llama_cpp_in_process(server_llm: OpenAICompatibleLLM, local: LlamaCppLLM) -> None:
    prompt = "Q: What is the capital of France?\nA:"
    remote = server_llm.generate([prompt]).generations[0][0]
    here = local.generate([prompt]).generations[0][0]
    assert remote.text == here.text
    remote_stats, here_stats = stats_of(remote), stats_of(here)
    assert remote_stats is not None and here_stats is not None
    assert remote_stats.num_tokens == here_stats.num_tokens == 8
    assert remote_stats.sum_logprob == pytest.approx(here_stats.sum_logprob, abs=TOL * 8)


def test_continuation_scores_match_llama_cpp_in_process(server_llm: OpenAICompatibleLLM, local: LlamaCppLLM) -> None:
    """llama-cpp-python echoes prompt log-probabilities one token late for a model without BOS, so the
    backend's probe must choose forced scoring, which must give the in-process values."""
    assert server_llm.scoring_mode() == "forced"
    requests = [ContinuationRequest("Q: What is the capital of France?\nA:", (" Paris", " London", " Paris, France"),
                                    chat=False)]
    remote = server_llm.score_continuations(requests)[0]
    here = local.score_continuations(requests)[0]
    assert remote == pytest.approx(here, abs=TOL * 3)
    assert remote[0] > remote[1]


def test_tokens_are_counted_by_the_server(server_llm: OpenAICompatibleLLM, local: LlamaCppLLM) -> None:
    text = "Henry Master Feilden was an English Conservative Party politician."
    assert server_llm.count_tokens(text) == local.count_tokens(text)
    assert not server_llm.has_tokens(["[Retrieval]"])
    assert server_llm.served_model == "smollm2-135m-instruct" and server_llm.context_window == SERVER_CONTEXT


def test_inline_reflector_refuses_a_served_model_without_reflection_tokens(server_llm: OpenAICompatibleLLM) -> None:
    rag = SelfRAG(generator=server_llm, reflector=InlineReflector(server_llm))
    with pytest.raises(ModelLoadError, match="lacks them"):
        rag.invoke({"question": "Who is Henry Feilden?", "passages": PASSAGES})


async def test_short_form_selfrag_runs_on_the_server(llama_server: str) -> None:
    """The unchanged Runnable, critic included, on the server; abatch runs questions concurrently and
    gives what the sync path gives."""
    llm = OpenAICompatibleLLM(base_url=llama_server, extra_body=GREEDY, tokenizer="smollm2-135m-instruct",
                              context_size=SERVER_CONTEXT, concurrency=4, timeout=120)
    rag = SelfRAG(generator=llm, reflector=CriticReflector(llm), mode="always", k=2, max_new_tokens=8,
                  use_sequence_probability=True)
    questions = [{"question": "What is Henry Feilden's occupation?", "passages": PASSAGES},
                 {"question": "Who was Henry Wemyss Feilden?", "passages": PASSAGES[::-1]}]
    concurrent = await rag.abatch(questions)
    for result in concurrent:
        assert result.retrieved and len(result.branches) == 2 and result.selected in (0, 1)
        for branch in result.branches:
            assert branch.answer and branch.scores.sequence_probability is not None
            assert all(dist is not None and sum(dist.values()) == pytest.approx(1.0)
                       for dist in branch.distributions.values())
    sequential = rag.invoke(questions[0])
    assert (sequential.answer, sequential.selected) == (concurrent[0].answer, concurrent[0].selected)
    for ours, theirs in zip(sequential.branches, concurrent[0].branches, strict=True):
        assert ours.raw_generation == theirs.raw_generation
        for group, dist in ours.distributions.items():
            assert dist == pytest.approx(theirs.distributions[group], abs=0.02)


# --------------------------------------------------------------------- a served Self-RAG-style model


@pytest.fixture(scope="module")
def reflection_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """llama-cpp-python's server on SmolLM2 with the reflection tokens added (tests/reflection_gguf.py)."""
    from tests.reflection_gguf import build_reflection_gguf
    from tests.servers import start_llama_server

    folder = tmp_path_factory.mktemp("reflection-server")
    path = str(build_reflection_gguf(folder / "smollm2-reflection.gguf"))
    server = start_llama_server(folder / "server.log", model=path, n_ctx=1024)
    try:
        yield server.base_url, path
    finally:
        server.stop()


def test_top_k_readings_name_what_the_server_did_not_return(reflection_server: tuple[str, str]) -> None:
    """With 3 log-probabilities per position, the 5 IsUse tokens cannot all be there: the reading says
    which are missing, and the ones returned keep the ratios the full distribution has."""
    url, path = reflection_server
    remote_llm = OpenAICompatibleLLM(base_url=url, extra_body=GREEDY, top_logprobs=3, max_new_tokens=10, timeout=120)
    local_llm = LlamaCppLLM(model=path, n_ctx=1024, n_threads=1, max_new_tokens=10)
    prompt = selfrag_branch_prompt("What is the capital of France?", "France\nThe capital of France is Paris.")
    assert remote_llm.has_tokens(["[Relevant]", "[Utility:5]"])
    remote = remote_llm.generate([prompt]).generations[0][0]
    here = local_llm.generate([prompt]).generations[0][0]
    assert remote.text == here.text and "[Utility:" in remote.text
    remote_stats, here_stats = stats_of(remote), stats_of(here)
    assert remote_stats is not None and here_stats is not None
    assert [(r.index, r.token) for r in remote_stats.readings] == [(r.index, r.token) for r in here_stats.readings]
    for far, near in zip(remote_stats.readings, here_stats.readings, strict=True):
        assert near.exact and near.missing == ()
        seen = [tok for tok in far.group.tokens if tok not in far.missing]
        assert far.token in seen and len(seen) <= 3
        if far.group is Group.ISUSE:
            assert not far.exact and len(far.missing) >= 2
        assert far.mass is not None and near.mass is not None and far.mass <= near.mass * (1 + TOL)
        for tok in seen:  # ratios to the emitted token are those of the full distribution
            assert far.probs[tok] / far.probs[far.token] == pytest.approx(
                near.probs[tok] / near.probs[far.token], rel=2 * TOL)
