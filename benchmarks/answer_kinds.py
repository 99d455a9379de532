"""The answer-kind rules (``chains/answer_kinds.py``) on SQuAD's training questions: how often the sentence that
answers a question of each checked kind gives the kind it asks for (the rule must not decline it), beside the
same paragraphs' other sentences (how often the rule lets one that does not answer through: the baseline of
the same run, what the rule can catch).

Only questions whose answer text occurs in exactly one sentence of the paragraph are counted.

    python benchmarks/answer_kinds.py                       # ../shared/data/squad/squad11_train.jsonl
    python benchmarks/answer_kinds.py --squad FILE --json
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path

from common import wilson

from selfrag_langchain.chains.answer_kinds import (
    asks_agent,
    asks_birth_name,
    asks_birthplace,
    asks_burial,
    asks_death,
    asks_nickname,
    asks_place,
    asks_relative,
    asks_scientific_name,
    asks_share,
    asks_spouse,
    asks_year,
    gives_asked_kind,
)
from selfrag_langchain.trainer.reader_data import SQUAD_FILES, answer_sentence, paragraphs

KINDS: dict[str, Callable[[str], bool]] = {"year": asks_year, "share": asks_share, "birthplace": asks_birthplace,
                                           "birth_name": asks_birth_name, "death": asks_death, "burial": asks_burial,
                                           "place": asks_place, "agent": asks_agent, "spouse": asks_spouse,
                                           "relative": asks_relative, "scientific_name": asks_scientific_name,
                                           "nickname": asks_nickname}
"""Each checked kind, in the order :func:`gives_asked_kind` reads them: a question is counted under the first."""


def measure(squad: Path) -> dict[str, dict[str, float | int]]:
    """Per kind: the questions asking it, how many answer sentences give it, how many other sentences do."""
    counts = {kind: {"questions": 0, "answer_gives": 0, "others": 0, "other_gives": 0} for kind in KINDS}
    for para in paragraphs(squad, None, random.Random(0)):
        for question, answers in para.questions:
            kind = next((k for k, asks in KINDS.items() if asks(question)), None)
            found = answer_sentence(para, answers) if kind is not None else None
            if kind is None or found is None:
                continue
            row = counts[kind]
            row["questions"] += 1
            row["answer_gives"] += gives_asked_kind(question, para.sentences[found])
            others = [s for i, s in enumerate(para.sentences) if i != found]
            row["others"] += len(others)
            row["other_gives"] += sum(gives_asked_kind(question, s) for s in others)
    out: dict[str, dict[str, float | int]] = {}
    for kind, row in counts.items():
        low, high = wilson(row["answer_gives"], row["questions"])
        out[kind] = {**row, "answer_share": row["answer_gives"] / max(1, row["questions"]),
                     "answer_interval": [round(low, 4), round(high, 4)],
                     "other_share": row["other_gives"] / max(1, row["others"])}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--squad", type=Path, default=Path("../shared/data/squad") / SQUAD_FILES["squad"])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    if not args.squad.is_file():
        raise SystemExit(f"{args.squad} is missing: this benchmark reads SQuAD's training questions")
    result = measure(args.squad)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'kind':<16} {'questions':>9}  {'answer sentence gives it':<30} other sentences give it")
    for kind, row in result.items():
        low, high = row["answer_interval"]
        print(f"{kind:<16} {row['questions']:>9}  {row['answer_gives']:>5} = {row['answer_share']:.1%} "
              f"[{low:.1%}, {high:.1%}]      {row['other_gives']} of {row['others']} = {row['other_share']:.1%}")


if __name__ == "__main__":
    main()
