"""A Chroma server (`chroma run`, client-server mode) as the store, as readily as a directory: indexed into
and answered from by the command line, and by `selfrag serve` (the chat model over it), against a real
server on loopback; a server that is not there, or holds no store, is one line."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from examples.corpus import PASSAGES
from selfrag_langchain.cli import main
from tests.servers import free_port, start_selfrag_serve

pytestmark = pytest.mark.slow


def test_a_server_without_the_store_says_to_index_into_it(chroma: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "Who designed the Eiffel Tower?", "--store", chroma]) == 2
    assert capsys.readouterr().err.strip() == (
        f"selfrag: error: No store on the Chroma server at {chroma}: run `selfrag index PATH --store {chroma}` first")


def test_index_into_the_server_then_ask_and_serve_from_it(chroma: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"title": t, "text": x}) + "\n" for t, x in PASSAGES))
    assert main(["index", str(corpus), "--store", chroma]) == 0
    assert main(["index", str(corpus), "--store", chroma]) == 0  # nothing is added twice
    capsys.readouterr()
    assert main(["ask", "Who designed the Eiffel Tower?", "--store", chroma, "--k", "2", "--mode", "always",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [d["metadata"]["title"] for d in result["citations"]] == ["Eiffel Tower"]
    with httpx.Client() as client:  # the passages are on the server, once each
        count = client.get(f"{chroma}/api/v2/tenants/default_tenant/databases/default_database/collections/"
                           f"{_collection_id(client, chroma)}/count")
    assert count.json() == len(PASSAGES)

    process, url = start_selfrag_serve("--store", chroma, "--short", "--k", "2", "--mode", "always",
                                       "--history", str(tmp_path / "chats.sqlite3"))
    try:
        reply = httpx.post(f"{url}/v1/chat/completions", timeout=300, json={
            "messages": [{"role": "user", "content": "Who designed the Eiffel Tower?"}]}).json()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert reply["citations"][0]["title"] == "Eiffel Tower"
    assert "Gustave Eiffel" in reply["choices"][0]["message"]["content"]  # the designer, not the question's word


def _collection_id(client: httpx.Client, url: str) -> str:
    listed = client.get(f"{url}/api/v2/tenants/default_tenant/databases/default_database/collections").json()
    return next(c["id"] for c in listed if c["name"] == "selfrag")


def test_a_server_that_is_not_there_is_one_line(capsys: pytest.CaptureFixture[str], selfrag_home: Path) -> None:
    gone = f"http://127.0.0.1:{free_port()}"
    assert main(["ask", "Who designed the Eiffel Tower?", "--store", gone]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"selfrag: error: cannot reach the Chroma server at {gone} (")
    assert err.endswith("is `chroma run` running there?") and "\n" not in err
