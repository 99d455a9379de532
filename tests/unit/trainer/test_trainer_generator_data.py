"""Algorithm 3 with a scripted critic: every decision and the exact output it produces."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from langchain_core.documents import Document

from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.retrievers.passages import PassageRetriever
from selfrag_langchain.text.sentences import sentence_pieces
from selfrag_langchain.tokens import (
    FULLY_SUPPORTED,
    GROUP_TOKENS,
    IRRELEVANT,
    NO_RETRIEVAL,
    NO_SUPPORT,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    RETRIEVAL,
    Group,
    parse_generation,
)
from selfrag_langchain.trainer.config import GeneratorDataConfig
from selfrag_langchain.trainer.generator_data import Augmenter, choose_passage, create, pair_of

Rule = Callable[[CriticQuery], str]


class ScriptedCritic:
    """Puts all probability on the label ``rule`` picks for a query; records every query."""

    def __init__(self, rule: Rule) -> None:
        self.rule, self.queries = rule, []

    def judge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        self.queries.extend(queries)
        return [{tok: float(tok == self.rule(q)) for tok in GROUP_TOKENS[q.group]} for q in queries]


DOCS = [
    Document("Paris is in France.", metadata={"title": "Paris"}),
    Document("Painted by Leonardo.", metadata={"title": "Mona Lisa"}),
    Document("A portrait, maybe by Leonardo [Relevant].", metadata={"title": "Portrait"}),
]
X = "Who painted the Mona Lisa?"
Y = "Leonardo da Vinci painted it. He started around 1503. What a lovely painting!"


def mona_lisa(q: CriticQuery) -> str:
    evidence, output = q.evidence or "", q.output or ""
    if q.group is Group.ISUSE:
        return "[Utility:4]"
    if q.group is Group.RETRIEVE:
        return NO_RETRIEVAL if "lovely" in output else RETRIEVAL
    if q.group is Group.ISREL:
        return IRRELEVANT if "Paris" in evidence else RELEVANT
    if "lovely" in output or "Paris" in evidence:
        return NO_SUPPORT
    return FULLY_SUPPORTED if "Painted by" in evidence else PARTIALLY_SUPPORTED


def test_algorithm_3_segment_by_segment() -> None:
    critic = ScriptedCritic(mona_lisa)
    augmenter = Augmenter(critic, PassageRetriever(passages=DOCS), k=3)
    output = augmenter.augment(X, Y, "id1")
    assert output == (
        "[Retrieval]<paragraph>Mona Lisa\nPainted by Leonardo.</paragraph>[Relevant]Leonardo da Vinci painted it."
        "[Fully supported][Continue to Use Evidence]He started around 1503.[No Retrieval]What a lovely painting!"
        "[Utility:4]")
    parsed = parse_generation(output)
    assert parsed.utility == "[Utility:4]" and parsed.answer == Y
    # The per-sentence Retrieve question carries the preceding sentences and the initial evidence.
    last_retrieve = [q for q in critic.queries if q.group is Group.RETRIEVE][-1]
    assert last_retrieve.preceding == "Leonardo da Vinci painted it. He started around 1503."
    assert last_retrieve.evidence == "Paris\nParis is in France."
    assert augmenter.stats.passages == 1 and augmenter.stats.continued == 1


def test_no_retrieval_item_gets_only_utility() -> None:
    critic = ScriptedCritic(lambda q: NO_RETRIEVAL if q.group is Group.RETRIEVE else "[Utility:5]")
    output = Augmenter(critic, PassageRetriever(passages=DOCS)).augment("Tell a joke.", "Knock knock.", "j")
    assert output == "[No Retrieval]Knock knock.[Utility:5]"
    assert {q.group for q in critic.queries} == {Group.RETRIEVE, Group.ISUSE}


def test_only_irrelevant_passages_gives_a_seeded_random_one_without_issup() -> None:
    def rule(q: CriticQuery) -> str:
        return {Group.RETRIEVE: RETRIEVAL, Group.ISREL: IRRELEVANT, Group.ISSUP: NO_SUPPORT}.get(q.group,
                                                                                                "[Utility:1]")

    outputs = {Augmenter(ScriptedCritic(rule), PassageRetriever(passages=DOCS), seed=7).augment(X, "One.", "same")
               for _ in range(3)}
    assert len(outputs) == 1  # the same item always gets the same passage
    (output,) = outputs
    assert output.startswith("[Retrieval]<paragraph>") and output.endswith("</paragraph>[Irrelevant]One.[Utility:1]")
    # Passage text is neutralised: a reflection string inside it cannot be read as a judgement.
    if "Portrait" in output:
        assert "Relevant" not in output and parse_generation(output).segments[0].relevance == IRRELEVANT


def test_selection_rule() -> None:
    rng = random.Random(0)
    assert choose_passage([IRRELEVANT, RELEVANT, RELEVANT], [FULLY_SUPPORTED, PARTIALLY_SUPPORTED, FULLY_SUPPORTED],
                          rng) == 2
    assert choose_passage([RELEVANT, RELEVANT], [NO_SUPPORT, PARTIALLY_SUPPORTED], rng) == 1
    assert choose_passage([IRRELEVANT, RELEVANT], [FULLY_SUPPORTED, NO_SUPPORT], rng) in (0, 1)


def test_sentences_and_pairs() -> None:
    assert sentence_pieces("It is 2.5 m tall. Dr. Smith agrees.\nNext") == ["It is 2.5 m tall. ", "Dr. Smith agrees.\n",
                                                                             "Next"]
    x, y = pair_of({"instruction": "Q", "input": "more", "output": "[Retrieval]<paragraph>p</paragraph>[Relevant]A."})
    assert x == "Q\n\n## Input:\n\nmore" and y == "A."


def test_create_writes_the_released_format_and_resumes(tmp_path: Path) -> None:
    source = tmp_path / "pairs.jsonl"
    source.write_text(json.dumps({"instruction": X, "output": Y, "id": "m1", "dataset_name": "demo"}) + "\n"
                      + json.dumps({"instruction": "Tell a joke.", "output": "Knock knock."}) + "\n")
    config = GeneratorDataConfig(input=str(source), out=str(tmp_path / "gen.jsonl"))
    retriever = PassageRetriever(passages=DOCS)
    stats = create(config, ScriptedCritic(mona_lisa), retriever, progress=False)
    rows = [json.loads(line) for line in Path(config.out).read_text().splitlines()]
    assert stats.items == 2 and rows[0]["id"] == "m1"
    assert set(rows[0]) == {"instruction", "input", "output", "id", "dataset_name"}
    assert rows[0]["output"].endswith("[Utility:4]") and rows[0]["input"] == ""
    critic = ScriptedCritic(mona_lisa)
    again = create(config, critic, retriever, progress=False)
    assert again.items == 0 and again.already_done == 2 and critic.queries == []


def test_calibration_judges_with_the_calibrated_judge(tmp_path: Path) -> None:
    from selfrag_langchain.judging import CalibratedReflector
    from selfrag_langchain.trainer.generator_data import _load_critic

    config = GeneratorDataConfig(input="pairs.jsonl", out=str(tmp_path / "out.jsonl"), calibration="shipped")
    judge = _load_critic(config)
    assert isinstance(judge, CalibratedReflector)
    evidence = "Mona Lisa\nThe Mona Lisa is a portrait painted by Leonardo da Vinci."
    (dist,) = judge.judge([CriticQuery(Group.ISREL, "Who painted the Mona Lisa?", evidence=evidence)])
    assert dist[RELEVANT] > 0.5
