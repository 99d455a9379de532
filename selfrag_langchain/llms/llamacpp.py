"""llama.cpp in process (``llama-cpp-python``): GGUF models, quantised, on a laptop's CPU or a GPU.

The backend drives decoding itself, one token at a time over llama.cpp's logits, so it sees the full
next-token distribution at every position: group readings are exact, and the probability read at a
position is the one the model gave there (llama-cpp-python's own echo log-probabilities are shifted by
one token for models without a BOS token). The key/value cache of the longest common token prefix with
the previous call is kept, so branches and critic prompts that share a question or passage read it once.
"""

from __future__ import annotations

import atexit
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.outputs import Generation, LLMResult
from pydantic import Field, PrivateAttr, model_validator

from selfrag_langchain.errors import BackendError, ConfigurationError, ModelLoadError
from selfrag_langchain.llms.backend import ReflectiveBackend
from selfrag_langchain.llms.base import (
    INFO_KEY,
    ContinuationRequest,
    GenerationStats,
    GroupReading,
    reading_at,
    require_at_least,
)
from selfrag_langchain.llms.chat_templates import use_chat_template
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL, gguf_path
from selfrag_langchain.text.sentences import sentence_finished
from selfrag_langchain.tokens import GROUP_TOKENS, TOKEN_GROUP

_LOCK = threading.Lock()


@dataclass
class _Shared:
    """One loaded model, shared by every instance with the same settings."""

    llama: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    """A llama.cpp context serves one call at a time."""
    evaluated: list[int] = field(default_factory=list)
    """The tokens this backend last evaluated: the context's cache is reused only while it still holds them."""


_LOADED: dict[tuple[Any, ...], _Shared] = {}


@atexit.register
def _close_loaded() -> None:
    """Free the loaded models before the interpreter tears down: llama-cpp-python's own finaliser then
    finds its module globals gone and prints a traceback."""
    with _LOCK:
        for shared in _LOADED.values():
            shared.llama.close()
        _LOADED.clear()


