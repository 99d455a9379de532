"""Any OpenAI-compatible completions server (vLLM ``serve``, llama.cpp servers, hosted endpoints).

Token log-probabilities come from the completions API (``logprobs``, ``top_logprobs``); a group token
outside the returned top-k is named in the reading's ``missing``. Requests run concurrently up to a
limit, from threads (``generate``) or the event loop (``agenerate``), with the ``openai`` client's
retries and exponential backoff; a request that still fails raises :class:`BackendError` naming the URL.
"""

from __future__ import annotations

import asyncio
import math
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.outputs import Generation, LLMResult
from langchain_core.utils.utils import secret_from_env
from pydantic import Field, PrivateAttr, SecretStr, model_validator

from selfrag_langchain.errors import BackendError, ConfigurationError
from selfrag_langchain.llms.backend import ReflectiveBackend
from selfrag_langchain.llms.base import (
    INFO_KEY,
    ContinuationRequest,
    GenerationStats,
    RecentTokens,
    per_token,
    reading_at,
    require_at_least,
    tokenizer_control_tokens,
)
from selfrag_langchain.llms.chat_templates import render_hf_chat, use_chat_template
from selfrag_langchain.llms.openai_scoring import (
    ContinuationScorer,
    ScoringMode,
    missing_logprobs_message,
)
from selfrag_langchain.text.sentences import SENTENCE_STOP_STRINGS
from selfrag_langchain.tokens import TOKEN_GROUP


