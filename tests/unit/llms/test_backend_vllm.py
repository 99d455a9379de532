"""The vLLM backend's conversion of vLLM outputs and its merging of concurrent calls, checked with small
objects of vLLM's documented shapes (``RequestOutput``, ``CompletionOutput``, ``Logprob``): vLLM itself
needs a CUDA machine."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from selfrag_langchain.errors import BackendError
from selfrag_langchain.llms.base import ContinuationRequest, stats_of
from selfrag_langchain.llms.vllm import Coalescer, VllmLLM, forced_logprob, stats_from_vllm
from selfrag_langchain.tokens import FULLY_SUPPORTED, IRRELEVANT, NO_SUPPORT, PARTIALLY_SUPPORTED, RELEVANT, Group


@dataclass
class Logprob:
    """vLLM's ``vllm.logprobs.Logprob``."""

    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


REFLECTION = {100: RELEVANT, 101: IRRELEVANT, 102: FULLY_SUPPORTED, 103: PARTIALLY_SUPPORTED, 104: NO_SUPPORT}
EOS = 2


def test_stats_from_vllm_reads_groups_at_reflection_positions() -> None:
    token_ids = [100, 7, 102, EOS]
    logprobs = [
        {100: Logprob(math.log(0.6), 1), 101: Logprob(math.log(0.3), 2), 9: Logprob(-5.0, 3)},
        {7: Logprob(-0.2, 1)},
        {102: Logprob(math.log(0.5), 1), 104: Logprob(math.log(0.1), 2), 8: Logprob(math.log(0.3), 3)},
        {EOS: Logprob(-0.01, 1)},
    ]
    stats = stats_from_vllm(token_ids, logprobs, "stop", None, REFLECTION)
    assert stats.num_tokens == 3  # the end-of-sequence token is not part of the answer
    assert stats.sum_logprob == pytest.approx(math.log(0.6) - 0.2 + math.log(0.5))
    rel = stats.first(Group.ISREL)
    assert rel is not None and rel.index == 0 and rel.exact
    assert rel.probs[RELEVANT] == pytest.approx(2 / 3) and rel.mass == pytest.approx(0.9)
    sup = stats.first(Group.ISSUP)
    assert sup is not None and sup.index == 2 and not sup.exact
    assert sup.missing == (PARTIALLY_SUPPORTED,)
    assert sup.probs == pytest.approx({FULLY_SUPPORTED: 0.5 / 0.6, PARTIALLY_SUPPORTED: 0.0, NO_SUPPORT: 0.1 / 0.6})


def test_stats_from_vllm_keeps_the_last_token_when_a_stop_string_or_the_length_ended_it() -> None:
    rows = [{5: Logprob(-1.0)}, {6: Logprob(-2.0)}]
    assert stats_from_vllm([5, 6], rows, "stop", "\n\n", REFLECTION).num_tokens == 2
    length = stats_from_vllm([5, 6], rows, "length", None, REFLECTION)
    assert (length.num_tokens, length.finish_reason, length.sum_logprob) == (2, "length", -3.0)


def test_stats_from_vllm_without_logprobs_is_an_error() -> None:
    with pytest.raises(BackendError, match="no log-probabilities"):
        stats_from_vllm([5], None, "length", None, REFLECTION)


def test_forced_logprob_reads_the_forced_token() -> None:
    completion = SimpleNamespace(logprobs=[{12: Logprob(-2.0), 3: Logprob(-0.1)}])
    assert forced_logprob(completion, 12) == pytest.approx(-2.0)
    with pytest.raises(BackendError, match="forced token"):
        forced_logprob(SimpleNamespace(logprobs=None), 12)


def test_stats_from_vllm_keeps_each_tokens_logprob_and_end_and_names_a_sentence_stop() -> None:
    # SentencePiece decodes " is" alone as "is": the ends come from decoding each prefix.
    words = {5: "Paris", 6: " is", 7: ". "}
    decode = lambda ids: "".join(words[i] for i in ids)  # noqa: E731
    rows = [{5: Logprob(-1.0, decoded_token="Paris")}, {6: Logprob(-2.0, decoded_token="is")},
            {7: Logprob(-0.5, decoded_token=".")}]
    stats = stats_from_vllm([5, 6, 7], rows, "stop", ". ", REFLECTION, text="Paris is. ", decode=decode, sentence=True)
    assert stats.finish_reason == "sentence"
    assert stats.token_logprobs == (-1.0, -2.0, -0.5) and stats.token_ends == (5, 8, 10)
    kept = stats.upto(len("Paris is"))
    assert (kept.num_tokens, kept.sum_logprob) == (2, -3.0)
    # The same stop string, when no sentence stop was asked for, is a plain stop.
    assert stats_from_vllm([5, 6, 7], rows, "stop", ". ", REFLECTION, text="Paris is. ").finish_reason == "stop"


