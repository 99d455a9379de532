"""vLLM's offline engine (``vllm.LLM``) on GPUs: tensor parallel, prefix caching, batched generation.

Generation asks vLLM for the top ``top_logprobs`` log-probabilities per position (5 covers the largest
reflection group, never the whole vocabulary: PAPER.md §4 item 6) and keeps special tokens in the
decoded text; a group token outside the top-k is named in the reading's ``missing``. Continuations are
scored exactly, by generation requests that the prefix cache serves (``score_continuations``). Calls
made at the same time from several threads (``batch`` of questions) are merged into one ``generate``
call, so the branches of concurrent questions share a batch.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.outputs import Generation, LLMResult
from pydantic import Field, PrivateAttr, model_validator

from selfrag_langchain.errors import BackendError, ConfigurationError, ModelLoadError
from selfrag_langchain.llms.backend import HFTokenizerBackend
from selfrag_langchain.llms.base import (
    INFO_KEY,
    ContinuationRequest,
    GenerationStats,
    GroupReading,
    prefix_ends,
    reading_at,
    require_at_least,
)
from selfrag_langchain.llms.chat_templates import render_hf_chat
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL
from selfrag_langchain.text.sentences import SENTENCE_STOP_STRINGS

_LOCK = threading.Lock()
_ENGINES: dict[tuple[Any, ...], Any] = {}


class VllmLLM(HFTokenizerBackend):
    """A model run by vLLM's offline engine, reporting what Self-RAG's formulas need.

    Setup:
        .. code-block:: bash

            pip install "selfrag-langchain[vllm]"     # a CUDA machine

    Instantiate:
        .. code-block:: python

            from selfrag_langchain.llms.vllm import VllmLLM

            llm = VllmLLM(model="selfrag/selfrag_llama2_7b", dtype="bfloat16")
            llm = VllmLLM(model="selfrag/selfrag_llama2_13b", tensor_parallel_size=2, gpu_memory_utilization=0.85)

    Invoke:
        .. code-block:: python

            result = llm.generate(["prompt one", "prompt two"])   # one vLLM generate call
            result.generations[0][0].generation_info["selfrag"]["readings"]

    In Self-RAG:
        .. code-block:: python

            rag = SelfRAG(generator=llm, reflector=InlineReflector(llm), retriever=retriever)
            rag.batch(questions, config={"max_concurrency": 32})   # branches of all questions batched together
    """

    model: str = Field(default=DEFAULT_MODEL, alias="model_name")
    """Hub id or local directory (a ``.gguf`` file or the embedded default is converted once first)."""
    tensor_parallel_size: int = 1
    """GPUs the model is split across."""
    dtype: str = "auto"
    """``auto`` (the checkpoint's), ``bfloat16``, ``float16`` or ``float32``."""
    gpu_memory_utilization: float = 0.9
    """Fraction of each GPU's memory vLLM may take (weights plus key/value cache)."""
    enable_prefix_caching: bool = True
    """Reuse the key/value cache of shared prompt prefixes (the question shared by all branches)."""
    max_model_len: int | None = None
    """Context window in tokens; None: the model's."""
    top_logprobs: int = 5
    """Log-probabilities returned per generated position (5 covers the largest reflection group)."""
    seed: int = 0
    engine_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Further ``vllm.LLM`` arguments (``quantization``, ``enforce_eager``, ``download_dir``...)."""

    _engine: Any = PrivateAttr(default=None)
    _batcher: Any = PrivateAttr(default=None)

    stops_at_sentence_end: ClassVar[bool] = True
    """Takes ``stop_at_sentence_end=True``: the sentence stop strings, kept in the text (an engine takes
    no Python stopping rule; see :data:`selfrag_langchain.text.sentences.SENTENCE_STOP_STRINGS`)."""

    @model_validator(mode="after")
    def _check(self) -> VllmLLM:
        require_at_least(self, 1, "tensor_parallel_size", "top_logprobs")
        if not 0.0 < self.gpu_memory_utilization <= 1.0:
            msg = f"gpu_memory_utilization must be in (0, 1], got {self.gpu_memory_utilization}"
            raise ConfigurationError(msg)
        self._batcher = Coalescer(self._run)
        return self

    @property
    def _llm_type(self) -> str:
        return "selfrag-vllm"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model, "tensor_parallel_size": self.tensor_parallel_size, "dtype": self.dtype}

    # ----------------------------------------------------------------- engine and vocabulary

    @property
    def engine(self) -> Any:
        """The ``vllm.LLM`` engine (created at first use, shared by instances with the same settings)."""
        if self._engine is None:
            self._engine = _engine_for(self)
        return self._engine

    @property
    def tokenizer(self) -> Any:
        return self.engine.get_tokenizer()

    @property
    def context_window(self) -> int | None:
        config = getattr(getattr(self.engine, "llm_engine", None), "model_config", None)
        return getattr(config, "max_model_len", None) or self.max_model_len

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def prompt_ids(self, prompt: str, *, chat: bool = True) -> list[int]:
        """Token ids of the prompt as the engine reads it: chat template applied if enabled, else the
        tokenizer's special tokens (BOS) added as vLLM does for text prompts."""
        if chat and self.uses_chat_template():
            return list(self.tokenizer(render_hf_chat(self.tokenizer, prompt), add_special_tokens=False)["input_ids"])
        return list(self.tokenizer(prompt)["input_ids"])

    # ----------------------------------------------------------------- engine calls

    def _run(self, prompts: list[dict[str, list[int]]], params: list[Any]) -> list[Any]:
        """One ``generate`` call for every queued request (the batcher merges concurrent calls)."""
        try:
            return list(self.engine.generate(prompts, params, use_tqdm=False))
        except (ValueError, RuntimeError) as e:
            msg = f"vLLM failed on {self.model}: {e}"
            raise BackendError(msg) from e

    def _decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    def _sampling_params(self, **kwargs: Any) -> Any:
        from vllm import SamplingParams

        return SamplingParams(**kwargs)

    # ----------------------------------------------------------------- generation

    def _generate(
        self,
        prompts: list[str],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> LLMResult:
        sentence = bool(kwargs.get("stop_at_sentence_end"))
        stops = [*(stop or []), *(SENTENCE_STOP_STRINGS if sentence else ())]
        params = self._sampling_params(
            temperature=float(kwargs.get("temperature", self.temperature)),
            max_tokens=int(kwargs.get("max_new_tokens", self.max_new_tokens)),
            stop=stops or None,
            include_stop_str_in_output=sentence,
            logprobs=self.top_logprobs,
            skip_special_tokens=False,
            spaces_between_special_tokens=False,
            seed=self.seed if self.temperature > 0 else None,
        )
        inputs = [{"prompt_token_ids": self.prompt_ids(p)} for p in prompts]
        outputs = self._batcher.submit(inputs, [params] * len(inputs))
        reflection = self.reflection_ids()
        generations = []
        for output in outputs:
            completion = output.outputs[0]
            stats = stats_from_vllm(completion.token_ids, completion.logprobs, completion.finish_reason,
                                    getattr(completion, "stop_reason", None), reflection, text=completion.text,
                                    decode=self._decode, sentence=sentence)
            generations.append([Generation(text=completion.text, generation_info={
                INFO_KEY: stats.to_dict(), "finish_reason": stats.finish_reason})])
        return LLMResult(generations=generations)

    # ----------------------------------------------------------------- scoring fixed continuations

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        """Total log-probability of each continuation, from generation requests that vLLM's prefix cache
        serves (its V1 engine caches nothing for a request that asks for ``prompt_logprobs``, so scoring
        from those would read the passage again for every label):

        1. one request per prompt for one token and its top ``top_logprobs``: the prompt is read once
           and enters the prefix cache, and a continuation whose first token is among the top-k is read
           there (a group of one-token labels, such as Self-RAG's reflection tokens, usually needs
           nothing more);
        2. every other continuation token: the prompt and the continuation so far, one token forced
           with ``allowed_token_ids``. vLLM reports a sampled token's log-probability from the raw model
           output (its default ``logprobs_mode``), so the value is exact; the prompt comes from the cache.
        """
        if not requests:
            return []
        if self.engine_kwargs.get("logprobs_mode", "raw_logprobs") != "raw_logprobs":
            msg = "score_continuations needs vLLM's raw log-probabilities: remove logprobs_mode from engine_kwargs"
            raise ConfigurationError(msg)
        prompts = [self.prompt_ids(req.prompt, chat=req.chat) for req in requests]
        conts = [[list(self.tokenizer(c, add_special_tokens=False)["input_ids"]) for c in req.continuations]
                 for req in requests]
        first = self._sampling_params(temperature=0.0, max_tokens=1, logprobs=self.top_logprobs, detokenize=False)
        tops = [out.outputs[0].logprobs[0] for out in
                self._batcher.submit([{"prompt_token_ids": p} for p in prompts], [first] * len(prompts))]
        values: dict[tuple[int, int, int], float] = {}
        forced_inputs, forced_params, forced_keys = [], [], []
        for i, (prompt, options) in enumerate(zip(prompts, conts, strict=True)):
            for j, cont in enumerate(options):
                for t, token in enumerate(cont):
                    if t == 0 and token in tops[i]:
                        values[(i, j, t)] = _logprob_value(tops[i][token])
                        continue
                    forced_inputs.append({"prompt_token_ids": prompt + cont[:t]})
                    forced_params.append(self._sampling_params(temperature=0.0, max_tokens=1, logprobs=0,
                                                               allowed_token_ids=[token], detokenize=False))
                    forced_keys.append((i, j, t))
        if forced_inputs:
            for key, out in zip(forced_keys, self._batcher.submit(forced_inputs, forced_params), strict=True):
                token = conts[key[0]][key[1]][key[2]]
                values[key] = forced_logprob(out.outputs[0], token)
        return [[math.fsum(values[(i, j, t)] for t in range(len(cont))) for j, cont in enumerate(options)]
                for i, options in enumerate(conts)]


# --------------------------------------------------------------------- merging concurrent calls


@dataclass
class _Job:
    prompts: list[Any]
    params: list[Any]
    results: list[Any] | None = None
    error: BaseException | None = None
    done: bool = False
    sizes: list[int] = field(default_factory=list)


class Coalescer:
    """Runs the requests of calls made at the same time from several threads as one engine call.

    Each caller queues its requests, then waits for the engine; whoever gets it runs everything queued
    so far, so callers that arrived while the engine was busy share the next call.
    """

    def __init__(self, run: Callable[[list[Any], list[Any]], list[Any]]) -> None:
        self._run = run
        self._queue: list[_Job] = []
        self._queue_lock = threading.Lock()
        self._engine_lock = threading.Lock()
        self.calls = 0
        """Engine calls made (for tests and benchmarks)."""

    def submit(self, prompts: list[Any], params: list[Any]) -> list[Any]:
        job = _Job(list(prompts), list(params))
        with self._queue_lock:
            self._queue.append(job)
        with self._engine_lock:
            if not job.done:
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._serve(batch)
        if job.error is not None:
            raise job.error
        assert job.results is not None
        return job.results

    def _serve(self, batch: list[_Job]) -> None:
        prompts = [p for job in batch for p in job.prompts]
        params = [p for job in batch for p in job.params]
        self.calls += 1
        try:
            outputs = self._run(prompts, params) if prompts else []
        except BaseException as e:
            for job in batch:
                job.error, job.done = e, True
            return
        at = 0
        for job in batch:
            job.results, job.done = outputs[at : at + len(job.prompts)], True
            at += len(job.prompts)


# --------------------------------------------------------------------- pure conversion of vLLM outputs


def _logprob_value(entry: Any) -> float:
    """A vLLM ``Logprob`` (``.logprob``) or a bare float."""
    return float(getattr(entry, "logprob", entry))


def stats_from_vllm(
    token_ids: Sequence[int],
    logprobs: Sequence[Mapping[int, Any]] | None,
    finish_reason: str | None,
    stop_reason: int | str | None,
    reflection_ids: Mapping[int, str],
    text: str | None = None,
    decode: Callable[[Sequence[int]], str] | None = None,
    sentence: bool = False,
) -> GenerationStats:
    """:class:`GenerationStats` from a vLLM ``CompletionOutput``'s fields.

    ``logprobs[i]`` maps token ids to ``Logprob`` objects at generated position ``i``: the top-k plus the
    sampled token. A generation ended by the end-of-sequence token (or a stop token id) has that token
    last in ``token_ids`` though not in the text; it is left out, as the other backends do. With the
    ``text`` and the tokenizer's ``decode``, each token's log-probability and end in the text are kept
    (from decoding every prefix: a SentencePiece token decoded alone loses its leading space), so a
    segment cut out of the text gets its own sequence term. A generation asked to stop at a ``sentence``
    end and stopped by a sentence stop string finishes with ``sentence``.
    """
    ids = list(token_ids)
    if logprobs is None:
        msg = "vLLM returned no log-probabilities (SamplingParams.logprobs was not set)"
        raise BackendError(msg)
    if finish_reason == "stop" and not isinstance(stop_reason, str) and ids:
        ids = ids[:-1]
    chosen: list[float] = []
    readings: list[GroupReading] = []
    for index, token_id in enumerate(ids):
        row = logprobs[index]
        chosen.append(_logprob_value(row[token_id]))
        token = reflection_ids.get(token_id)
        if token is None:
            continue
        seen = {reflection_ids[i]: _logprob_value(e) for i, e in row.items() if i in reflection_ids}
        reading = reading_at(index, token, seen)
        if reading is not None:
            readings.append(reading)
    finish = "length" if finish_reason == "length" else "stop"
    if sentence and finish == "stop" and stop_reason in SENTENCE_STOP_STRINGS:
        finish = "sentence"
    extra: dict[str, Any] = {}
    if text is not None and decode is not None:
        extra = {"token_logprobs": tuple(chosen), "token_ends": prefix_ends(decode, ids, text)}
    return GenerationStats(num_tokens=len(ids), sum_logprob=math.fsum(chosen), readings=tuple(readings),
                           finish_reason=finish, **extra)


def forced_logprob(completion: Any, token: int) -> float:
    """The log-probability of the one token a request was forced to generate (``allowed_token_ids``)."""
    if not completion.logprobs or token not in completion.logprobs[0]:
        msg = "vLLM returned no log-probability for a forced token (SamplingParams.logprobs was not set)"
        raise BackendError(msg)
    return _logprob_value(completion.logprobs[0][token])


def _engine_for(llm: VllmLLM) -> Any:
    """Create (or reuse) the engine for ``llm``'s settings; vLLM is imported only here."""
    from selfrag_langchain.llms.model_loading import hf_location

    key = (llm.model, llm.tensor_parallel_size, llm.dtype, llm.gpu_memory_utilization, llm.enable_prefix_caching,
           llm.max_model_len, llm.top_logprobs, llm.seed, tuple(sorted(llm.engine_kwargs.items())))
    with _LOCK:
        if key not in _ENGINES:
            try:
                import vllm
            except ImportError as e:
                msg = "the vllm backend needs vLLM on a CUDA machine: pip install 'selfrag-langchain[vllm]'"
                raise ModelLoadError(msg) from e
            kwargs: dict[str, Any] = {
                "model": hf_location(llm.model),
                "tensor_parallel_size": llm.tensor_parallel_size,
                "dtype": llm.dtype,
                "gpu_memory_utilization": llm.gpu_memory_utilization,
                "enable_prefix_caching": llm.enable_prefix_caching,
                "max_logprobs": max(llm.top_logprobs, 1),
                "seed": llm.seed,
                **llm.engine_kwargs,
            }
            if llm.max_model_len is not None:
                kwargs["max_model_len"] = llm.max_model_len
            try:
                _ENGINES[key] = vllm.LLM(**kwargs)
            except (ValueError, RuntimeError, OSError) as e:
                msg = f"vLLM could not load {llm.model}: {e}"
                raise ModelLoadError(msg) from e
        return _ENGINES[key]
