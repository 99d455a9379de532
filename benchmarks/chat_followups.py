"""Do chat follow-ups retrieve about the subject of the conversation? ``SelfRAGConversation``'s ways of making
them standalone.

Each scripted conversation (``chat_conversations.jsonl``) is about one demo-corpus article; its first
question names the subject and its follow-ups refer back with a pronoun ("Who commissioned it?"), each
with gold answers stated in the lead of that article. Every conversation is run through
``SelfRAGConversation`` (short-form Self-RAG on the embedded default, the calibrated judge, the demo corpus)
once per way of making follow-ups standalone. For each follow-up: whether the subject's article is
among the top k passages retrieved for the standalone question (and whether it is first), and whether
the answer contains a gold answer (the standalone question is also what the generator answers, so a
question that retrieves well but asks something else still fails here). Rows:

- as asked: the follow-up itself, no conversation (what a chat without history retrieves);
- rewrite, else questions: the generator rewrites, and a rewrite that is no standalone question is
  replaced by the previous standalone question and this one joined;
- rewrite, else subject: the same rewrite, else the title of the passage the previous answer cited in
  place of the pronoun;
- subject: the title in place of the pronoun, no rewrite.

    python benchmarks/chat_followups.py
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, add_max_new_tokens, read_jsonl
from langchain_core.chat_history import InMemoryChatMessageHistory

from selfrag_langchain import CalibratedReflector, SelfRAG, TransformersLLM
from selfrag_langchain.chains.chat import SelfRAGConversation
from selfrag_langchain.corpus.answering import default_retriever
from selfrag_langchain.eval.metrics import match

DATA = Path(__file__).parent / "data" / "chat_conversations.jsonl"
WAYS: dict[str, dict[str, Any]] = {
    "rewrite, else questions": {"rewrite": True, "fallback": "questions"},
    "rewrite, else subject": {"rewrite": True, "fallback": "subject"},
    "subject": {"rewrite": False, "fallback": "subject"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    add_k(parser, help="passages retrieved per question")
    add_max_new_tokens(parser, default=24, help="token budget of an answer, one short sentence as its recorded "
                       "figures were run")
    parser.add_argument("--show", action="store_true", help="print every standalone question")
    args = parser.parse_args()

    conversations = read_jsonl(args.data)
    retriever = default_retriever(k=args.k)
    llm = TransformersLLM().load()
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(), retriever=retriever, mode="always",
                  k=args.k, max_new_tokens=args.max_new_tokens)

    def found(question: str, subject: str) -> tuple[bool, bool]:
        titles = [d.metadata.get("title") for d in retriever.invoke(question)]
        return subject in titles, bool(titles) and titles[0] == subject

    rows: dict[str, list[tuple[bool, bool, bool | None]]] = {"as asked": []}
    seconds: dict[str, float] = {}
    for conversation in conversations:
        for turn in conversation["turns"][1:]:
            rows["as asked"].append((*found(turn["question"], conversation["subject"]), None))
    for way, settings in WAYS.items():
        rows[way] = []
        start = time.perf_counter()
        for conversation in conversations:
            history = InMemoryChatMessageHistory()
            chat = SelfRAGConversation(rag=rag, history_factory=lambda _, h=history: h, **settings)
            for number, turn in enumerate(conversation["turns"]):
                answer = chat.invoke(turn["question"])
                if number == 0:
                    continue
                right = match(answer.answer, turn["answers"])
                rows[way].append((*found(answer.standalone_question, conversation["subject"]), right))
                if args.show:
                    print(f"  [{way}] {turn['question']} -> {answer.standalone_question} -> {answer.answer!r} "
                          f"({'right' if right else 'wrong'})")
        seconds[way] = time.perf_counter() - start

    n = len(rows["as asked"])
    print(f"{n} follow-ups in {len(conversations)} conversations ({args.data.name}): subject's article "
          f"in the top {args.k} / first, answer right; the whole conversations' wall time")
    for way, hits in rows.items():
        in_k, first = sum(h[0] for h in hits), sum(h[1] for h in hits)
        answered = f"{sum(bool(h[2]) for h in hits):2d}/{n}" if way in seconds else "    -"
        took = f"{seconds[way]:6.0f} s" if way in seconds else "       -"
        print(f"  {way:<24} top {args.k} {100 * in_k / n:5.1f}% ({in_k}/{n})  first {100 * first / n:5.1f}% "
              f"({first}/{n})  answer right {answered}  {took}")


if __name__ == "__main__":
    main()
