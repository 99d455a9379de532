"""The sentence reader on the demo corpus's question lists: no model writes anything, so a reader trained anew
can be compared with the shipped one on every list already run in a minute or two.

- Answerable lists (rows with ``title`` and ``where``): the question read against every sentence of its
  article's passage, each after the title, as the quoter reads them; how often the sentence read first holds
  an answer, for questions answered in the first sentence and later, and how often the first sentence is read
  first where it holds none (the reader's pull towards an article's opening).
- Every list, unanswerable ones too (a file name holding "unanswerable"): the best answering probability over
  the sentences of the first ``--k`` passages the default retriever finds; how well it tells answerable from
  unanswerable questions (AUC, balanced accuracy at ``--threshold``), and how many unanswerable questions of each
  kind read below it.

    python benchmarks/reader_lists.py benchmarks/data/*_questions.jsonl benchmarks/data/*_unanswerable.jsonl
    python benchmarks/reader_lists.py LISTS --reader selfrag-train/reader --json
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, print_figures, read_jsonl

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.corpus.demo import demo_data_path
from selfrag_langchain.judging.claims import titled
from selfrag_langchain.judging.reader import SentenceReader
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.trainer.reader_data import holds_answer


def ranking(reader: SentenceReader, rows: list[dict[str, Any]], articles: dict[str, str]) -> dict[str, Any]:
    """Per ``where`` (first, later): the questions whose article holds an answer, how many the sentence read first
    answers, and how many read the first sentence first where it holds no answer."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        text = articles.get(row.get("title") or "")
        if text is None or not row.get("where") or not row.get("answers"):
            continue
        sentences = split_sentences(text)
        holding = {i for i, s in enumerate(sentences) if holds_answer(s, row["answers"])}
        if not holding:
            continue
        scores = reader.answering([(row["question"], titled(row["title"], s)) for s in sentences])
        best = max(range(len(sentences)), key=scores.__getitem__)
        count = counts.setdefault(row["where"], {"questions": 0, "right": 0, "first_read_first_wrongly": 0})
        count["questions"] += 1
        count["right"] += best in holding
        count["first_read_first_wrongly"] += best == 0 and 0 not in holding
    for count in counts.values():
        count["share"] = round(count["right"] / count["questions"], 3)
    return counts


def separation(reader: SentenceReader, rows: list[dict[str, Any]], k: int, threshold: float) -> dict[str, Any]:
    """The best answering probability over the first ``k`` retrieved passages' sentences, answerable against
    unanswerable questions."""
    from sklearn.metrics import roc_auc_score

    from selfrag_langchain.corpus.answering import default_retriever

    retriever = default_retriever(k=k)
    best: list[float] = []
    for row in rows:
        docs = retriever.invoke(row["question"])
        pairs = [(row["question"], titled(d.metadata.get("title") or "", s)) for d in docs
                 for s in split_sentences(d.page_content)]
        best.append(max(reader.answering(pairs)) if pairs else 0.0)
    answerable = [b for b, r in zip(best, rows, strict=True) if not r["unanswerable"]]
    unanswerable = [b for b, r in zip(best, rows, strict=True) if r["unanswerable"]]
    figures: dict[str, Any] = {"answerable": len(answerable), "unanswerable": len(unanswerable)}
    if answerable and unanswerable:
        figures["auc"] = round(float(roc_auc_score([not r["unanswerable"] for r in rows], best)), 3)
        figures["balanced_accuracy"] = round((sum(b >= threshold for b in answerable) / len(answerable)
                                              + sum(b < threshold for b in unanswerable) / len(unanswerable)) / 2, 3)
    kinds: dict[str, list[int]] = {}
    for b, r in zip(best, rows, strict=True):
        if r["unanswerable"]:
            below = kinds.setdefault(str(r.get("kind") or "unanswerable"), [0, 0])
            below[0] += b < threshold
            below[1] += 1
    figures["unanswerable_below_threshold"] = {kind: f"{n}/{of}" for kind, (n, of) in sorted(kinds.items())}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lists", nargs="+", type=Path, help="question lists (JSON Lines with `question`)")
    parser.add_argument("--reader", type=Path, default=None, help="a directory of `selfrag train reader` "
                                                                  "(default: the shipped reader)")
    add_k(parser, default=3, help="passages retrieved per question for the separation")
    parser.add_argument("--threshold", type=float, default=LoopSettings().min_quote_answering,
                        help="the answering probability below which declining reads a quote as no answer "
                             "(LoopSettings.min_quote_answering)")
    parser.add_argument("--out", type=Path, default=None, help="JSON file for the figures")
    args = parser.parse_args()
    entries = json.loads(demo_data_path().read_text(encoding="utf-8"))
    articles = {str(e.get("title") or key): str(e["extract"]) for key, e in entries.items() if e.get("extract")}
    rows = [{**row, "unanswerable": "unanswerable" in path.name} for path in args.lists for row in read_jsonl(path)]
    reader = SentenceReader(args.reader)
    figures = {"reader": str(args.reader or "shipped"),
               "ranking": ranking(reader, [r for r in rows if not r["unanswerable"]], articles),
               "separation": separation(reader, rows, args.k, args.threshold)}
    print_figures(figures, args.out)


if __name__ == "__main__":
    main()
