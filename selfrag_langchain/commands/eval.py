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
    build_generator,
    build_long_form,
    build_passage_window,
    build_reflector,
    build_retriever,
    build_selfrag,
)
from selfrag_langchain.scoring import RetrieveMode, check_weight

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
    session = _Session(settings, task, examples, citation_judge=args.citation_judge)

    summaries = []
    for name in methods:
        summaries.append(evaluate(session.method(name), task, examples, out / f"{name}.jsonl", source=args.file,
                                  judge=session.judge(name), skipped_lines=len(loaded.problems),
                                  show_progress=not args.no_progress))
    if summaries:
        _print_table(summaries)
    if sweeps:
        _run_sweeps(args, session, task, examples, out, sweeps)
    return 0


class _Session:
    """The models and retriever of one command, built once from its settings and shared by its methods."""

    def __init__(self, settings: PipelineSettings, task: Any, examples: list[Any], citation_judge: str) -> None:
        self.settings, self.task, self.citation_judge = settings, task, citation_judge
        self.needs_store = any(ex.passages is None for ex in examples)
        self._generator: Any = None
        self._retriever: Any = None
        self._selfrag: Any = None
        self._long_form: Any = None
        self._judge: Any = None

    @property
    def generator(self) -> Any:
        if self._generator is None:
            self._generator = build_generator(self.settings)
        return self._generator

    @property
    def retriever(self) -> Any:
        """The store, only when some question comes without passages (baselines always need it)."""
        if self._retriever is None and self.needs_store:
            note_demo_corpus(self.settings)
            self._retriever = build_retriever(self.settings)
        return self._retriever

    @property
    def retrieves(self) -> bool:
        return self.settings.mode != RetrieveMode.NEVER

    def selfrag(self) -> Any:
        if self._selfrag is None:
            self._selfrag = build_selfrag(self.settings, generator=self.generator,
                                          reflector=build_reflector(self.settings, self.generator),
                                          retriever=self.retriever if self.retrieves else None)
        return self._selfrag

    def long_form(self) -> Any:
        from selfrag_langchain.retrievers import PassageRetriever

        if self._long_form is None:
            # The questions' own passages come first; without a store, an empty retriever stands in for it.
            retriever = self.retriever if self.retrieves and self.needs_store else PassageRetriever()
            self._long_form = build_long_form(self.settings, generator=self.generator,
                                              reflector=build_reflector(self.settings, self.generator),
                                              retriever=retriever)
        return self._long_form

    def method(self, name: str) -> Any:
        from selfrag_langchain.eval.methods import BaselineMethod, LongFormMethod, SelfRAGMethod

        if name == "selfrag":
            if self.task.form == "long":
                return LongFormMethod(self.long_form(), models=self.models(judges=True))
            return SelfRAGMethod(self.selfrag(), models=self.models(judges=True))
        prompt_format = "selfrag" if self.settings.reflector == "inline" else "rag"
        return BaselineMethod(name, self.generator, k=self.settings.k, max_new_tokens=self.settings.max_new_tokens,
                              prompt_format=prompt_format, retriever=self.retriever,
                              passage_window=build_passage_window(self.settings),
                              models=self.models(judges=False))

    def models(self, *, judges: bool) -> dict[str, Any]:
        """The model settings a result depends on: the generator's, and the judge's when ``judges``."""
        s = self.settings
        found = {"model": s.model, "backend": s.backend}
        if judges:
            found |= {"reflector": s.reflector}
            if s.reflector in ("calibrated", "learned"):
                found |= {"judge": str(s.judge) if s.judge else "shipped"}
            if s.reflector == "learned":
                found |= {"judge_encoder": str(s.judge_encoder) if s.judge_encoder else "shipped"}
            else:
                found |= {"critic": s.critic, "critic_prompts": s.critic_prompts, "relevance": s.resolved_relevance}
        return found

    def judge(self, name: str) -> Any:
        """ASQA's citation judge: the run's judge's IsSup judgement (the calibrated judge, or a critic). An
        inline reflector judges only its own generations, so with it the judge is a critic."""
        if self.task.name != "asqa" or self.citation_judge == "none":
            return None
        from selfrag_langchain.eval.judges import IsSupJudge

        if self._judge is None:
            if self.settings.reflector != "inline" and name == "selfrag":
                reflector = self.long_form().reflector
            else:
                reflector = build_reflector(self.settings.with_changes(reflector="critic"), self.generator)
            self._judge = IsSupJudge(reflector)
        return self._judge


