"""How many written branches of a `selfrag eval --methods selfrag` run had their quote settled before a word of them
was generated: the generation then changed nothing, and writing it was time spent for no answer.

A quoted branch's answer is the sentence of its passage that maximises ``cos(query, sentence) + held +
reader_weight * reading`` (:class:`~selfrag_langchain.chains.quotes.PassageQuoter`), and its score is its quote's,
whatever it generated. Only ``cos`` and ``held`` depend on the generation. With unit vectors, ``cos(query, a) -
cos(query, b)`` is at most ``|a - b|``, and ``held`` (the share of the generation's new words a sentence holds) lies
in [0, 1]; so the best-read sentence is the quote, whatever is generated, when for every other sentence
``reader_weight * (best reading - its reading) > |its vector - the best's| + 1``. This script reads each written,
quoted branch's passage again with the library's quoter (sentence readings and embeddings, no generator) and
counts the branches for which that holds; beside it, as the baseline, how often the run's quote was the best-read
sentence at all.

    python benchmarks/settled_quotes.py selfrag-eval/s89/thirty-sixth-questions/selfrag.jsonl
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import read_jsonl, wilson

from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.judging.claims import named
from selfrag_langchain.pipeline import build_quoter
from selfrag_langchain.prompts import format_passage, passage_body
from selfrag_langchain.results import BranchTrace, SelfRAGResult
from selfrag_langchain.text.sentences import split_sentences


def settled(readings: Sequence[float], vectors: Sequence[Sequence[float]], reader_weight: float) -> bool:
    """Whether the best-read sentence is the quote whatever the generation (the bound in this module's
    docstring); ``vectors`` need not be unit length."""
    units = [[x / (math.sqrt(sum(y * y for y in v)) or 1.0) for x in v] for v in vectors]
    best = max(range(len(readings)), key=lambda i: readings[i])
    return all(reader_weight * (readings[best] - readings[i]) > math.dist(units[i], units[best]) + 1.0
               for i in range(len(readings)) if i != best)


def read_branch(quoter: PassageQuoter, question: str, trace: BranchTrace) -> tuple[bool, bool] | None:
    """(settled before writing, the run's quote is the best-read sentence) for a written, quoted branch; None for
    any other."""
    if not trace.written or not trace.quote or trace.passage is None:
        return None
    title = trace.passage.metadata.get("title") or None
    parts = split_sentences(passage_body(format_passage(title, trace.passage.page_content), title))
    if not parts:
        return None
    readings = quoter.sentence_readings(question, [(parts, title)])
    if readings is None:
        return None
    best = max(range(len(parts)), key=lambda i: readings[i])
    return (settled(readings, quoter.embeddings.embed_documents(parts), quoter.reader_weight),
            named(parts[best], title, parts[0]) == trace.quote)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="selfrag.jsonl files of `selfrag eval` runs")
    args = parser.parse_args(argv)
    quoter = build_quoter()
    if quoter is None or quoter.reader is None:
        parser.error("the default settings give no quoter that reads sentences")
    read = [seen for path in args.results for row in read_jsonl(path)
            for trace in SelfRAGResult.model_validate(row["trace"]).branches
            if (seen := read_branch(quoter, row["question"], trace)) is not None]
    total = len(read)
    for label, count in (("settled before writing", sum(s for s, _ in read)),
                         ("the quote is the best-read sentence (baseline)", sum(b for _, b in read))):
        low, high = wilson(count, total)
        print(f"{label}: {count}/{total} = {count / (total or 1):.1%} [{low:.1%}, {high:.1%}]")


if __name__ == "__main__":
    main()
