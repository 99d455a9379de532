"""Whether a sentence should be read after its passage's title: the quoter reads each sentence as "Title: sentence"
(``PassageQuoter.readings``, the mean of the sentence reader's and the answer finder's readings), so that "He was
born ..." names its subject. This script measures that reading beside the sentence read alone (an opening pronoun
named from the title, as a quote shows it: ``named``) and four ways of joining the two (the lower, the mean, the
geometric mean, and the sentence alone when it names its subject itself), on answer-sentence sets neither model
trained on:

- SQuAD 1.1 dev and SQuAD 2.0 dev, the held-out half of their articles (as ``answer_finder.py`` reads them);
- SQuAD 1.1 dev's held-out questions with their paragraph among four more, of their own article (chunks under one
  title) or of four other articles (each under its own), all sentences ranked together;
- SelQA test;
- "What is X's occupation?" asked of the demo corpus's people (an article whose short description ends in years,
  "American politician (1870–1940)"), the answering sentence the first that holds the description's last word: the
  shape of PopQA's long-tail questions, whose subject is the passage's title.

For each set and reading: the share of questions whose first-ranked sentence answers (``first``), the AUC of all
sentences' readings pooled over questions (``pooled_auc``: how well one threshold, or a comparison across passages,
tells answering sentences from the rest), and for SQuAD 2.0 the AUC of answerable against unanswerable questions by
their best sentence (``answerable_auc``).

    python benchmarks/title_reading.py --limit 500
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from common import print_figures, read_jsonl
from reader import auc

from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.corpus.demo import demo_data_path
from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.judging.claims import named, titled
from selfrag_langchain.judging.finder import AnswerFinder
from selfrag_langchain.judging.reader import SentenceReader
from selfrag_langchain.judging.signals import content_words, folded
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.trainer.reader_data import SQUAD_FILES, answer_sentence, paragraphs, split_by_title


@dataclass(frozen=True)
class Asked:
    """A question, the passages it is asked of (each a title and its sentences), the indices of the sentences that
    answer it, counted over all the passages' sentences in order (none: unanswerable)."""

    question: str
    passages: list[tuple[str, list[str]]]
    answering: frozenset[int]

    @property
    def size(self) -> int:
        return sum(len(sentences) for _, sentences in self.passages)


Join = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
JOINS: dict[str, Join] = {"titled": lambda t, _, __: t, "alone": lambda _, a, __: a,
                          "lower": lambda t, a, _: np.minimum(t, a), "mean": lambda t, a, _: (t + a) / 2,
                          "geometric": lambda t, a, _: np.sqrt(t * a),
                          "titled_unless_named": lambda t, a, n: np.where(n, a, t)}
"""The readings compared, from the titled one, the one alone, and whether the sentence names its subject itself
(a word of the title's name, or an opening pronoun named from it): ``titled_unless_named`` reads such a sentence
alone and any other after its title."""


def names_subject(sentence: str, title: str, first: str) -> bool:
    """Whether a sentence names its passage's subject itself: it holds a word of the title's name, or its opening
    pronoun is named from the title (``named``)."""
    subject = set(content_words(folded(re.sub(r"\s*\([^)]*\)\s*$", "", title))))
    return bool(subject & set(content_words(folded(sentence)))) or named(sentence, title, first) != sentence


LIFESPAN = re.compile(r"\((?:born |died |c\. ?|fl\. ?)?\d{1,4}(?:\s*(?:BC|BCE|AD|CE))?"
                      r"(?:\s*[–-]\s*(?:c\. ?)?\d{1,4}(?:\s*(?:BC|BCE|AD|CE))?)?\)\s*$")
"""A short description's closing years, "(born 1950)" or "(1870–1940)"."""
PERSONAL = re.compile(r"\b(?:he|she|his|her)\b", re.IGNORECASE)


def squad(path: Path, limit: int | None, *, one_sentence: bool) -> list[Asked]:
    """The held-out half of a SQuAD file's articles; with ``one_sentence``, only questions one sentence answers."""
    _, held = split_by_title(paragraphs(path, None, random.Random(0)))
    out = []
    for para in held:
        for question, answers in para.questions:
            index = answer_sentence(para, answers) if answers else None
            if para.sentences and not (one_sentence and index is None):
                out.append(Asked(question, [(para.title, list(para.sentences))],
                                 frozenset({index} if index is not None else ())))
    return out[:limit]


def squad_among(path: Path, limit: int | None, *, same_article: bool, others: int = 4, seed: int = 0) -> list[Asked]:
    """SQuAD 1.1 dev's held-out questions that one sentence answers, their paragraph among ``others`` more, of their
    own article (``same_article``: chunks of one article, each under the same title, as PopQA's passages often are)
    or of other articles (each under its own title, as the demo corpus's leads are), in a seeded order; the
    sentences of all of them ranked together."""
    _, held = split_by_title(paragraphs(path, None, random.Random(0)))
    rng, by_title = random.Random(seed), dict[str, list]()
    for para in held:
        by_title.setdefault(para.title, []).append(para)
    out = []
    for para in held:
        own = [p for p in by_title[para.title] if p is not para and p.sentences]
        strangers = [title for title in by_title if title != para.title]
        for question, answers in para.questions:
            index = answer_sentence(para, answers) if answers else None
            if index is None or len(own if same_article else strangers) < others:
                continue
            chosen = (rng.sample(own, others) if same_article
                      else [rng.choice(by_title[title]) for title in rng.sample(strangers, others)])
            group = [para, *chosen]
            rng.shuffle(group)
            offset = sum(len(p.sentences) for p in group[:group.index(para)])
            out.append(Asked(question, [(p.title, list(p.sentences)) for p in group], frozenset({offset + index})))
    rng.shuffle(out)
    return out[:limit]


