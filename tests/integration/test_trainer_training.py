"""Real optimisation steps on SmolLM2: the loss goes down, and the saved result loads where Self-RAG
takes a model (critic reflector; SelfRAG Runnable with the inline reflector)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.documents import Document

from selfrag_langchain import InlineReflector, SelfRAG
from selfrag_langchain.judging import CriticQuery, CriticReflector
from selfrag_langchain.llms.base import ContinuationRequest
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.prompts import PAPER_CRITIC
from selfrag_langchain.retrievers.passages import PassageRetriever
from selfrag_langchain.tokens import REFLECTION_TOKENS, Group
from selfrag_langchain.trainer.critic import train_critic
from selfrag_langchain.trainer.generator import train_generator, training_prompt
from selfrag_langchain.trainer.training_config import CriticConfig, GeneratorConfig

pytestmark = pytest.mark.slow

CRITIC_ITEMS = [
    (Group.RETRIEVE, "Who was the first president of Kenya?", None, "[Retrieval]"),
    (Group.RETRIEVE, "Write a haiku about rain.", None, "[No Retrieval]"),
    (Group.ISREL, "Who wrote Hamlet?", "Hamlet\nA tragedy by William Shakespeare.", "[Relevant]"),
    (Group.ISREL, "Who wrote Hamlet?", "Tokyo\nThe capital of Japan.", "[Irrelevant]"),
]
TASK = {Group.RETRIEVE: "retrieval", Group.ISREL: "relevance"}


def _critic_data(path: Path) -> list[CriticQuery]:
    queries, lines = [], []
    for group, question, evidence, label in CRITIC_ITEMS:
        query = CriticQuery(group, question, evidence=evidence)
        prompt = PAPER_CRITIC.prompt(group, question, evidence=evidence)
        fields = prompt.split("### Input:\n", 1)[1].removesuffix("\n\n### Response:\n")
        lines.append(json.dumps({"instruction": PAPER_CRITIC.questions[group].instruction, "input": fields,
                                 "output": label, "task": TASK[group]}))
        queries.append(query)
    path.write_text("\n".join(lines) + "\n")
    return queries


def _label_logprob(llm: TransformersLLM, queries: list[CriticQuery]) -> float:
    """Mean log-likelihood of the gold labels, asked exactly as the paper-prompt critic reflector asks."""
    requests = [ContinuationRequest(PAPER_CRITIC.prompt(q.group, q.instruction, evidence=q.evidence), (item[3],))
                for q, item in zip(queries, CRITIC_ITEMS, strict=True)]
    return sum(row[0] for row in llm.score_continuations(requests)) / len(requests)


def test_critic_steps_lower_the_loss_and_the_adapter_loads_as_a_critic(
        tmp_path: Path, smollm2: TransformersLLM) -> None:
    queries = _critic_data(tmp_path / "critic.jsonl")
    before = _label_logprob(smollm2, queries)
    config = CriticConfig(data=[str(tmp_path / "critic.jsonl")], out=str(tmp_path / "critic"), lora=True,
                          max_length=128, max_steps=3, per_device_train_batch_size=4, gradient_accumulation_steps=1,
                          learning_rate=2e-3, warmup_steps=0.0, logging_steps=1, use_cpu=True)
    result = train_critic(config)
    assert result.saved == "adapter" and result.steps == 3 and result.examples == 4
    assert result.losses[-1] < result.losses[0]
    out = Path(config.out)
    adapter = json.loads((out / "adapter_config.json").read_text())
    assert adapter["base_model_name_or_path"] == "smollm2-135m-instruct"  # portable, not a cache path
    assert len((out / "training_log.jsonl").read_text().splitlines()) >= 3
    import hashlib

    made = json.loads((out / "selfrag_training.json").read_text())["provenance"]
    assert made["data"] == {Path(config.data[0]).name: hashlib.sha256(Path(config.data[0]).read_bytes()).hexdigest()}
    assert made["seed"] == config.seed and "transformers" in made["libraries"] and "peft" in made["libraries"]

    llm = TransformersLLM(model=str(out)).load()
    # Trained on exactly the text the backend feeds the critic (chat template included), token for token.
    from selfrag_langchain.trainer.critic import prompt_formatter

    prompt = PAPER_CRITIC.prompt(Group.ISREL, "Who wrote Hamlet?", evidence="Hamlet")
    assert prompt_formatter(llm.tokenizer)(prompt) == llm.format_prompt(prompt) != prompt
    assert _label_logprob(llm, queries) > before + 0.5
    (dist,) = CriticReflector(llm, prompts="paper").judge(queries[:1])
    assert set(dist) == set(Group.RETRIEVE.tokens) and sum(dist.values()) == pytest.approx(1.0)

    # Its label bias, fitted on rows it never trained on: the four it trained on are found from its record.
    rows = tmp_path / "more.jsonl"
    more = [f"Who founded the city of {c}?" for c in ("Rome", "Carthage", "Kyoto", "Lima")]
    more += [f"Write a limerick about {t}." for t in ("cats", "snow", "tea", "trains")]
    rows.write_text((tmp_path / "critic.jsonl").read_text() + "".join(
        json.dumps({"question": q, "label": "Retrieval" if q.startswith("Who") else "No Retrieval"}) + "\n"
        for q in more))
    from selfrag_langchain.judging import load_label_bias
    from selfrag_langchain.trainer.config import CriticBiasConfig
    from selfrag_langchain.trainer.critic_bias import fit_label_bias

    fit = fit_label_bias(CriticBiasConfig(model=str(out), data=[str(rows)], folds=2, min_rows=2), progress=False)
    assert "4 rows the critic trained on were skipped" in fit.notes
    assert [(f.group, f.rows, f.labels) for f in fit.groups] == [
        (Group.RETRIEVE, 8, {"[Retrieval]": 4, "[No Retrieval]": 4})]
    saved = load_label_bias(out, "paper")
    assert saved is not None and saved.fitted_on["rows"] == 8 and saved.weights == fit.bias.weights


GENERATOR_ROWS = [
    {"instruction": "Who wrote Hamlet?",
     "output": "[Retrieval]<paragraph>Hamlet\nA tragedy by Shakespeare.</paragraph>[Relevant]Shakespeare."
               "[Fully supported][Utility:5]"},
    {"instruction": "Say hello.", "output": "[No Retrieval]Hello![Utility:5]"},
    {"instruction": "Capital of Japan?",
     "output": "[Retrieval]<paragraph>Tokyo\nThe capital of Japan.</paragraph>[Relevant]Tokyo.[Fully supported]"
               "[Utility:5]"},
    {"instruction": "Add 2 and 2.", "output": "[No Retrieval]4[Utility:4]"},
]


def test_generator_steps_resume_and_the_model_runs_selfrag_inline(
        tmp_path: Path, smollm2_with_tokens: TransformersLLM) -> None:
    data = tmp_path / "gen.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in GENERATOR_ROWS))
    request = ContinuationRequest(training_prompt(GENERATOR_ROWS[0]), (GENERATOR_ROWS[0]["output"],), chat=False)
    (before,) = smollm2_with_tokens.score_continuations([request])
    settings = {"data": [str(data)], "out": str(tmp_path / "gen"), "lora": True, "max_length": 64,
                "per_device_train_batch_size": 4, "gradient_accumulation_steps": 1, "learning_rate": 3e-3,
                "warmup_steps": 0.0, "logging_steps": 1, "save_steps": 2, "use_cpu": True}
    first = train_generator(GeneratorConfig(**settings, max_steps=2))
    assert (tmp_path / "gen" / "checkpoints" / "checkpoint-2").is_dir()
    resumed = train_generator(GeneratorConfig(**settings, max_steps=3, resume=True))
    assert resumed.steps == 3 and not resumed.notes  # continued from checkpoint-2, one more step
    steps = [json.loads(line)["step"] for line in (tmp_path / "gen" / "training_log.jsonl").read_text().splitlines()]
    assert steps[:2] == [1, 2] and 3 in steps
    assert first.losses[-1] < first.losses[0]

    # The adapter holds the LoRA weights and the 15 trained rows, not the whole resized embedding matrices.
    assert (tmp_path / "gen" / "adapter_model.safetensors").stat().st_size < 30_000_000
    llm = TransformersLLM(model=str(tmp_path / "gen"), max_new_tokens=12).load()
    assert llm.has_tokens(list(REFLECTION_TOKENS))
    # The added rows were trained (own learning rate), saved in the adapter and loaded back.
    ids = [llm.vocab[tok] for tok in REFLECTION_TOKENS]
    start = smollm2_with_tokens.hf_model.get_input_embeddings().weight[ids]
    assert (llm.hf_model.get_input_embeddings().weight[ids] - start).norm(dim=-1).min() > 0.05
    (after,) = llm.score_continuations([request])
    assert after[0] > before[0] + 1.0  # the trained output is much likelier than under the untrained start
    retriever = PassageRetriever(passages=[Document("A tragedy by Shakespeare.", metadata={"title": "Hamlet"})])
    rag = SelfRAG(generator=llm, reflector=InlineReflector(llm), retriever=retriever, mode="always", k=1,
                  max_new_tokens=12)
    answer = rag.invoke("Who wrote Hamlet?")
    assert answer.reflector == "inline" and answer.retrieved and len(answer.branches) == 1