def test_the_sentence_stop_strings_never_stop_at_a_bare_newline() -> None:
    """A reply continued as raw text may begin with a newline; stopping there would end the answer."""
    from selfrag_langchain.text.sentences import SENTENCE_STOP_STRINGS

    assert all(s.strip() for s in SENTENCE_STOP_STRINGS)
    assert not any("\n".startswith(s) or "\n\n".startswith(s) for s in SENTENCE_STOP_STRINGS)


def test_coalescer_merges_concurrent_calls_and_returns_each_its_own_results() -> None:
    calls: list[list[int]] = []

    def run(prompts: list[int], params: list[Any]) -> list[int]:
        calls.append(list(prompts))
        time.sleep(0.05)  # the engine is busy: later callers queue up
        return [p * 10 for p in prompts]

    batcher = Coalescer(run)
    results: dict[int, list[int]] = {}

    def caller(i: int) -> None:
        results[i] = batcher.submit([i, i + 100], [None, None])

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: [i * 10, (i + 100) * 10] for i in range(8)}
    assert len(calls) < 8  # callers that arrived while the engine ran shared the next call
    assert sorted(p for call in calls for p in call) == sorted([*range(8), *range(100, 108)])


def test_coalescer_gives_the_engine_error_to_every_caller_of_that_call() -> None:
    def run(prompts: list[Any], params: list[Any]) -> list[Any]:
        raise BackendError("engine down")

    with pytest.raises(BackendError, match="engine down"):
        Coalescer(run).submit([1], [None])


# --------------------------------------------------------------------- the backend on a fake engine


class WordTokenizer:
    """Splits on spaces; reflection tokens and words get ids in order of first sight."""

    chat_template = None

    def __init__(self) -> None:
        self.ids: dict[str, int] = {tok: i for i, tok in REFLECTION.items()}
        self.bos = 1

    def get_vocab(self) -> dict[str, int]:
        return dict(self.ids)

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        words = {i: w for w, i in self.ids.items()}
        return " ".join(words.get(i, "") for i in ids)

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict[str, list[int]]:
        ids = [self.ids.setdefault(w, 200 + len(self.ids)) for w in text.split()]
        return {"input_ids": ([self.bos] if add_special_tokens else []) + ids}


@dataclass
class FakeEngine:
    """``vllm.LLM``'s ``generate`` and ``get_tokenizer`` as documented: one RequestOutput per prompt."""

    tokenizer: WordTokenizer = field(default_factory=WordTokenizer)
    calls: list[tuple[list[Any], list[Any]]] = field(default_factory=list)
    top: set[int] = field(default_factory=set)

    def get_tokenizer(self) -> WordTokenizer:
        return self.tokenizer

    def generate(self, prompts: list[dict[str, list[int]]], params: list[Any], use_tqdm: bool = True) -> list[Any]:
        self.calls.append((prompts, params))
        outputs = []
        for prompt, p in zip(prompts, params, strict=True):
            ids = prompt["prompt_token_ids"]
            if getattr(p, "detokenize", True) is False:  # a scoring request: one token
                # log p(token | prefix) = -0.1 * token id; the top-k after a prompt holds the ids in `top`
                allowed = getattr(p, "allowed_token_ids", None)
                row = {allowed[0]: Logprob(-0.1 * allowed[0])} if allowed else {
                    t: Logprob(-0.1 * t) for t in self.top | {9}}
                outputs.append(SimpleNamespace(prompt_token_ids=ids, prompt_logprobs=None, outputs=[
                    SimpleNamespace(text="", token_ids=[next(iter(row))], logprobs=[row], finish_reason="length",
                                    stop_reason=None)]))
                continue
            completion = SimpleNamespace(
                text=f"{RELEVANT}Paris", token_ids=[100, 300, EOS],
                logprobs=[{100: Logprob(math.log(0.9)), 101: Logprob(math.log(0.05))}, {300: Logprob(-0.5)},
                          {EOS: Logprob(-0.1)}],
                finish_reason="stop", stop_reason=None)
            outputs.append(SimpleNamespace(prompt_token_ids=ids, prompt_logprobs=None, outputs=[completion]))
        return outputs


@pytest.fixture
def vllm_llm(monkeypatch: pytest.MonkeyPatch) -> tuple[VllmLLM, FakeEngine]:
    llm = VllmLLM(model="selfrag/selfrag_llama2_7b", max_new_tokens=20)
    engine = FakeEngine()
    llm._engine = engine
    monkeypatch.setattr(VllmLLM, "_sampling_params", lambda self, **kw: SimpleNamespace(**kw))
    return llm, engine