class OpenAICompatibleLLM(ReflectiveBackend):
    """A model behind an OpenAI-compatible ``/v1/completions`` endpoint, reporting what Self-RAG needs.

    Each generation carries ``generation_info["selfrag"]`` (sequence log-probability, and a group
    reading at every generated reflection token, from the ``top_logprobs`` the server returns).
    ``score_continuations`` reads label likelihoods either from echoed prompt log-probabilities or,
    for servers whose echoed log-probabilities are misplaced or missing, by forcing each continuation
    token with ``logit_bias`` (see ``continuation_scoring``).

    Setup:
        .. code-block:: bash

            pip install "selfrag-langchain[openai]"
            vllm serve selfrag/selfrag_llama2_7b --max-logprobs 20          # or
            python -m llama_cpp.server --model model.gguf --logits_all True

    Instantiate:
        .. code-block:: python

            from selfrag_langchain.llms.openai import OpenAICompatibleLLM

            llm = OpenAICompatibleLLM(base_url="http://127.0.0.1:8000/v1", model="selfrag/selfrag_llama2_7b",
                                      extra_body={"skip_special_tokens": False})
            # llama-cpp-python's server: greedy needs its repeat penalty off
            llm = OpenAICompatibleLLM(base_url="http://127.0.0.1:8080/v1", extra_body={"repeat_penalty": 1.0},
                                      tokenizer="smollm2-135m-instruct")

    Invoke:
        .. code-block:: python

            llm.invoke("What is the capital of France?")
            result = await llm.agenerate(["prompt one", "prompt two"])   # concurrent requests
            result.generations[0][0].generation_info["selfrag"]["sum_logprob"]
    """

    base_url: str = "http://127.0.0.1:8000/v1"
    """The server's OpenAI-compatible base URL, ending in ``/v1``."""
    model: str | None = Field(default=None, alias="model_name")
    """Model name to request; None: the first model the server lists."""
    api_key: SecretStr = Field(default_factory=secret_from_env("OPENAI_API_KEY", default="EMPTY"))
    """Bearer key; read from ``OPENAI_API_KEY`` when not given (local servers accept any)."""
    timeout: float = 60.0
    """Seconds to wait for one response."""
    max_retries: int = 2
    """Retries of a request that timed out, could not connect, or got HTTP 408/409/429/5xx, with
    exponential backoff (the ``openai`` client's own retry)."""
    concurrency: int = 4
    """Requests in flight at once from this instance (sync and async together)."""
    top_logprobs: int = 5
    """Log-probabilities returned per generated position: 5 covers the largest reflection group (IsUse);
    a group token outside them is reported missing. Servers cap it (OpenAI 5, vLLM ``--max-logprobs``)."""
    scoring_top_logprobs: int = 20
    """Log-probabilities asked for after a prompt when scoring with ``forced``: a one-token label among
    them needs no forced request (OpenAI's hosted API allows at most 5)."""
    tokenizer: str | None = None
    """A local tokenizer matching the served model (hub id, directory, ``.gguf`` file or
    ``smollm2-135m-instruct``), used to count tokens, find token ids and apply the chat template.
    None: the server's tokenize endpoint (llama-cpp-python ``/extras/tokenize``, vLLM ``/tokenize``)
    and no chat template."""
    context_size: int | None = None
    """The served model's context window in tokens; None: what the server reports (vLLM), else unknown."""
    continuation_scoring: ScoringMode = "auto"
    """How ``score_continuations`` reads label likelihoods. ``forced``: one request for the top
    log-probabilities after the prompt (a one-token label among them is read there), then one request per
    remaining continuation token, forced with ``logit_bias`` (needs token ids: a tokenize endpoint or
    ``tokenizer``). These are ordinary generation requests, which a server's prefix cache serves, so the
    prompt is read once. ``echo``: one request per continuation with the prompt echoed and its
    log-probabilities; vLLM computes echoed (prompt) log-probabilities outside its prefix cache, so every
    label reads the whole prompt again. ``auto``: ``forced`` where token ids are available and a probe
    finds a forced token's reported log-probability unbiased; else ``echo`` if a probe finds the echoed
    log-probabilities at the right positions (llama-cpp-python 0.3 shifts them by one token for models
    without a BOS token); else ``forced``."""
    sentence_stops: bool = False
    """Let long form stop each segment at the end of its sentence, with the sentence stop strings kept in
    the text (``include_stop_str_in_output``, a vLLM server field). False (the default, for servers that
    do not take that field): segments are generated to their budget and cut to the first sentence."""
    extra_body: dict[str, Any] = Field(default_factory=dict)
    """Server-specific request fields, e.g. ``{"repeat_penalty": 1.0}`` for llama-cpp-python (its
    default 1.1 makes greedy decoding differ from the model's argmax) or ``{"skip_special_tokens": False,
    "spaces_between_special_tokens": False}`` for vLLM serving a Self-RAG model."""

    _slots: threading.BoundedSemaphore = PrivateAttr()
    _client: Any = PrivateAttr(default=None)
    _aclients: Any = PrivateAttr(default_factory=weakref.WeakKeyDictionary)
    _lock: Any = PrivateAttr(default_factory=threading.RLock)
    _vocab: dict[str, int] | None = PrivateAttr(default=None)
    _wants_chat: bool | None = PrivateAttr(default=None)
    _served_model: str | None = PrivateAttr(default=None)
    _server_context: int | None = PrivateAttr(default=None)
    _scorer: ContinuationScorer | None = PrivateAttr(default=None)
    _token_cache: RecentTokens = PrivateAttr(default_factory=RecentTokens)
    _tokenize_path: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check(self) -> OpenAICompatibleLLM:
        require_at_least(self, 1, "concurrency", "top_logprobs", "scoring_top_logprobs")
        require_at_least(self, 0, "max_retries")
        if self.timeout <= 0:
            msg = f"timeout must be > 0 seconds, got {self.timeout}"
            raise ConfigurationError(msg)
        if not self.base_url.startswith(("http://", "https://")):
            msg = f"base_url must be an http(s) URL such as http://127.0.0.1:8000/v1, got '{self.base_url}'"
            raise ConfigurationError(msg)
        self._slots = threading.BoundedSemaphore(self.concurrency)
        return self

    @property
    def _llm_type(self) -> str:
        return "selfrag-openai-compatible"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "temperature": self.temperature}

    # ----------------------------------------------------------------- clients and errors

    @property
    def client(self) -> Any:
        """The synchronous ``openai.OpenAI`` client (created at first use)."""
        if self._client is None:
            import openai

            self._client = openai.OpenAI(**self._client_kwargs())
        return self._client

    def _async_client(self) -> Any:
        """An ``openai.AsyncOpenAI`` client for the running event loop: its connections belong to one loop."""
        import openai

        loop = asyncio.get_running_loop()
        client = self._aclients.get(loop)
        if client is None:
            client = self._aclients[loop] = openai.AsyncOpenAI(**self._client_kwargs())
        return client

    def _client_kwargs(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "api_key": self.api_key.get_secret_value(), "timeout": self.timeout,
                "max_retries": self.max_retries}

    def _backend_error(self, error: Exception) -> BackendError:
        return BackendError(describe_failure(error, self.base_url, self.timeout, self.max_retries))

    def _call(self, fn: Callable[..., Any], **params: Any) -> Any:
        import openai

        with self._slots:
            try:
                return self._checked(fn(**params))
            except openai.OpenAIError as e:
                raise self._backend_error(e) from e
            except ValueError as e:  # a body that is not JSON
                raise self._malformed(f"not JSON: {e}") from e

    async def _acall(self, fn: Callable[..., Any], **params: Any) -> Any:
        import openai

        while not self._slots.acquire(blocking=False):  # one limit for threads and coroutines alike
            await asyncio.sleep(0.005)
        try:
            return self._checked(await fn(**params))
        except openai.OpenAIError as e:
            raise self._backend_error(e) from e
        except ValueError as e:  # a body that is not JSON
            raise self._malformed(f"not JSON: {e}") from e
        finally:
            self._slots.release()

    def _checked(self, response: Any) -> Any:
        """``response`` if it is what was asked for; a completion must have choices, each with text."""
        from openai.types import Completion

        if isinstance(response, str):  # the client hands back a body that is not JSON (an HTML page) as text
            raise self._malformed(f"not JSON: {response[:80]!r}")
        if not isinstance(response, Completion):
            return response
        choices = getattr(response, "choices", None)
        if not choices:
            raise self._malformed("a completion without choices")
        if any(getattr(c, "text", None) is None for c in choices):
            raise self._malformed("a completion choice without text")
        return response

    def _malformed(self, what: str) -> BackendError:
        return BackendError(f"the server at {self.base_url} returned a malformed response ({what}): is it an "
                            "OpenAI-compatible completions server? check --base-url")

    # ----------------------------------------------------------------- model, tokens, context

    @property
    def served_model(self) -> str:
        """The model name sent with each request: ``model``, else the server's first listed model."""
        if self.model is not None:
            return self.model
        with self._lock:
            if self._served_model is None:
                listing = self._call(self.client.models.list)
                models = list(listing.data)
                if not models:
                    msg = f"the server at {self.base_url} lists no models: pass model=..."
                    raise BackendError(msg)
                self._served_model = models[0].id
                extra = getattr(models[0], "model_extra", None) or {}
                self._server_context = extra.get("max_model_len")
        return self._served_model

    @property
    def context_window(self) -> int | None:
        if self.context_size is not None:
            return self.context_size
        if self.model is None:
            _ = self.served_model
        return self._server_context

    def _local_tokenizer(self) -> Any | None:
        if self.tokenizer is None:
            return None
        from selfrag_langchain.llms.model_loading import load_tokenizer

        return load_tokenizer(self.tokenizer)

    def token_ids(self, text: str) -> list[int]:
        """Token ids of ``text`` alone (no BOS), from the local tokenizer or the server's tokenize endpoint."""
        local = self._local_tokenizer()
        if local is not None:
            return self._token_cache.get(text, lambda t: local(t, add_special_tokens=False)["input_ids"])
        return self._token_cache.get(text, self._server_tokenize)

    def _server_tokenize(self, text: str) -> list[int]:
        import openai

        root = server_root(self.base_url)
        paths = [self._tokenize_path] if self._tokenize_path else ["/extras/tokenize", "/tokenize"]
        for path in paths:
            body = {"input": text} if path == "/extras/tokenize" else {
                "model": self.served_model, "prompt": text, "add_special_tokens": False}
            try:
                answer = self._call(self.client.post, path=root + path, body=body, cast_to=object)
            except BackendError as e:
                if isinstance(e.__cause__, openai.NotFoundError):
                    continue
                raise
            self._tokenize_path = path
            return [int(t) for t in answer["tokens"]]
        msg = (f"the server at {self.base_url} has no tokenize endpoint (tried {root}/extras/tokenize and "
               f"{root}/tokenize): pass tokenizer=... (--tokenizer) naming the served model's tokenizer")
        raise BackendError(msg)

    @property
    def control_tokens(self) -> tuple[str, ...]:
        """The special and added tokens of the local ``tokenizer``; () without one, where the boundary's
        patterns of the common chat templates stand in (:mod:`selfrag_langchain.text.boundary`)."""
        local = self._local_tokenizer()
        return tokenizer_control_tokens(local) if local is not None else ()

    def has_tokens(self, strings: Sequence[str]) -> bool:
        local = self._local_tokenizer()
        if local is not None:
            if self._vocab is None:
                self._vocab = local.get_vocab()
            return all(s in self._vocab for s in strings)
        return all(len(self.token_ids(s)) == 1 for s in strings)

    def count_tokens(self, text: str) -> int:
        return len(self.token_ids(text))

    def format_prompt(self, prompt: str) -> str:
        """The text sent for ``prompt``: wrapped in the local tokenizer's chat template when enabled."""
        local = self._local_tokenizer()
        if local is None:
            if self.chat_template:
                msg = "chat_template=True needs tokenizer=... (the served model's tokenizer, for its template)"
                raise ConfigurationError(msg)
            return prompt
        if self._wants_chat is None:
            self._wants_chat = use_chat_template(
                self.chat_template, has_template=getattr(local, "chat_template", None) is not None,
                has_reflection_tokens=self.has_tokens(list(TOKEN_GROUP)))
        return render_hf_chat(local, prompt) if self._wants_chat else prompt

    # ----------------------------------------------------------------- generation

    @property
    def stops_at_sentence_end(self) -> bool:
        """Whether ``stop_at_sentence_end=True`` is honoured (see ``sentence_stops``)."""
        return self.sentence_stops

    def _sentence_stop(self, kwargs: dict[str, Any]) -> bool:
        return bool(kwargs.get("stop_at_sentence_end")) and self.sentence_stops

    def _generation_params(self, prompt: str, stop: list[str] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.served_model,
            "prompt": self.format_prompt(prompt),
            "max_tokens": int(kwargs.get("max_new_tokens", self.max_new_tokens)),
            "temperature": float(kwargs.get("temperature", self.temperature)),
            "logprobs": self.top_logprobs,
        }
        extra = dict(self.extra_body)
        if self._sentence_stop(kwargs):
            stop = [*(stop or []), *SENTENCE_STOP_STRINGS]
            extra["include_stop_str_in_output"] = True
        if stop:
            params["stop"] = list(stop)
        if extra:
            params["extra_body"] = extra
        return params

    def _to_generation(self, response: Any, *, sentence: bool = False) -> Generation:
        choice = response.choices[0]
        if choice.logprobs is None or choice.logprobs.token_logprobs is None:
            raise BackendError(missing_logprobs_message(self.base_url))
        lp = choice.logprobs
        stats = stats_from_logprobs(lp.tokens or [], lp.token_logprobs, lp.top_logprobs, choice.finish_reason,
                                    text=choice.text, stop_reason=getattr(choice, "stop_reason", None),
                                    offsets=lp.text_offset, sentence=sentence)
        return Generation(text=choice.text, generation_info={INFO_KEY: stats.to_dict(),
                                                             "finish_reason": stats.finish_reason})

    def _generate(
        self,
        prompts: list[str],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> LLMResult:
        def one(prompt: str) -> Generation:
            params = self._generation_params(prompt, stop, kwargs)
            return self._to_generation(self._call(self.client.completions.create, **params),
                                       sentence=self._sentence_stop(kwargs))

        _ = self.served_model  # resolve once, before the threads
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts) or 1)) as pool:
            generations = list(pool.map(one, prompts))
        return LLMResult(generations=[[g] for g in generations])

    async def _agenerate(
        self,
        prompts: list[str],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> LLMResult:
        client = self._async_client()
        if self.model is None and self._served_model is None:
            await asyncio.to_thread(lambda: self.served_model)

        async def one(prompt: str) -> Generation:
            params = self._generation_params(prompt, stop, kwargs)
            return self._to_generation(await self._acall(client.completions.create, **params),
                                       sentence=self._sentence_stop(kwargs))

        generations = await asyncio.gather(*(one(p) for p in prompts))
        return LLMResult(generations=[[g] for g in generations])

    # ----------------------------------------------------------------- scoring fixed continuations

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        """Total log-probability of each continuation given its prompt (see ``continuation_scoring``)."""
        if not requests:
            return []
        scorer = self.scorer
        scorer.mode()  # probe once, before the requests run in parallel
        prompts = [self.format_prompt(r.prompt) if r.chat else r.prompt for r in requests]
        score = scorer.score
        jobs = [(prompt, req.continuations) for prompt, req in zip(prompts, requests, strict=True)]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(jobs))) as pool:
            return list(pool.map(lambda job: score(*job), jobs))

    @property
    def scorer(self) -> ContinuationScorer:
        """How this server's label likelihoods are read (:mod:`selfrag_langchain.llms.openai_scoring`)."""
        with self._lock:
            if self._scorer is None:
                self._scorer = ContinuationScorer(self._completion, self.token_ids, base_url=self.base_url,
                                                  top_logprobs=self.scoring_top_logprobs,
                                                  mode=self.continuation_scoring)
            return self._scorer

    def scoring_mode(self) -> str:
        """``echo`` or ``forced``; with ``auto`` the server is probed once."""
        return self.scorer.mode()

    def _completion(self, **params: Any) -> Any:
        base: dict[str, Any] = {"model": self.served_model, "temperature": 0.0}
        if self.extra_body:
            base["extra_body"] = dict(self.extra_body)
        return self._call(self.client.completions.create, **base, **params)


