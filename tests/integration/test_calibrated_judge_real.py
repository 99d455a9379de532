"""The default judge on the real models: it ranks the branch of the right passage first, and critic
evaluation without a model evaluates it exactly as SelfRAG uses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.documents import Document

from selfrag_langchain import CalibratedReflector, SelfRAG
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.trainer.config import CriticEvalConfig
from selfrag_langchain.trainer.critic_eval import evaluate

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def _doc(title: str, text: str) -> Document:
    return Document(page_content=text, metadata={"title": title})


# Each question comes with passages in which the right one is never first, as a retriever may rank them.
CASES = [
    ("Who painted the Mona Lisa?", "Mona Lisa", "Leonardo", [
        _doc("Henri Matisse", "Henri Matisse was a French visual artist, known for his use of colour. He painted "
                              "The Dance and Woman with a Hat."),
        _doc("Mona Lisa", "The Mona Lisa is a half-length portrait painting by the Italian artist Leonardo da "
                          "Vinci. It has been described as the best known work of art in the world."),
        _doc("Raphael", "Raphael was an Italian painter and architect of the High Renaissance, known for The "
                        "School of Athens."),
    ]),
    ("Who wrote the novel Pride and Prejudice?", "Pride and Prejudice", "Austen", [
        _doc("C. S. Lewis", "C. S. Lewis was a British writer and literary scholar, the author of The Chronicles "
                            "of Narnia."),
        _doc("The Grapes of Wrath", "The Grapes of Wrath is an American realist novel written by John Steinbeck "
                                    "and published in 1939."),
        _doc("Pride and Prejudice", "Pride and Prejudice is a novel of manners by the English author Jane Austen, "
                                    "published in 1813."),
    ]),
    ("What is Derek Wheatley's occupation?", "Derek Wheatley", "barrister", [
        _doc("Kevin Wheatley", "Kevin Wheatley is a former rugby league footballer who played for Wales."),
        _doc("Derek Wheatley", "Derek Wheatley is an English barrister and author of legal thrillers."),
    ]),
]


@pytest.fixture(scope="module")
def judge() -> CalibratedReflector:
    return CalibratedReflector()


@pytest.mark.parametrize(("question", "title", "expected", "passages"), CASES, ids=[c[1] for c in CASES])
def test_the_default_judge_picks_the_branch_of_the_right_passage(
    smollm2: TransformersLLM, judge: CalibratedReflector, question: str, title: str, expected: str,
    passages: list[Document],
) -> None:
    llm = TransformersLLM(max_new_tokens=32).load()
    rag = SelfRAG(generator=llm, reflector=judge, mode="always", k=len(passages), max_new_tokens=32)
    result = rag.invoke({"question": question, "passages": passages})
    chosen = result.branches[result.selected]
    assert chosen.passage.metadata["title"] == title, [(b.answer, b.scores.total) for b in result.branches]
    assert expected in result.answer
    assert result.citations[0].metadata["title"] == title
    # The right passage is judged more relevant than every other one.
    relevance = {b.passage.metadata["title"]: b.scores.relevance for b in result.branches}
    assert relevance[title] == max(relevance.values())


def test_critic_eval_without_a_model_is_the_judge_selfrag_uses(judge: CalibratedReflector, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (DATA / "critic_dev.jsonl").read_text().splitlines()]
    picked = [next(r for r in rows if r["task"] == task) for task in ("retrieval", "relevance", "groundedness",
                                                                      "utility")]
    data = tmp_path / "dev.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in picked))
    evaluation = evaluate(CriticEvalConfig(data=str(data)), progress=False)
    assert evaluation.model == "calibrated judge"
    from selfrag_langchain.trainer.critic_eval import predict
    from selfrag_langchain.trainer.critic_rows import read_critic_rows

    direct = predict(judge, read_critic_rows(data), progress=False)
    for prediction, dist in zip(evaluation.predictions, direct, strict=True):
        assert prediction["probs"] == {tok: round(p, 6) for tok, p in dist.items()}
