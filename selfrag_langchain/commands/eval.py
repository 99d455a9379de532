"""``selfrag eval``: Self-RAG and its baselines on an evaluation file, scored with the paper's metrics.

Examples:
    selfrag eval popqa_longtail.jsonl --task popqa --methods all --k 5 --max-new-tokens 24
    selfrag eval arc_challenge.jsonl --task arc_c --threshold 0.4
    selfrag eval popqa_longtail.jsonl --task popqa --sweep threshold --sweep w_sup
    selfrag eval my_questions.txt --task questions --store ./store
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from selfrag_langchain.commands.options import (
    add_long_form_options,
    add_run_options,
    note_demo_corpus,
    settings_from_args,
)
from selfrag_langchain.commands.output import emit
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.pipeline import (
    PipelineSettings,
)
from selfrag_langchain.scoring import check_weight

DEFAULT_OUT = Path("selfrag-eval")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval", help="evaluate Self-RAG and its baselines on a dataset (PopQA, TriviaQA, ARC, PubHealth, ASQA)",
        description="Answer every question of FILE with Self-RAG and the baselines, score the answers with the "
                    "paper's metrics, and write one JSON line per question plus a summary. Re-running with "
                    "the same --out skips finished questions.")
    parser.add_argument("file", type=Path, help="evaluation file: Self-RAG JSON Lines, an ALCE .json array, or "
                                                "for --task questions a .txt with one question a line")
    parser.add_argument("--task", required=True,
                        help="popqa | triviaqa (match), arc_c | pubhealth (accuracy), asqa (str-em, ROUGE-L, "
                             "citations), questions (a plain question file, passages from --store)")
    parser.add_argument("--methods", default=None,
                        help="comma-separated: selfrag, no_retrieval, rag_top1, rag_topk, or all "
                             "(default: selfrag, or none with --sweep)")
    parser.add_argument("--out", type=Path, default=None,
                        help="result directory (default: selfrag-eval/<file stem>.<task>)")
    parser.add_argument("--limit", type=int, default=None, help="evaluate only the first N questions")
    parser.add_argument("--sweep", action="append", default=[], metavar="KNOB",
                        help="threshold (accuracy and retrieval frequency against δ, the paper's Figure 3c) or "
                             "w_sup (accuracy against the IsSup weight, Figure 3b); repeat for both. Generates "
                             "each question once and re-decides for every value")
    parser.add_argument("--thresholds", default=None, help="threshold values to sweep (default: 0,0.1,...,1)")
    parser.add_argument("--w-sup-values", default=None, help="w_sup values to sweep (default: 0,0.25,0.5,1,1.5,2,3)")
    parser.add_argument("--citation-judge", choices=["issup", "none"], default="issup",
                        help="ASQA citation precision/recall: the critic's IsSup judgement, or skip them "
                             "(default: %(default)s)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_run_options(parser)
    add_long_form_options(parser)
    parser.set_defaults(run=run)


def _float_list(text: str | None, flag: str) -> list[float] | None:
    if text is None:
        return None
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError as e:
        raise ConfigurationError(f"{flag} must be comma-separated numbers, got {text!r}") from e
    if not values:
        raise ConfigurationError(f"{flag} needs at least one value")
    return values


def _methods(args: argparse.Namespace) -> list[str]:
    from selfrag_langchain.eval.methods import METHODS

    if args.methods is None:
        return [] if args.sweep else ["selfrag"]
    names = [m.strip() for m in args.methods.split(",") if m.strip()]
    if names == ["all"]:
        return list(METHODS)
    unknown = [m for m in names if m not in METHODS]
    if unknown or not names:
        raise ConfigurationError(f"unknown method {', '.join(unknown) or repr(args.methods)}: choose from "
                                 f"{', '.join(METHODS)} or all")
    return list(dict.fromkeys(names))


def _validate(args: argparse.Namespace, task: Any) -> tuple[PipelineSettings, list[str], dict[str, list[float]]]:
    from selfrag_langchain.eval.sweep import DEFAULT_VALUES, SWEEPABLE

    settings = settings_from_args(args)
    if args.limit is not None and args.limit < 1:
        raise ConfigurationError(f"--limit must be >= 1, got {args.limit}")
    methods = _methods(args)
    sweeps: dict[str, list[float]] = {}
    for knob in dict.fromkeys(args.sweep):
        if knob not in SWEEPABLE:
            raise ConfigurationError(f"cannot sweep '{knob}': choose {' or '.join(SWEEPABLE)}")
        flag = "--thresholds" if knob == "threshold" else "--w-sup-values"
        given = _float_list(args.thresholds if knob == "threshold" else args.w_sup_values, flag)
        sweeps[knob] = given or list(DEFAULT_VALUES[knob])
    if any(not 0 <= v <= 1 for v in sweeps.get("threshold", [])):
        raise ConfigurationError("--thresholds must lie in [0, 1]")
    for value in sweeps.get("w_sup", []):
        check_weight("--w-sup-values", value)
    if sweeps and task.form != "short":
        raise ConfigurationError(f"--sweep works on the short-form tasks, not {task.name}")
    return settings, methods, sweeps


def run(args: argparse.Namespace) -> int:
    # A kill (SIGTERM) stops like Ctrl-C: finished lines are on disk, and the summary of them is written.
    previous = signal.signal(signal.SIGTERM, _interrupt) if threading.current_thread() is threading.main_thread() \
        else None
    try:
        return _run(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _run(args: argparse.Namespace) -> int:
    from selfrag_langchain.eval.loaders import load_examples
    from selfrag_langchain.eval.runner import evaluate
    from selfrag_langchain.eval.session import EvalSession
    from selfrag_langchain.eval.sweep_run import run_sweeps
    from selfrag_langchain.eval.tasks import get_task

    task = get_task(args.task)
    settings, methods, sweeps = _validate(args, task)
    loaded = load_examples(args.file, task.name)
    for problem in loaded.problems[:10]:
        print(f"selfrag: {problem}", file=sys.stderr)
    if len(loaded.problems) > 10:
        print(f"selfrag: ... and {len(loaded.problems) - 10} more lines skipped", file=sys.stderr)
    examples = loaded.examples[: args.limit] if args.limit else loaded.examples
    out = args.out or DEFAULT_OUT / f"{args.file.stem}.{task.name}"
    session = EvalSession(settings, task, examples, citation_judge=args.citation_judge)
    if session.needs_store and (session.retrieves or any(name != "selfrag" for name in methods)):
        note_demo_corpus(settings)  # the store is opened: for Self-RAG when it retrieves, always for a baseline

    summaries = []
    for name in methods:
        summaries.append(evaluate(session.method(name), task, examples, out / f"{name}.jsonl", source=args.file,
                                  judge=session.judge(name), skipped_lines=len(loaded.problems),
                                  show_progress=not args.no_progress))
    if summaries:
        _print_table(summaries)
    if sweeps:
        _print_sweeps(run_sweeps(session, task, examples, out, sweeps, source=args.file,
                                 show_progress=not args.no_progress))
    return 0


def _print_table(summaries: list[dict[str, Any]]) -> None:
    emit(f"\n{'method':<16}{'accuracy':>10}{'retrieval':>11}{'answered':>10}{'s/q':>8}  output")
    for s in summaries:
        acc = f"{s['accuracy']:.3f}" if s["accuracy"] is not None else "-"
        ret = f"{s['retrieval_frequency']:.2f}" if s["retrieval_frequency"] is not None else "-"
        spq = f"{s['seconds_per_question']:.1f}" if s["seconds_per_question"] is not None else "-"
        emit(f"{s['method']:<16}{acc:>10}{ret:>11}{s['answered']:>5}/{s['questions']:<4}{spq:>8}  {s['output']}")
        for name, value in s["metrics"].items():
            emit(f"{'':<16}{name}: {value:.3f}")


def _print_sweeps(result: dict[str, Any]) -> None:
    for knob, swept in result["sweeps"].items():
        emit(f"\n{knob:>10}{'accuracy':>10}{'retrieval':>11}")
        for p in swept["points"]:
            acc = f"{p['accuracy']:.3f}" if p["accuracy"] is not None else "-"
            emit(f"{p['value']:>10g}{acc:>10}{p['retrieval_frequency']:>11.2f}")
        emit(f"plot: {swept['plot']}")
