"""Plain (instruction, output) pairs for generator-data creation, taken from a critic data file.

The utility rows of Self-RAG's critic data carry a task instruction and a model's output (``Task
instruction: …\\nOutput: …``); this writes them as ``{"instruction", "output", "id"}`` lines, the input
``selfrag train generator-data`` takes.

    python benchmarks/train_pairs.py ../shared/data/critic_dev.jsonl /tmp/e2e/pairs.jsonl --limit 10 --max-chars 600
"""

from __future__ import annotations

import argparse
from pathlib import Path

from selfrag_langchain.files.durable import write_text_atomic
from selfrag_langchain.trainer.critic_rows import read_critic_rows
from selfrag_langchain.trainer.data import jsonl_text, stable_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--max-chars", type=int, default=600, help="skip pairs longer than this (instruction + output)")
    args = parser.parse_args()
    pairs = []
    for row in read_critic_rows(args.source):
        fields = row.fields()
        if row.task != "utility" or fields is None or not fields["output"]:
            continue
        instruction, output = str(fields["instruction"]), str(fields["output"])
        if len(instruction) + len(output) > args.max_chars:
            continue
        pairs.append({"instruction": instruction, "output": output, "id": stable_id(instruction, output)})
        if len(pairs) == args.limit:
            break
    write_text_atomic(args.out, jsonl_text(pairs))
    print(f"{len(pairs)} pairs -> {args.out}")


if __name__ == "__main__":
    main()