def selqa(path: Path, limit: int | None) -> list[Asked]:
    return [Asked(r["question"], [(r["article"], r["candidates"])], frozenset(r["answers"]))
            for r in read_jsonl(path) if r["answers"]][:limit]


def occupations(limit: int | None, seed: int = 0) -> list[Asked]:
    """"What is X's occupation?" of the demo corpus's people whose occupation their article's first sentence names
    (see the module's docstring), a seeded sample."""
    out = []
    for title, entry in json.loads(demo_data_path().read_text(encoding="utf-8")).items():
        description, extract = entry.get("description") or "", entry.get("extract") or ""
        years = LIFESPAN.search(description)
        words = [w for w in re.split(r"[\s,/-]+", description[:years.start()] if years else "") if w[:1].islower()]
        sentences = split_sentences(extract)
        if not years or not words or not PERSONAL.search(extract) or len(sentences) < 4:
            continue
        answering = frozenset(i for i, s in enumerate(sentences) if re.search(rf"\b{re.escape(words[-1])}", s, re.I))
        if 0 in answering:
            out.append(Asked(f"What is {re.sub(r' [(].*', '', title)}'s occupation?", [(title, sentences)],
                             answering))
    random.Random(seed).shuffle(out)
    return out[:limit]


def measure(asked: list[Asked], read: Callable[[list[tuple[str, str]]], np.ndarray]) -> dict[str, dict[str, float]]:
    """Each reading's figures on one set (see the module's docstring); none for a set without questions."""
    if not asked:
        return {}
    titled_reading = read([(a.question, titled(title, s)) for a in asked for title, ss in a.passages for s in ss])
    alone = read([(a.question, named(s, title, ss[0])) for a in asked for title, ss in a.passages for s in ss])
    naming = np.array([names_subject(s, title, ss[0]) for a in asked for title, ss in a.passages for s in ss])
    report = {}
    for name, join in JOINS.items():
        scores, start, first, best = join(titled_reading, alone, naming), 0, [], []
        flags = [i in a.answering for a in asked for i in range(a.size)]
        for a in asked:
            own = scores[start:start + a.size]
            start += a.size
            best.append((float(own.max()), bool(a.answering)))
            if a.answering:
                first.append(int(own.argmax()) in a.answering)
        answering = [float(s) for s, f in zip(scores, flags, strict=True) if f]
        others = [float(s) for s, f in zip(scores, flags, strict=True) if not f]
        answerable, unanswerable = [s for s, y in best if y], [s for s, y in best if not y]
        figures = {}  # each figure only where its set has both kinds to tell apart
        if first:
            figures["first"] = round(float(np.mean(first)), 4)
        if answering and others:
            figures["pooled_auc"] = round(auc(answering, others), 4)
        if answerable and unanswerable:
            figures["answerable_auc"] = round(auc(answerable, unanswerable), 4)
        report[name] = figures
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--limit", type=int, default=500, help="at most this many questions of each set")
    parser.add_argument("--out", type=Path, default=None, help="JSON file for the figures")
    args = parser.parse_args()
    started = time.monotonic()
    squad_dir = args.data / "squad"
    try:  # missing data or models stop the script with one line, before anything is read by a model
        sets = {"squad11_held_out": squad(squad_dir / "squad11_dev.jsonl", args.limit, one_sentence=True),
                "squad2_held_out": squad(squad_dir / SQUAD_FILES["squad2"], args.limit, one_sentence=False),
                "squad11_held_out_among_own_article": squad_among(squad_dir / "squad11_dev.jsonl", args.limit,
                                                                  same_article=True),
                "squad11_held_out_among_other_articles": squad_among(squad_dir / "squad11_dev.jsonl", args.limit,
                                                                     same_article=False),
                "selqa_test": selqa(squad_dir / "selqa_test.jsonl", args.limit),
                "demo_occupations": occupations(args.limit)}
        quoter = PassageQuoter.model_construct(reader=SentenceReader(), finder=AnswerFinder(), finder_share=0.5)
    except SelfRAGError as e:
        raise SystemExit(f"title_reading.py: {e}") from e

    def read(pairs: list[tuple[str, str]]) -> np.ndarray:  # as the quoter reads a sentence
        return np.array(quoter.readings(pairs) or [])

    figures: dict[str, object] = {name: {"questions": len(asked), **measure(asked, read)}
                                  for name, asked in sets.items()}
    figures["seconds"] = round(time.monotonic() - started)
    print_figures(figures, args.out)


if __name__ == "__main__":
    main()
