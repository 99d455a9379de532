"""How fast the demo corpus is indexed, and whether retrieval stays as good: torch fp32 against ONNX int8.

Both runtimes of all-MiniLM-L6-v2 embed the same demo corpus into fresh stores, one after the other in
this process. Each index is timed from the first text to the last committed batch with its model
already loaded; the int8 file's one-off build (export and quantization, cached after) is timed apart.
Recall@5 is the share of queries whose gold article is among the 5 passages retrieved, over

- 42 hand-written questions (``retrieval_questions.jsonl``: the demo-corpus questions and the chat
  conversations' first questions, each with its article's title), and
- 500 queries made of an article's short Wikipedia description ("Painting by Georges Seurat"), taken
  from articles whose description is unique, sampled by a fixed hash.

The last row queries the fp32 store with int8 query vectors: a store indexed before the switch.

    python benchmarks/indexing.py               # the whole corpus, about 4 minutes on 2 cores
    python benchmarks/indexing.py --limit 2000
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, read_jsonl
from langchain_core.documents import Document

from selfrag_langchain.corpus.demo import ensure_demo_store, load_demo_documents
from selfrag_langchain.corpus.store import open_store
from selfrag_langchain.embeddings import MiniLMEmbeddings, default_model_path
from selfrag_langchain.embeddings.onnx import onnx_model_file

QUESTIONS = Path(__file__).parent / "data" / "retrieval_questions.jsonl"


def description_queries(docs: list[Document], n: int) -> list[tuple[str, list[str]]]:
    """(description, [title]) for ``n`` articles whose description no other article shares."""

    def key(doc: Document) -> str:
        return doc.metadata["description"].strip().lower()

    counts = Counter(map(key, docs))
    unique = [doc for doc in docs if key(doc) and counts[key(doc)] == 1]
    unique.sort(key=lambda doc: hashlib.sha256(doc.metadata["title"].encode()).hexdigest())
    return [(doc.metadata["description"], [doc.metadata["title"]]) for doc in unique[:n]]


def hits_at(store: object, queries: list[tuple[str, list[str]]], k: int) -> list[bool]:
    """Per query: is a gold title among the top ``k`` passages?"""
    hits = []
    for query, titles in queries:
        found = {doc.metadata.get("title") for doc in store.similarity_search(query, k=k)}  # type: ignore[attr-defined]
        hits.append(bool(found & set(titles)))
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="index this many articles (default: all)")
    parser.add_argument("--descriptions", type=int, default=500, help="description queries")
    add_k(parser, help="passages retrieved per query, recall@k")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="selfrag-indexing-"))
    os.environ["SELFRAG_HOME"] = str(work / "home")  # the int8 file is built here, from scratch
    docs = load_demo_documents(args.limit)
    in_corpus = {doc.metadata["title"] for doc in docs}
    questions = [(row["question"], row["titles"]) for row in read_jsonl(QUESTIONS)]
    query_sets = {
        "questions": [(q, t) for q, t in questions if set(t) & in_corpus],
        "descriptions": description_queries(docs, args.descriptions),
    }
    print(f"{len(docs)} articles; queries: " + ", ".join(f"{len(v)} {k}" for k, v in query_sets.items()))
    print(f"cores: {len(os.sched_getaffinity(0))}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")

    start = time.perf_counter()
    model_file = onnx_model_file(default_model_path())
    print(f"int8 ONNX file ready in {time.perf_counter() - start:.1f} s ({model_file}; built once, then cached)")

    rows = []
    stores = {}
    for runtime in ("torch", "onnx-int8"):
        embeddings = MiniLMEmbeddings(runtime=runtime)
        embeddings.embed_query("load the model before the clock starts")
        start = time.perf_counter()
        stores[runtime] = ensure_demo_store(work / runtime, progress=True, limit=args.limit, embeddings=embeddings)
        seconds = time.perf_counter() - start
        rows.append((runtime, seconds, {name: hits_at(stores[runtime], qs, args.k) for name, qs in query_sets.items()}))
    old_store = open_store(work / "torch", create=False, embeddings=MiniLMEmbeddings(runtime="onnx-int8"))
    rows.append(("torch store, int8 queries", None, {n: hits_at(old_store, q, args.k) for n, q in query_sets.items()}))

    base = rows[0][1]
    print(f"\n| runtime | index s | passages/s | speed-up | recall@{args.k} questions | recall@{args.k} descriptions |")
    print("|---|---|---|---|---|---|")
    for name, seconds, hits in rows:
        timing = f"{seconds:.1f} | {len(docs) / seconds:.0f} | {base / seconds:.2f}x" if seconds else "- | - | -"
        recalls = " | ".join(f"{sum(hits[n]) / len(hits[n]):.1%}" if hits[n] else "no queries" for n in query_sets)
        print(f"| {name} | {timing} | {recalls} |")
    print("\nQueries whose top-5 changed against torch fp32 (found now / lost now):")
    for name, _, hits in rows[1:]:
        pairs = {n: list(zip(rows[0][2][n], hits[n], strict=True)) for n in query_sets}
        print(f"  {name}: " + ", ".join(
            f"{n} +{sum(b and not a for a, b in p)}/-{sum(a and not b for a, b in p)}" for n, p in pairs.items()))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
