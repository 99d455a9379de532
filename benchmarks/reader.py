"""The sentence reader on data it never trained on, beside baselines of the same run.

- SelQA test (never read in training): the share of questions whose first-ranked candidate sentence answers
  them; baselines: the share of the question's content words a sentence holds, and MiniLM cosine similarity.
- SQuAD 2.0 dev, the held-out half of its articles: answerable told from unanswerable by the best answering
  probability over the paragraph's sentences (balanced accuracy at 0.5, and AUC); baseline: the best word
  overlap (AUC).
- SQuAD 1.1 dev, its articles that open with a lead sentence (and whose SQuAD 2.0 questions are
  held out): a question answered later in
  the article, read with the lead beside its own paragraph's sentences (the answer sentence first, and how often
  the lead is); a question the lead answers, among the lead paragraph's sentences.
- Entailment, 3-way accuracy on the held-out slices (the counterfactual pairs' test split, 1,000 MultiNLI rows,
  300 HaluEval items as training left them out), beside the majority label; the counterfactual minimal pairs:
  how often the supported member gets more entailment than its flipped twin (baseline: the share of the claim's
  words the premise holds); and HaluEval's length shortcut: a classifier reading only the claim's length.

    python benchmarks/reader.py                       # the shipped reader
    python benchmarks/reader.py --reader selfrag-train/reader --data ../shared/data
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from common import print_figures, read_jsonl

from selfrag_langchain.judging.claims import titled
from selfrag_langchain.judging.reader import SentenceReader
from selfrag_langchain.judging.signals import content_words, coverage
from selfrag_langchain.trainer.reader_data import (
    NLI_FILES,
    SQUAD_FILES,
    articles,
    lead_questions,
    nli_split,
    paragraphs,
    split_by_title,
)
from selfrag_langchain.trainer.reader_eval import (
    answer_ranking,
    evaluate_pairs,
    length_only,
    twin_groups,
    twin_ranking,
)


def auc(positive: list[float], negative: list[float]) -> float:
    """The chance that a positive scores above a negative (ties count half)."""
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score([1] * len(positive) + [0] * len(negative), positive + negative))


def overlap(question: str, sentence: str) -> float:
    return coverage(content_words(question), content_words(sentence))


def selqa(reader: SentenceReader, path: Path) -> dict[str, float]:
    rows = [r for r in read_jsonl(path) if r["answers"]]
    from selfrag_langchain.embeddings import MiniLMEmbeddings

    embeddings = MiniLMEmbeddings(runtime="torch")
    scored, lexical, cosine = [], [], []
    for r in rows:
        pairs = [(r["question"], titled(r["article"], c)) for c in r["candidates"]]
        scored.append(reader.answering(pairs))
        lexical.append([overlap(r["question"], c) for c in r["candidates"]])
        vectors = embeddings.embed_documents([r["question"], *r["candidates"]])
        cosine.append([sum(a * b for a, b in zip(vectors[0], v, strict=True)) for v in vectors[1:]])
    answers = [r["answers"] for r in rows]
    return {"questions": len(rows), "reader": answer_ranking(scored, answers),
            "word_overlap": answer_ranking(lexical, answers), "minilm_cosine": answer_ranking(cosine, answers)}


def squad2(reader: SentenceReader, path: Path) -> dict[str, float]:
    _, held = split_by_title(paragraphs(path, None, random.Random(0)))
    best, lexical, gold = [], [], []
    for para in held:
        for question, answers in para.questions:
            if not para.sentences:
                continue
            best.append(max(reader.answering([(question, titled(para.title, s)) for s in para.sentences])))
            lexical.append(max(overlap(question, s) for s in para.sentences))
            gold.append(bool(answers))
    answerable = [b for b, g in zip(best, gold, strict=True) if g]
    unanswerable = [b for b, g in zip(best, gold, strict=True) if not g]
    balanced = (sum(b > 0.5 for b in answerable) / len(answerable) + sum(b <= 0.5 for b in unanswerable)
                / len(unanswerable)) / 2
    return {"questions": len(gold), "unanswerable": len(unanswerable), "reader_balanced_accuracy": balanced,
            "reader_auc": auc(answerable, unanswerable),
            "word_overlap_auc": auc([x for x, g in zip(lexical, gold, strict=True) if g],
                                    [x for x, g in zip(lexical, gold, strict=True) if not g])}


def leads(reader: SentenceReader, path: Path, squad2_path: Path, sample: int = 1_000) -> dict[str, object]:
    """SQuAD 1.1 dev, on the articles whose first paragraph is their lead and whose SQuAD 2.0 questions training
    did not read (:func:`~selfrag_langchain.trainer.reader_data.split_by_title`): ``sample``
    questions answered after the lead sentence, the lead read beside the answer paragraph's sentences (how often
    the answer sentence is first, and how often the lead is); and the questions the lead sentence answers, read
    among its paragraph's sentences (the lead should stay first)."""
    trained, _ = split_by_title(paragraphs(squad2_path, None, random.Random(0)))
    read = {para.title for para in trained}
    after, by_lead = lead_questions({title: paras for title, paras in articles(path).items() if title not in read})
    later = [(q.question, [titled(q.title, s) for s in (q.lead, *q.paragraph.sentences)], q.answer + 1)
             for q in after]
    answered = [(q.question, [titled(q.title, s) for s in q.paragraph.sentences], 0) for q in by_lead]
    rng = random.Random(0)
    later = rng.sample(later, min(sample, len(later)))
    report: dict[str, object] = {}
    for name, rows in (("answered_later", later), ("answered_by_lead", answered)):
        scored = [reader.answering([(q, c) for c in candidates]) for q, candidates, _ in rows]
        lexical = [[overlap(q, c) for c in candidates] for q, candidates, _ in rows]
        gold = [[i] for *_, i in rows]
        figures = {"questions": len(rows), "reader": answer_ranking(scored, gold),
                   "word_overlap": answer_ranking(lexical, gold)}
        if name == "answered_later":  # the lead is candidate 0
            figures["lead_first"] = answer_ranking(scored, [[0]] * len(rows))
        report[name] = figures
    return report


