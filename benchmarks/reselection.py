"""What the library's selection and declining, as they stand, do to answers already given: each question of a
`selfrag eval --methods selfrag` run is selected again from its trace (:func:`selfrag_langchain.eval.rescoring.
reselect`), and every answer that changes is counted and printed, by what it was (right, wrong, declined, or an
answer to an unanswerable question, which has no gold) and what it becomes. Written for the rule on quotes that
speak of another thing than the question names (:func:`selfrag_langchain.chains.names.speaks_of_asked`:
selection drops such a quote's branch, and declining declines such an answer): run on traces made before a change
to selection or declining, it shows what that change does, and run with the code before the change (from its own
checkout) as well, it tells the change's part from that of earlier ones.

    python benchmarks/reselection.py selfrag-eval/s87/dev-q/selfrag.jsonl selfrag-eval/s87/dev-u/selfrag.jsonl

Each question counts once, however many files hold it. Selection reads only what the trace keeps, so the new
answer is the one the run would have given, except where the run left unwritten a branch that the code would now
choose (it is never chosen here), or wrote one it would now leave unwritten.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from common import read_jsonl, wilson

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.declining import DECLINED
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.rescoring import reselect
from selfrag_langchain.eval.tasks import get_task
from selfrag_langchain.results import SelfRAGResult

TASK = get_task("questions")


def answered_again(row: dict[str, Any]) -> str:
    """The answer the run's trace gives under the library's selection and declining, with the run's settings."""
    result = SelfRAGResult.model_validate(row["trace"])
    settings = LoopSettings.model_validate({k: v for k, v in result.settings.items() if k in LoopSettings.model_fields})
    return reselect(result, TASK, _example(row), weights=settings.weights(), constraints=settings.constraints())


def outcome(row: dict[str, Any], prediction: str) -> str:
    """What an answer was: one of :data:`OUTCOMES`."""
    if row.get("gold") is None:
        return "unanswerable, declined" if prediction.startswith(DECLINED) else "unanswerable, answered"
    if prediction.startswith(DECLINED):
        return "declined"
    return "right" if TASK.score(_example(row), prediction).correct else "wrong"


OUTCOMES = ("right", "wrong", "declined", "unanswerable, answered", "unanswerable, declined")
"""What an answer can be: an answerable question's answer, right or wrong, or declined; an unanswerable one's."""


def _example(row: dict[str, Any]) -> EvalExample:
    return EvalExample(key=row["key"], line=row["line"], question=row["question"], answers=tuple(row.get("gold") or ()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="selfrag.jsonl files of `selfrag eval` runs")
    args = parser.parse_args()
    rows = {row["question"]: row for path in args.runs for row in read_jsonl(path) if row.get("trace")}
    before: Counter[str] = Counter()
    changed: list[tuple[str, str, dict[str, Any], str]] = []
    for row in rows.values():
        was = outcome(row, row["prediction"])
        again = answered_again(row)
        before[was] += 1
        if again != row["prediction"] and not (was == outcome(row, again) and again.startswith(DECLINED)):
            changed.append((was, outcome(row, again), row, again))
    for kind in OUTCOMES:
        moved = Counter(now for was, now, _, _ in changed if was == kind)
        low, high = wilson(sum(moved.values()), before[kind])
        into = "".join(f"; {n} now {now}" for now, n in sorted(moved.items()))
        print(f"{kind}: {before[kind]} questions, {sum(moved.values())} change [{100 * low:.0f}, {100 * high:.0f}%]"
              f"{into}")
    for was, now, row, again in changed:
        print(f"  {was} -> {now} | {row['question']} | {row['prediction'][:70]} | {again[:70]}")


if __name__ == "__main__":
    main()
