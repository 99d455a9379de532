"""Loss masks on hand-made token sequences: the prompt, each passage, and nothing else is masked."""

from __future__ import annotations

import pytest

from selfrag_langchain.trainer.collators import PaddingCollator
from selfrag_langchain.trainer.masks import IGNORE_INDEX, critic_example, generator_example, masked_spans
from tests.fakes.char_tokenizer import EOS, CharTokenizer


@pytest.fixture
def tok() -> CharTokenizer:
    return CharTokenizer()


PROMPT = "### Instruction:\nWho?\n\n### Response:\n"


def test_critic_example_trains_the_label_only(tok: CharTokenizer) -> None:
    example = critic_example(tok.encode, PROMPT, "[Relevant]")
    prompt_len = len(tok.encode(PROMPT)[0])
    assert example.labels[:prompt_len] == [IGNORE_INDEX] * prompt_len
    assert tok.trained_text(example.labels) == "[Relevant]"
    assert example.trained_tokens == 1
    assert tok.decode(example.input_ids) == PROMPT + "[Relevant]"


def test_critic_example_with_a_plain_text_label(tok: CharTokenizer) -> None:
    example = critic_example(tok.encode, PROMPT, "Utility: 5")
    assert tok.trained_text(example.labels) == "Utility: 5"
    assert example.labels[len(tok.encode(PROMPT)[0])] != IGNORE_INDEX


def test_critic_example_refuses_an_empty_label(tok: CharTokenizer) -> None:
    with pytest.raises(ValueError, match="non-empty label"):
        critic_example(tok.encode, PROMPT, "")


def test_each_passage_is_masked_separately(tok: CharTokenizer) -> None:
    output = ("[Retrieval]<paragraph>Title one\nfirst passage</paragraph>[Relevant]Answer one.[Fully supported]"
              "[Retrieval]<paragraph>second passage</paragraph>[Irrelevant]Answer two.[Utility:5]")
    example = generator_example(tok.encode, PROMPT, output, EOS)
    assert tok.trained_text(example.labels) == (
        "[Retrieval]<paragraph>[Relevant]Answer one.[Fully supported][Retrieval]<paragraph>[Irrelevant]Answer two."
        "[Utility:5]<eos>")
    # The answer and tokens between the passages are trained (the reference masks first-to-last passage).
    assert "[Fully supported][Retrieval]" in tok.trained_text(example.labels)


def test_prompt_boundary_is_exact(tok: CharTokenizer) -> None:
    output = "[No Retrieval]Paris.[Utility:4]"
    example = generator_example(tok.encode, PROMPT, output, EOS)
    prompt_len = len(tok.encode(PROMPT)[0])
    assert example.labels[:prompt_len] == [IGNORE_INDEX] * prompt_len
    assert example.labels[prompt_len] == tok.vocab["[No Retrieval]"]
    assert example.input_ids[prompt_len:] == example.labels[prompt_len:]


def test_token_strings_inside_a_passage_are_masked_with_it(tok: CharTokenizer) -> None:
    output = "[Retrieval]<paragraph>a page that says [Relevant] and [Utility:5]</paragraph>[Relevant]Yes.[Utility:5]"
    example = generator_example(tok.encode, PROMPT, output, EOS)
    assert tok.trained_text(example.labels) == "[Retrieval]<paragraph>[Relevant]Yes.[Utility:5]<eos>"
    masked = [i for i, label in zip(example.input_ids, example.labels, strict=True) if label == IGNORE_INDEX]
    assert tok.vocab["[Relevant]"] in masked  # the passage's copy, not the judgement after it


def test_unclosed_passage_is_masked_to_the_end(tok: CharTokenizer) -> None:
    output = "[Retrieval]<paragraph>cut off passage"
    example = generator_example(tok.encode, PROMPT, output, None)
    assert tok.trained_text(example.labels) == "[Retrieval]<paragraph>"
    assert masked_spans(output) == [(len("[Retrieval]<paragraph>"), len(output))]


def test_output_without_passages_is_fully_trained(tok: CharTokenizer) -> None:
    output = "[No Retrieval]1\n****\n[Utility:5]"
    example = generator_example(tok.encode, PROMPT, output, EOS)
    assert tok.trained_text(example.labels) == output + "<eos>"


def test_truncation_keeps_ids_and_labels_aligned(tok: CharTokenizer) -> None:
    example = generator_example(tok.encode, PROMPT, "[No Retrieval]A long answer.[Utility:5]", EOS)
    cut = example.truncated(len(tok.encode(PROMPT)[0]) + 3)
    assert len(cut.input_ids) == len(cut.labels) == len(tok.encode(PROMPT)[0]) + 3
    assert tok.trained_text(cut.labels) == "[No Retrieval]A "


def test_collator_pads_right_and_ignores_padding() -> None:
    batch = PaddingCollator(pad_id=7)([
        {"input_ids": [1, 2, 3], "labels": [IGNORE_INDEX, 2, 3]},
        {"input_ids": [4], "labels": [4]},
    ])
    assert batch["input_ids"].tolist() == [[1, 2, 3], [4, 7, 7]]
    assert batch["labels"].tolist() == [[IGNORE_INDEX, 2, 3], [4, IGNORE_INDEX, IGNORE_INDEX]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