# --------------------------------------------------------------------- pure helpers


def stats_from_logprobs(
    tokens: Sequence[str],
    token_logprobs: Sequence[float | None],
    top_logprobs: Sequence[dict[str, float] | None] | None,
    finish_reason: str | None,
    *,
    text: str | None = None,
    stop_reason: Any = None,
    offsets: Sequence[int] | None = None,
    sentence: bool = False,
) -> GenerationStats:
    """:class:`GenerationStats` from a completions response's ``logprobs`` object.

    A reading is taken wherever a generated token is a reflection token, from that position's top
    log-probabilities plus the token's own (always returned). With the ``text``, each token's
    log-probability and end in it are kept (from the ``text_offset`` of the next token, else from the
    token strings), so a segment cut out of the text gets its own sequence term. A generation asked to
    stop at a ``sentence`` end and stopped by a sentence stop string (the server's ``stop_reason``)
    finishes with ``sentence``.
    """
    readings = []
    for index, token in enumerate(tokens):
        if token not in TOKEN_GROUP:
            continue
        seen = dict((top_logprobs[index] or {}) if top_logprobs and index < len(top_logprobs) else {})
        own = token_logprobs[index]
        if own is not None:
            seen[token] = own
        reading = reading_at(index, token, seen)
        if reading is not None:
            readings.append(reading)
    chosen = [float(lp) for lp in token_logprobs if lp is not None]
    finish = "length" if finish_reason == "length" else "stop"
    if sentence and finish == "stop" and stop_reason in SENTENCE_STOP_STRINGS:
        finish = "sentence"
    extra: dict[str, Any] = {}
    if text is not None and len(chosen) == len(tokens):
        extra = per_token(chosen, tokens, text)
        if offsets is not None and len(offsets) == len(tokens) and tokens:
            ends = [min(max(offsets[i + 1] - offsets[0], 0), len(text)) for i in range(len(tokens) - 1)]
            extra["token_ends"] = (*ends, len(text))
    return GenerationStats(num_tokens=len(tokens), sum_logprob=math.fsum(chosen), readings=tuple(readings),
                           finish_reason=finish, **extra)


