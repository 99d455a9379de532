"""The public names users import exist where the README says."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("module", ["selfrag_langchain", "selfrag_langchain.llms", "selfrag_langchain.chains",
                                    "selfrag_langchain.retrievers"])
def test_public_names_import(module: str) -> None:
    mod = importlib.import_module(module)
    assert mod.__all__
    for name in mod.__all__:
        assert getattr(mod, name) is not None


def test_top_level_exports() -> None:
    import selfrag_langchain

    assert {"SelfRAG", "SelfRAGResult", "TransformersLLM", "InlineReflector", "CriticReflector"} <= set(
        selfrag_langchain.__all__)


def test_trainer_is_installed_under_the_package() -> None:
    from selfrag_langchain.trainer.vocabulary import add_reflection_tokens

    assert callable(add_reflection_tokens)