class LlamaCppLLM(ReflectiveBackend):
    """A GGUF model run in process with llama.cpp, reporting exact token probabilities.

    Setup:
        .. code-block:: bash

            pip install "selfrag-langchain[llamacpp]"

    Instantiate:
        .. code-block:: python

            from selfrag_langchain.llms.llamacpp import LlamaCppLLM

            llm = LlamaCppLLM()  # SmolLM2-135M-Instruct Q4_1, the embedded default
            llm = LlamaCppLLM(model="/models/selfrag_llama2_7b.Q4_K_M.gguf", n_ctx=4096, n_gpu_layers=-1)

    Invoke:
        .. code-block:: python

            llm.invoke("What is the capital of France?")
            result = llm.generate(["prompt one", "prompt two"])
            result.generations[0][0].generation_info["selfrag"]["readings"]
    """

    model: str = Field(default=DEFAULT_MODEL, alias="model_name")
    """A ``.gguf`` file, or ``smollm2-135m-instruct`` (the embedded default's GGUF)."""
    n_ctx: int = 2048
    """Context window in tokens (prompt plus generation). llama.cpp keeps the logits of every position
    (n_ctx x vocabulary floats: 400 MB for SmolLM2 at 2048), which exact readings need."""
    n_threads: int | None = None
    """CPU threads; None: llama.cpp's default."""
    n_gpu_layers: int = 0
    """Layers offloaded to a GPU (-1: all) when llama.cpp was built with GPU support."""
    n_batch: int = 512
    """Prompt tokens evaluated per llama.cpp batch."""
    seed: int = 0
    """Seed of the sampler when ``temperature`` > 0."""

    _shared: Any = PrivateAttr(default=None)
    _reflection_ids: dict[int, str] | None = PrivateAttr(default=None)
    _control_tokens: tuple[str, ...] | None = PrivateAttr(default=None)
    _formatter: Any = PrivateAttr(default=None)
    _rng: Any = PrivateAttr(default=None)

    stops_at_sentence_end: ClassVar[bool] = True
    """Takes ``stop_at_sentence_end=True``: generation stops once the first sentence has ended (pysbd)."""

    @model_validator(mode="after")
    def _check(self) -> LlamaCppLLM:
        require_at_least(self, 1, "n_ctx", "n_batch")
        return self

    @property
    def _llm_type(self) -> str:
        return "selfrag-llamacpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model, "n_ctx": self.n_ctx, "n_gpu_layers": self.n_gpu_layers}

    # ----------------------------------------------------------------- loading and vocabulary

    def load(self) -> LlamaCppLLM:
        """Load the model now rather than at the first call (shared with instances of the same settings)."""
        if self._shared is None:
            self._shared = _load(str(gguf_path(self.model)), self.n_ctx, self.n_threads, self.n_gpu_layers,
                                 self.n_batch)
        return self

    @property
    def llama(self) -> Any:
        """The ``llama_cpp.Llama`` object (loaded at first use)."""
        return self.load()._shared.llama

    @property
    def context_window(self) -> int | None:
        return int(self.llama.n_ctx())

    def _tokenize(self, text: str) -> list[int]:
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _detokenize(self, ids: Sequence[int]) -> str:
        return bytes(self.llama.detokenize(list(ids), special=True)).decode("utf-8", errors="replace")

    def reflection_ids(self) -> dict[int, str]:
        """Token id -> reflection token string, for the reflection tokens the vocabulary has."""
        if self._reflection_ids is None:
            found = {}
            for token in TOKEN_GROUP:
                ids = self._tokenize(token)
                if len(ids) == 1 and self._detokenize(ids) == token:
                    found[ids[0]] = token
            self._reflection_ids = found
        return self._reflection_ids

    @property
    def control_tokens(self) -> tuple[str, ...]:
        """The vocabulary's control and user-defined tokens: what tokenizing with ``special=True`` turns into
        one id (:mod:`selfrag_langchain.text.boundary` removes them from untrusted text)."""
        if self._control_tokens is None:
            self._control_tokens = gguf_control_tokens(self.llama._model)
        return self._control_tokens

    def has_tokens(self, strings: Sequence[str]) -> bool:
        known = set(self.reflection_ids().values())
        return all(s in known or len(self._tokenize(s)) == 1 for s in strings)

    def count_tokens(self, text: str) -> int:
        return len(self._tokenize(text))

    def format_prompt(self, prompt: str) -> str:
        """The text the model reads for ``prompt``: the GGUF's chat template applied if enabled."""
        template = self.llama.metadata.get("tokenizer.chat_template")
        wanted = use_chat_template(self.chat_template, has_template=template is not None,
                                   has_reflection_tokens=len(self.reflection_ids()) == len(TOKEN_GROUP))
        if not wanted:
            return prompt
        if template is None:
            msg = f"chat_template=True, but {self.model} has no chat template in its metadata"
            raise ConfigurationError(msg)
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            llama = self.llama
            self._formatter = Jinja2ChatFormatter(template, eos_token=self._detokenize([llama.token_eos()]),
                                                  bos_token=self._detokenize([llama.token_bos()]))
        return str(self._formatter(messages=[{"role": "user", "content": prompt}]).prompt)

    def _prompt_ids(self, text: str) -> list[int]:
        ids = self._tokenize(text)
        bos = self.llama.token_bos()
        if self.llama.metadata.get("tokenizer.ggml.add_bos_token") == "true" and bos >= 0 and ids[:1] != [bos]:
            ids = [bos, *ids]
        if not ids:
            msg = "llama.cpp needs a non-empty prompt"
            raise ValueError(msg)
        return ids

    # ----------------------------------------------------------------- evaluation

    def _feed(self, ids: list[int]) -> Any:
        """Evaluate ``ids`` on top of the cached common prefix; return the logits after each of them.

        Row ``i`` of the result is the model's next-token logits after ``ids[: i + 1]`` (llama.cpp keeps
        every position's logits: ``logits_all``).
        """
        llama, shared = self.llama, self._shared
        if len(ids) > llama.n_ctx():
            msg = f"{len(ids)} tokens do not fit the context window of {llama.n_ctx()} (raise n_ctx)"
            raise BackendError(msg)
        cached = llama.input_ids[: llama.n_tokens].tolist()
        if cached != shared.evaluated:  # someone else used the context (e.g. create_completion): start over
            cached = []
        common = _common_prefix_len(cached, ids)
        if common == len(ids):  # everything cached: the logits of every position are still there
            llama.n_tokens = len(ids)
        else:
            llama.n_tokens = common
            llama.eval(ids[common:])
        shared.evaluated = list(ids)
        return llama.scores[: len(ids)]

    def _is_end(self, token: int) -> bool:
        import llama_cpp

        return bool(llama_cpp.llama_vocab_is_eog(llama_cpp.llama_model_get_vocab(self.llama.model), token))

    # ----------------------------------------------------------------- generation

    def _generate(
        self,
        prompts: list[str],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> LLMResult:
        max_new = int(kwargs.get("max_new_tokens", self.max_new_tokens))
        temperature = float(kwargs.get("temperature", self.temperature))
        self.load()
        with self._shared.lock:
            sentence = bool(kwargs.get("stop_at_sentence_end"))
            generations = [[self._generate_one(p, stop, max_new, temperature, sentence)] for p in prompts]
        return LLMResult(generations=generations)

    def _generate_one(self, prompt: str, stop: list[str] | None, max_new: int, temperature: float,
                      sentence: bool = False) -> Generation:
        import numpy as np

        ids = self._prompt_ids(self.format_prompt(prompt))
        max_new = min(max_new, self.llama.n_ctx() - len(ids))
        if max_new < 1:
            msg = f"the prompt of {len(ids)} tokens leaves no room in the context window of {self.llama.n_ctx()}"
            raise BackendError(msg)
        reflection = self.reflection_ids()
        out: list[int] = []
        chosen: list[float] = []
        ends: list[int] = []
        readings: list[GroupReading] = []
        finish, text = "length", ""
        row = self._feed(ids)[-1]
        for _ in range(max_new):
            logprobs = log_softmax(row)
            token = int(np.argmax(logprobs)) if temperature == 0 else self._sample(logprobs, temperature)
            if self._is_end(token):
                finish = "stop"
                break
            out.append(token)
            chosen.append(float(logprobs[token]))
            if token in reflection:
                reading = exact_reading(len(out) - 1, reflection[token], logprobs, reflection)
                if reading is not None:
                    readings.append(reading)
            text = self._detokenize(out)
            ends.append(max(len(text), ends[-1] if ends else 0))
            if stop and any(s in text for s in stop):
                text = text[: min(text.find(s) for s in stop if s in text)]
                finish = "stop"
                break
            if sentence and sentence_finished(text):
                finish = "sentence"
                break
            if len(out) < max_new:
                row = self._feed(ids + out)[-1]
        stats = GenerationStats(num_tokens=len(out), sum_logprob=math.fsum(chosen), readings=tuple(readings),
                                finish_reason=finish, token_logprobs=tuple(chosen),
                                token_ends=tuple(min(e, len(text)) for e in ends)).upto(len(text))
        return Generation(text=text, generation_info={INFO_KEY: stats.to_dict(), "finish_reason": finish})

    def _sample(self, logprobs: Any, temperature: float) -> int:
        import numpy as np

        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        tempered = logprobs / temperature
        probs = np.exp(tempered - tempered.max())
        return int(self._rng.choice(len(probs), p=probs / probs.sum()))

    # ----------------------------------------------------------------- scoring fixed continuations

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        """Total log-probability of each continuation; each prompt is read once (its cache is kept while
        its continuations are scored, and a prefix shared with the previous prompt is not read again)."""
        self.load()
        results: list[list[float]] = []
        with self._shared.lock:
            for req in requests:
                ids = self._prompt_ids(self.format_prompt(req.prompt) if req.chat else req.prompt)
                last = log_softmax(self._feed(ids)[-1])
                scores = []
                for continuation in req.continuations:
                    cont = self._tokenize(continuation)
                    if not cont:
                        scores.append(0.0)
                        continue
                    total = float(last[cont[0]])
                    if len(cont) > 1:
                        rows = self._feed(ids + cont[:-1])[len(ids):]
                        total += sum(float(log_softmax(rows[j - 1])[cont[j]]) for j in range(1, len(cont)))
                    scores.append(total)
                results.append(scores)
        return results


def _load(path: str, n_ctx: int, n_threads: int | None, n_gpu_layers: int, n_batch: int) -> _Shared:
    """Load (or reuse) a llama.cpp model with the logits of every position kept (``logits_all``)."""
    key = (path, n_ctx, n_threads, n_gpu_layers, n_batch)
    with _LOCK:
        if key not in _LOADED:
            try:
                from llama_cpp import Llama
            except ImportError as e:
                msg = "the llamacpp backend needs llama-cpp-python: pip install 'selfrag-langchain[llamacpp]'"
                raise ModelLoadError(msg) from e
            try:
                llama = Llama(model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_gpu_layers=n_gpu_layers,
                              n_batch=n_batch, logits_all=True, verbose=False)
            except (ValueError, RuntimeError) as e:
                msg = f"llama.cpp could not load {path}: {e}"
                raise ModelLoadError(msg) from e
            _LOADED[key] = _Shared(llama)
        return _LOADED[key]


def gguf_control_tokens(model: Any) -> tuple[str, ...]:
    """The text of every token a llama.cpp vocabulary marks control or user-defined (``model``: the
    ``llama_cpp._internals.LlamaModel`` of a loaded ``Llama``)."""
    import llama_cpp

    wanted = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
    found = {model.token_get_text(i) for i in range(model.n_vocab()) if model.token_get_attr(i) & wanted}
    return tuple(sorted(t for t in found if t.strip() and not t.strip().isalnum()))


def log_softmax(row: Any) -> Any:
    """Log-probabilities from one row of logits, in float64."""
    import numpy as np

    values = np.asarray(row, dtype=np.float64)
    top = values.max()
    return values - (top + math.log(float(np.exp(values - top).sum())))


def exact_reading(index: int, token: str, logprobs: Any, reflection_ids: dict[int, str]) -> GroupReading | None:
    """The group reading at a generated reflection token, from the full next-token log-probabilities."""
    group = TOKEN_GROUP[token]
    wanted = set(GROUP_TOKENS[group])
    seen = {tok: float(logprobs[i]) for i, tok in reflection_ids.items() if tok in wanted}
    return reading_at(index, token, seen)


def _common_prefix_len(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n
