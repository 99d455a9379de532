"""Long form, as ``selfrag serve`` answers by default, on question lists: right, declined, and how long (on
average and at worst).

Each question of an answerable list (``question``, ``answers``) and of an unanswerable one (``question``) is
asked of the default long form (``build_long_form`` with the default settings: the demo corpus unless a store
is indexed, quotes, declining; ``--k`` sets how many passages it judges, ``--later-k`` how many of them each
segment after the first judges, ``--dtype int8`` runs the generator's linear layers in int8), and with
``--short`` of the default short form beside it, on the same store in the same run. Each form first answers one
warm-up question, as the server does before it listens (``--no-warm-up``: not, so the first question's time
includes loading the models); its time is reported apart. An answer is right when a
gold alias occurs in it (``eval.metrics.match``); an unanswerable question is answered well when it is declined.
Answers are kept in ``--out`` (one JSON line per question and form) and a rerun goes on from where it stopped.

    python benchmarks/long_form_answers.py --answerable benchmarks/data/tuning_questions.jsonl \\
        --unanswerable benchmarks/data/unanswerable_questions.jsonl --out selfrag-eval/long-form.jsonl --short
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, add_later_k, read_jsonl, wilson

from selfrag_langchain.eval.metrics import match
from selfrag_langchain.files.durable import drop_torn_tail
from selfrag_langchain.pipeline import PipelineSettings, build_long_form, build_selfrag


def rows(path: Path | None, answerable: bool) -> list[dict[str, Any]]:
    """The list's rows, each marked answerable or not."""
    if path is None:
        return []
    return [{**row, "answerable": answerable} for row in read_jsonl(path)]


def ask(rag: Any, form: str, row: dict[str, Any]) -> dict[str, Any]:
    """One question to one form: its answer, whether it declined, segments and seconds."""
    start = time.perf_counter()
    result = rag.invoke(row["question"])
    seconds = time.perf_counter() - start
    out = {"form": form, "question": row["question"], "answerable": row["answerable"], "answer": result.answer,
           "declined": bool(result.declined), "seconds": round(seconds, 2),
           "segments": len(getattr(result, "segments", None) or [result.answer])}
    if row["answerable"]:
        out["right"] = not result.declined and match(result.answer, row["answers"])
    return out


def summary(done: list[dict[str, Any]], form: str) -> dict[str, Any]:
    """Right and declined counts of one form, with 95% Wilson intervals."""
    mine = [d for d in done if d["form"] == form]
    answerable = [d for d in mine if d["answerable"]]
    unanswerable = [d for d in mine if not d["answerable"]]
    right = sum(d["right"] for d in answerable)
    declined = sum(d["declined"] for d in unanswerable)
    return {
        "form": form,
        "right": right, "answerable": len(answerable),
        "right_ci": [round(x, 3) for x in wilson(right, len(answerable))],
        "declined_answerable": sum(d["declined"] for d in answerable),
        "declined": declined, "unanswerable": len(unanswerable),
        "declined_ci": [round(x, 3) for x in wilson(declined, len(unanswerable))],
        "mean_seconds": round(statistics.mean(d["seconds"] for d in mine), 2) if mine else None,
        "max_seconds": max(d["seconds"] for d in mine) if mine else None,
        "mean_segments": round(statistics.mean(d["segments"] for d in answerable), 2) if answerable else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answerable", type=Path, help="list of questions with their answers")
    parser.add_argument("--unanswerable", type=Path, help="list of questions the corpus cannot answer")
    parser.add_argument("--out", type=Path, required=True, help="answers, one JSON line each (resumed)")
    parser.add_argument("--short", action="store_true", help="ask the default short form too, as a baseline")
    parser.add_argument("--limit", type=int, help="the first N questions of each list")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON only")
    parser.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                        help="no warm-up question: the first question loads the models, as a server started "
                             "with --no-warm-up does")
    parser.add_argument("--dtype", help="the generator's weights (transformers' dtype, e.g. int8); default: its own")
    add_k(parser)
    add_later_k(parser)
    args = parser.parse_args()
    if args.answerable is None and args.unanswerable is None:
        parser.error("give --answerable, --unanswerable or both")
    questions = rows(args.answerable, True)[: args.limit] + rows(args.unanswerable, False)[: args.limit]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.out.exists():
        drop_torn_tail(args.out)
    done = read_jsonl(args.out) if args.out.exists() else []
    seen = {(d["form"], d["question"]) for d in done}
    settings = PipelineSettings(k=args.k, later_k=args.later_k,
                                backend_options={"dtype": args.dtype} if args.dtype else {})
    forms = {"long": build_long_form(settings)}
    if args.short:
        forms["short"] = build_selfrag(settings)
    warm_up: dict[str, float] = {}
    for form, rag in forms.items():
        if args.warm_up and any((form, row["question"]) not in seen for row in questions):  # a finished rerun asks none
            start = time.perf_counter()
            rag.warm_up()
            warm_up[form] = round(time.perf_counter() - start, 2)
    with args.out.open("a") as out:
        for row in questions:
            for form, rag in forms.items():
                if (form, row["question"]) in seen:
                    continue
                answer = ask(rag, form, row)
                out.write(json.dumps(answer) + "\n")
                out.flush()
                done.append(answer)
                if not args.json:
                    mark = "declined" if answer["declined"] else ("right" if answer.get("right") else "-")
                    print(f"{form:5s} {mark:8s} {answer['seconds']:6.1f}s  {row['question']}", flush=True)
    wanted = {(form, row["question"]) for form in forms for row in questions}
    report = [{**summary([d for d in done if (d["form"], d["question"]) in wanted], form),
               "warm_up_seconds": warm_up.get(form)} for form in forms]
    if args.json:
        print(json.dumps(report))
        return
    for s in report:
        lo, hi = s["right_ci"]
        dlo, dhi = s["declined_ci"]
        print(f"{s['form']:5s} right {s['right']}/{s['answerable']} [{lo:.0%}, {hi:.0%}] "
              f"(declined {s['declined_answerable']}), unanswerable declined {s['declined']}/{s['unanswerable']} "
              f"[{dlo:.0%}, {dhi:.0%}], {s['mean_seconds']} s a question ({s['max_seconds']} s at worst), "
              f"{s['mean_segments']} segments"
              + (f"; warm-up {s['warm_up_seconds']} s before the first question" if s["warm_up_seconds"] else ""))


if __name__ == "__main__":
    main()
