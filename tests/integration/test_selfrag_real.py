"""SelfRAG end to end on the real SmolLM2 with both reflectors: composition, async, batch, sharing."""

from __future__ import annotations

import pytest
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda

from examples.corpus import documents
from selfrag_langchain import CriticReflector, InlineReflector, SelfRAG
from selfrag_langchain.judging import Branch
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.retrievers.passages import PassageRetriever
from selfrag_langchain.tokens import parse_generation

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def retriever():
    from langchain_core.vectorstores import InMemoryVectorStore

    from selfrag_langchain.embeddings import MiniLMEmbeddings

    return InMemoryVectorStore.from_documents(documents(), MiniLMEmbeddings()).as_retriever()


def _critic_rag(llm: TransformersLLM, retriever, **kwargs) -> SelfRAG:
    return SelfRAG(generator=llm, reflector=CriticReflector(llm), retriever=retriever, k=2, max_new_tokens=16,
                   **kwargs)


def test_lcel_batch_and_abatch_agree(smollm2: TransformersLLM, retriever) -> None:
    chain = (PromptTemplate.from_template("{question}") | _critic_rag(smollm2, retriever, mode="always")
             | RunnableLambda(lambda r: r.answer) | StrOutputParser())
    questions = [{"question": "Who painted the Mona Lisa?"}, {"question": "Who wrote Hamlet?"}]
    answers = chain.batch(questions)
    assert all(isinstance(a, str) and a.strip() for a in answers)
    assert "Leonardo" in answers[0] and "Shakespeare" in answers[1]  # the gold entities: an echo holds neither
    assert answers == [chain.invoke(q) for q in questions]


async def test_ainvoke_equals_invoke(smollm2: TransformersLLM, retriever) -> None:
    rag = _critic_rag(smollm2, retriever)
    sync = rag.invoke("Who designed the Eiffel Tower?")
    asynchronous = await rag.ainvoke("Who designed the Eiffel Tower?")
    assert asynchronous.model_dump() == sync.model_dump()


def test_configurable_threshold_changes_the_decision(smollm2: TransformersLLM, retriever) -> None:
    from langchain_core.runnables import ConfigurableField

    rag = _critic_rag(smollm2, retriever).configurable_fields(threshold=ConfigurableField(id="threshold"))
    low = rag.with_config(configurable={"threshold": 0.0}).invoke("Who wrote Hamlet?")
    high = rag.with_config(configurable={"threshold": 1.0}).invoke("Who wrote Hamlet?")
    assert low.retrieved and not high.retrieved
    assert low.retrieve_decision.probability == pytest.approx(high.retrieve_decision.probability)
    assert (low.settings["threshold"], high.settings["threshold"]) == (0.0, 1.0)


def test_critic_reads_a_branch_passage_once(smollm2: TransformersLLM) -> None:
    """IsRel, IsSup and IsUse about one passage cost one read of it, not one per group or label."""
    model = smollm2.hf_model
    fed: list[int] = []
    def count(_module, args, kwargs) -> None:
        fed.append((args[0] if args else kwargs["input_ids"]).numel())

    handle = model.register_forward_pre_hook(count, with_kwargs=True)
    doc = documents()[0]
    evidence = f"{doc.metadata['title']}\n{doc.page_content}"
    branch = Branch(passage=doc, evidence=evidence, raw="Leonardo da Vinci painted it.",
                    answer="Leonardo da Vinci painted it.", parsed=parse_generation("Leonardo da Vinci painted it."))
    critic = CriticReflector(smollm2, calibrate=False, relevance="labels")  # question likelihood reads it twice
    try:
        critique = critic.critique("Who painted the Mona Lisa?", [branch])
    finally:
        handle.remove()
    passage_tokens = smollm2.count_tokens(evidence)
    # One shared prefix (instruction, passage, output), three short questions, ten labels in batches.
    assert sum(fed) < 1.5 * passage_tokens + 3 * 60 + 10 * 8
    assert critique[0].relevance and critique[0].support and critique[0].utility


def test_inline_reflector_runs_on_a_model_with_reflection_tokens(smollm2_with_tokens: TransformersLLM) -> None:
    llm = smollm2_with_tokens
    rag = SelfRAG(generator=llm, reflector=InlineReflector(llm), retriever=PassageRetriever(passages=documents()),
                  k=3, max_new_tokens=8, mode="always")
    result = rag.invoke("Who painted the Mona Lisa?")
    assert result.retrieved and len(result.branches) == 3
    assert result.settings["prompt_format"] == "selfrag"
    dist = InlineReflector(llm).retrieve_distribution("Who painted the Mona Lisa?")
    adaptive = rag.model_copy(update={"mode": "adaptive"}).invoke("Who painted the Mona Lisa?")
    assert adaptive.retrieve_decision.distribution == pytest.approx(dist)
    assert any(branch.written for branch in result.branches)
    for branch in result.branches:
        if not branch.written:  # its passage names nothing of the question: IsRel alone, where it would be emitted
            assert branch.distributions["IsRel"] is not None and branch.notes[0].startswith("not written: ")
            continue
        # Untrained tokens are rarely emitted: a group not emitted is omitted and the trace says so.
        for group, dist in branch.distributions.items():
            if dist is None:
                assert any(f"no {group} token" in note for note in branch.notes)


def test_question_likelihood_relevance_ranks_the_right_passage_first(smollm2: TransformersLLM) -> None:
    critic = CriticReflector(smollm2, relevance="question_likelihood")
    questions = {"Who wrote Hamlet?": "Hamlet", "Who painted the Mona Lisa?": "Mona Lisa",
                 "How high is Mount Everest?": "Mount Everest", "Who designed the Eiffel Tower?": "Eiffel Tower"}
    for question, title in questions.items():
        branches = [Branch(passage=d, evidence=f"{d.metadata['title']}\n{d.page_content}", raw="x", answer="x",
                           parsed=parse_generation("x")) for d in documents()]
        critiques = critic.critique(question, branches)
        p_rel = {b.passage.metadata["title"]: c.relevance["[Relevant]"]
                 for b, c in zip(branches, critiques, strict=True)}
        assert max(p_rel, key=p_rel.get) == title, p_rel
        assert all(0.0 < p < 1.0 for p in p_rel.values())
