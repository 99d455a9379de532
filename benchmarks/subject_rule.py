"""What the rule that declines a quote speaking of another thing than the question names
(:func:`selfrag_langchain.chains.declining.quote_speaks_of_asked`) does to answers already given: read from the
traces of a `selfrag eval --methods selfrag` run made without it, which right answers, wrong answers and answers to
unanswerable questions (no gold) it would decline.

    python benchmarks/subject_rule.py selfrag-eval/s87/dev-q/selfrag.jsonl selfrag-eval/s87/dev-u/selfrag.jsonl

Each question counts once, however many files hold it. The rule only declines, after selection, so its effect on
a run's answers is read exactly from the chosen branch of each trace.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from common import read_jsonl, wilson

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.declining import DECLINED, quote_speaks_of_asked
from selfrag_langchain.prompts import format_passage
from selfrag_langchain.results import BranchTrace


def declined_by_rule(row: dict[str, Any]) -> bool:
    """Whether the rule declines the answer of one evaluated question (False for an answer already declined, or
    not quoted), with the run's own ``min_name_coverage``."""
    trace = row.get("trace") or {}
    if row["prediction"].startswith(DECLINED) or trace.get("selected") is None:
        return False
    branch = BranchTrace.model_validate(trace["branches"][trace["selected"]])
    if branch.passage is None:
        return False
    passage = format_passage(branch.passage.metadata.get("title") or None, branch.passage.page_content)
    coverage = (trace.get("settings") or {}).get("min_name_coverage", LoopSettings().min_name_coverage)
    return not quote_speaks_of_asked(row["question"], branch, passage, coverage)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="selfrag.jsonl files of `selfrag eval` runs")
    args = parser.parse_args()
    rows = {row["question"]: row for path in args.runs for row in read_jsonl(path)}
    groups: dict[str, list[dict[str, Any]]] = {"right": [], "wrong": [], "unanswerable": []}
    for row in rows.values():
        kind = "unanswerable" if row.get("gold") is None else "right" if row.get("correct") else "wrong"
        groups[kind].append(row)
    for kind, members in groups.items():
        answered = [r for r in members if not r["prediction"].startswith(DECLINED)]
        hit = [r for r in answered if declined_by_rule(r)]
        low, high = wilson(len(hit), len(answered))
        print(f"{kind}: {len(members)} questions, {len(answered)} answered, the rule declines {len(hit)} "
              f"[{100 * low:.0f}, {100 * high:.0f}%]")
        for r in hit:
            branch = r["trace"]["branches"][r["trace"]["selected"]]
            print(f"  {r['question']} | {branch['passage']['metadata'].get('title')} | {branch['quote'][:100]}")


if __name__ == "__main__":
    main()
