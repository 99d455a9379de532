"""A pytest plugin (``-p tests.fakes.echo_backend``) under which the real generator echoes the question: every
``TransformersLLM`` generation is the question its prompt asks, and nothing stands between that echo and
the answer (no quote replaces it, no decline takes its place).

``tests/integration/test_answer_checks.py`` runs the real-model answer tests under it and expects each to fail
on the echo: a check that a model repeating the question passes proves nothing about the answer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REFLECTION_LOGPROB = -30.0
"""What the echo gives every reflection token at every step: none is chosen."""


def echo_of(prompt: str) -> str:
    """The question a generation prompt asks (RAG prompts' ``Question:`` line, the Self-RAG prompt's
    instruction), else its last line."""
    asked = re.findall(r"Question: (.+)", prompt) or re.findall(r"### Instruction:\n(.+?)\n\n", prompt, re.S)
    lines = [line for line in prompt.splitlines() if line.strip()]
    return (asked[-1] if asked else lines[-1] if lines else "").strip()


def install() -> pytest.MonkeyPatch:
    """Make every generation an echo of its question, with no quote and no decline in its way; the patch,
    to undo."""
    from selfrag_langchain.chains import short_form
    from selfrag_langchain.chains.beam import BeamSearch
    from selfrag_langchain.chains.quotes import PassageQuoter
    from selfrag_langchain.llms.transformers import TransformersLLM

    patch = pytest.MonkeyPatch()

    def echo_batch(self: TransformersLLM, prompts: list[str], stop: list[str] | None, **kwargs: Any) -> list[Any]:
        max_new = int(kwargs.get("max_new_tokens", self.max_new_tokens))
        width = len(self.reflection_ids())
        made = []
        for prompt in prompts:
            ids = self.tokenizer(echo_of(prompt), add_special_tokens=False)["input_ids"][:max_new]
            made.append(self._to_generation(ids, [0.0] * len(ids), [[REFLECTION_LOGPROB] * width] * len(ids),
                                            stop, max_new))
        return made

    def no_quotes(self: PassageQuoter, question: str, pairs: list[Any], **kwargs: Any) -> list[None]:
        return [None] * len(pairs)

    async def no_quotes_async(self: PassageQuoter, question: str, pairs: list[Any], **kwargs: Any) -> list[None]:
        return [None] * len(pairs)

    patch.setattr(TransformersLLM, "_generate_batch", echo_batch)
    patch.setattr(PassageQuoter, "find", no_quotes)
    patch.setattr(PassageQuoter, "afind", no_quotes_async)
    patch.setattr(short_form, "declines", lambda *args, **kwargs: False)  # short form's answer stands
    patch.setattr(BeamSearch, "_grounded", lambda self, node: True)  # and long form's
    return patch


SITE = Path(__file__).parent / "echo_site"
"""A ``sitecustomize`` that installs the echo in the Python processes the tests start (servers, scripts)."""


@pytest.fixture(autouse=True, scope="session")
def _echo_backend() -> Iterator[None]:
    patch = install()
    root = str(Path(__file__).resolve().parents[2])
    patch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(SITE), root, os.environ.get("PYTHONPATH")) if p))
    patch.setenv("SELFRAG_ECHO_BACKEND", "1")
    yield
    patch.undo()
