"""Generator data creation, the paper's Algorithm 3: a critic and a retriever turn (x, y) pairs into
outputs with inline reflection tokens and ``<paragraph>`` passages, in the released training format.

For each pair (x = the instruction with its input, y = the output):

1. The critic judges Retrieve for x. No: the output is ``[No Retrieval]`` y ``[Utility:k]``.
2. Yes: passages are retrieved for x and the whole of y; the first is the initial evidence. y is split
   into sentences (pysbd, offline). For each sentence s, with the sentences before it:

   - if a passage was already inserted and the critic judges s ``[Fully supported]`` by it, s follows
     ``[Continue to Use Evidence]`` (Table 9: "can be verified solely with the evidence");
   - else the critic judges Retrieve given x, the preceding sentences, the initial evidence and s.
     No: ``[No Retrieval]`` s. Yes: k passages are retrieved for x and s, the critic judges IsRel and
     IsSup for each, and one is kept: the highest-ranked Relevant and Fully supported, else Relevant
     and Partially supported, else a random one (seeded per item). The segment is
     ``[Retrieval]<paragraph>passage</paragraph>[IsRel]`` s, then ``[IsSup]`` when it is Relevant (the
     released data has no IsSup after ``[Irrelevant]``).
3. The critic judges IsUse for (x, y), appended at the end.

Every judgement is the critic's most likely label, read through
:meth:`~selfrag_langchain.judging.critic.CriticReflector.judge` as inference reads it. Passages are neutralised
(:mod:`selfrag_langchain.text.boundary`) so their text cannot carry reflection or control tokens. Records
are appended one by one; a re-run skips ids already written.

Example:
    selfrag train generator-data --input pairs.jsonl --out generator_extra.jsonl --critic critic-smollm2
    selfrag train generator-data --input pairs.jsonl --out generator_extra.jsonl --calibration shipped
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from selfrag_langchain.judging import CriticQuery, Reflector
from selfrag_langchain.prompts import build_instruction, format_passage
from selfrag_langchain.text.sentences import sentence_pieces
from selfrag_langchain.tokens import (
    CONTINUE_EVIDENCE,
    FULLY_SUPPORTED,
    NO_RETRIEVAL,
    PARAGRAPH_END,
    PARAGRAPH_START,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    RETRIEVAL,
    Group,
    find_special,
    strip_reflection_tokens,
)
from selfrag_langchain.trainer.config import GeneratorDataConfig
from selfrag_langchain.trainer.data import JsonlAppender, read_jsonl, stable_id, written_ids


@dataclass
class AugmentStats:
    """Counts over a run: what the critic decided, segment by segment."""

    items: int = 0
    already_done: int = 0
    retrieved_items: int = 0
    passages: int = 0
    continued: int = 0
    no_retrieval_segments: int = 0

    def summary(self) -> str:
        return (f"{self.items} items written ({self.retrieved_items} with retrieval: {self.passages} passages "
                f"inserted, {self.continued} sentences continuing on evidence, {self.no_retrieval_segments} "
                f"without retrieval), {self.already_done} already done")


def _top(dist: dict[str, float]) -> str:
    return max(dist, key=lambda tok: dist[tok])


def passage_text(doc: Document) -> str:
    """A retrieved document as the generator reads it between ``<paragraph>`` tags: title, text, neutralised."""
    return format_passage(doc.metadata.get("title") or None, doc.page_content)


def choose_passage(rels: list[str], sups: list[str], rng: random.Random) -> int:
    """The paper's selection rule: the highest-ranked passage judged Relevant and Fully supported, else
    Relevant and Partially supported, else a random one."""
    for wanted in (FULLY_SUPPORTED, PARTIALLY_SUPPORTED):
        for index, (rel, sup) in enumerate(zip(rels, sups, strict=True)):
            if rel == RELEVANT and sup == wanted:
                return index
    return rng.randrange(len(rels))


class Augmenter:
    """Algorithm 3 for one (x, y) pair at a time, with a critic, a retriever and the number of passages."""

    def __init__(self, critic: Reflector, retriever: BaseRetriever, *, k: int = 3, threshold: float = 0.5,
                 seed: int = 42) -> None:
        self.critic, self.retriever, self.k, self.threshold, self.seed = critic, retriever, k, threshold, seed
        self.stats = AugmentStats()

    def _ask(self, *queries: CriticQuery) -> list[str]:
        return [_top(d) for d in self.critic.judge(list(queries))]

    def _wants_retrieval(self, query: CriticQuery) -> bool:
        (dist,) = self.critic.judge([query])
        return dist.get(RETRIEVAL, 0.0) > self.threshold

    def _retrieve(self, query: str) -> list[Document]:
        return list(self.retriever.invoke(query))[: self.k]

    def augment(self, x: str, y: str, item_id: str) -> str:
        """The output y with reflection tokens and passages inserted."""
        (utility,) = self._ask(CriticQuery(Group.ISUSE, x, output=y))
        if not self._wants_retrieval(CriticQuery(Group.RETRIEVE, x)):
            self.stats.no_retrieval_segments += 1
            return f"{NO_RETRIEVAL}{y}{utility}"
        self.stats.retrieved_items += 1
        initial = self._retrieve(f"{x}\n{y}")
        evidence = passage_text(initial[0]) if initial else None
        rng = random.Random(f"{self.seed}:{item_id}")
        sentences = sentence_pieces(y)
        segments, current = [], None
        for t, raw in enumerate(sentences):
            # Segments end where the sentence ends (the next token follows it, as in the released data).
            sentence, preceding = raw.rstrip(" \t"), "".join(sentences[:t]).strip() or None
            if current is not None:
                (support,) = self._ask(CriticQuery(Group.ISSUP, x, evidence=current, output=sentence,
                                                   preceding=preceding))
                if support == FULLY_SUPPORTED:
                    self.stats.continued += 1
                    segments.append(f"{CONTINUE_EVIDENCE}{sentence}")
                    continue
            segment, passage = self._segment(x, sentence, preceding, evidence, rng)
            segments.append(segment)
            current = passage or current
        return "".join(segments) + utility

    def _segment(self, x: str, sentence: str, preceding: str | None, evidence: str | None,
                 rng: random.Random) -> tuple[str, str | None]:
        """One sentence's segment and the passage it inserted (None when it retrieved nothing)."""
        ask = CriticQuery(Group.RETRIEVE, x, evidence=evidence, output=sentence, preceding=preceding)
        docs = self._retrieve(f"{x}\n{sentence}") if self._wants_retrieval(ask) else []
        if not docs:
            self.stats.no_retrieval_segments += 1
            return f"{NO_RETRIEVAL}{sentence}", None
        passages = [passage_text(d) for d in docs]
        labels = self._ask(*(CriticQuery(Group.ISREL, x, evidence=p) for p in passages),
                           *(CriticQuery(Group.ISSUP, x, evidence=p, output=sentence, preceding=preceding)
                             for p in passages))
        rels, sups = labels[: len(passages)], labels[len(passages):]
        chosen = choose_passage(rels, sups, rng)
        self.stats.passages += 1
        support = sups[chosen] if rels[chosen] == RELEVANT else ""
        body = f"{RETRIEVAL}{PARAGRAPH_START}{passages[chosen]}{PARAGRAPH_END}{rels[chosen]}"
        return f"{body}{sentence}{support}", passages[chosen]


