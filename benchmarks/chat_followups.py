"""Chat follow-ups as ``selfrag chat`` and the server answer them: does each follow-up, made standalone, find
and answer what it refers to, and is a follow-up the sources do not answer declined?

Each scripted conversation (``--data``, default ``chat_conversations.jsonl``) opens with a question naming
its subject, a demo-corpus article; its follow-ups refer back with a pronoun ("Who commissioned it?"). A
follow-up has gold ``answers``, or is ``unanswerable`` (no article states what it asks); its ``about`` names
the article it refers to (default: the conversation's ``subject``; another one when it asks of a person the
previous answer names, "When was he born?" after "Who painted ...?"). Every conversation is run through
``SelfRAGConversation`` over the default pipeline (``build_long_form``, as ``selfrag chat`` and the server
answer; ``--short``: ``build_selfrag``, as ``selfrag chat --short``), once per way of making follow-ups
standalone. For each follow-up: whether the article it refers to is among the passages retrieved for the
standalone question (and first), whether an answerable one is answered right (a gold alias in an answer that
is not declined) and whether an unanswerable one is declined. Rows:

- as asked: the follow-up itself, no conversation (what a chat without history retrieves);
- rewrite, else questions: the generator rewrites, and a rewrite that is no standalone question is
  replaced by the previous standalone question and this one joined;
- rewrite, else subject (the chat's default): the same rewrite, else the title of the passage the previous
  answer cited in place of the pronoun;
- subject: the title in place of the pronoun, no rewrite.

    python benchmarks/chat_followups.py
    python benchmarks/chat_followups.py --data benchmarks/data/followup_check_conversations.jsonl --short
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, add_max_new_tokens, read_jsonl, wilson
from langchain_core.chat_history import InMemoryChatMessageHistory

from selfrag_langchain.chains.chat import SelfRAGConversation
from selfrag_langchain.eval.metrics import match
from selfrag_langchain.pipeline import PipelineSettings, build_long_form, build_selfrag

DATA = Path(__file__).parent / "data" / "chat_conversations.jsonl"
WAYS: dict[str, dict[str, Any]] = {
    "rewrite, else questions": {"rewrite": True, "fallback": "questions"},
    "rewrite, else subject": {"rewrite": True, "fallback": "subject"},
    "subject": {"rewrite": False, "fallback": "subject"},
}


def about(conversation: dict[str, Any], turn: dict[str, Any]) -> str:
    """The article a turn refers to."""
    return turn.get("about") or conversation["subject"]


def well_answered(turn: dict[str, Any], answer: str, declined: bool) -> bool:
    """An unanswerable follow-up declined; an answerable one answered with a gold alias, not declined."""
    return declined if turn.get("unanswerable") else not declined and match(answer, turn["answers"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    add_k(parser, help="passages retrieved per question")
    add_max_new_tokens(parser)
    parser.add_argument("--short", action="store_true", help="short form, as `selfrag chat --short`")
    parser.add_argument("--way", action="append", choices=list(WAYS),
                        help="only this way of making follow-ups standalone (repeatable; default: every way)")
    parser.add_argument("--out", type=Path, help="each follow-up's standalone question and answer, as JSON Lines")
    parser.add_argument("--show", action="store_true", help="print every standalone question and answer")
    args = parser.parse_args()

    conversations = read_jsonl(args.data)
    settings = PipelineSettings(k=args.k, max_new_tokens=args.max_new_tokens)
    rag = build_selfrag(settings) if args.short else build_long_form(settings)
    retriever = rag.retriever
    rag.warm_up()

    def found(question: str, title: str) -> tuple[bool, bool]:
        titles = [d.metadata.get("title") for d in retriever.invoke(question)]
        return title in titles, bool(titles) and titles[0] == title

    follow_ups = [(c, t) for c in conversations for t in c["turns"][1:]]
    rows: dict[str, list[tuple[bool, bool, bool | None, bool]]] = {
        "as asked": [(*found(t["question"], about(c, t)), None, bool(t.get("unanswerable"))) for c, t in follow_ups]}
    seconds: dict[str, float] = {}
    records: list[dict[str, Any]] = []
    for way in args.way or list(WAYS):
        rows[way] = []
        start = time.perf_counter()
        for conversation in conversations:
            history = InMemoryChatMessageHistory()
            chat = SelfRAGConversation(rag=rag, history_factory=lambda _, h=history: h, **WAYS[way])
            for number, turn in enumerate(conversation["turns"]):
                answer = chat.invoke(turn["question"])
                if number == 0:
                    continue
                declined = bool(answer.result.declined)
                good = well_answered(turn, answer.answer, declined)
                unanswerable = bool(turn.get("unanswerable"))
                rows[way].append((*found(answer.standalone_question, about(conversation, turn)), good, unanswerable))
                records.append({"way": way, "subject": conversation["subject"], "question": turn["question"],
                                "standalone": answer.standalone_question, "answer": answer.answer,
                                "declined": declined, "unanswerable": unanswerable, "good": good})
                if args.show:
                    print(f"  [{way}] {turn['question']} -> {answer.standalone_question} -> {answer.answer[:110]!r} "
                          f"({'good' if good else 'bad'}{', declined' if declined else ''})", flush=True)
        seconds[way] = time.perf_counter() - start
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")

    n = len(follow_ups)
    answerable = sum(not t.get("unanswerable") for _, t in follow_ups)
    print(f"{n} follow-ups in {len(conversations)} conversations ({args.data.name}, {'short' if args.short else 'long'}"
          f" form): the article referred to in the top {args.k} / first; answerable answered right, unanswerable "
          "declined (95% intervals); the whole conversations' wall time")
    for way, hits in rows.items():
        in_k, first = sum(h[0] for h in hits), sum(h[1] for h in hits)
        line = f"  {way:<24} top {args.k} {in_k:2d}/{n}  first {first:2d}/{n}"
        if way in seconds:
            right = sum(bool(h[2]) for h in hits if not h[3])
            declined = sum(bool(h[2]) for h in hits if h[3])
            lo, hi = wilson(right, answerable)
            line += f"  right {right:2d}/{answerable} [{100 * lo:.0f}, {100 * hi:.0f}]"
            if n > answerable:
                dlo, dhi = wilson(declined, n - answerable)
                line += f"  declined {declined:2d}/{n - answerable} [{100 * dlo:.0f}, {100 * dhi:.0f}]"
            line += f"  {seconds[way]:5.0f} s"
        print(line)


if __name__ == "__main__":
    main()
