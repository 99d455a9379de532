"""Prompt formats: the Self-RAG generator format, task instructions, and critic prompts.

The generator format and reflection strings are those of the released checkpoints. The critic
prompts come in two sets behind one type: ``paper`` (the instructions of the released critic training
data, labels as the exact token strings, for trained critics) and ``zero_shot`` (plain words an instruct
model answers readily, laid out so that one read of the question and passage serves every group).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.text.boundary import DEFAULT_BOUNDARY, Boundary
from selfrag_langchain.tokens import (
    FULLY_SUPPORTED,
    IRRELEVANT,
    NO_RETRIEVAL,
    NO_SUPPORT,
    PARAGRAPH_END,
    PARAGRAPH_START,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    RETRIEVAL,
    UTILITY,
    Group,
)

TASK_INSTRUCTIONS: dict[str, str] = {
    "pubhealth": (
        "Is the following statement correct or not? Say true if it's correct; otherwise say false."
    ),
    "arc_c": "Given four answer candidates, A, B, C and D, choose the best answer choice.",
    "asqa": (
        "Answer the following question. The question may be ambiguous and have multiple correct "
        "answers, and in that case, you have to provide a long-form answer including all correct answers."
    ),
}
"""Zero-shot task instructions of the paper's evaluation (PopQA and TriviaQA use the bare question)."""


def format_choices(choices: Mapping[str, str]) -> str:
    """Answer choices as the paper lays them out: ``\\nA: ...\\nB: ...``."""
    return "".join(f"\n{label}: {text}" for label, text in choices.items())


def build_instruction(question: str, instruction: str | None = None, choices: Mapping[str, str] | None = None) -> str:
    """The instruction text: task instruction and question joined as ``{instruction}\\n\\n## Input:\\n\\n{q}``."""
    body = question + (format_choices(choices) if choices else "")
    return f"{instruction}\n\n## Input:\n\n{body}" if instruction else body


def generator_prompt(instruction: str) -> str:
    """The released generator's prompt: ``### Instruction:\\n{instruction}\\n\\n### Response:\\n``."""
    return f"### Instruction:\n{instruction}\n\n### Response:\n"


def format_passage(title: str | None, text: str, boundary: Boundary = DEFAULT_BOUNDARY) -> str:
    """Passage body ``{title}\\n{text}``, neutralised at ``boundary`` so a document cannot carry reflection
    strings or the model's control tokens into a prompt."""
    body = f"{title}\n{text}" if title else text
    return boundary.clean(body)


def passage_body(evidence: str, title: str | None) -> str:
    """What :func:`format_passage` made of a passage with ``title``, without the title line: its text."""
    return evidence.split("\n", 1)[1] if title and "\n" in evidence else evidence


def selfrag_branch_prompt(instruction: str, passage: str | None) -> str:
    """A branch of the fine-tuned generator: retrieval with one passage, or no retrieval."""
    base = generator_prompt(instruction)
    if passage is None:
        return base + NO_RETRIEVAL
    return f"{base}{RETRIEVAL}{PARAGRAPH_START}{passage}{PARAGRAPH_END}"


FROM_THE_PASSAGE = "Read the passage and answer the question with its words."
"""What a plain prompt tells an instruct model before the passage (:func:`rag_prompt`, and long form's
``rag_step_prompt``)."""


def rag_prompt(instruction: str, passage: str | None) -> str:
    """A plain prompt for any instruct model: answer in a sentence, from the passage if one is given.

    With a passage, the model is told first to answer with the passage's words: a small instruct model
    told only to "use" the passage mixes it with what it believes (PopQA dev, SmolLM2-135M: the top-1
    passage's answer matched 48% of the time with that wording, 56% with this one; some branch of five
    passages 62% against 76%). Answers in the passage's words are also what
    the judges' support signals can check.
    """
    if passage is None:
        return f"Question: {instruction}\nAnswer the question in one short sentence."
    return (
        f"{FROM_THE_PASSAGE}\n\nPassage: {passage}\n\nQuestion: {instruction}\nAnswer in one short sentence."
    )


@dataclass(frozen=True)
class CriticQuestion:
    """One group's question to a critic: an instruction and the label text for each group token."""

    group: Group
    instruction: str
    labels: Mapping[str, str]
    """Group token -> the text the critic is expected to answer for it."""


@dataclass(frozen=True)
class CriticPromptSet:
    """How a critic is asked about each group. ``context_first`` puts the evidence before the question,
    so the prompts of all groups about one passage share a prefix that is read once."""

    name: str
    questions: Mapping[Group, CriticQuestion]
    context_first: bool

    def prompt(
        self,
        group: Group,
        instruction: str,
        *,
        evidence: str | None = None,
        output: str | None = None,
        preceding: str | None = None,
    ) -> str:
        """The critic prompt for ``group`` (completion text, before the label)."""
        q = self.questions[group]
        if not self.context_first:
            fields = critic_input(instruction, evidence=evidence, output=output, preceding=preceding)
            return paper_critic_prompt(q.instruction, fields)
        lines = [f"Task instruction: {instruction}"]
        if preceding:
            lines.append(f"Preceding sentences: {preceding}")
        if evidence is not None:
            lines.append(f"Evidence: {evidence}")
        if output is not None:
            lines.append(f"Output: {output}")
        return "\n".join(lines) + f"\n\n{q.instruction}"

    def labels(self, group: Group) -> tuple[tuple[str, str], ...]:
        """(token, label text) pairs for ``group``, in group order."""
        return tuple(self.questions[group].labels.items())


