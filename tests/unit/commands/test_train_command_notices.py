"""`selfrag train generator-data` says where its passages came from when no store is named (after the run, so
that bad input still gets one line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfrag_langchain.commands import train
from selfrag_langchain.trainer import generator_data
from selfrag_langchain.trainer.config import GeneratorDataConfig

NOTICE = "selfrag: the passages came from the demo corpus (--store names your own store)"


class _Stats:
    def summary(self) -> str:
        return "0 items"


@pytest.mark.parametrize("named_store", [False, True])
def test_the_demo_corpus_is_named_only_when_it_is_used(
    named_store: bool, store_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(generator_data, "create", lambda config: _Stats())
    config = GeneratorDataConfig(input="pairs.jsonl", out=str(tmp_path / "out.jsonl"),
                                 store=str(tmp_path / "store") if named_store else None)
    train._generator_data(config)
    err = capsys.readouterr().err
    assert (NOTICE in err) is not named_store
    assert "0 items" in err
