"""The public names users import exist where the README says."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest


@pytest.mark.parametrize("module", ["selfrag_langchain", "selfrag_langchain.llms", "selfrag_langchain.chains",
                                    "selfrag_langchain.retrievers", "selfrag_langchain.judging",
                                    "selfrag_langchain.pipeline"])
def test_public_names_import(module: str) -> None:
    mod = importlib.import_module(module)
    assert mod.__all__
    assert len(set(mod.__all__)) == len(mod.__all__), "a name listed twice"
    for name in mod.__all__:
        value = getattr(mod, name)  # AttributeError for a listed name the module does not define
        if isinstance(value, type) or callable(value):  # defined in the package, not a third party's re-export
            assert value.__module__.startswith("selfrag_langchain"), f"{module}.{name} comes from {value.__module__}"


def test_top_level_exports() -> None:
    import selfrag_langchain

    assert {"SelfRAG", "SelfRAGResult", "TransformersLLM", "InlineReflector", "CriticReflector",
            "CalibratedReflector", "ChatCriticReflector", "SelfRAGRetriever", "ChatSelfRAG", "PipelineSettings",
            "build_selfrag", "build_long_form"} <= set(selfrag_langchain.__all__)


def test_trainer_is_installed_under_the_package() -> None:
    import selfrag_langchain.trainer.vocabulary as vocabulary

    assert Path(vocabulary.__file__).parent.name == "trainer"  # the top-level trainer/ folder, installed as a module
    assert vocabulary.add_reflection_tokens.__module__ == "selfrag_langchain.trainer.vocabulary"


def test_every_import_in_the_readme_resolves() -> None:
    """The Python snippets of the README and the docs pages import names that exist, so a reader can paste them."""
    import ast
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    blocks = [(page.relative_to(root), block) for page in pages
              for block in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.DOTALL)]
    imports = [(page, node) for page, block in blocks for node in ast.walk(ast.parse(block))
               if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("selfrag_langchain")]
    assert len(imports) >= 4
    for page, node in imports:
        mod = importlib.import_module(node.module)
        for alias in node.names:
            assert hasattr(mod, alias.name), f"{node.module}.{alias.name} named in {page} does not exist"
