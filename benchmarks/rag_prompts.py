"""What the RAG prompt's wording does to every method that reads a passage, on PopQA dev.

For each prompt, every question's K branches (one per passage) are generated once, then read three
ways: the top-1 passage's branch (plain top-1 RAG), whether any branch is right (the ceiling of any
selection among the K passages), and the branch the default Self-RAG selects (the calibrated judge and
the paper's score with the sequence term on, as ``SelfRAG`` selected when this was measured; always
retrieving, without the names rule).

    python benchmarks/rag_prompts.py --max-new-tokens 24
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, add_max_new_tokens

from selfrag_langchain import CalibratedReflector, TransformersLLM
from selfrag_langchain.chains.branches import prepare_passages, to_branches
from selfrag_langchain.chains.selection import select
from selfrag_langchain.eval.loaders import load_examples
from selfrag_langchain.eval.metrics import match
from selfrag_langchain.prompts import rag_prompt
from selfrag_langchain.scoring import HardConstraints, ScoringWeights

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "popqa_longtail_dev.jsonl"


def previous_prompt(instruction: str, passage: str | None) -> str:
    """The RAG prompt before the passage's words were asked for."""
    if passage is None:
        return f"Question: {instruction}\nAnswer the question in one short sentence."
    return (f"Passage: {passage}\n\nQuestion: {instruction}\n"
            "Answer the question in one short sentence, using the passage.")


def words_at_the_end(instruction: str, passage: str | None) -> str:
    """The previous layout, asking for the passage's words only at the end."""
    return (f"Passage: {passage}\n\nQuestion: {instruction}\n"
            "Answer the question in one short sentence, with the words of the passage.")


def completion_style(instruction: str, passage: str | None) -> str:
    """The request first, then an ``Answer:`` to complete."""
    return ("Answer the question with the words of the passage.\n\n"
            f"Passage: {passage}\n\nQuestion: {instruction}\nAnswer:")


PROMPTS = {"previous": previous_prompt, "current": rag_prompt, "words-at-end": words_at_the_end,
           "completion": completion_style}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    add_k(parser)
    add_max_new_tokens(parser, default=24, help="token budget of a branch, one short sentence as its recorded "
                       "figures were run")
    args = parser.parse_args()

    examples = load_examples(args.data, "popqa").examples
    llm = TransformersLLM(max_new_tokens=args.max_new_tokens).load()
    judge = CalibratedReflector()
    for name, prompt in PROMPTS.items():
        top1 = ceiling = chosen = 0
        start = time.perf_counter()
        for ex in examples:
            docs = [d for d in ex.passages if d.page_content.strip()][: args.k]
            prepared = prepare_passages(docs, llm, instruction=ex.question, max_new_tokens=args.max_new_tokens,
                                        max_tokens=None)
            branches = to_branches(llm.generate([prompt(ex.question, p.evidence) for p in prepared]), prepared)
            right = [match(b.answer, ex.answers) for b in branches]
            selection = select(branches, judge.critique(ex.question, branches), weights=ScoringWeights(),
                               constraints=HardConstraints())
            top1 += right[0]
            ceiling += any(right)
            chosen += right[selection.selected] if selection.selected is not None else 0
        n = len(examples)
        print(f"{name:<12} prompt: top-1 branch right {top1}/{n} ({top1 / n:.0%}), some branch right {ceiling}/{n} "
              f"({ceiling / n:.0%}), Self-RAG (calibrated judge) {chosen}/{n} ({chosen / n:.0%}); "
              f"{time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
