"""The answer finder on questions it never trained on, beside the sentence reader and their mean (the reading a
quote is chosen and scored by: ``PassageQuoter.readings``), measured in the same run; with ``--baseline-finder``,
a second finder (the shipped one, when ``--finder`` is a new one) beside them, each pair read once by each model.

- SQuAD 1.1 dev, the held-out half of its articles (the finder reads SQuAD 1.1 training paragraphs only): of the
  questions whose answer one sentence holds, the share whose first-ranked sentence is that one.
- SQuAD 2.0 dev, the held-out half of its articles (the half the sentence reader never read; the finder read no
  SQuAD 2.0 at all): answerable told from unanswerable by the best reading over the paragraph's sentences, as
  AUC and as balanced accuracy at 0.5 and at the library's ``min_quote_holds_answer``; and of the answerable
  questions whose answer one sentence holds, the share whose first-ranked sentence is that one.
- SelQA test: the share of questions whose first-ranked candidate sentence answers them.

    python benchmarks/answer_finder.py                       # the shipped finder and reader
    python benchmarks/answer_finder.py --finder selfrag-train/answer-finder --baseline-finder shipped
    python benchmarks/answer_finder.py --finder selfrag-train/answer-finder --limit 500
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from common import print_figures, read_jsonl
from reader import auc

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.judging.claims import titled
from selfrag_langchain.judging.finder import AnswerFinder
from selfrag_langchain.judging.reader import SentenceReader
from selfrag_langchain.trainer.reader_data import SQUAD_FILES, answer_sentence, paragraphs, split_by_title
from selfrag_langchain.trainer.reader_eval import answer_ranking

Pair = tuple[str, str]
Reading = Callable[[Sequence[Pair]], list[float]]
SQUAD11_DEV = "squad11_dev.jsonl"
SHIPPED = "shipped"
"""What ``--baseline-finder`` takes for the finder shipped with the package."""


class Kept:
    """A model's reading that keeps what it read, so that the mean of two readings reads no pair again."""

    def __init__(self, read: Reading) -> None:
        self._read, self._seen = read, dict[Pair, float]()

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        missing = [pair for pair in dict.fromkeys(pairs) if pair not in self._seen]
        if missing:
            self._seen.update(zip(missing, self._read(missing), strict=True))
        return [self._seen[pair] for pair in pairs]


def finder_readings(finder: AnswerFinder, reader: Kept, name: str, blend_name: str) -> dict[str, Reading]:
    """A finder's reading (``name``) and its mean with the reader's as the quoter takes it (``blend_name``:
    ``PassageQuoter.readings``)."""
    holds = Kept(finder.holds_answer)
    blend = PassageQuoter.model_construct(reader=SimpleNamespace(answering=reader),
                                          finder=SimpleNamespace(holds_answer=holds))
    return {name: holds, blend_name: lambda pairs: blend.readings(pairs) or []}


def balanced(scores: Sequence[float], gold: Sequence[bool], threshold: float) -> float:
    """Balanced accuracy of reading a score above ``threshold`` as answerable."""
    yes = [s > threshold for s, g in zip(scores, gold, strict=True) if g]
    no = [s <= threshold for s, g in zip(scores, gold, strict=True) if not g]
    return (sum(yes) / len(yes) + sum(no) / len(no)) / 2


