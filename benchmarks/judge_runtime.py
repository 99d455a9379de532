"""The calibrated judge's embeddings in ONNX Runtime (fp32, the default on a CPU) against torch, in one run.

Short-form Self-RAG with the default settings answers each question twice, once with each runtime of the judge's
all-MiniLM-L6-v2 (the runtimes alternate from question to question, so that both see the same load), after one
untimed question each. Both are full precision, so the answers should be the same: the script prints how many
are, the mean seconds a question of each, and their ratio.

    python benchmarks/judge_runtime.py benchmarks/data/fourteenth_check_questions.jsonl --questions 40
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import print_figures, read_jsonl

from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.pipeline import PipelineSettings, build_generator, build_selfrag

RUNTIMES = ("torch", CalibratedReflector.embedding_runtime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions_file", type=Path, help="JSON Lines with `question`")
    parser.add_argument("--questions", type=int, default=40, help="how many of its questions (default: 40)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures here as JSON")
    args = parser.parse_args()
    if args.questions < 1:
        parser.error(f"--questions must be at least 1, not {args.questions}")
    rows = read_jsonl(args.questions_file, limit=args.questions + 1)
    questions = [row["question"] for row in rows if isinstance(row, dict) and row.get("question")]
    if len(questions) < 2:
        raise SystemExit(f"{args.questions_file}: fewer than two rows with a `question`")
    settings = PipelineSettings()
    generator = build_generator(settings)
    rags = {runtime: build_selfrag(settings, generator=generator, reflector=CalibratedReflector(
        settings.calibration, embeddings=MiniLMEmbeddings(runtime=runtime))) for runtime in RUNTIMES}
    for rag in rags.values():
        rag.invoke(questions[0])  # loads: not timed
    seconds: dict[str, list[float]] = {runtime: [] for runtime in RUNTIMES}
    answers: dict[str, list[str]] = {runtime: [] for runtime in RUNTIMES}
    for i, question in enumerate(questions[1:]):
        for runtime in RUNTIMES[::-1] if i % 2 else RUNTIMES:
            start = time.perf_counter()
            answers[runtime].append(rags[runtime].invoke(question).answer)
            seconds[runtime].append(time.perf_counter() - start)
    baseline, new = RUNTIMES
    same = sum(a == b for a, b in zip(answers[baseline], answers[new], strict=True))
    means = {runtime: statistics.mean(seconds[runtime]) for runtime in RUNTIMES}
    print_figures({"questions": len(questions) - 1, "same_answers": same,
                   "seconds_per_question": {runtime: round(mean, 3) for runtime, mean in means.items()},
                   "ratio": round(means[new] / means[baseline], 3)}, args.out)


if __name__ == "__main__":
    main()
