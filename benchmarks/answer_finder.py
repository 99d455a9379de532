"""The answer finder on questions it never trained on, beside the sentence reader and their mean (the reading a
quote is chosen and scored by: ``PassageQuoter.readings``), measured in the same run.

- SQuAD 2.0 dev, the held-out half of its articles (the half the sentence reader never read; the finder read no
  SQuAD 2.0 at all): answerable told from unanswerable by the best reading over the paragraph's sentences, as
  AUC and as balanced accuracy at 0.5 and at the library's ``min_quote_holds_answer``; and of the answerable
  questions whose answer one sentence holds, the share whose first-ranked sentence is that one.
- SelQA test: the share of questions whose first-ranked candidate sentence answers them.

    python benchmarks/answer_finder.py                       # the shipped finder and reader
    python benchmarks/answer_finder.py --finder selfrag-train/answer-finder --limit 500
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from common import print_figures, read_jsonl
from reader import auc

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.judging.claims import titled
from selfrag_langchain.judging.finder import AnswerFinder
from selfrag_langchain.judging.reader import SentenceReader
from selfrag_langchain.trainer.reader_data import SQUAD_FILES, answer_sentence, paragraphs, split_by_title
from selfrag_langchain.trainer.reader_eval import answer_ranking

Reading = Callable[[Sequence[tuple[str, str]]], list[float]]


def balanced(scores: Sequence[float], gold: Sequence[bool], threshold: float) -> float:
    """Balanced accuracy of reading a score above ``threshold`` as answerable."""
    yes = [s > threshold for s, g in zip(scores, gold, strict=True) if g]
    no = [s <= threshold for s, g in zip(scores, gold, strict=True) if not g]
    return (sum(yes) / len(yes) + sum(no) / len(no)) / 2


def squad2(readings: dict[str, Reading], path: Path, limit: int | None) -> dict[str, object]:
    _, held = split_by_title(paragraphs(path, None, random.Random(0)))
    pairs, spans, gold, holding = [], [], [], []
    for para in held:
        for question, answers in para.questions:
            if para.sentences:
                spans.append((len(pairs), len(pairs) + len(para.sentences)))
                pairs += [(question, titled(para.title, s)) for s in para.sentences]
                gold.append(bool(answers))
                holding.append(answer_sentence(para, answers) if answers else None)
    if limit is not None:
        spans, gold, holding = spans[:limit], gold[:limit], holding[:limit]
        pairs = pairs[:spans[-1][1]] if spans else []
    threshold = LoopSettings().min_quote_holds_answer
    report: dict[str, object] = {"questions": len(gold), "unanswerable": gold.count(False)}
    for name, read in readings.items():
        scores = read(pairs)
        best = [max(scores[a:b]) for a, b in spans]
        report[name] = {"auc": auc([b for b, g in zip(best, gold, strict=True) if g],
                                   [b for b, g in zip(best, gold, strict=True) if not g]),
                        "balanced_accuracy_at_0.5": balanced(best, gold, 0.5),
                        f"balanced_accuracy_at_{threshold}": balanced(best, gold, threshold),
                        "answer_sentence_first": answer_ranking(
                            [scores[a:b] for (a, b), h in zip(spans, holding, strict=True) if h is not None],
                            [[h] for h in holding if h is not None])}
    return report


def selqa(readings: dict[str, Reading], path: Path, limit: int | None) -> dict[str, object]:
    rows = [r for r in read_jsonl(path) if r["answers"]][:limit]
    report: dict[str, object] = {"questions": len(rows)}
    for name, read in readings.items():
        scored = [read([(r["question"], titled(r["article"], c)) for c in r["candidates"]]) for r in rows]
        report[name] = answer_ranking(scored, [r["answers"] for r in rows])
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--finder", type=Path, default=None, help="a directory of `selfrag train answer-finder` "
                                                                  "(default: the shipped finder)")
    parser.add_argument("--reader", type=Path, default=None, help="a directory of `selfrag train reader` "
                                                                  "(default: the shipped reader)")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions of each set")
    parser.add_argument("--out", type=Path, default=None, help="JSON file for the figures")
    args = parser.parse_args()
    started = time.monotonic()
    finder, reader = AnswerFinder(args.finder), SentenceReader(args.reader)
    blend = PassageQuoter.model_construct(reader=reader, finder=finder)  # its readings need no embeddings
    readings: dict[str, Reading] = {"answer_finder": finder.holds_answer, "sentence_reader": reader.answering,
                                    "reader_and_finder": lambda pairs: blend.readings(pairs) or []}
    figures = {"squad2_held_out": squad2(readings, args.data / "squad" / SQUAD_FILES["squad2"], args.limit),
               "selqa_test": selqa(readings, args.data / "squad" / "selqa_test.jsonl", args.limit),
               "seconds": round(time.monotonic() - started)}
    print_figures(figures, args.out)


if __name__ == "__main__":
    main()