@dataclass
class HeldOut:
    """A SQuAD file's held-out half of articles, as the models read it: each question's (question, sentence) pairs
    (``spans`` into ``pairs``), whether it is answerable, and the sentence holding its answer (None for none)."""

    pairs: list[Pair] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    gold: list[bool] = field(default_factory=list)
    holding: list[int | None] = field(default_factory=list)

    @classmethod
    def read(cls, path: Path, limit: int | None, *, one_sentence: bool = False) -> HeldOut:
        """The first ``limit`` questions; with ``one_sentence``, only those whose answer one sentence holds."""
        _, held = split_by_title(paragraphs(path, None, random.Random(0)))
        out = cls()
        for para in held:
            for question, answers in para.questions:
                index = answer_sentence(para, answers) if answers else None
                if not para.sentences or (one_sentence and index is None):
                    continue
                out.spans.append((len(out.pairs), len(out.pairs) + len(para.sentences)))
                out.pairs += [(question, titled(para.title, s)) for s in para.sentences]
                out.gold.append(bool(answers))
                out.holding.append(index)
        out.spans, out.gold, out.holding = out.spans[:limit], out.gold[:limit], out.holding[:limit]
        out.pairs = out.pairs[:out.spans[-1][1]] if out.spans else []
        return out

    def answer_sentence_first(self, scores: Sequence[float]) -> float:
        """The share of the questions with an answering sentence whose first-ranked sentence is that one."""
        ranked = [(scores[a:b], [h]) for (a, b), h in zip(self.spans, self.holding, strict=True) if h is not None]
        return answer_ranking([r for r, _ in ranked], [h for _, h in ranked])


def squad2(readings: dict[str, Reading], path: Path, limit: int | None) -> dict[str, object]:
    held = HeldOut.read(path, limit)
    gold = held.gold
    threshold = LoopSettings().min_quote_holds_answer
    report: dict[str, object] = {"questions": len(gold), "unanswerable": gold.count(False)}
    for name, read in readings.items():
        scores = read(held.pairs)
        best = [max(scores[a:b]) for a, b in held.spans]
        report[name] = {"auc": auc([b for b, g in zip(best, gold, strict=True) if g],
                                   [b for b, g in zip(best, gold, strict=True) if not g]),
                        "balanced_accuracy_at_0.5": balanced(best, gold, 0.5),
                        f"balanced_accuracy_at_{threshold}": balanced(best, gold, threshold),
                        "answer_sentence_first": held.answer_sentence_first(scores)}
    return report


def squad11(readings: dict[str, Reading], path: Path, limit: int | None) -> dict[str, object]:
    held = HeldOut.read(path, limit, one_sentence=True)
    return {"questions": len(held.spans),
            **{name: {"answer_sentence_first": held.answer_sentence_first(read(held.pairs))}
               for name, read in readings.items()}}


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
    parser.add_argument("--baseline-finder", default=None, help="another finder measured beside it in the same run "
                                                                "(a directory, or `shipped`)")
    parser.add_argument("--reader", type=Path, default=None, help="a directory of `selfrag train reader` "
                                                                  "(default: the shipped reader)")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions of each set")
    parser.add_argument("--out", type=Path, default=None, help="JSON file for the figures")
    args = parser.parse_args()
    started = time.monotonic()
    try:  # a missing model stops the script with its one-line reason before anything is read
        reader = Kept(SentenceReader(args.reader).answering)
        finder = AnswerFinder(args.finder)
        baseline = None if args.baseline_finder in (None, SHIPPED) else Path(args.baseline_finder)
        second = AnswerFinder(baseline) if args.baseline_finder is not None else None
    except ModelLoadError as e:
        raise SystemExit(f"answer_finder.py: {e}") from e
    readings: dict[str, Reading] = {"sentence_reader": reader,
                                    **finder_readings(finder, reader, "answer_finder", "reader_and_finder")}
    if second is not None:
        readings |= finder_readings(second, reader, "baseline_finder", "reader_and_baseline_finder")
    figures = {"squad11_held_out": squad11(readings, args.data / "squad" / SQUAD11_DEV, args.limit),
               "squad2_held_out": squad2(readings, args.data / "squad" / SQUAD_FILES["squad2"], args.limit),
               "selqa_test": selqa(readings, args.data / "squad" / "selqa_test.jsonl", args.limit),
               "seconds": round(time.monotonic() - started)}
    print_figures(figures, args.out)


if __name__ == "__main__":
    main()
