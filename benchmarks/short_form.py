"""Latency of short-form Self-RAG against its baselines, measured in one run on the same questions.

Prints, per question and on average, the wall time of:
  plain RAG          one generation over the same 5 passages concatenated (the baseline)
  plain RAG top-1    one generation over the first passage
  Self-RAG default   K=5 branches judged by the calibrated judge (embeddings and word overlap), adaptive mode
  Self-RAG inline    K=5 branches judged by the generator's own tokens (SmolLM2 with the 15 tokens added)
  Self-RAG critic    K=5 branches judged by SmolLM2 as a zero-shot critic
  branches batched   the 5 branch prompts in one generate call
  branches 1-by-1    the same 5 prompts, one call each
and the ratios the targets are stated in (the default Self-RAG <= 2x plain RAG, inline <= 1.5x, critic
<= 3x, batched >= 3x faster than one by one).

    python benchmarks/short_form.py --questions 5 --max-new-tokens 24
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, add_max_new_tokens, read_jsonl

from selfrag_langchain import CriticReflector, InlineReflector, SelfRAG, TransformersLLM
from selfrag_langchain.chains.branches import branch_prompts, prepare_passages
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.prompts import format_passage, rag_prompt
from selfrag_langchain.retrievers.passages import documents_from_ctxs

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "popqa_longtail_dev.jsonl"


def timed(fn: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def model_with_reflection_tokens(base: TransformersLLM, max_new_tokens: int) -> TransformersLLM:
    """SmolLM2 with the 15 reflection tokens added: the inline path's cost on a real model."""
    from selfrag_langchain.trainer.vocabulary import save_with_reflection_tokens

    path = save_with_reflection_tokens(base.hf_model, base.tokenizer, tempfile.mkdtemp(prefix="smollm2-reflection-"))
    return TransformersLLM(model=str(path), max_new_tokens=max_new_tokens).load()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=5)
    add_k(parser)
    add_max_new_tokens(parser, default=24, help="token budget of an answer, one short sentence as the recorded "
                       "latencies were measured")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()

    rows = read_jsonl(args.data, limit=args.questions)
    llm = TransformersLLM(max_new_tokens=args.max_new_tokens).load()
    inline_llm = model_with_reflection_tokens(llm, args.max_new_tokens)
    default_rag = SelfRAG(generator=llm, reflector=CalibratedReflector(), k=args.k, max_new_tokens=args.max_new_tokens)
    critic_rag = SelfRAG(generator=llm, reflector=CriticReflector(llm, relevance="labels"), k=args.k, mode="always",
                         max_new_tokens=args.max_new_tokens)
    # The critic's default for zero-shot prompts: IsRel by question likelihood, one more read of each passage.
    likelihood_rag = critic_rag.model_copy(update={"reflector": CriticReflector(llm)})
    inline_rag = SelfRAG(generator=inline_llm, reflector=InlineReflector(inline_llm), k=args.k, mode="adaptive",
                         threshold=0.0, max_new_tokens=args.max_new_tokens)
    llm.invoke("warm up")  # first-call overheads out of the measurement
    for rag in (default_rag, critic_rag, likelihood_rag):
        rag.reflector.retrieve_distribution("warm up")  # computes the calibration priors once

    times: dict[str, list[float]] = {k: [] for k in ("plain", "plain_top1", "default", "inline", "critic",
                                                     "critic_likelihood", "batched",
                                                     "one_by_one")}
    plain_tokens: list[int] = []
    branch_tokens: list[int] = []
    for row in rows:
        docs = documents_from_ctxs(row["ctxs"][: args.k])
        question = {"question": row["question"], "ctxs": row["ctxs"][: args.k]}
        context = "\n\n".join(format_passage(d.metadata.get("title"), d.page_content) for d in docs)
        times["plain"].append(timed(llm.invoke, rag_prompt(row["question"], context)))
        plain_tokens.append(llm.count_tokens(rag_prompt(row["question"], context)))
        top1 = format_passage(docs[0].metadata.get("title"), docs[0].page_content)
        times["plain_top1"].append(timed(llm.invoke, rag_prompt(row["question"], top1)))
        times["default"].append(timed(default_rag.invoke, question))
        times["inline"].append(timed(inline_rag.invoke, question))
        times["critic"].append(timed(critic_rag.invoke, question))
        times["critic_likelihood"].append(timed(likelihood_rag.invoke, question))
        prepared = prepare_passages(docs, llm, instruction=row["question"], max_new_tokens=args.max_new_tokens,
                                    max_tokens=None)
        prompts = branch_prompts(row["question"], prepared, "rag")
        branch_tokens.append(sum(llm.count_tokens(p) for p in prompts))
        times["batched"].append(timed(llm.generate, prompts))
        times["one_by_one"].append(timed(lambda ps: [llm.generate([p]) for p in ps], prompts))
        print(f"{row['question'][:50]:<50} " + " ".join(f"{k}={v[-1]:.2f}s" for k, v in times.items()), flush=True)

    mean = {k: statistics.mean(v) for k, v in times.items()}
    print(f"\nprompt tokens per question: plain RAG {statistics.mean(plain_tokens):.0f}, "
          f"K branches together {statistics.mean(branch_tokens):.0f}")
    print("mean seconds per question: " + ", ".join(f"{k} {v:.2f}" for k, v in mean.items()))
    print(f"Self-RAG default (calibrated judge) / plain RAG: {mean['default'] / mean['plain']:.2f}x (target <= 2x); "
          f"/ plain RAG top-1: {mean['default'] / mean['plain_top1']:.2f}x")
    print(f"Self-RAG inline / plain RAG: {mean['inline'] / mean['plain']:.2f}x (target <= 1.5x)")
    print(f"Self-RAG critic / plain RAG: {mean['critic'] / mean['plain']:.2f}x (target <= 3x)")
    print(f"Self-RAG critic, IsRel by question likelihood (the critic's default) / plain RAG: "
          f"{mean['critic_likelihood'] / mean['plain']:.2f}x")
    print(f"branches one by one / batched: {mean['one_by_one'] / mean['batched']:.2f}x (target >= 3x)")


if __name__ == "__main__":
    main()
