"""The import graph keeps docs/architecture.md's layers: no module imports from a layer above its own,
library code never imports from ``commands/``, and module-level imports form no circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import selfrag_langchain
import selfrag_langchain.trainer

PACKAGE = "selfrag_langchain"

LAYERS: dict[str, int] = {
    "tokens": 0, "scoring": 0, "prompts": 0, "results": 0, "errors": 0, "text": 0, "files": 0,
    "llms": 1, "embeddings": 1,
    "judging": 2,
    "retrievers": 3, "corpus": 3, "history": 3,
    "chains": 4,
    "pipeline": 5,
    "cli": 6, "commands": 6, "serving": 6, "eval": 6, "trainer": 6,
}
"""The layer of each top-level module or package, as docs/architecture.md's table gives it."""


def _sources() -> dict[str, Path]:
    """Every module of the package (the trainer included, installed from its own folder) by dotted name."""
    roots = {PACKAGE: Path(selfrag_langchain.__file__).parent,
             f"{PACKAGE}.trainer": Path(selfrag_langchain.trainer.__file__).parent}
    modules = {}
    for prefix, root in roots.items():
        for path in root.rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([prefix, *parts])] = path
    return modules


def _imports(path: Path, *, module_level_only: bool) -> set[str]:
    """The package's modules ``path`` imports (``from x import y`` counted as x.y when that is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith(PACKAGE)}


TOP = max(LAYERS.values()) + 1
"""The package root's layer: its ``__init__`` re-exports from every layer, so importing from it is importing
from above."""


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else TOP


MODULES = _sources()


def test_every_top_level_module_has_a_layer() -> None:
    tops = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    assert tops - {"__init__"} == set(LAYERS)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != PACKAGE))
def test_no_import_from_a_higher_layer(module: str) -> None:
    own = _layer(module)
    above = sorted(name for name in _imports(MODULES[module], module_level_only=False)
                   if (layer := _layer(name)) is not None and own is not None and layer > own)
    assert above == []


def test_library_code_never_imports_commands() -> None:
    offenders = sorted(module for module, path in MODULES.items()
                       if module.split(".")[1:2] not in (["commands"], ["cli"])
                       and any(name.startswith(f"{PACKAGE}.commands") for name in
                               _imports(path, module_level_only=False)))
    assert offenders == []


def test_module_level_imports_form_no_circle() -> None:
    graph = {module: {name for name in _imports(path, module_level_only=True) if name in MODULES and name != module}
             for module, path in MODULES.items()}
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                circles.append([*trail[trail.index(target):], target] if target in trail else [node, target])
            elif target not in state:
                visit(target, [*trail, target])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert circles == []
