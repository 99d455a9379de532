"""What the embedded generator knows about ARC-Challenge when it need not write the answer: option likelihoods.

The generated answers of SmolLM2-135M on ARC are mostly "A" (every method at or below chance in
``selfrag eval --task arc_c``). This reads the generator more gently, as evaluation harnesses do for
small models: for each question and each prompt (no passage, each of the top k passages, the top k
joined), the log-likelihood of every option's text as the answer, divided by its number of tokens; the
prompt "chooses" the likeliest option. Rows: no retrieval, top-1 passage, top-k joined, a vote of the k
single-passage prompts, and the ceiling (some single-passage prompt chose right). If the ceiling is
near chance, no selection among the passages (Self-RAG's included) can do much with this generator.

    python benchmarks/arc_options.py
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k
from langchain_core.documents import Document

from selfrag_langchain import TransformersLLM
from selfrag_langchain.chains.branches import branch_prompts, prepare_passages
from selfrag_langchain.eval.loaders import load_examples
from selfrag_langchain.llms.base import ContinuationRequest
from selfrag_langchain.prompts import TASK_INSTRUCTIONS, build_instruction

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "arc_challenge_dev.jsonl"


def likeliest(scores: list[float], lengths: list[int]) -> int:
    """The option with the highest log-likelihood per token (the first on ties)."""
    per_token = [s / max(n, 1) for s, n in zip(scores, lengths, strict=True)]
    return max(range(len(per_token)), key=lambda i: (per_token[i], -i))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    add_k(parser, help="passages read per question, one prompt each, and joined")
    args = parser.parse_args()

    llm = TransformersLLM().load()
    examples = load_examples(args.data, "arc_c").examples
    right: Counter[str] = Counter()
    start = time.perf_counter()
    for example in examples:
        labels = list(example.choices)
        gold = labels.index(str(example.label))
        instruction = build_instruction(example.question, TASK_INSTRUCTIONS["arc_c"], example.choices)
        docs = [d for d in example.passages or [] if d.page_content.strip()][: args.k]
        single = prepare_passages(docs, llm, instruction=instruction, max_new_tokens=24, max_tokens=None)
        joined_text = "\n\n".join(f"{d.metadata.get('title', '')}\n{d.page_content}" for d in docs)
        joined = prepare_passages([Document(page_content=joined_text)], llm, instruction=instruction,
                                  max_new_tokens=24, max_tokens=None)
        prompts = [*branch_prompts(instruction, None, "rag"), *branch_prompts(instruction, single, "rag"),
                   *branch_prompts(instruction, joined, "rag")]
        options = tuple(example.choices[label] for label in labels)
        lengths = [llm.count_tokens(text) for text in options]
        scores = llm.score_continuations([ContinuationRequest(p, options) for p in prompts])
        chosen = [likeliest(s, lengths) for s in scores]
        branches = chosen[1:-1]
        right["no retrieval"] += chosen[0] == gold
        right["top-1 passage"] += branches[0] == gold
        right[f"top-{args.k} joined"] += chosen[-1] == gold
        right[f"vote of {args.k} passages"] += Counter(branches).most_common(1)[0][0] == gold
        right["ceiling (some passage)"] += gold in branches
    seconds = time.perf_counter() - start

    n = len(examples)
    print(f"ARC-Challenge, {n} questions of {args.data.name}, options read by likelihood per token "
          f"({seconds:.0f} s; chance {100 / 4:.0f}%)")
    for name in ("no retrieval", "top-1 passage", f"top-{args.k} joined", f"vote of {args.k} passages",
                 "ceiling (some passage)"):
        print(f"  {name:<26} {100 * right[name] / n:5.1f}%  ({right[name]}/{n})")


if __name__ == "__main__":
    main()
