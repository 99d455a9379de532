"""What the traces of a `selfrag eval` run say about its judge: does the critic tell good passages and good
answers from bad ones, and what did selection gain or lose against the top passage?

    python benchmarks/eval_traces.py selfrag-eval/popqa/selfrag.jsonl
    python benchmarks/eval_traces.py selfrag-eval/arc/selfrag.jsonl

For match-scored tasks (PopQA, TriviaQA) a passage counts as relevant when a gold answer occurs in it, and a
branch as right when its answer matches. AUC is the probability that a random relevant (right) item gets a
higher score than a random irrelevant (wrong) one: 0.5 is chance.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from common import read_jsonl

from selfrag_langchain.eval.metrics import match


def auc(positives: list[float], negatives: list[float]) -> float | None:
    """Mann-Whitney AUC (ties count half); None when a side is empty."""
    if not positives or not negatives:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def match_task(records: list[dict[str, Any]]) -> None:
    rel_pos, rel_neg, sup_pos, sup_neg, use_pos, use_neg = [], [], [], [], [], []
    chosen_right = top1_right = any_right = retrieved = 0
    gained = lost = 0
    for r in records:
        trace, gold = r["trace"], r["gold"]
        if not trace["retrieved"]:
            continue
        retrieved += 1
        branches = trace["branches"]
        right = [match(b.get("quote") or b["answer"], gold) for b in branches]  # each as the run would answer
        for b, ok in zip(branches, right, strict=True):
            passage = b["passage"]["page_content"] if b["passage"] else ""
            s = b["scores"]
            if s["relevance"] is not None:
                (rel_pos if match(passage, gold) else rel_neg).append(s["relevance"])
            if s["support"] is not None:
                (sup_pos if ok else sup_neg).append(s["support"])
            if s["utility"] is not None:
                (use_pos if ok else use_neg).append(s["utility"])
        chosen = right[trace["selected"]] if trace["selected"] is not None else False
        chosen_right += chosen
        top1_right += right[0]
        any_right += any(right)
        gained += chosen and not right[0]
        lost += right[0] and not chosen
    print(f"questions {len(records)}, retrieved {retrieved}")
    print(f"of the retrieved: chosen branch right {chosen_right}, top-1 passage's branch right {top1_right}, "
          f"some branch right {any_right} (the ceiling of selection)")
    print(f"selection against the top-1 branch: gained {gained}, lost {lost}")
    print(f"IsRel  s_rel AUC (passage holds a gold answer vs not): {fmt(auc(rel_pos, rel_neg))}; "
          f"mean {fmt(mean(rel_pos))} vs {fmt(mean(rel_neg))}"
          f" ({len(rel_pos)} / {len(rel_neg)} passages)")
    print(f"IsSup  s_sup AUC (branch right vs wrong): {fmt(auc(sup_pos, sup_neg))}; "
          f"range {fmt(min(sup_pos + sup_neg, default=None))}..{fmt(max(sup_pos + sup_neg, default=None))}")
    print(f"IsUse  s_use AUC (branch right vs wrong): {fmt(auc(use_pos, use_neg))}")


def closed_task(records: list[dict[str, Any]]) -> None:
    chosen = Counter(r["label"] for r in records)
    gold = Counter(r["gold"] for r in records)
    options = Counter(b["option"] for r in records for b in r["trace"]["branches"])
    bare = sum(b["answer"].strip().rstrip(".") in ("A", "B", "C", "D") for r in records for b in r["trace"]["branches"])
    total = sum(len(r["trace"]["branches"]) for r in records)
    agree = sum(len({b["option"] for b in r["trace"]["branches"]}) == 1 for r in records)
    print(f"questions {len(records)}, right {sum(bool(r['correct']) for r in records)}")
    print(f"chosen options {dict(chosen)}; gold options {dict(gold)}")
    print(f"options of all {total} branches {dict(options)}; bare letters {bare}")
    print(f"questions whose branches all name the same option: {agree}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="a selfrag.jsonl written by `selfrag eval --methods selfrag`")
    args = parser.parse_args()
    records = read_jsonl(args.results)
    ps = [r["retrieve_probability"] for r in records if r.get("retrieve_probability") is not None]
    if ps:
        print(f"p(Retrieve): min {min(ps):.2f}, median {statistics.median(ps):.2f}, max {max(ps):.2f}")
    if records and records[0]["settings"]["task"] in ("arc_c", "pubhealth"):
        closed_task(records)
    else:
        match_task(records)


if __name__ == "__main__":
    main()
