"""The instructions and demonstrations the paper gave GPT-4 to collect reflection labels (Appendix D).

One :class:`TeacherPrompt` per collection group (Tables 8-12). Instructions and demonstrations are
separated by ``##`` as the paper did (Appendix A.1); the query ends with the answer field's name
(``Rating``, ``Score``...) so the teacher answers with the label first and the explanation after.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from selfrag_langchain.tokens import Group

FIELD_NAMES = {"instruction": "Instruction", "preceding": "Preceding sentences", "evidence": "Evidence",
               "output": "Output"}


@dataclass(frozen=True)
class TeacherPrompt:
    """How the teacher is asked about one group."""

    group: str
    task: str
    """The ``task`` value of the critic data it produces."""
    critic_group: Group
    fields: tuple[str, ...]
    """The item fields shown, in order; all but ``preceding`` are required."""
    answer_field: str
    instruction: str
    demonstrations: tuple[Mapping[str, str], ...]

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f for f in self.fields if f != "preceding")

    def render(self, item: Mapping[str, str | None]) -> str:
        """The full prompt for one item: instruction, demonstrations, then the item awaiting its answer."""
        blocks = [self.instruction]
        for demo in self.demonstrations:
            lines = self._field_lines(demo)
            lines.append(f"{self.answer_field}: {demo['answer']}")
            lines.append(f"Explanation: {demo['explanation']}")
            blocks.append("\n".join(lines))
        blocks.append("\n".join([*self._field_lines(item), f"{self.answer_field}:"]))
        return "\n\n##\n".join(blocks)

    def _field_lines(self, values: Mapping[str, str | None]) -> list[str]:
        return [f"{FIELD_NAMES[name]}: {values[name]}" for name in self.fields if values.get(name)]


_WORD_EMBEDDINGS = "Explain the use of word embeddings in Natural Language Processing."
_WE_PRECEDING = (
    "Word embeddings are one of the most powerful tools available for Natural Language Processing (NLP). They "
    "are mathematical representations of words or phrases in a vector space, allowing similarities between "
    "words and the context in which they are used to be measured."
)
_WE_OUTPUT = (
    "Word embeddings are useful for tasks such as sentiment analysis, text classification, predicting the next "
    "word in a sequence, and understanding synonyms and analogies."
)
_WE_EVIDENCE_SHORT = (
    "Word embedding\nWord embedding is the collective name for a set of language modeling and feature learning "
    "techniques in natural language processing (NLP) where words or phrases from the vocabulary are mapped to "
    "vectors of real numbers. Conceptually it involves a mathematical embedding from a space with one dimension "
    "per word to a continuous vector space with a much lower dimension."
)
_WE_EVIDENCE_LONG = _WE_EVIDENCE_SHORT + (
    " Methods to generate this mapping include neural networks, dimensionality reduction on the word "
    "co-occurrence matrix, probabilistic models, explainable knowledge base method, and explicit representation "
    "in terms of the context in which words appear. Word and phrase embeddings, when used as the underlying "
    "input representation, have been shown to boost the performance in NLP tasks such as syntactic parsing, "
    "sentiment analysis, next token predictions as well and analogy detection."
)

RETRIEVAL = TeacherPrompt(
    group="retrieval",
    task="retrieval",
    critic_group=Group.RETRIEVE,
    fields=("instruction",),
    answer_field="Need retrieval?",
    instruction=(
        "Given an instruction, please make a judgment on whether finding some external documents from the web "
        "(e.g., Wikipedia) helps to generate a better response. Please answer [Yes] or [No] and write an "
        "explanation."
    ),
    demonstrations=(
        {"instruction": "Give three tips for staying healthy.", "answer": "[Yes]",
         "explanation": "There might be some online sources listing three tips for staying healthy or some "
                        "reliable sources to explain the effects of different behaviors on health. So retrieving "
                        "documents is helpful to improve the response to this query."},
        {"instruction": "Describe a time when you had to make a difficult decision.", "answer": "[No]",
         "explanation": "This instruction is asking about some personal experience and thus it does not require "
                        "one to find some external documents."},
        {"instruction": "Write a short story in third person narration about a protagonist who has to make an "
                        "important career decision.", "answer": "[No]",
         "explanation": "This instruction asks us to write a short story, which does not require external "
                        "evidence to verify."},
        {"instruction": "What is the capital of France?", "answer": "[Yes]",
         "explanation": "While the instruction simply asks us to answer the capital of France, which is a widely "
                        "known fact, retrieving web documents for this question can still help."},
        {"instruction": "Find the area of a circle given its radius. Radius = 4", "answer": "[No]",
         "explanation": "This is a math question and although we may be able to find some documents describing a "
                        "formula, it is unlikely to find a document exactly mentioning the answer."},
        {"instruction": "Arrange the words in the given sentence to form a grammatically correct sentence. "
                        "quickly the brown fox jumped", "answer": "[No]",
         "explanation": "This task doesn't require any external evidence, as it is a simple grammatical "
                        "question."},
        {"instruction": "Explain the process of cellular respiration in plants.", "answer": "[Yes]",
         "explanation": "This instruction asks for a detailed description of a scientific concept, and is highly "
                        "likely that we can find a reliable and useful document to support the response."},
    ),
)

RETRIEVAL_PRECEDING = TeacherPrompt(
    group="retrieval_preceding",
    task="retrieval",
    critic_group=Group.RETRIEVE,
    fields=("instruction", "preceding", "evidence", "output"),
    answer_field="Rating",
    instruction=(
        "You will be provided with an instruction, evidence, output sentence, and preceding sentences (optional). "
        "If the preceding sentence is given, the output should be the sentence that follows those preceding "
        "sentences. Your task is to determine whether the information in the output sentence can be fully "
        "verified by the evidence or if it requires further external verification. There are three cases:\n"
        "- If the output sentence can be verified solely with the evidence, then respond with [Continue to Use "
        "Evidence].\n"
        "- If the sentence doesn't require any factual verification (e.g., a subjective sentence or a sentence "
        "about common sense), then respond with [No Retrieval].\n"
        "- If additional information is needed to verify the output sentence, respond with [Retrieval]. Please "
        "provide explanations for your judgments."
    ),
    demonstrations=(
        {"instruction": _WORD_EMBEDDINGS, "preceding": _WE_PRECEDING, "evidence": _WE_EVIDENCE_SHORT,
         "output": _WE_OUTPUT, "answer": "[Retrieval]",
         "explanation": "The output discusses the applications of word embeddings, while the evidence only "
                        "discusses the definitions of word embeddings and how they work. Therefore, we need to "
                        "retrieve other evidence to verify whether the output is correct or not."},
    ),
)

RELEVANCE = TeacherPrompt(
    group="relevance",
    task="relevance",
    critic_group=Group.ISREL,
    fields=("instruction", "preceding", "evidence"),
    answer_field="Rating",
    instruction=(
        "You'll be provided with an instruction, along with evidence and possibly some preceding sentences. When "
        "there are preceding sentences, your focus should be on the sentence that comes after them. Your job is "
        "to determine if the evidence is relevant to the initial instruction and the preceding context, and "
        "provides useful information to complete the task described in the instruction. If the evidence meets "
        "this requirement, respond with [Relevant]; otherwise, generate [Irrelevant]."
    ),
    demonstrations=(
        {"instruction": "Given four answer options, A, B, C, and D, choose the best answer.\n\nEarth's rotating "
                        "causes\nA: the cycling of AM and PM\nB: the creation of volcanic eruptions\nC: the "
                        "cycling of the tides\nD: the creation of gravity",
         "evidence": "Rotation causes the day-night cycle which also creates a corresponding cycle of temperature "
                     "and humidity creates a corresponding cycle of temperature and humidity. Sea level rises and "
                     "falls twice a day as the earth rotates.",
         "answer": "[Relevant]",
         "explanation": "The evidence explicitly mentions that the rotation causes a day-night cycle, as "
                        "described in the answer option A."},
        {"instruction": "age to run for US House of Representatives",
         "evidence": "The Constitution sets three qualifications for service in the U.S. Senate: age (at least "
                     "thirty years of age); U.S. citizenship (at least nine years); and residency in the state a "
                     "senator represents at the time of election.",
         "answer": "[Irrelevant]",
         "explanation": "The evidence only discusses the ages to run for the US Senate, not for the House of "
                        "Representatives."},
    ),
)

GROUNDEDNESS = TeacherPrompt(
    group="groundedness",
    task="groundedness",
    critic_group=Group.ISSUP,
    fields=("instruction", "preceding", "output", "evidence"),
    answer_field="Score",
    instruction=(
        "You will receive an instruction, evidence, and output, and optional preceding sentences. If the "
        "preceding sentence is given, the output should be the sentence that follows those preceding sentences. "
        "Your task is to evaluate if the output is fully supported by the information provided in the evidence.\n"
        "Use the following entailment scale to generate a score:\n"
        "- [Fully supported] - All information in output is supported by the evidence, or extractions from the "
        "evidence. This is only applicable when the output and part of the evidence are almost identical.\n"
        "- [Partially supported] - The output is supported by the evidence to some extent, but there is major "
        "information in the output that is not discussed in the evidence. For example, if an instruction asks "
        "about two concepts and the evidence only discusses either of them, it should be considered a [Partially "
        "supported].\n"
        "- [No support / Contradictory] - The output completely ignores evidence, is unrelated to the evidence, "
        "or contradicts the evidence. This can also happen if the evidence is irrelevant to the instruction.\n"
        "Make sure to not use any external information/knowledge to judge whether the output is true or not. "
        "Only check whether the output is supported by the evidence, and not whether the output follows the "
        "instructions or not."
    ),
    demonstrations=(
        {"instruction": _WORD_EMBEDDINGS, "preceding": _WE_PRECEDING, "output": _WE_OUTPUT,
         "evidence": _WE_EVIDENCE_LONG, "answer": "[Fully supported]",
         "explanation": "The output sentence discusses the application of word embeddings, and the evidence "
                        "mentions all of the applications syntactic parsing, sentiment analysis, next token "
                        "predictions as well as analogy detection as the applications. Therefore, the score "
                        "should be [Fully supported]."},
    ),
)

UTILITY = TeacherPrompt(
    group="utility",
    task="utility",
    critic_group=Group.ISUSE,
    fields=("instruction", "output"),
    answer_field="Perceived utility",
    instruction=(
        "Given an instruction and an output, rate whether the response appears to be a helpful and informative "
        "answer to the query, from 1 (lowest) - 5 (highest). We call this score perceived utility. The detailed "
        "criterion is as follows: 5: The response provides a complete, highly detailed, and informative response "
        "to the query, fully satisfying the information needs. 4: The response mostly fulfills the need in the "
        "query, while there can be some minor improvements such as discussing more detailed information, having "
        "better structure of the response, or improving coherence. 3: The response is acceptable, but some major "
        "additions or improvements are needed to satisfy users' needs. 2: The response still addresses the main "
        "request, but it is not complete or not relevant to the query. 1: The response is barely on-topic or "
        "completely irrelevant."
    ),
    demonstrations=(
        {"instruction": "Who is the current prime minister of the UK as of 2023?",
         "output": "Boris Johnson was the prime minister of the UK from 2019 - 2022.", "answer": "2",
         "explanation": "While the output provides a factually correct statement about the UK prime minister "
                        "from 2019 to 2022, this instruction asks who the prime minister is as of 2023, so it "
                        "doesn't answer the instruction. Therefore, the utility is 2."},
        {"instruction": "Given a description of a travel destination, recommend 10 tourist attractions with "
                        "detailed descriptions of each. The travel destination is Tokyo, Japan.",
         "output": "Tokyo is a vibrant city full of exciting tourist attractions. Some must-see sights include the "
                   "Tokyo Skytree, Tokyo Disneyland, Sensoji Temple, Meiji Shrine, Tsukiji Fish Market, Harajuku, "
                   "and Shinjuku Gyoen.", "answer": "3",
         "explanation": "This output doesn't provide descriptions of each attraction and the number of the "
                        "attractions is also less than 10. While this output partially answers the instructions, "
                        "it doesn't match the instructions strictly."},
    ),
)

TEACHER_PROMPTS: dict[str, TeacherPrompt] = {
    p.group: p for p in (RETRIEVAL, RETRIEVAL_PRECEDING, RELEVANCE, GROUNDEDNESS, UTILITY)
}
"""Collection group -> how the teacher is asked about it."""
