"""The question lists' manifest (benchmarks/data/README.md) names every list with its size and role."""

from __future__ import annotations

import re
from pathlib import Path

DATA = Path(__file__).parents[3] / "benchmarks" / "data"
ROLES = {"tuning", "check", "untouched"}


def _manifest() -> dict[str, tuple[int, str]]:
    rows = re.findall(r"^\| `([\w.]+\.jsonl)` \| (\d+) \| [^|]+ \| (\w+) \|", (DATA / "README.md").read_text(),
                      re.MULTILINE)
    return {name: (int(size), role) for name, size, role in rows}


def test_every_list_is_in_the_manifest_with_its_size_and_a_role() -> None:
    manifest = _manifest()
    files = {p.name: sum(1 for line in p.read_text(encoding="utf-8").splitlines() if line.strip())
             for p in DATA.glob("*.jsonl")}
    assert files, f"no lists in {DATA}"
    assert set(manifest) == set(files), "listed but missing, or present but unlisted"
    assert {name: size for name, (size, _) in manifest.items()} == files
    assert {role for _, role in manifest.values()} <= ROLES
