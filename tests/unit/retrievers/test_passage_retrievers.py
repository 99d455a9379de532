"""PassageRetriever, EvalFileRetriever and the ctxs conversion, on synthetic and real PopQA rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.documents import Document

from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.retrievers import (
    EvalFileRetriever,
    PassageRetriever,
    documents_from_ctxs,
    normalize_question,
)

DATA = Path(__file__).parents[3].parent / "shared" / "data"
POPQA = DATA / "popqa_longtail_dev.jsonl"
needs_popqa = pytest.mark.skipif(not POPQA.is_file(), reason=f"{POPQA} not present")


def popqa_rows() -> list[dict]:
    return [json.loads(line) for line in POPQA.read_text(encoding="utf-8").splitlines()]


def test_both_ctx_shapes() -> None:
    docs = documents_from_ctxs(
        [
            {"id": "11341299", "title": "Henry Feilden", "text": "A politician.", "score": "1.69"},
            {"title": "Web result", "text": "Some snippet."},
        ]
    )
    assert docs[0].page_content == "A politician."
    assert docs[0].metadata == {
        "title": "Henry Feilden",
        "id": "11341299",
        "score": 1.69,
        "rank": 1,
    }
    assert docs[0].id == "11341299"
    assert docs[1].metadata == {"title": "Web result", "rank": 2}
    assert docs[1].id is None


@pytest.mark.parametrize(
    ("ctxs", "match"),
    [
        (
            [{"title": "a", "text": "x"}, {"title": "b", "text": "y"}, {"title": "no text"}],
            r"ctxs\[2\]",
        ),
        ([{"title": "a", "text": None}], r"ctxs\[0\] has no 'text'"),
        ([{"title": "a", "text": "x", "score": "high"}], r"ctxs\[0\] has a score"),
        (["just a string"], r"ctxs\[0\] must be an object"),
    ],
)
def test_bad_ctxs_name_the_index(ctxs: list, match: str) -> None:
    with pytest.raises(InputError, match=match):
        documents_from_ctxs(ctxs)


def test_empty_text_is_kept_so_positions_match_the_paper() -> None:
    docs = documents_from_ctxs([{"title": "Category:X", "text": ""}, {"title": "b", "text": "y"}])
    assert [d.page_content for d in docs] == ["", "y"]
    assert [d.metadata["rank"] for d in docs] == [1, 2]


@needs_popqa
def test_popqa_rows_convert_with_both_shapes() -> None:
    with_id = without_id = 0
    for row in popqa_rows():
        docs = documents_from_ctxs(row["ctxs"])
        assert [d.page_content for d in docs] == [c["text"] for c in row["ctxs"]]
        assert [d.metadata["title"] for d in docs] == [c["title"] for c in row["ctxs"]]
        assert [d.metadata["rank"] for d in docs] == list(range(1, len(docs) + 1))
        for doc, ctx in zip(docs, row["ctxs"], strict=True):
            if "id" in ctx:
                with_id += 1
                assert doc.metadata["id"] == ctx["id"]
                assert doc.metadata["score"] == pytest.approx(float(ctx["score"]))
            else:
                without_id += 1
                assert "id" not in doc.metadata
                assert "score" not in doc.metadata
    assert with_id > 0
    assert without_id > 0


def test_passage_retriever_keeps_order_and_k() -> None:
    passages = [Document(page_content=f"p{i}") for i in range(4)]
    retriever = PassageRetriever(passages=passages)
    assert [d.page_content for d in retriever.invoke("anything")] == ["p0", "p1", "p2", "p3"]
    assert [d.page_content for d in retriever.invoke("anything", k=2)] == ["p0", "p1"]
    assert len(PassageRetriever(passages=passages, k=3).invoke("q")) == 3
    with pytest.raises(ConfigurationError, match="k must be at least 1, got 0"):
        retriever.invoke("q", k=0)


async def test_passage_retriever_async_matches_sync() -> None:
    passages = documents_from_ctxs([{"title": "a", "text": "x"}, {"title": "b", "text": "y"}])
    retriever = PassageRetriever(passages=passages, k=1)
    assert await retriever.ainvoke("q") == retriever.invoke("q")
    assert len(await retriever.ainvoke("q", k=2)) == 2


def test_returned_documents_are_copies() -> None:
    retriever = PassageRetriever(passages=[Document(page_content="p", metadata={"title": "t"})])
    retriever.invoke("q")[0].metadata["title"] = "changed"
    assert retriever.invoke("q")[0].metadata["title"] == "t"


def test_normalize_question() -> None:
    assert normalize_question("  What IS\tthe  answer?\n") == "what is the answer?"


@needs_popqa
def test_eval_file_retriever_on_popqa() -> None:
    rows = popqa_rows()
    retriever = EvalFileRetriever.from_jsonl(POPQA, k=5)
    question = rows[0]["question"]
    docs = retriever.invoke("  " + question.upper().replace(" ", "   ") + " ")
    assert [d.page_content for d in docs] == [c["text"] for c in rows[0]["ctxs"][:5]]
    assert retriever.invoke("Who is not in this file at all?") == []
    assert len(retriever.invoke(rows[1]["question"], k=2)) == 2
    everything = EvalFileRetriever.from_jsonl(POPQA, k=None)
    assert len(everything.invoke(rows[2]["question"])) == len(rows[2]["ctxs"])


async def test_eval_file_retriever_async(tmp_path: Path) -> None:
    path = tmp_path / "eval.jsonl"
    record = {"question": "Q?", "ctxs": [{"title": "a", "text": "x"}, {"title": "b", "text": "y"}]}
    path.write_text(json.dumps(record) + "\n")
    retriever = EvalFileRetriever.from_jsonl(path, k=1)
    assert [d.page_content for d in await retriever.ainvoke("q?")] == ["x"]


@pytest.mark.parametrize(
    ("bad_line", "match"),
    [
        ("{not json", r"line 3: not valid JSON"),
        ('["a list"]', r"line 3: expected a JSON object"),
        ('{"ctxs": []}', r"line 3: missing 'question'"),
        ('{"question": "Q3"}', r"line 3: missing 'ctxs'"),
        (
            '{"question": "Q3", "ctxs": [{"title": "t", "text": "x"}, {"title": "t"}]}',
            r"line 3:.*ctxs\[1\]",
        ),
    ],
)
def test_malformed_eval_line_names_its_number(tmp_path: Path, bad_line: str, match: str) -> None:
    good = json.dumps({"question": "Q", "ctxs": [{"title": "t", "text": "x"}]})
    path = tmp_path / "eval.jsonl"
    path.write_text(f"{good}\n\n{bad_line}\n{good}\n")
    with pytest.raises(InputError, match=match):
        EvalFileRetriever.from_jsonl(path)


def test_missing_eval_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Eval file not found"):
        EvalFileRetriever.from_jsonl(tmp_path / "nope.jsonl")
