"""The question lists' manifest (benchmarks/data/README.md) names every list with its size and role."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = str(Path(__file__).parents[3] / "benchmarks")
sys.path.insert(0, BENCHMARKS)  # the scripts import common as a sibling module; only for this import
try:
    from common import LISTS as DATA
    from common import list_manifest
finally:
    sys.path.remove(BENCHMARKS)

ROLES = {"tuning", "check", "untouched"}


def test_every_list_is_in_the_manifest_with_its_size_and_a_role() -> None:
    manifest = list_manifest()
    files = {p.name: sum(1 for line in p.read_text(encoding="utf-8").splitlines() if line.strip())
             for p in DATA.glob("*.jsonl")}
    assert files, f"no lists in {DATA}"
    assert set(manifest) == set(files), "listed but missing, or present but unlisted"
    assert {name: size for name, (size, _) in manifest.items()} == files
    assert {role for _, role in manifest.values()} <= ROLES