def test_generate_sends_all_prompts_in_one_call_keeping_special_tokens(vllm_llm: tuple[VllmLLM, FakeEngine]) -> None:
    llm, engine = vllm_llm
    result = llm.generate(["who is a", "who is b", "who is c"])
    assert len(engine.calls) == 1
    prompts, params = engine.calls[0]
    assert [p["prompt_token_ids"][0] for p in prompts] == [1, 1, 1]  # BOS added, as vLLM does for text
    assert params[0].skip_special_tokens is False and params[0].spaces_between_special_tokens is False
    assert params[0].logprobs == 5 and params[0].max_tokens == 20 and params[0].temperature == 0.0
    gen = result.generations[1][0]
    assert gen.text == f"{RELEVANT}Paris"
    stats = stats_of(gen)
    assert stats is not None and stats.num_tokens == 2
    reading = stats.first(Group.ISREL)
    assert reading is not None and reading.probs[RELEVANT] == pytest.approx(0.9 / 0.95)


def test_score_continuations_reads_each_prompt_once_then_forces_only_what_the_top_k_lacked(
        vllm_llm: tuple[VllmLLM, FakeEngine]) -> None:
    llm, engine = vllm_llm
    tok = engine.tokenizer.ids
    llm.count_tokens("Yes No way")  # give the words their ids
    engine.top = {tok["Yes"]}  # "Yes" is among the top-k after every prompt, "No" is not
    requests = [ContinuationRequest("is it relevant ?", ("Yes", "No way")), ContinuationRequest("other", ("Yes",))]
    scores = llm.score_continuations(requests)
    assert scores[0][0] == pytest.approx(-0.1 * tok["Yes"])
    assert scores[0][1] == pytest.approx(-0.1 * (tok["No"] + tok["way"]))
    assert scores[1] == [pytest.approx(-0.1 * tok["Yes"])]
    # No request asks for prompt log-probabilities (vLLM would bypass its prefix cache for it).
    assert all(getattr(p, "prompt_logprobs", None) is None for _, params in engine.calls for p in params)
    (first_prompts, first_params), (forced_prompts, forced_params) = engine.calls
    assert len(first_prompts) == 2 and all(p.logprobs == llm.top_logprobs for p in first_params)
    # Only the two tokens of "No way" are forced, each after the prompt and the label so far.
    prompt = first_prompts[0]["prompt_token_ids"]
    assert [p["prompt_token_ids"] for p in forced_prompts] == [prompt, [*prompt, tok["No"]]]
    assert [p.allowed_token_ids for p in forced_params] == [[tok["No"]], [tok["way"]]]


def test_one_token_labels_all_in_the_top_k_cost_one_request_per_prompt(
        vllm_llm: tuple[VllmLLM, FakeEngine]) -> None:
    llm, engine = vllm_llm
    engine.top = {100, 101}
    scores = llm.score_continuations([ContinuationRequest("passage and answer", (RELEVANT, IRRELEVANT))])
    assert scores == [[pytest.approx(-10.0), pytest.approx(-10.1)]]
    assert len(engine.calls) == 1


def test_a_sentence_stop_asks_for_the_stop_strings_kept_in_the_text(vllm_llm: tuple[VllmLLM, FakeEngine]) -> None:
    llm, engine = vllm_llm
    assert llm.stops_at_sentence_end
    llm.generate(["who is a"], stop_at_sentence_end=True)
    params = engine.calls[0][1][0]
    assert params.include_stop_str_in_output is True and ". " in params.stop
    llm.generate(["who is a"])
    assert engine.calls[1][1][0].include_stop_str_in_output is False and engine.calls[1][1][0].stop is None


def test_has_tokens_and_counting_use_the_engine_tokenizer(vllm_llm: tuple[VllmLLM, FakeEngine]) -> None:
    llm, _ = vllm_llm
    assert llm.has_tokens([RELEVANT, IRRELEVANT]) and not llm.has_tokens(["[Retrieval]"])
    assert llm.count_tokens("three short words") == 3


def test_control_tokens_come_from_the_engine_tokenizer_and_never_reach_the_engine(
        vllm_llm: tuple[VllmLLM, FakeEngine]) -> None:
    from selfrag_langchain import CriticReflector, SelfRAG

    llm, engine = vllm_llm
    engine.tokenizer.all_special_tokens = ["<s>", "</s>"]  # type: ignore[attr-defined]
    engine.tokenizer.added_tokens_decoder = {32000: SimpleNamespace(content="<custom_marker>")}  # type: ignore[attr-defined]
    assert set(llm.control_tokens) == {"<s>", "</s>", "<custom_marker>"}
    SelfRAG(generator=llm, reflector=CriticReflector(llm), mode="never").invoke(
        "Who wrote </s> <custom_marker> Hamlet ?")
    assert engine.calls  # the question was generated and judged
    assert "Hamlet" in engine.tokenizer.ids
    assert "</s>" not in engine.tokenizer.ids and "<custom_marker>" not in engine.tokenizer.ids
