"""Throughput and latency of short-form Self-RAG on each backend available on this machine.

The same dev PopQA questions, each with its first K passages, answered by SmolLM2-135M-Instruct (the
same Q4_1 GGUF) as generator and zero-shot critic, greedy, on:
  transformers        in process, the GGUF dequantised to float32
  llamacpp            llama.cpp in process, the quantised GGUF
  openai              llama-cpp-python's OpenAI-compatible server on loopback, one question at a time
  openai concurrent   the same server, questions sent concurrently through ``abatch``
  vllm                the offline engine, when vLLM and a GPU are present (``--backends vllm``)
Prints per backend: questions per second, mean and median latency per question, and how often the
backend picks the same branch as transformers.

    python benchmarks/backends.py --questions 20 --k 2 --max-new-tokens 16
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.servers, when run as a script

from common import add_k, add_max_new_tokens, read_jsonl

from selfrag_langchain import CriticReflector, SelfRAG
from selfrag_langchain.llms.factory import build_llm
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL
from selfrag_langchain.results import SelfRAGResult

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "popqa_longtail_dev.jsonl"


def questions(path: Path, n: int, k: int) -> list[dict[str, Any]]:
    rows = read_jsonl(path, limit=n)
    return [{"question": r["question"], "passages": [{"title": c["title"], "text": c["text"]} for c in r["ctxs"][:k]]}
            for r in rows]


def rag_for(llm: Any, args: argparse.Namespace) -> SelfRAG:
    return SelfRAG(generator=llm, reflector=CriticReflector(llm, relevance="labels"), mode="always", k=args.k,
                   max_new_tokens=args.max_new_tokens)


def run_concurrent(rag: SelfRAG, qs: list[dict[str, Any]], concurrency: int
                   ) -> tuple[list[SelfRAGResult], list[float], float]:
    latencies: list[float] = [0.0] * len(qs)

    async def one(i: int, q: dict[str, Any], gate: asyncio.Semaphore) -> SelfRAGResult:
        async with gate:
            t = time.perf_counter()
            result = await rag.ainvoke(q)
            latencies[i] = time.perf_counter() - t
            return result

    async def all_of() -> list[SelfRAGResult]:
        gate = asyncio.Semaphore(concurrency)
        return list(await asyncio.gather(*(one(i, q, gate) for i, q in enumerate(qs))))

    start = time.perf_counter()
    results = asyncio.run(all_of())
    return results, latencies, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=20)
    add_k(parser, default=2, help="passages per question, fewer than the library's for a quick throughput run")
    add_max_new_tokens(parser, default=16, help="token budget of an answer, short for a quick throughput run")
    parser.add_argument("--backends", default="transformers,llamacpp,openai")
    parser.add_argument("--concurrency", type=int, default=4, help="questions in flight for 'openai concurrent'")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads (in process and server)")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()

    qs = questions(args.data, args.questions, args.k)
    rags: dict[str, SelfRAG] = {}
    server = None
    try:
        for backend in args.backends.split(","):
            options: dict[str, Any] = {"n_threads": args.threads} if backend == "llamacpp" else {}
            if backend == "openai":
                from tests.servers import SERVER_CONTEXT, start_llama_server

                server = start_llama_server(Path(tempfile.mkdtemp()) / "server.log", threads=args.threads)
                options = {"base_url": server.base_url, "tokenizer": DEFAULT_MODEL,
                           "extra_body": {"repeat_penalty": 1.0}, "context_size": SERVER_CONTEXT,
                           "concurrency": args.concurrency, "timeout": 600}
            rags[backend] = rag_for(build_llm(backend, DEFAULT_MODEL, **options), args)
            rags[backend].invoke(qs[0])  # load, warm up (and probe the server) outside the timing
        # Question by question, every backend in turn: all see the same load from other processes.
        results: dict[str, list[SelfRAGResult]] = {name: [] for name in rags}
        latencies: dict[str, list[float]] = {name: [] for name in rags}
        for i, q in enumerate(qs):
            for name, rag in rags.items():
                t = time.perf_counter()
                results[name].append(rag.invoke(q))
                latencies[name].append(time.perf_counter() - t)
            print(f"question {i + 1}/{len(qs)} done", file=sys.stderr, flush=True)
        rows = [(name, results[name], latencies[name], sum(latencies[name])) for name in rags]
        if "openai" in rags:
            rows.append((f"openai concurrent ({args.concurrency})",
                         *run_concurrent(rags["openai"], qs, args.concurrency)))
    finally:
        if server is not None:
            server.stop()

    reference = next((r for name, r, _, _ in rows if name == "transformers"), None)
    print(f"\n{len(qs)} questions, k={args.k}, max_new_tokens={args.max_new_tokens}, critic reflector; "
          f"load average at the end {os.getloadavg()[0]:.1f}\n")
    print("| backend | questions/s | mean latency (s) | median latency (s) | same branch as transformers |")
    print("|---|---|---|---|---|")
    for name, results, latencies, total in rows:
        agree = None if reference is None else sum(a.selected == b.selected for a, b in zip(results, reference,
                                                                                            strict=True))
        same = "" if agree is None else f"{agree}/{len(qs)}"
        print(f"| {name} | {len(qs) / total:.3f} | {statistics.mean(latencies):.2f} | "
              f"{statistics.median(latencies):.2f} | {same} |")
    if reference is not None:
        for name, results, _, _ in rows:
            for i, (a, b) in enumerate(zip(results, reference, strict=True)):
                if a.selected != b.selected and a.selected is not None and b.selected is not None:
                    gap = b.branches[b.selected].scores.total - b.branches[a.selected].scores.total
                    print(f"{name}: question {i + 1} picks branch {a.selected}, transformers {b.selected} "
                          f"(transformers' score gap between the two: {gap:.3f})")


if __name__ == "__main__":
    main()