def entailment(reader: SentenceReader, nli: Path, seed: int, held_mnli: int, held_halueval: int) -> dict[str, object]:
    """The held-out slices as training left them out (:func:`~selfrag_langchain.trainer.reader_data.nli_split`)."""
    _, slices = nli_split(nli, seed, held_mnli=held_mnli, held_halueval=held_halueval)
    report: dict[str, object] = {}
    for name, pairs in slices.items():
        if not pairs:  # a file too small for this slice
            report[name] = {"rows": 0}
            continue
        counts: dict[int, int] = {}
        for p in pairs:
            counts[p.label] = counts.get(p.label, 0) + 1
        report[name] = {**evaluate_pairs(reader, pairs)["entailment"],
                        "majority_label": max(counts.values()) / len(pairs)}
    test = [r for r in read_jsonl(nli / NLI_FILES["counterfactual"]) if r.get("split") == "cad_test"]
    groups = twin_groups(test)
    wins = total = 0
    for r, twins in groups:
        for t in twins:
            total += 1
            wins += overlap(r["hypothesis"], r["premise"]) > overlap(t["hypothesis"], t["premise"])
    report["counterfactual_twins"] = {"comparisons": total, "reader": twin_ranking(reader, groups),
                                      "word_overlap": wins / total if total else 0.0}
    report["halueval_length_only_balanced_accuracy"] = length_only(slices["halueval"])
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reader", type=Path, default=None, help="a directory of `selfrag train reader` "
                                                                  "(default: the shipped reader)")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--seed", type=int, default=0, help="the seed the reader was trained with")
    parser.add_argument("--out", type=Path, default=None, help="JSON file for the figures")
    args = parser.parse_args()
    started = time.monotonic()
    reader = SentenceReader(args.reader)
    figures = {"selqa_test": selqa(reader, args.data / "squad" / "selqa_test.jsonl"),
               "squad2_held_out": squad2(reader, args.data / "squad" / SQUAD_FILES["squad2"]),
               "squad_dev_leads": leads(reader, args.data / "squad" / "squad11_dev.jsonl",
                                        args.data / "squad" / SQUAD_FILES["squad2"]),
               "entailment": entailment(reader, args.data / "nli", args.seed, 1_000, 300),
               "seconds": round(time.monotonic() - started)}
    print_figures(figures, args.out)


if __name__ == "__main__":
    main()