def pair_of(record: dict[str, Any]) -> tuple[str, str]:
    """(x, y) of a record: the instruction with its input folded in as inference folds it, and the output
    as plain text (reflection tokens and passages of an already augmented output removed)."""
    instruction, extra = record["instruction"], record.get("input")
    x = build_instruction(extra, instruction) if extra else instruction
    y = record["output"]
    return x, strip_reflection_tokens(y) if find_special(y) else y


def create(config: GeneratorDataConfig, critic: Reflector | None = None, retriever: BaseRetriever | None = None,
           *, progress: bool = True) -> AugmentStats:
    """Augment every pending record of ``config.input`` and append it to ``config.out``.

    Raises:
        InputError: for a bad input file. ModelLoadError / StoreError: for a critic or store that cannot be
            loaded.
    """
    from tqdm import tqdm

    records = read_jsonl(config.input, required=("instruction", "output"), optional_text=("input",))
    if config.limit is not None:
        records = records[: config.limit]
    done = written_ids(config.out)
    pending = []
    for record in records:
        item_id = str(record.get("id") or stable_id(record["instruction"], record.get("input"), record["output"]))
        if item_id in done:
            continue
        pending.append((item_id, record))
    augmenter = Augmenter(critic or _load_critic(config), retriever or _default_retriever(config),
                          k=config.k, threshold=config.retrieve_threshold, seed=config.seed)
    augmenter.stats.already_done = len(records) - len(pending)
    with JsonlAppender(config.out) as out:
        for item_id, record in tqdm(pending, desc="generator data", disable=not progress):
            x, y = pair_of(record)
            output = augmenter.augment(x, y, item_id)
            row = {"instruction": record["instruction"], "input": record.get("input") or "", "output": output,
                   "id": item_id}
            if record.get("dataset_name"):
                row["dataset_name"] = record["dataset_name"]
            out.write(row)
            augmenter.stats.items += 1
    return augmenter.stats


def _load_critic(config: GeneratorDataConfig) -> Reflector:
    if config.calibration:
        from selfrag_langchain.judging import CalibratedReflector

        return CalibratedReflector(None if config.calibration == "shipped" else config.calibration)
    from selfrag_langchain.judging import CriticReflector, load_label_bias
    from selfrag_langchain.llms.transformers import TransformersLLM

    return CriticReflector(TransformersLLM(model=config.critic, device=config.device).load(),
                           prompts=config.critic_prompts,
                           label_bias=load_label_bias(config.critic, config.critic_prompts))


def _default_retriever(config: GeneratorDataConfig) -> BaseRetriever:
    from selfrag_langchain.corpus.answering import answering_store

    return answering_store(config.store).as_retriever(search_kwargs={"k": config.k})
