"""``warm_up`` (what ``selfrag serve`` does before it listens) loads what the loop loads on first use: the quoter's
reader and answer finder, so the first request does not pay for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.pipeline import PipelineSettings, build_long_form

pytestmark = pytest.mark.slow


def test_warming_up_loads_the_quoters_reader_and_finder(passages_store: Path, smollm2: TransformersLLM) -> None:
    rag = build_long_form(PipelineSettings(store=passages_store, k=2, max_depth=2), generator=smollm2)
    quoter = rag.quoter
    assert quoter is not None and quoter.reader is not None and quoter.finder is not None
    assert quoter.reader._network is None and quoter.finder._network is None  # nothing read yet

    rag.warm_up()

    assert quoter.reader._network is not None
    assert quoter.finder._network is not None
