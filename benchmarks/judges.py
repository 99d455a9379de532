"""Calibrated judges (the shipped fit and others) side by side on held-out labelled files, in one run.

For each file and judge: balanced accuracy per group (beside the majority label's, 50% or 33.3%), IsUse
macro-F1, and for synthetic files (rows with a ``kind``) the share of each kind labelled as made (and, for IsSup
kinds, the share judged not fully supported: a swapped fact is caught as "partially" too). The
contrast table answers the question the selection depends on: for a sentence copied from the passage
against the same sentence with one fact swapped, or against an answer about a neighbouring entity, which
does the judge score higher? (s_sup or s_use, the paper's scores, compared per kind.)

    python benchmarks/judges.py ../shared/data/critic_dev.jsonl \\
        ../shared/data/critic_extra/groundedness_wice_dev.jsonl judge_synthetic_heldout.jsonl \\
        --judge shipped --judge critic_train_only=judge-a.json
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from common import read_jsonl
from judge_spec import HELP as JUDGE_HELP
from judge_spec import judge_named

from selfrag_langchain.judging import Reflector
from selfrag_langchain.scoring import support_score, utility_score
from selfrag_langchain.tokens import FULLY_SUPPORTED, GROUP_TOKENS
from selfrag_langchain.trainer.agreement import group_report
from selfrag_langchain.trainer.critic_eval import predict
from selfrag_langchain.trainer.critic_rows import CriticRow


def rows_of(path: Path) -> tuple[list[CriticRow], list[str | None]]:
    rows, kinds = [], []
    for record in read_jsonl(path):
        row = CriticRow(record["instruction"], record["input"], record["output"], record["task"])
        if row.fields() is not None:
            rows.append(row)
            kinds.append(record.get("kind"))
    return rows, kinds


def report(name: str, judge: Reflector, path: Path) -> dict[str, object]:
    rows, kinds = rows_of(path)
    started = time.perf_counter()
    dists = predict(judge, rows, progress=False)  # type: ignore[arg-type]
    seconds = time.perf_counter() - started
    by_task: dict[str, tuple[list[str], list[str], list[dict[str, float]]]] = defaultdict(lambda: ([], [], []))
    by_kind: dict[str, list[tuple[bool, float, bool]]] = defaultdict(list)
    kinds_task: dict[str, str] = {}
    for row, kind, dist in zip(rows, kinds, dists, strict=True):
        predicted = max(GROUP_TOKENS[row.group], key=lambda t: dist.get(t, 0.0))
        by_task[row.task][0].append(row.output)
        by_task[row.task][1].append(predicted)
        by_task[row.task][2].append(dist)
        if kind:
            kinds_task[kind] = row.task
            score = support_score(dist) if row.task == "groundedness" else (
                utility_score(dist) if row.task == "utility" else dist.get("[Relevant]", 0.0))
            by_kind[kind].append((predicted == row.output, score, predicted != FULLY_SUPPORTED))
    out: dict[str, object] = {"judge": name, "file": path.name, "rows": len(rows), "seconds": round(seconds, 1)}
    for task, (gold, predicted, probabilities) in by_task.items():
        r = group_report(task, gold, predicted, probabilities)
        out[task] = {"balanced_accuracy": round(r.model.balanced_accuracy, 3),
                     "majority_balanced_accuracy": round(r.majority.balanced_accuracy, 3),
                     "macro_f1": round(r.model.macro_f1, 3), "majority_macro_f1": round(r.majority.macro_f1, 3),
                     "auc": None if r.auc is None else round(r.auc, 3), "n": r.model.n}
    for kind, hits in sorted(by_kind.items()):
        out[f"kind:{kind}"] = {"labelled_as_made": round(sum(h for h, _, _ in hits) / len(hits), 3),
                               "mean_score": round(sum(s for _, s, _ in hits) / len(hits), 3), "n": len(hits)}
        if kinds_task[kind] == "groundedness":  # a swapped fact is wrong as "partially" as well as "no support"
            out[f"kind:{kind}"]["not_fully_supported"] = round(sum(n for _, _, n in hits) / len(hits), 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--judge", action="append", default=None,
                        help=JUDGE_HELP)
    args = parser.parse_args()
    judges: dict[str, Reflector] = {}
    for item in args.judge or ["shipped"]:
        name, judge = judge_named(item)
        judges[name] = judge
    for path in args.files:
        for name, judge in judges.items():
            print(json.dumps(report(name, judge, path)), flush=True)


if __name__ == "__main__":
    main()