def server_root(base_url: str) -> str:
    """The server's root URL: ``base_url`` without its trailing ``/v1``."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def describe_failure(error: Exception, base_url: str, timeout: float, retries: int) -> str:
    """One line saying what went wrong with a request to ``base_url`` and what to do about it."""
    import openai

    tried = f"after {retries} retr{'y' if retries == 1 else 'ies'}"
    if isinstance(error, openai.APITimeoutError):
        return f"the server at {base_url} did not answer within {timeout:g} s ({tried}): raise --timeout or check it"
    if isinstance(error, openai.APIConnectionError):
        return f"cannot reach the server at {base_url} ({tried}): is it running? check --base-url"
    if isinstance(error, openai.APIStatusError):
        detail = _error_detail(error)
        if error.status_code == 429:
            return f"the server at {base_url} kept refusing with HTTP 429 (rate limit) {tried}: lower --concurrency"
        if error.status_code >= 500:
            return f"the server at {base_url} failed with HTTP {error.status_code} {tried}: {detail}"
        return f"the server at {base_url} rejected the request with HTTP {error.status_code}: {detail}"
    return f"request to the server at {base_url} failed: {error}"


def _error_detail(error: Any) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return str(inner.get("message") or inner.get("detail") or inner)
        return str(body.get("detail") or inner)
    return str(getattr(error, "message", error))
