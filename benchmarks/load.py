"""Many questions at once on the embedded default: no error, every answer complete, memory bounded.

Fifty questions (``retrieval_questions.jsonl``, repeated if fewer) go to default short-form Self-RAG
(SmolLM2-135M, the calibrated judge, the demo corpus) three ways, in one process:

1. one by one (the reference answers and time);
2. all at once through ``abatch`` (``max_concurrency`` = the number of questions);
3. each in its own ``SelfRAGConversation`` session, all sessions in parallel threads, every turn stored in one SQLite
   history file, as ``selfrag chat`` stores it.

For 2 and 3: errors, answers that differ from the one-by-one answer, sessions whose stored history lacks
the turn, wall time, and the process's peak resident memory (``ru_maxrss``) after each stage beside the
peak after the one-by-one stage.

    python benchmarks/load.py [--questions 50] [--stages abatch chat] [--rounds 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import read_jsonl

from selfrag_langchain.chains.chat import SelfRAGConversation
from selfrag_langchain.history import HistoryDatabase, SQLChatMessageHistory
from selfrag_langchain.pipeline import PipelineSettings, build_selfrag

QUESTIONS = Path(__file__).parent / "data" / "retrieval_questions.jsonl"


def peak_mib() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stage(name: str, started: float, answers: list[Any], reference: list[str], extra: str = "") -> None:
    errors = sum(isinstance(a, BaseException) for a in answers)
    for failure in {f"{type(a).__name__}: {a}" for a in answers if isinstance(a, BaseException)}:
        print(f"  {name} error: {failure}", flush=True)
    texts = [a if isinstance(a, str) else "" for a in answers]
    empty = sum(not t.strip() for t in texts)
    differ = sum(t != r for t, r in zip(texts, reference, strict=True))
    print(f"| {name} | {len(answers)} | {errors} | {empty} | {differ} | {time.perf_counter() - started:.1f} | "
          f"{peak_mib():.0f} |{extra}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--stages", nargs="+", default=["abatch", "chat"], choices=["abatch", "chat"],
                        help="what to run after the one-by-one reference")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the chat stage this many times: a peak that stops rising is memory that is bounded")
    args = parser.parse_args()
    rows = [row["question"] for row in read_jsonl(QUESTIONS)]
    questions = [rows[i % len(rows)] for i in range(args.questions)]

    rag = build_selfrag(PipelineSettings())
    rag.invoke("Who painted the Mona Lisa?")  # load the models and the store before any clock starts
    print(f"loaded; peak resident memory {peak_mib():.0f} MiB")
    print("| stage | questions | errors | empty answers | answers unlike one by one | wall s | peak RSS MiB | notes |")
    print("|---|---|---|---|---|---|---|---|")

    started = time.perf_counter()
    reference = [rag.invoke(q).answer for q in questions]
    stage("one by one", started, reference, reference)

    if "abatch" in args.stages:
        started = time.perf_counter()
        results = asyncio.run(rag.abatch(questions, {"max_concurrency": len(questions)}, return_exceptions=True))
        stage("`abatch`, all at once", started,
              [r if isinstance(r, BaseException) else r.answer for r in results], reference)
    if "chat" in args.stages:
        for round_number in range(1, args.rounds + 1):
            chat_sessions(rag, questions, reference, round_number)


def chat_sessions(rag: Any, questions: list[str], reference: list[str], round_number: int = 1) -> None:
    """Each question in its own session, every session in its own thread, one SQLite history file (one engine)."""
    with tempfile.TemporaryDirectory() as tmp:
        history = HistoryDatabase(Path(tmp) / "chat-history.sqlite3")
        chat = SelfRAGConversation(rag=rag, history_factory=lambda sid: SQLChatMessageHistory(sid, history))

        def session(i: int) -> str:
            return chat.invoke({"question": questions[i], "session_id": f"load-{i}"}).answer

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(questions)) as pool:
            futures = [pool.submit(session, i) for i in range(len(questions))]
            answers: list[Any] = []
            for future in futures:
                try:
                    answers.append(future.result())
                except Exception as e:  # counted, not raised: the figure is how many failed
                    answers.append(e)
        stored = sum(len(SQLChatMessageHistory(f"load-{i}", history).messages) == 2
                     for i in range(len(questions)))
        stage(f"chat sessions, one thread each (round {round_number})", started, answers, reference,
              f" {stored}/{len(questions)} sessions stored both messages |")


if __name__ == "__main__":
    main()
