"""``paths.building``: what is prepared once appears whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfrag_langchain.files.paths import building


def test_a_finished_build_becomes_the_target(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "model"
    with building(target) as work:
        assert work.parent == target.parent and not target.exists()
        (work / "weights").write_text("w")
    assert (target / "weights").read_text() == "w"
    assert [p.name for p in target.parent.iterdir()] == ["model"]


def test_a_failed_build_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "model"
    with pytest.raises(RuntimeError, match="half way"), building(target) as work:
        (work / "weights").write_text("half")
        raise RuntimeError("half way")
    assert list(target.parent.iterdir()) == []


def test_a_target_built_meanwhile_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "model"
    with building(target) as work:
        (work / "weights").write_text("mine")
        target.mkdir()  # another process finished first
        (target / "weights").write_text("theirs")
    assert (target / "weights").read_text() == "theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["model"]
