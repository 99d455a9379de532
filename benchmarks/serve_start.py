"""How long ``selfrag serve`` takes to start listening and to answer its first and second requests, with the
warm-up question (its default) and with ``--no-warm-up`` as the baseline, one server at a time.

Each server is started as a user starts it (``selfrag serve`` on a free loopback port, the default long form on
the demo corpus unless ``--store`` is given), ready once ``/health`` answers; then the first ``--questions``
questions of ``--list`` are asked in turn through ``/v1/chat/completions``. Without the warm-up, the first request
loads the judge's, quoter's, reader's and finder's encoders, the embeddings and the lexicon.

    python benchmarks/serve_start.py [--list benchmarks/data/demo_questions.jsonl] [--questions 2] [--short]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.servers, when run as a script

from common import LISTS, read_jsonl

from tests.servers import start_selfrag_serve

VARIANTS = {"warm-up (default)": (), "--no-warm-up": ("--no-warm-up",)}


def ask(url: str, question: str) -> tuple[float, str]:
    """Seconds to answer ``question`` through the chat-completions API, and the answer."""
    body = json.dumps({"model": "selfrag", "messages": [{"role": "user", "content": question}]}).encode()
    request = urllib.request.Request(f"{url}/v1/chat/completions", data=body,
                                     headers={"content-type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as reply:
        answer = json.load(reply)["choices"][0]["message"]["content"]
    return time.perf_counter() - start, answer


def measure(flags: tuple[str, ...], questions: list[str]) -> dict[str, Any]:
    """One server's seconds to listen and to answer each question, in order."""
    start = time.perf_counter()
    process, url = start_selfrag_serve(*flags, timeout=900)
    try:
        listening = time.perf_counter() - start
        seconds = [round(ask(url, q)[0], 2) for q in questions]
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {"listening_after": round(listening, 2), "requests": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", type=Path, default=LISTS / "demo_questions.jsonl", help="questions to ask")
    parser.add_argument("--questions", type=int, default=2, help="how many of them, in order (default: 2)")
    parser.add_argument("--short", action="store_true", help="short-form answers (serve --short)")
    parser.add_argument("--store", help="an indexed store instead of the demo corpus")
    args = parser.parse_args()
    questions = [row["question"] for row in read_jsonl(args.list, limit=args.questions)]
    common = (("--short",) if args.short else ()) + (("--store", args.store) if args.store else ())
    for name, flags in VARIANTS.items():
        figures = measure(common + flags, questions)
        requests = ", ".join(f"{s:.1f} s" for s in figures["requests"])
        print(f"{name:18s} listening after {figures['listening_after']:.1f} s; requests in turn: {requests}",
              flush=True)


if __name__ == "__main__":
    main()
