"""Small files in the layout of ``../shared/data``'s ``nli/`` and ``squad/`` folders, for the sentence reader's
data and training tests: every source present, a few rows each, SQuAD answers in known sentences."""

from __future__ import annotations

import json
from pathlib import Path

CONTEXTS = [
    ("Neptune", "Neptune is the eighth planet from the Sun. It is the fourth-largest planet by diameter. It was "
     "discovered in 1846 by Johann Galle.",
     [("When was Neptune discovered?", ["1846"]), ("Who discovered Neptune?", ["Johann Galle"])]),
    ("Mount Everest", "Mount Everest is the highest mountain above sea level. Its summit stands at 8,849 metres. "
     "It lies on the border between Nepal and China.",
     [("How tall is Mount Everest?", ["8,849 metres"]), ("Which countries share Everest?", ["Nepal and China"])]),
    ("Canberra", "Canberra is the capital city of Australia. It was founded in 1913 as the seat of government. "
     "The city was designed by Walter Burley Griffin.",
     [("When was Canberra founded?", ["1913"]), ("Who designed Canberra?", ["Walter Burley Griffin"])]),
    ("Nile", "The Nile is the longest river in Africa. It flows north into the Mediterranean Sea. Its basin "
     "covers eleven countries, from 1920 onwards surveyed in detail.",
     [("What is the longest river in Africa?", ["Nile"]), ("Where does the Nile flow?", ["Mediterranean Sea"])]),
]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")



def write_reader_data(tmp_path: Path) -> tuple[Path, Path]:
    """The ``nli`` and ``squad`` folders, written under ``tmp_path``."""
    nli, squad = tmp_path / "nli", tmp_path / "squad"
    nli.mkdir()
    squad.mkdir()
    labels = ("entailment", "neutral", "contradiction")
    _write(nli / "snli_dev_test.jsonl", [{"premise": f"A dog runs in field {i}.", "hypothesis": f"An animal {i} moves.",
                                          "label": labels[i % 3], "split": "snli_dev"} for i in range(30)])
    _write(nli / "snli_counterfactual.jsonl",
           [{"premise": f"A man rides a bike {i}.", "hypothesis": f"A man rides {i}.", "label": labels[i % 3],
             "split": ("cad_train", "cad_dev", "cad_test")[i % 3]} for i in range(30)])
    _write(nli / "mnli_taxinli.jsonl", [{"premise": f"The office opens at {i}.", "hypothesis": f"It opens {i}.",
                                         "label": labels[i % 3], "genre": "travel"} for i in range(30)])
    _write(nli / "halueval_qa.jsonl",
           [{"knowledge": f"Town {i} lies on river {i}.", "question": f"Which river is town {i} on?",
             "right_answer": f"River {i}", "hallucinated_answer": f"River {i + 1}" if i % 4 else
             f"The town is on a much longer river called River {i + 1}."} for i in range(20)])
    _write(squad / "squad11_train.jsonl", [{"title": t.replace(" ", "_"), "context": c,
                                            "qas": [{"question": q, "answers": a, "is_impossible": False}
                                                    for q, a in qs]} for t, c, qs in CONTEXTS * 3])
    _write(squad / "squad20_dev.jsonl", [{"title": t, "context": c,
                                          "qas": [*({"question": q, "answers": a, "is_impossible": False}
                                                    for q, a in qs),
                                                  {"question": f"Who renamed {t} in 1999?", "answers": [],
                                                   "is_impossible": True}]} for t, c, qs in CONTEXTS])
    _write(squad / "selqa_dev.jsonl", [{"question": f"Paraphrased: {q}", "article": t, "section": "Lead",
                                        "topic": "PLACE", "candidates": c.split(". "),
                                        "answers": [i for i, s in enumerate(c.split(". ")) if any(x in s for x in a)]}
                                       for t, c, qs in CONTEXTS for q, a in qs[:1]])
    return nli, squad
