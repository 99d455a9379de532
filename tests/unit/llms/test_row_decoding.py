"""Row-by-row greedy decoding writes what ``generate`` writes over a padded batch, and drops finished rows."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from selfrag_langchain.llms.row_decoding import decode_rows  # noqa: E402

VOCAB, PAD, EOS = 64, 0, 1


@pytest.fixture(scope="module")
def model() -> Any:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                                      pad_token_id=PAD, eos_token_id=EOS, bos_token_id=2)
    return transformers.LlamaForCausalLM(config).eval()


def _read(model: Any) -> Any:
    return lambda ids: model(torch.tensor([ids]), use_cache=True, logits_to_keep=1)


def _prompts(*lengths: int) -> list[list[int]]:
    generator = torch.Generator().manual_seed(sum(lengths))
    return [torch.randint(3, VOCAB, (n,), generator=generator).tolist() for n in lengths]


def _generate(model: Any, prompts: list[list[int]], max_new: int, stopping: Any = None) -> list[list[int]]:
    """What transformers' ``generate`` writes for each prompt in one left-padded batch, without the pads."""
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[PAD] * (width - len(p)) + p for p in prompts])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    with torch.inference_mode():
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=max_new, do_sample=False,
                             pad_token_id=PAD, eos_token_id=EOS, stopping_criteria=stopping)
    rows = []
    for row in out[:, width:].tolist():
        end = row.index(EOS) + 1 if EOS in row else len(row)
        rows.append(row[:end])
    return rows


def test_rows_write_what_a_padded_batch_writes(model: Any) -> None:
    prompts = _prompts(5, 17, 9, 30)
    rows = decode_rows(model, _read(model), prompts, max_new_tokens=12, eos_ids={EOS}, reflection_ids=[3, 4],
                       pad_id=PAD)
    assert [r.tokens for r in rows] == _generate(model, prompts, 12)
    for prompt, row in zip(prompts, rows, strict=True):  # each token's log-probability, read from a plain forward
        with torch.inference_mode():
            logprobs = torch.log_softmax(model(torch.tensor([prompt + row.tokens])).logits[0], -1)
        at = range(len(prompt) - 1, len(prompt) - 1 + len(row.tokens))
        assert row.chosen == pytest.approx([float(logprobs[i, t]) for i, t in zip(at, row.tokens, strict=True)],
                                           abs=1e-4)
        assert row.groups[0] == pytest.approx([float(logprobs[len(prompt) - 1, t]) for t in (3, 4)], abs=1e-4)


class _StopAfter:
    """A stopping criterion: a row is done once it has written ``after[row's first prompt token]`` tokens."""

    def __init__(self, width: int, after: dict[int, int]) -> None:
        self.width, self.after = width, after

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        written = input_ids.shape[1] - self.width
        return torch.tensor([written >= self.after[int(row[self.width - 1])] for row in input_ids])


def test_a_finished_row_leaves_the_batch(model: Any) -> None:
    prompts = _prompts(6, 11, 8)
    width = max(len(p) for p in prompts)
    after = {p[-1]: n for p, n in zip(prompts, (2, 7, 4), strict=True)}
    batches: list[int] = []
    hook = model.model.embed_tokens.register_forward_hook(lambda module, args, out: batches.append(out.shape[0]))
    try:
        rows = decode_rows(model, _read(model), prompts, max_new_tokens=10, eos_ids=set(), reflection_ids=[3],
                           pad_id=PAD, stopping=[_StopAfter(width, after)])
    finally:
        hook.remove()
    assert [len(r.tokens) for r in rows] == [2, 7, 4]
    padded = _generate(model, prompts, 10, [_StopAfter(width, after)])  # a stopped row goes on with pads
    assert [row[: len(r.tokens)] for row, r in zip(padded, rows, strict=True)] == [r.tokens for r in rows]
    assert all(set(row[len(r.tokens) :]) <= {PAD} for row, r in zip(padded, rows, strict=True))
    # each prompt read alone, then one pass a token for the rows still writing: 3 rows, then 2, then 1
    assert batches == [1, 1, 1, 3, 2, 2, 1, 1, 1]


def test_processors_choose_the_token_and_leave_the_log_probabilities(model: Any) -> None:
    prompts = _prompts(7, 4)
    free = decode_rows(model, _read(model), prompts, max_new_tokens=3, eos_ids=set(), reflection_ids=[3], pad_id=PAD)

    def ban_first_choice(ids: Any, scores: Any) -> Any:
        banned = scores.clone()
        banned[torch.arange(len(ids)), scores.argmax(-1)] = -float("inf")
        return banned

    guarded = decode_rows(model, _read(model), prompts, max_new_tokens=3, eos_ids=set(), reflection_ids=[3],
                          pad_id=PAD, processors=[ban_first_choice])
    for f, g in zip(free, guarded, strict=True):
        assert g.tokens[0] != f.tokens[0]
        assert g.groups[0] == pytest.approx(f.groups[0])  # the same logits at the first step, read unchanged
        assert g.chosen[0] < f.chosen[0]  # the second-best token is less likely than the best


def test_nothing_to_write() -> None:
    assert decode_rows(None, lambda ids: None, [], max_new_tokens=4, eos_ids={EOS}, reflection_ids=[], pad_id=PAD) == []
    rows = decode_rows(None, lambda ids: None, [[5, 6]], max_new_tokens=0, eos_ids={EOS}, reflection_ids=[], pad_id=PAD)
    assert [r.tokens for r in rows] == [[]]


@pytest.mark.parametrize(("setting", "value", "row_by_row"),
                         [(None, None, True), ("repetition_penalty", 1.0, True), ("suppress_tokens", [], True),
                          ("repetition_penalty", 1.3, False), ("no_repeat_ngram_size", 3, False),
                          ("bad_words_ids", [[5]], False), ("min_new_tokens", 4, False)])
def test_a_generation_config_that_shapes_the_choice_keeps_generate(model: Any, setting: str | None, value: Any,
                                                                   row_by_row: bool) -> None:
    """What a checkpoint's generation config sets, ``generate`` applies and the rows would not: such a model is
    decoded through ``generate``."""
    from selfrag_langchain.llms.transformers import _decodes_row_by_row

    original = model.generation_config
    model.generation_config = transformers.GenerationConfig(**({setting: value} if setting else {}))
    try:
        assert _decodes_row_by_row(model) is row_by_row
    finally:
        model.generation_config = original
