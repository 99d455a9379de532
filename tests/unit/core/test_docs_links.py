"""Every relative link of the README and the docs pages leads to a file that exists: pages move, links must follow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "benchmarks").glob("*.md")),
         ROOT / "benchmarks" / "data" / "README.md"]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    targets = [m.group(1) for m in LINK.finditer(page.read_text(encoding="utf-8"))]
    broken = [t for t in targets if "://" not in t and not (page.parent / t).exists()]
    assert broken == [], f"{page.name} links to missing files"