def _print_table(summaries: list[dict[str, Any]]) -> None:
    emit(f"\n{'method':<14}{'accuracy':>10}{'retrieval':>11}{'answered':>10}{'s/q':>8}  output")
    for s in summaries:
        acc = f"{s['accuracy']:.3f}" if s["accuracy"] is not None else "-"
        ret = f"{s['retrieval_frequency']:.2f}" if s["retrieval_frequency"] is not None else "-"
        spq = f"{s['seconds_per_question']:.1f}" if s["seconds_per_question"] is not None else "-"
        emit(f"{s['method']:<14}{acc:>10}{ret:>11}{s['answered']:>5}/{s['questions']:<4}{spq:>8}  {s['output']}")
        for name, value in s["metrics"].items():
            emit(f"{'':<14}{name}: {value:.3f}")


def _run_sweeps(args: argparse.Namespace, session: _Session, task: Any, examples: list[Any], out: Path,
                sweeps: dict[str, list[float]]) -> None:
    import json

    from selfrag_langchain.durable import write_json_atomic
    from selfrag_langchain.eval.plots import plot_sweep
    from selfrag_langchain.eval.runner import Progress, json_settings, run_questions
    from selfrag_langchain.eval.sweep import Decision, generation_settings, reusable_lines, sweep, sweep_record

    runnable = session.selfrag()
    settings = {"task": task.name, "kind": "sweep", **session.models(judges=True),
                **generation_settings(runnable.settings())}
    settings = json_settings(settings)
    prior = reusable_lines(out / "selfrag.jsonl", settings)
    progress = Progress(records={})
    run_questions(examples, out / "sweep.jsonl", settings,
                  lambda ex: sweep_record(runnable, task, ex, prior.get(ex.key)),
                  desc="sweep", show_progress=not args.no_progress, progress=progress)
    pipeline = session.settings
    base = Decision(pipeline.mode, pipeline.threshold, runnable.weights(), runnable.constraints())
    baselines = _baseline_accuracies(out, pipeline.model)
    result: dict[str, Any] = {"task": task.name, "file": str(args.file), "questions": len(examples),
                              "settings": settings, "base": {"mode": str(pipeline.mode),
                                                             "threshold": pipeline.threshold,
                                                             **runnable.weights().__dict__},
                              "generation_seconds": round(sum(r["seconds"] for r in progress.records.values()), 2),
                              "sweeps": {}}
    for knob, values in sweeps.items():
        points = sweep(progress.records, task, examples, base, knob, values)
        png = plot_sweep(points, out / f"sweep_{knob}.png", baselines=baselines,
                         title=f"{task.name}, {pipeline.model}, {len(examples)} questions, k={pipeline.k}")
        result["sweeps"][knob] = {"points": [p.__dict__ for p in points], "plot": str(png)}
        emit(f"\n{knob:>10}{'accuracy':>10}{'retrieval':>11}")
        for p in points:
            acc = f"{p.accuracy:.3f}" if p.accuracy is not None else "-"
            emit(f"{p.value:>10g}{acc:>10}{p.retrieval_frequency:>11.2f}")
        emit(f"plot: {png}")
    write_json_atomic(out / "sweep.summary.json", json.loads(json.dumps(result, default=str)))


def _baseline_accuracies(out: Path, model: str) -> dict[str, float]:
    """Accuracies of the baselines already evaluated into ``out`` with the same model, drawn as reference
    lines."""
    import json

    from selfrag_langchain.eval.methods import BASELINES

    found = {}
    for name in BASELINES:
        path = out / f"{name}.summary.json"
        if path.exists():
            summary = json.loads(path.read_text())
            if summary.get("accuracy") is not None and summary.get("settings", {}).get("model") == model:
                found[name] = summary["accuracy"]
    return found
