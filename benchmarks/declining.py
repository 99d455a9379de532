"""Declining: how often Self-RAG says "the sources found do not answer" on questions the demo corpus cannot
answer, and how often it still answers the ones it can, beside the same runs without declining.

Two lists, each question answered once with the default settings (the embedded default models, the
calibrated judge, the demo corpus): ``benchmarks/data/demo_questions.jsonl`` (answerable, with gold answers) and
``benchmarks/data/unanswerable_questions.jsonl`` (entities the corpus lacks, invented ones, and details its
articles do not state; each row names the words that must be absent, checked against the corpus first).
Declining only replaces the final answer (the search is the same), so the answer without declining is
read from the same run's trace: the winning beam's segments (long form) or the chosen branch (short form).
Goal (issue 24): decline at least 80% of the unanswerable, answer at least 90% of the answerable.
95% Wilson intervals.

    python benchmarks/declining.py --form long --out selfrag-eval/declining-long.jsonl
    python benchmarks/declining.py --form short --out selfrag-eval/declining-short.jsonl
    python benchmarks/declining.py --form long --answerable benchmarks/data/demo_questions.jsonl \
        --answerable benchmarks/data/fresh_questions.jsonl --out selfrag-eval/declining-long-both.jsonl
    python benchmarks/declining.py --form long --setting reflector=learned --out selfrag-eval/decl-learned.jsonl
    python benchmarks/declining.py --form long --answerable benchmarks/data/tuning_questions.jsonl --no-unanswerable \
        --setting use_sequence_probability=false --out selfrag-eval/long-tuning-noseq.jsonl

``--answerable`` names the answerable lists (default: the demo list), ``--unanswerable`` the unanswerable ones
(default: ``benchmarks/data/unanswerable_questions.jsonl``); a list whose rows say ``where`` (the
answer in the article's first sentence or later) is also reported that way. ``--setting NAME=VALUE`` changes
one of the pipeline's settings (``PipelineSettings``; repeatable), ``--no-unanswerable`` leaves that list out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import read_jsonl, wilson  # benchmarks/common.py, beside this script
from pydantic import ValidationError

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.eval.metrics import match
from selfrag_langchain.pipeline import PipelineSettings, build_long_form, build_selfrag
from selfrag_langchain.results import LongFormResult, SelfRAGResult

HERE = Path(__file__).parent
GOALS = {"unanswerable": 0.8, "answerable": 0.9}


def questions(answerable_files: list[Path], unanswerable_files: list[Path]) -> list[dict[str, Any]]:
    answerable = [{**row, "set": f"answerable ({path.name})"} for path in answerable_files for row in read_jsonl(path)]
    unanswerable = [{**row, "set": "unanswerable" if len(unanswerable_files) == 1 else f"unanswerable ({path.name})"}
                    for path in unanswerable_files for row in read_jsonl(path)]
    return answerable + unanswerable


def check_absent(rows: list[dict[str, Any]]) -> None:
    """Refuse an unanswerable question whose telling words occur in the demo corpus."""
    from selfrag_langchain.corpus.demo import load_demo_documents

    corpus = "\n".join(f"{d.metadata.get('title', '')} {d.page_content}" for d in load_demo_documents())
    for row in rows:
        for word in row.get("absent", []):
            if re.search(rf"\b{re.escape(word)}\b", corpus, re.I):
                raise SystemExit(f"{row['question']!r}: {word!r} occurs in the demo corpus")


def undeclined_answer(result: LongFormResult | SelfRAGResult) -> str:
    """The answer the run would have given without declining: its own when it was not declined (a quoted answer
    is not in the trace's generations), else the chosen branch's quote or generation (long form: the
    generations, unquoted)."""
    if not result.declined:
        return result.answer
    if isinstance(result, LongFormResult):
        if result.selected is None:
            return ""
        return " ".join(result.candidate(i).answer for i in result.beams[result.selected].segments)
    chosen = result.branches[result.selected] if result.selected is not None else None
    return (chosen.quote or chosen.answer) if chosen is not None else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--form", choices=["long", "short"], default="long",
                        help="long form (selfrag serve's default) or short form (default: %(default)s)")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, one result per question (resumed)")
    parser.add_argument("--answerable", type=Path, action="append", default=None,
                        help="questions file with gold answers (repeatable; default: "
                             "benchmarks/data/demo_questions.jsonl)")
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a pipeline setting other than the default (repeatable), e.g. reflector=learned")
    parser.add_argument("--unanswerable", type=Path, action="append", default=None,
                        help="questions file the demo corpus cannot answer, each row naming its absent words "
                             "(repeatable; default: benchmarks/data/unanswerable_questions.jsonl)")
    parser.add_argument("--no-unanswerable", action="store_true", help="leave the unanswerable lists out")
    args = parser.parse_args()
    unanswerable = [] if args.no_unanswerable else args.unanswerable or [HERE / "data" / "unanswerable_questions.jsonl"]
    answerable = args.answerable or [HERE / "data" / "demo_questions.jsonl"]
    missing = [str(path) for path in (*answerable, *unanswerable) if not path.is_file()]
    if missing:
        parser.error(f"no questions file {missing[0]}")
    rows = questions(answerable, unanswerable)
    check_absent([r for r in rows if r["set"].startswith("unanswerable")])
    malformed = [item for item in args.setting if "=" not in item]
    if malformed:
        parser.error(f"--setting takes NAME=VALUE, got {malformed[0]!r}")
    changes = dict(item.split("=", 1) for item in args.setting)
    try:
        settings = PipelineSettings(**changes)
    except ConfigurationError as e:
        parser.error(f"--setting: {e}")
    except ValidationError as e:
        first = e.errors()[0]
        parser.error(f"--setting {first['loc'][0]}: {first['msg']}")
    rag = build_long_form(settings) if args.form == "long" else build_selfrag(settings)
    kind = LongFormResult if args.form == "long" else SelfRAGResult
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = {}
    if args.out.exists():
        done = {r["question"]: r for r in read_jsonl(args.out)}
    with args.out.open("a", encoding="utf-8") as out:
        for i, row in enumerate(rows, 1):
            if row["question"] in done:
                continue
            started = time.perf_counter()
            result = rag.invoke(row["question"])
            record = {**row, "seconds": time.perf_counter() - started, "result": json.loads(result.model_dump_json())}
            out.write(json.dumps(record) + "\n")
            out.flush()
            done[row["question"]] = record
            print(f"[{i}/{len(rows)}] {row['set']}: {'declined' if result.declined else 'answered'} "
                  f"in {record['seconds']:.1f} s: {row['question']}", flush=True)
    report(rows, done, kind, args.form, changes)


def report(rows: list[dict[str, Any]], done: dict[str, dict[str, Any]], kind: type, form: str,
           changes: dict[str, str]) -> None:
    changed = ", ".join(f"{name}={value}" for name, value in changes.items()) or "none"
    print(f"\n{form} form, default settings, changed: {changed}; 95% Wilson intervals\n")
    print("| set | n | declined | answered | right when answered | right without declining |")
    print("|---|---|---|---|---|---|")
    for name in dict.fromkeys(r["set"] for r in rows):
        records = [done[r["question"]] for r in rows if r["set"] == name]
        results = [kind.model_validate(r["result"]) for r in records]
        n = len(results)
        declined = sum(r.declined for r in results)
        answered = [(rec, res) for rec, res in zip(records, results, strict=True) if not res.declined]
        if name.startswith("answerable"):
            right = sum(match(res.answer, rec["answers"]) for rec, res in answered)
            without = sum(match(undeclined_answer(res), rec["answers"])
                          for rec, res in zip(records, results, strict=True))
            right_cell, without_cell = f"{right}/{len(answered)}", f"{without}/{n}"
        else:
            right_cell = without_cell = "-"
        lo, hi = wilson(declined, n)
        alo, ahi = wilson(n - declined, n)
        print(f"| {name} | {n} | {declined}/{n} = {declined / n:.1%} [{lo:.0%}, {hi:.0%}] | "
              f"{n - declined}/{n} = {(n - declined) / n:.1%} [{alo:.0%}, {ahi:.0%}] | {right_cell} | {without_cell} |")
    for name in dict.fromkeys(r["set"] for r in rows):
        split = [(r["where"], done[r["question"]]) for r in rows if r["set"] == name and r.get("where")]
        for where in ("first", "later"):
            picked = [kind.model_validate(rec["result"]) for w, rec in split if w == where]
            if picked:
                right = sum(match(res.answer, rec["answers"]) for (w, rec) in split if w == where
                            for res in [kind.model_validate(rec["result"])])
                print(f"{name}, answer in the article's {where} sentence{'s' if where == 'later' else ''}: "
                      f"right {right}/{len(picked)}")
    print("\ngoal: decline >= 80% of the unanswerable, answer >= 90% of the answerable")


if __name__ == "__main__":
    main()
