"""A model of the pipeline in ONNX Runtime (fp32, the default on a CPU) against torch, in one run: the calibrated
judge's embeddings (``--models judge``), or the sentence reader and the answer finder (``--models readers``).

Short-form Self-RAG with the default settings answers each question twice, once with each runtime of those models
(the runtimes alternate from question to question, so that both see the same load), after one untimed question
each. Both are full precision, so the answers should be the same: the script prints how many are, the mean seconds
a question of each, and their ratio.

    python benchmarks/judge_runtime.py benchmarks/data/fourteenth_check_questions.jsonl --questions 40
    python benchmarks/judge_runtime.py benchmarks/data/fourteenth_check_questions.jsonl --models readers
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import print_figures, read_jsonl

from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.judging.finder import AnswerFinder
from selfrag_langchain.judging.reader import SentenceReader
from selfrag_langchain.pipeline import PipelineSettings, build_generator, build_selfrag

RUNTIMES = {"judge": ("torch", CalibratedReflector.embedding_runtime), "readers": ("torch", "onnx")}
"""Each part's runtimes: the baseline, then the default."""


def pipelines(models: str) -> dict[str, SelfRAG]:
    """Short-form Self-RAG with the default settings, one for each runtime of ``models``, sharing the generator."""
    settings = PipelineSettings()
    generator = build_generator(settings)
    if models == "judge":
        return {runtime: build_selfrag(settings, generator=generator, reflector=CalibratedReflector(
            settings.calibration, embeddings=MiniLMEmbeddings(runtime=runtime))) for runtime in RUNTIMES[models]}
    rag = build_selfrag(settings, generator=generator)
    if rag.quoter is None:
        raise SystemExit("the default settings no longer quote: there is no reader or finder to compare")
    return {runtime: rag.model_copy(update={"quoter": rag.quoter.model_copy(update={
        "reader": SentenceReader(runtime=runtime), "finder": AnswerFinder(runtime=runtime)})})
        for runtime in RUNTIMES[models]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions_file", type=Path, help="JSON Lines with `question`")
    parser.add_argument("--questions", type=int, default=40, help="how many of its questions (default: 40)")
    parser.add_argument("--models", choices=sorted(RUNTIMES), default="judge",
                        help="the judge's embeddings, or the sentence reader and the answer finder (default: judge)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures here as JSON")
    args = parser.parse_args()
    if args.questions < 1:
        parser.error(f"--questions must be at least 1, not {args.questions}")
    rows = read_jsonl(args.questions_file, limit=args.questions + 1)
    questions = [row["question"] for row in rows if isinstance(row, dict) and row.get("question")]
    if len(questions) < 2:
        raise SystemExit(f"{args.questions_file}: fewer than two rows with a `question`")
    runtimes = RUNTIMES[args.models]
    rags = pipelines(args.models)
    for rag in rags.values():
        rag.invoke(questions[0])  # loads: not timed
    seconds: dict[str, list[float]] = {runtime: [] for runtime in runtimes}
    answers: dict[str, list[str]] = {runtime: [] for runtime in runtimes}
    for i, question in enumerate(questions[1:]):
        for runtime in runtimes[::-1] if i % 2 else runtimes:
            start = time.perf_counter()
            answers[runtime].append(rags[runtime].invoke(question).answer)
            seconds[runtime].append(time.perf_counter() - start)
    baseline, new = runtimes
    same = sum(a == b for a, b in zip(answers[baseline], answers[new], strict=True))
    means = {runtime: statistics.mean(seconds[runtime]) for runtime in runtimes}
    print_figures({"models": args.models, "questions": len(questions) - 1, "same_answers": same,
                   "seconds_per_question": {runtime: round(mean, 3) for runtime, mean in means.items()},
                   "ratio": round(means[new] / means[baseline], 3)}, args.out)


if __name__ == "__main__":
    main()
