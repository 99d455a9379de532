"""When a backend wraps prompts in the model's chat template, decided the same way by every backend."""

from __future__ import annotations

from typing import Any


def use_chat_template(setting: bool | None, *, has_template: bool, has_reflection_tokens: bool) -> bool:
    """Whether prompts are wrapped in the chat template.

    ``setting`` True or False decides. None (the default of every backend): only for a model that has a
    template and lacks the reflection tokens, i.e. an instruct model used as plain generator or critic;
    a Self-RAG model reads its own prompt format unwrapped.
    """
    if setting is not None:
        return setting
    return has_template and not has_reflection_tokens


def render_hf_chat(tokenizer: Any, prompt: str) -> str:
    """``prompt`` as one user turn in a Hugging Face tokenizer's chat template, ready for the answer."""
    messages = [{"role": "user", "content": prompt}]
    return str(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
