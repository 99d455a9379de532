"""SQuAD 1.1 dev's held-out articles as an evaluation file in Self-RAG's format, each question with the passages
the shipped embedding finds for it among those articles' paragraphs: a set to choose retrieval settings on (how
many passages Self-RAG judges, ``k``) whose questions no project model read and whose passages compete as a
store's do (other paragraphs of the same article, and other articles).

Each row: ``question``, ``answers`` (SQuAD's answer texts), ``ctxs`` (the ``--passages`` nearest paragraphs,
``title`` and ``text``, nearest first, with ``id`` and ``score``, the cosine similarity), and ``gold_rank`` (the
rank of the paragraph the question was written on, None when it is not among them). Questions are drawn with a
fixed seed from the held-out half of the articles (``trainer.reader_data.split_by_title``), the half
``benchmarks/answer_finder.py`` and ``title_reading.py`` report; paragraphs are embedded as the demo store embeds
an article, its text without the title. The file answers through ``selfrag eval --task popqa`` (a gold answer
text in the answer counts as right):

    python benchmarks/squad_passages.py --limit 300 --out selfrag-eval/squad-passages.jsonl
    selfrag eval selfrag-eval/squad-passages.jsonl --task popqa --methods selfrag,rag_top1_quoted --k 10
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
from common import read_jsonl

from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.files.durable import write_text_atomic
from selfrag_langchain.trainer.reader_data import paragraphs, split_by_title

SQUAD_DEV = "squad11_dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"),
                        help=f"the data folder (squad/{SQUAD_DEV})")
    parser.add_argument("--limit", type=int, default=300, help="how many questions to draw (default 300)")
    parser.add_argument("--passages", type=int, default=10, help="passages kept per question (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="the evaluation file to write (JSON Lines)")
    args = parser.parse_args()
    if args.limit < 1 or args.passages < 1:
        raise SystemExit("--limit and --passages must be at least 1")
    path = args.data / "squad" / SQUAD_DEV
    if not path.is_file():
        raise SystemExit(f"{path}: not found (SQuAD 1.1 dev, in ../shared/data/squad)")
    read_jsonl(path, 1)  # one line naming the file if it is not JSON Lines

    started = time.perf_counter()
    _, held = split_by_title(paragraphs(path, None, random.Random(args.seed)))
    asked = [(i, question, answers) for i, para in enumerate(held) for question, answers in para.questions if answers]
    chosen = random.Random(args.seed).sample(asked, min(args.limit, len(asked)))
    if not chosen:
        raise SystemExit(f"{path}: no answerable question in the held-out half of its articles")
    try:
        embeddings = MiniLMEmbeddings()
        passages = np.array(embeddings.embed_documents([" ".join(p.sentences) for p in held]))
        queries = np.array(embeddings.embed_documents([question for _, question, _ in chosen]))
    except SelfRAGError as e:
        raise SystemExit(str(e)) from e
    similarity = queries @ passages.T
    rows = []
    for (source, question, answers), scores in zip(chosen, similarity, strict=True):
        nearest = np.argsort(-scores, kind="stable")[: args.passages]
        ranks = [int(j) for j in nearest]
        rows.append({
            "question": question,
            "answers": list(dict.fromkeys(answers)),
            "ctxs": [{"id": str(j), "title": held[j].title, "text": " ".join(held[j].sentences),
                      "score": float(scores[j])} for j in ranks],
            "gold_rank": ranks.index(source) + 1 if source in ranks else None,
        })
    write_text_atomic(args.out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    found = [r["gold_rank"] for r in rows]
    summary = {"questions": len(rows), "paragraphs": len(held), "seconds": round(time.perf_counter() - started, 1),
               "gold_paragraph_within": {k: sum(1 for g in found if g is not None and g <= k)
                                         for k in (1, 3, 5, 10) if k <= args.passages}}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
