"""The generator in int8 beside float32 (``TransformersLLM(dtype="int8")``): the time to read a prompt and to
write one token, for one prompt and for a batch, and how many answers of a question list come out the same.

Both models are loaded in the same run, and each measure is timed on each in turn, so the baseline shares the
machine's state. Answers are the default generator's to the list's questions with their top passage from the
demo corpus (greedy, ``--max-new-tokens``), one prompt at a time.

    python benchmarks/int8_generator.py --questions benchmarks/data/tuning_questions.jsonl --limit 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import read_jsonl

from selfrag_langchain.llms.model_cache import returned_cache, with_cache
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.prompts import rag_prompt


def forward_times(llm: TransformersLLM, prompt: str, batch: int, steps: int) -> tuple[float, float]:
    """Seconds to read ``prompt`` (``batch`` copies at once) and seconds per token step after it."""
    import torch

    model = llm.hf_model
    ids = torch.tensor([llm.tokenizer(llm.format_prompt(prompt), add_special_tokens=False)["input_ids"]] * batch)
    with torch.inference_mode():
        start = time.perf_counter()
        out = model(ids, use_cache=True)
        read = time.perf_counter() - start
        cache, token = returned_cache(out), out.logits[:, -1:].argmax(-1)
        start = time.perf_counter()
        for _ in range(steps):
            out = model(token, **with_cache(model, cache), use_cache=True)
            cache, token = returned_cache(out), out.logits[:, -1:].argmax(-1)
    return read, (time.perf_counter() - start) / steps


def prompts_for(path: Path, limit: int) -> list[str]:
    """Each question with its top passage from the demo corpus, as the plain RAG prompt."""
    from selfrag_langchain.pipeline import PipelineSettings, build_retriever

    retriever = build_retriever(PipelineSettings(k=1))
    rows = read_jsonl(path, limit)
    return [rag_prompt(row["question"], retriever.invoke(row["question"])[0].page_content) for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, required=True, help="question list (JSON lines with 'question')")
    parser.add_argument("--limit", type=int, default=20, help="the first N questions")
    parser.add_argument("--max-new-tokens", type=int, default=24)
    parser.add_argument("--steps", type=int, default=20, help="token steps timed after each prompt is read")
    args = parser.parse_args()
    prompts = prompts_for(args.questions, args.limit)
    models: dict[str, Any] = {name: TransformersLLM(dtype=name, max_new_tokens=args.max_new_tokens).load()
                              for name in ("float32", "int8")}
    for batch in (1, 3):
        times = {name: [forward_times(llm, p, batch, args.steps) for p in prompts[:5]] for name, llm in models.items()}
        for name, rows in times.items():
            print(f"{name:8s} batch {batch}: read a prompt {statistics.mean(r for r, _ in rows):.2f} s, "
                  f"a token step {1000 * statistics.mean(s for _, s in rows):.0f} ms")
    answers: dict[str, list[str]] = {}
    for name, llm in models.items():
        start = time.perf_counter()
        answers[name] = [llm.invoke(p) for p in prompts]
        print(f"{name:8s} {len(prompts)} answers in {time.perf_counter() - start:.1f} s")
    same = sum(a.strip() == b.strip() for a, b in zip(answers["float32"], answers["int8"], strict=True))
    print(f"the same answer from both: {same}/{len(prompts)}")


if __name__ == "__main__":
    main()
