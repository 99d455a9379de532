"""Faults in the middle of real work: each gives one clear line and loses nothing already written.

The process is really killed (SIGKILL, no cleanup) while `selfrag index`, `selfrag eval`, critic data
collection and generator training run, and each is then run again; the disk really fills and really turns
read-only (a small tmpfs, remounted); the model file really is cut short.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from selfrag_langchain.corpus.answering import default_retriever
from selfrag_langchain.corpus.reading import load_documents
from selfrag_langchain.corpus.store import open_store
from selfrag_langchain.errors import ModelLoadError, StoreError
from selfrag_langchain.files.paths import model_cache_dir
from selfrag_langchain.llms.model_loading import gguf_path
from tests.fakes.documents import write_pdf

pytestmark = pytest.mark.slow

SELFRAG = str(Path(sys.executable).with_name("selfrag"))


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "SELFRAG_HOME": str(home), "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}


def _run(args: list[str], home: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SELFRAG, *args], env=_env(home), capture_output=True, text=True, timeout=timeout)


def _kill_when(args: list[str], home: Path, ready: Callable[[], bool], timeout: float = 300) -> None:
    """Start ``selfrag args`` and SIGKILL it as soon as ``ready()``; fail if it ends first."""
    proc = subprocess.Popen([SELFRAG, *args], env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if ready():
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return
        time.sleep(0.02)
    proc.kill()
    _, err = proc.communicate()
    pytest.fail(f"the run ended (code {proc.returncode}) before the kill point: {err[-2000:]}")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _one_line_error(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert result.returncode == 2, result.stderr[-2000:]
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in result.stderr
    assert lines and all(n in lines[-1] for n in needles), lines[-3:]
    return lines[-1]


# --------------------------------------------------------------------------- killed mid-run


def _corpus(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps({"title": f"Item {i}", "text": f"Passage {i} is about topic {i % 97} "
                                        f"and place {i % 31}, written for the fault tests."}) + "\n"
                            for i in range(n)))
    return path


def _stored_rows(store: Path) -> int:
    try:
        with sqlite3.connect(f"file:{store / 'chroma.sqlite3'}?mode=ro", uri=True, timeout=0.1) as conn:
            return int(conn.execute("select count(*) from embeddings").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_index_killed_mid_run_resumes_and_stores_each_passage_once(tmp_path: Path, selfrag_home: Path) -> None:
    corpus, store = _corpus(tmp_path / "corpus.jsonl", 2000), tmp_path / "store"
    _kill_when(["index", str(corpus), "--store", str(store)], selfrag_home, lambda: _stored_rows(store) > 0)
    kept = _stored_rows(store)
    assert 0 < kept < 2000
    again = _run(["index", str(corpus), "--store", str(store)], selfrag_home)
    assert again.returncode == 0, again.stderr[-2000:]
    counts = re.search(r"(\d+) chunk\(s\) added, (\d+) already present", again.stdout)
    assert counts is not None, again.stdout
    added, present = int(counts.group(1)), int(counts.group(2))
    assert present >= kept and added + present == 2000
    documents = open_store(store, create=False).get(include=["documents"])["documents"]
    assert len(documents) == len(set(documents)) == 2000


def _binders(folder: Path, files: int, pages: int) -> Path:
    """PDFs of ``pages`` pages each; every third page is long enough for two chunks, the others hold one."""
    folder.mkdir()
    for b in range(files):
        write_pdf(folder / f"binder{b:02d}.pdf", tuple(
            " ".join(f"Binder {b}, page {p}, line {i}: shelf {p * 7 + i} of the depot holds crate {b}-{p}-{i}."
                     for i in range(3 if p % 3 else 22)) for p in range(1, pages + 1)), title=f"Binder {b}")
    return folder


def test_pdf_index_killed_mid_run_resumes_and_stores_each_page_once(tmp_path: Path, selfrag_home: Path) -> None:
    folder, store = _binders(tmp_path / "binders", files=16, pages=40), tmp_path / "store"
    expected = {doc.id: doc for doc in load_documents([folder]).documents}
    per_page = Counter((doc.metadata["source"], doc.metadata["page"]) for doc in expected.values())
    assert len(per_page) == 16 * 40 and set(per_page.values()) == {1, 2}
    _kill_when(["index", str(folder), "--store", str(store)], selfrag_home, lambda: _stored_rows(store) > 0)
    kept = _stored_rows(store)
    assert 0 < kept < len(expected)
    again = _run(["index", str(folder), "--store", str(store)], selfrag_home)
    assert again.returncode == 0, again.stderr[-2000:]
    counts = re.search(r"(\d+) chunk\(s\) added, (\d+) already present, 0 removed", again.stdout)
    assert counts is not None, again.stdout
    added, present = int(counts.group(1)), int(counts.group(2))
    assert present >= kept and added + present == len(expected)

    stored = open_store(store, create=False).get(include=["documents", "metadatas"])
    assert len(stored["ids"]) == len(set(stored["ids"])) == len(expected) and set(stored["ids"]) == set(expected)
    assert Counter((m["source"], m["page"]) for m in stored["metadatas"]) == per_page  # each page's chunks once
    for doc_id, text, metadata in zip(stored["ids"], stored["documents"], stored["metadatas"], strict=True):
        assert text == expected[doc_id].page_content
        assert metadata == expected[doc_id].metadata  # source, title, format, page, chunk: what a citation shows
    page = next(doc for doc in expected.values() if doc.metadata["page"] == 20 and "binder07" in doc.metadata["source"])
    cited = default_retriever(store, k=1).invoke(page.page_content)[0].metadata
    assert (Path(cited["source"]).name, cited["page"], cited["title"]) == ("binder07.pdf", 20, "Binder 7")


def test_eval_killed_mid_run_answers_only_the_rest(tmp_path: Path, selfrag_home: Path, smollm2: Any) -> None:
    data = tmp_path / "popqa.jsonl"
    data.write_text("".join(json.dumps({"question": f"What is the capital of country number {i}?",
                                        "answers": [f"City {i}"],
                                        "ctxs": [{"title": f"Country {i}", "text": f"The capital of country number "
                                                  f"{i} is City {i}."}]}) + "\n" for i in range(8)))
    out = tmp_path / "eval"
    args = ["eval", str(data), "--task", "popqa", "--methods", "rag_top1", "--out", str(out), "--max-new-tokens", "8"]
    results = out / "rag_top1.jsonl"
    _kill_when(args, selfrag_home, lambda: results.is_file() and len(_lines_safe(results)) >= 2)
    before = _lines_safe(results)
    again = _run(args, selfrag_home)
    assert again.returncode == 0, again.stderr[-2000:]
    keys = [r["key"] for r in _lines(results)]
    assert len(keys) == len(set(keys)) == 8
    assert [r["key"] for r in _lines(results)][: len(before)] == [r["key"] for r in before]  # kept as written


def _lines_safe(path: Path) -> list[dict[str, Any]]:
    """The complete lines of a file another process is writing."""
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text().splitlines(keepends=True):
        if line.endswith("\n"):
            rows.append(json.loads(line))
    return rows


class _Teacher:
    """An OpenAI-compatible chat server that labels every question ``[Relevant]``, slowly."""

    def __init__(self, delay: float) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                time.sleep(delay)
                body = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "teacher",
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": "Rating: [Relevant]"}}]})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def test_critic_data_killed_mid_run_resumes_without_a_label_twice(tmp_path: Path, selfrag_home: Path) -> None:
    teacher = _Teacher(delay=0.1)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"i{i}", "instruction": f"Tell me about topic {i}.",
                                         "evidence": f"Topic {i} is a subject of the tests."}) + "\n"
                             for i in range(30)))
    out = tmp_path / "critic.jsonl"
    args = ["train", "critic-data", "--input", str(items), "--out", str(out), "--model", "teacher",
            "--base-url", teacher.base_url, "--groups", "relevance", "--max-retries", "0"]
    _kill_when(args, selfrag_home, lambda: len(_lines_safe(out)) >= 5)
    again = _run(args, selfrag_home)
    teacher.server.shutdown()
    assert again.returncode == 0, again.stderr[-2000:]
    ids = [r["id"] for r in _lines(out)]
    assert len(ids) == len(set(ids)) == 30
    assert {r["output"] for r in _lines(out)} == {"[Relevant]"}


def test_training_killed_while_saving_resumes_from_the_last_complete_checkpoint(
        tmp_path: Path, selfrag_home: Path, smollm2: Any) -> None:
    rows = [{"instruction": f"Question {i}?", "output": f"[No Retrieval]Answer {i}.[Utility:5]"} for i in range(16)]
    data = tmp_path / "gen.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "gen"
    args = ["train", "generator", "--data", str(data), "--out", str(out), "--lora", "--max-length", "48",
            "--per-device-train-batch-size", "2", "--max-steps", "6", "--save-steps", "2", "--logging-steps", "1",
            "--learning-rate", "1e-3", "--use-cpu"]
    # Killed as soon as the second checkpoint's folder appears: while the trainer is still writing it.
    _kill_when(args, selfrag_home, lambda: (out / "checkpoints" / "checkpoint-4").is_dir())
    state = out / "checkpoints" / "checkpoint-4" / "trainer_state.json"
    if state.is_file():  # the save beat the kill: take away what the trainer writes last, as a kill leaves it
        state.unlink()
    again = _run([*args, "--resume"], selfrag_home, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "checkpoint-4 is incomplete" in again.stdout + again.stderr
    steps = [r["step"] for r in _lines(out / "training_log.jsonl") if "loss" in r]
    assert steps == [1, 2, 3, 4, 5, 6]  # each step logged once, the ones after checkpoint-2 by the resumed run
    assert (out / "adapter_model.safetensors").is_file()


# --------------------------------------------------------------------------- the disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs: a real full disk, and a real read-only one once remounted. Mounting it needs root (or
    CAP_SYS_ADMIN), which CI has: there a failed mount is not on the allowed skips and fails the run."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if made.returncode != 0:
        pytest.skip(f"needs a tmpfs mount (root with CAP_SYS_ADMIN): {made.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _remount(mount: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(mount)], check=True)


def test_a_full_disk_stops_indexing_in_one_line_and_the_rerun_finishes(
        tmp_path: Path, small_disk: Path, selfrag_home: Path) -> None:
    corpus, store = _corpus(tmp_path / "corpus.jsonl", 3000), small_disk / "store"
    full = _run(["index", str(corpus), "--store", str(store)], selfrag_home)
    _one_line_error(full, "Writing to the store failed", "MiB free", "run the same command again")
    _remount(small_disk, "size=64m")
    again = _run(["index", str(corpus), "--store", str(store)], selfrag_home)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "already present" in again.stdout and not again.stdout.startswith("indexed 1 file(s): 0 chunk")
    documents = open_store(store, create=False).get(include=["documents"])["documents"]
    assert len(documents) == len(set(documents)) == 3000


def test_a_read_only_store_is_named_read_only_and_left_untouched(
        tmp_path: Path, small_disk: Path, selfrag_home: Path) -> None:
    corpus, store = _corpus(tmp_path / "corpus.jsonl", 20), small_disk / "store"
    assert _run(["index", str(corpus), "--store", str(store)], selfrag_home).returncode == 0
    before = sorted((p.relative_to(store), p.stat().st_size) for p in store.rglob("*") if p.is_file())
    _remount(small_disk, "ro")
    line = _one_line_error(_run(["index", str(corpus), "--store", str(store)], selfrag_home), "is read-only")
    assert "damaged" not in line
    with pytest.raises(StoreError, match="is read-only"):
        open_store(store, create=False)
    assert sorted((p.relative_to(store), p.stat().st_size) for p in store.rglob("*") if p.is_file()) == before
    _one_line_error(_run(["index", str(corpus), "--store", str(small_disk / "new")], selfrag_home),
                    "Cannot create the store directory", "Read-only file system")


# --------------------------------------------------------------------------- the model file


@pytest.fixture
def truncated_gguf(tmp_path: Path) -> Path:
    whole = gguf_path("smollm2-135m-instruct")
    cut = tmp_path / "smollm2-cut.gguf"
    with whole.open("rb") as src, cut.open("wb") as dst:
        dst.write(src.read(whole.stat().st_size // 3))
    return cut


def test_a_truncated_model_file_is_one_line_and_leaves_no_conversion(
        tmp_path: Path, truncated_gguf: Path, selfrag_home: Path) -> None:
    from selfrag_langchain.llms.llamacpp import LlamaCppLLM
    from selfrag_langchain.llms.transformers import TransformersLLM

    with pytest.raises(ModelLoadError, match=r"smollm2-cut\.gguf"):
        TransformersLLM(model=str(truncated_gguf)).load()
    with pytest.raises(ModelLoadError, match=r"smollm2-cut\.gguf"):
        LlamaCppLLM(model=str(truncated_gguf)).load()
    assert [p for p in model_cache_dir().rglob("*") if "smollm2-cut" in p.name] == []
    store = tmp_path / "store"
    assert _run(["index", str(_corpus(tmp_path / "corpus.jsonl", 5)), "--store", str(store)],
                selfrag_home).returncode == 0
    result = _run(["ask", "Who?", "--model", str(truncated_gguf), "--store", str(store), "--reflector", "critic"],
                  selfrag_home)
    _one_line_error(result, "smollm2-cut.gguf")