def critic_input(
    instruction: str, *, evidence: str | None = None, output: str | None = None, preceding: str | None = None
) -> str:
    """The input fields as the released critic's training data writes them (its ``input`` field):
    ``Task instruction: …``, then preceding sentences, output and evidence when given, one a line."""
    lines = [f"Task instruction: {instruction}"]
    if preceding:
        lines.append(f"Preceding sentences: {preceding}")
    if output is not None:
        lines.append(f"Output: {output}")
    if evidence is not None:
        lines.append(f"Evidence: {evidence}")
    return "\n".join(lines)


def paper_critic_prompt(instruction: str, input_text: str) -> str:
    """The released critic's prompt layout around a group instruction and :func:`critic_input` text; a
    trained critic is trained on exactly this text, so it reads the same prompts at inference."""
    return f"### Instruction:\n{instruction}\n\n### Input:\n{input_text}\n\n### Response:\n"


_PAPER_INSTRUCTIONS = {
    Group.RETRIEVE: (
        "When provided with instruction, please evaluate whether seeking additional information from "
        "external sources such as the web (e.g., Wikipedia) aids in producing a more comprehensive "
        "response. Respond with either [Retrieval] or [No Retrieval]."
    ),
    Group.ISREL: (
        "When given instruction and evidence, evaluate whether the evidence is relevant to the "
        "instruction and provides valuable information for generating meaningful responses.\n"
        "Use a rating of [Relevant] to indicate relevance and usefulness, and [Irrelevant] to indicate "
        "irrelevance."
    ),
    Group.ISSUP: (
        "You will receive an instruction, evidence, and output, and optional preceding sentences. Your "
        "task is to evaluate if the output is fully supported by the information provided in the evidence.\n"
        "[Fully supported] - All information in output is supported by the evidence.\n"
        "[Partially supported] - The output is supported by the evidence to some extent, but there is "
        "major information not discussed in the evidence.\n"
        "[No support / Contradictory] - The output completely ignores evidence, is unrelated to the "
        "evidence, or contradicts the evidence."
    ),
    Group.ISUSE: (
        "Given an instruction and an output, rate whether the response appears to be a helpful and "
        "informative answer to the query, from 1 (lowest) - 5 (highest). We call this score perceived "
        "utility.\n"
        "[Utility:5]: The response provides a complete, highly detailed, and informative response to the "
        "query, fully satisfying the information needs.\n"
        "[Utility:4]: The response mostly fulfills the need in the query.\n"
        "[Utility:3]: The response is acceptable, but some major additions or improvements are needed.\n"
        "[Utility:2]: The response still addresses the main request, but it is not complete.\n"
        "[Utility:1]: The response is barely on-topic or completely irrelevant."
    ),
}

_PAPER_LABELS: dict[Group, tuple[str, ...]] = {
    Group.RETRIEVE: (RETRIEVAL, NO_RETRIEVAL),
    Group.ISREL: (RELEVANT, IRRELEVANT),
    Group.ISSUP: (FULLY_SUPPORTED, PARTIALLY_SUPPORTED, NO_SUPPORT),
    Group.ISUSE: UTILITY,
}

PAPER_CRITIC = CriticPromptSet(
    name="paper",
    questions={
        g: CriticQuestion(g, _PAPER_INSTRUCTIONS[g], {tok: tok for tok in _PAPER_LABELS[g]}) for g in Group
    },
    context_first=False,
)
"""The released critic's instructions and labels (``selfrag/self_rag_critic``, ``selfrag train critic``)."""

ZERO_SHOT_CRITIC = CriticPromptSet(
    name="zero_shot",
    questions={
        Group.RETRIEVE: CriticQuestion(
            Group.RETRIEVE,
            "Would looking up facts in an encyclopedia help to answer the task instruction well? "
            "Answer Yes or No.",
            {RETRIEVAL: "Yes", NO_RETRIEVAL: "No"},
        ),
        Group.ISREL: CriticQuestion(
            Group.ISREL,
            "Is the evidence relevant to the task instruction, giving information that helps to answer "
            "it? Answer Yes or No.",
            {RELEVANT: "Yes", IRRELEVANT: "No"},
        ),
        Group.ISSUP: CriticQuestion(
            Group.ISSUP,
            "Is the output supported by the evidence? Answer Fully if the evidence states all of it, "
            "Partially if it states some of it, or No if it does not support it or contradicts it.",
            {FULLY_SUPPORTED: "Fully", PARTIALLY_SUPPORTED: "Partially", NO_SUPPORT: "No"},
        ),
        Group.ISUSE: CriticQuestion(
            Group.ISUSE,
            "How helpful and informative is the output as an answer to the task instruction, from 1 "
            "(irrelevant) to 5 (complete and fully satisfying)? Answer with one number.",
            {tok: str(i) for i, tok in enumerate(UTILITY, start=1)},
        ),
    },
    context_first=True,
)
"""Plain-word questions for any instruct model used as a zero-shot critic."""

CRITIC_PROMPT_SETS: dict[str, CriticPromptSet] = {s.name: s for s in (PAPER_CRITIC, ZERO_SHOT_CRITIC)}


def critic_prompt_set(prompts: str | CriticPromptSet) -> CriticPromptSet:
    """A critic prompt set given by name (``"paper"``, ``"zero_shot"``) or as itself.

    Raises:
        ModelLoadError: for an unknown name.
    """
    if not isinstance(prompts, str):
        return prompts
    if prompts not in CRITIC_PROMPT_SETS:
        msg = f"unknown critic prompts '{prompts}': choose one of {sorted(CRITIC_PROMPT_SETS)}"
        raise ModelLoadError(msg)
    return CRITIC_PROMPT_SETS[prompts]

