"""Long form: what stopping each segment at the end of its sentence saves, measured in one run.

For each question (the first rows of PopQA dev as "Tell me about <subject>.", answered from their first K
passages), the default long form (SmolLM2-135M-Instruct, calibrated judge, plain prompts: one sentence
per segment) runs twice on the same passages: generating each segment's whole ``max_segment_tokens``
and keeping its first sentence (``stop_at_segment_end=False``, how every segment was generated before),
and stopping once the sentence has ended (the default). It prints the candidates generated, the tokens
generated and kept, the tokens thrown away, the wall time, and whether the two answers are the same
(they should be: the kept sentence and its sequence term do not depend on what follows it).

    python benchmarks/long_form.py --questions 6
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, add_max_new_tokens, read_jsonl
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from selfrag_langchain import SelfRAGLongForm, TransformersLLM
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.retrievers.passages import documents_from_ctxs

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "popqa_longtail_dev.jsonl"


class Fixed(BaseRetriever):
    """The question's own passages, whatever the query (each segment retrieves again)."""

    docs: list[Document]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return self.docs


def measure(rag: SelfRAGLongForm, question: str) -> dict[str, Any]:
    start = time.perf_counter()
    result = rag.invoke(question)
    seconds = time.perf_counter() - start
    generated = sum(c.num_tokens or 0 for c in result.candidates)
    kept = sum(c.kept_tokens or 0 for c in result.candidates)
    return {"seconds": seconds, "candidates": len(result.candidates), "generated": generated, "kept": kept,
            "thrown": generated - kept, "answer": result.answer}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=6)
    add_k(parser, default=3, help="passages per question, fewer than the library's: each question runs twice")
    add_max_new_tokens(parser, default=200, help="token budget of a whole answer, more than the library's: "
                       "what is measured is several segments an answer")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()

    rows = read_jsonl(args.data, limit=args.questions)
    llm = TransformersLLM().load()
    llm.invoke("warm up")
    runs: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
    for n, row in enumerate(rows):
        subject = re.sub(r"\s*\(.*?\)", "", row["s_wiki_title"])
        question = f"Tell me about {subject}."
        retriever = Fixed(docs=documents_from_ctxs(row["ctxs"][: args.k]))
        order = (False, True) if n % 2 == 0 else (True, False)  # neither setting always runs first
        for stop in order:
            rag = SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(), retriever=retriever, k=args.k,
                                  max_new_tokens=args.max_new_tokens, stop_at_segment_end=stop)
            runs[stop].append(measure(rag, question))
        before, after = runs[False][-1], runs[True][-1]
        print(f"{question[:44]:<44} whole budget: {before['seconds']:6.1f}s {before['generated']:4d} generated "
              f"{before['thrown']:4d} thrown | stop at sentence: {after['seconds']:6.1f}s {after['generated']:4d} "
              f"generated {after['thrown']:4d} thrown | same answer: {before['answer'] == after['answer']}",
              flush=True)

    print()
    for stop, label in ((False, "whole segment budget (before)"), (True, "stop at the sentence end (default)")):
        r = runs[stop]
        total = {key: sum(x[key] for x in r) for key in ("candidates", "generated", "kept", "thrown")}
        print(f"{label}: {statistics.mean(x['seconds'] for x in r):.1f} s a question; {total['candidates']} "
              f"candidates; {total['generated']} tokens generated, {total['kept']} kept, {total['thrown']} thrown "
              f"away ({total['thrown'] / max(total['generated'], 1):.0%})")
    same = sum(a["answer"] == b["answer"] for a, b in zip(runs[False], runs[True], strict=True))
    speedup = statistics.mean(x["seconds"] for x in runs[False]) / statistics.mean(x["seconds"] for x in runs[True])
    print(f"same answers: {same}/{len(rows)}; stopping at the sentence end is {speedup:.2f}x faster")


if __name__ == "__main__":
    main()
