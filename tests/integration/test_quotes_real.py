"""Quoted answers on the real models: all-MiniLM-L6-v2 finds the sentence that states a generation (worded
differently, or garbled), the default pipeline answers with a sentence of the passage it cites, and a quote that
does not give the kind of value asked is declined."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from selfrag_langchain import CalibratedReflector, SelfRAG
from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.judging.claims import named
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.text.sentences import split_sentences

pytestmark = pytest.mark.slow

ORWELL = ("George Orwell was an English novelist, essayist and critic. His real name was Eric Arthur Blair. He wrote "
          "the allegorical novella Animal Farm and the dystopian novel Nineteen Eighty-Four.")
DANUBE = ("The Danube is the second-longest river in Europe. It rises in the Black Forest in Germany. It flows "
          "into the Black Sea through a wide delta in Romania and Ukraine.")
IRON = ("Iron is a chemical element. Its symbol is Fe, from the Latin ferrum, and its atomic number is 26. It is the "
        "most common element on Earth by mass.")

# (question, generation, passage, the sentence it states): each generation is worded otherwise than its
# sentence, and the last two share words with a sentence that does not state them.
CASES = [
    ("What was the real name of the writer George Orwell?", "George Orwell's real name was Eric Blair, a writer.",
     ORWELL, "His real name was Eric Arthur Blair."),
    ("Where does the Danube end?", "The Danube ends in the Black Sea.", DANUBE,
     "It flows into the Black Sea through a wide delta in Romania and Ukraine."),
    ("Which element has the chemical symbol Fe?", "The chemical symbol Fe comes from ferrum, a Latin word for the "
     "element.", IRON, "Its symbol is Fe, from the Latin ferrum, and its atomic number is 26."),
]


@pytest.fixture(scope="module")
def quoter() -> PassageQuoter:
    return PassageQuoter(embeddings=MiniLMEmbeddings())


@pytest.mark.parametrize(("question", "generation", "passage", "stated"), CASES)
def test_minilm_finds_the_sentence_a_generation_states(quoter: PassageQuoter, question: str, generation: str,
                                                       passage: str, stated: str) -> None:
    assert quoter.quote(question, generation, passage) == stated


def test_the_default_quoter_answers_with_the_cited_passages_sentence_that_gives_the_name_asked(
        smollm2: TransformersLLM) -> None:
    from selfrag_langchain.pipeline import PipelineSettings, build_quoter

    rag = SelfRAG(generator=smollm2, reflector=CalibratedReflector(), mode="always", k=2,
                  quoter=build_quoter(PipelineSettings()), max_new_tokens=24)
    passages = [Document(page_content=DANUBE, metadata={"title": "Danube"}),
                Document(page_content=ORWELL, metadata={"title": "George Orwell"})]
    result = rag.invoke({"question": "What was George Orwell's real name?", "passages": passages})
    assert result.quoted and not result.declined
    assert result.citations[0].metadata["title"] == "George Orwell"
    sentences = split_sentences(ORWELL)
    assert result.answer == named(sentences[1], "George Orwell", sentences[0])  # "His real name was ...", named


def test_a_quote_that_does_not_give_the_name_asked_is_declined_not_given(smollm2: TransformersLLM,
                                                                         quoter: PassageQuoter) -> None:
    """MiniLM alone quotes the sentence nearest the generation; SmolLM2 writes of who Orwell was, and that sentence
    names no one but him."""
    rag = SelfRAG(generator=smollm2, reflector=CalibratedReflector(), mode="always", k=2, quoter=quoter,
                  max_new_tokens=24)
    passages = [Document(page_content=DANUBE, metadata={"title": "Danube"}),
                Document(page_content=ORWELL, metadata={"title": "George Orwell"})]
    result = rag.invoke({"question": "What was George Orwell's real name?", "passages": passages})
    chosen = result.branches[result.selected]
    assert chosen.quote is not None and "Blair" not in chosen.quote
    assert result.declined and "Blair" not in result.answer


ENCELADUS = ("Enceladus is the sixth-largest moon of Saturn. It is about 500 kilometres in diameter. It is covered by "
             "fresh, clean ice.")
TITAN = ("Titan is the largest moon of Saturn and the second-largest natural satellite in the Solar System. It is the "
         "only moon known to have a dense atmosphere.")


def test_a_sentence_of_another_rank_is_not_the_answer_though_the_shipped_models_read_it_as_one(
        smollm2: TransformersLLM) -> None:
    from selfrag_langchain.pipeline import PipelineSettings, build_quoter

    question = "What is the largest moon of Saturn?"
    shipped = build_quoter(PipelineSettings())
    assert shipped.reader is not None and shipped.finder is not None
    other_rank = ("Enceladus", "Enceladus is the sixth-largest moon of Saturn.")
    pair = [(question, f"{other_rank[0]}: {other_rank[1]}")]
    # the models alone read it as answering: it names the very measure asked
    assert shipped.reader.answering(pair)[0] > 0.5 and shipped.finder.holds_answer(pair)[0] > 0.5
    best = shipped.best_holding(question, [(ENCELADUS, "Enceladus")])[0]  # what declining's bound reads
    assert best is not None and best < PipelineSettings().min_quote_holds_answer
    rag = SelfRAG(generator=smollm2, reflector=CalibratedReflector(), mode="always", k=2, quoter=shipped,
                  max_new_tokens=24)
    passages = [Document(page_content=ENCELADUS, metadata={"title": "Enceladus"}),  # the retriever's first
                Document(page_content=TITAN, metadata={"title": "Titan"})]
    result = rag.invoke({"question": question, "passages": passages})
    assert not result.declined and result.citations[0].metadata["title"] == "Titan"
    assert result.answer.startswith("Titan is the largest moon of Saturn")
