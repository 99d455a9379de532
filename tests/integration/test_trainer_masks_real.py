"""Loss masks with SmolLM2's real tokenizer (reflection tokens added): exact prompt boundary, passages out."""

from __future__ import annotations

import pytest

from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.trainer.masks import IGNORE_INDEX, generator_example, hf_encoder

pytestmark = pytest.mark.slow

PROMPT = "### Instruction:\nWho wrote Hamlet?\n\n### Response:\n"
OUTPUT = ("[Retrieval]<paragraph>Hamlet\nA play that mentions [Relevant] and </paragraph>[Relevant]Shakespeare wrote "
          "it.[Fully supported][Retrieval]<paragraph>Stratford\nHis home town.</paragraph>[Irrelevant]He was born "
          "there.[Utility:5]")


def test_real_tokenizer_masks(smollm2_with_tokens: TransformersLLM) -> None:
    tokenizer = smollm2_with_tokens.tokenizer
    example = generator_example(hf_encoder(tokenizer), PROMPT, OUTPUT, tokenizer.eos_token_id)
    prompt_ids = tokenizer(PROMPT, add_special_tokens=False)["input_ids"]
    # The sequence is what inference sees: the prompt as the backend encodes it, then the output's tokens.
    assert example.input_ids[: len(prompt_ids)] == prompt_ids
    assert tokenizer.decode(example.input_ids[len(prompt_ids):-1]) == OUTPUT
    trained = tokenizer.decode([t for t in example.labels if t != IGNORE_INDEX])
    # A passage ends at its first </paragraph>: the "[Relevant] and " inside it is masked with it.
    assert trained == ("[Retrieval]<paragraph>[Relevant]Shakespeare wrote it.[Fully supported][Retrieval]<paragraph>"
                       "[Irrelevant]He was born there.[Utility:5]" + tokenizer.eos_token)
    vocab = tokenizer.get_vocab()
    assert sum(1 for t in example.labels if t == vocab["[Relevant]"]) == 1
