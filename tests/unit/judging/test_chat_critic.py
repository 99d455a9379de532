"""ChatCriticReflector on a scripted chat model: label distributions from the first token's top
log-probabilities, labels outside the top-k reported missing, a clear error without log-probabilities, one
batch for K branches, and async through abatch."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from selfrag_langchain import ChatCriticReflector
from selfrag_langchain.errors import BackendError, ConfigurationError, ModelLoadError
from selfrag_langchain.judging import Branch, CriticQuery
from selfrag_langchain.judging.chat_critic import first_token_logprobs, label_first_tokens, label_reading
from selfrag_langchain.tokens import (
    FULLY_SUPPORTED,
    IRRELEVANT,
    NO_RETRIEVAL,
    NO_SUPPORT,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    RETRIEVAL,
    UTILITY,
    Group,
    parse_generation,
)

Top = list[tuple[str, float]]
QUESTION = "Who wrote Hamlet?"
HAMLET = "Hamlet is a tragedy by William Shakespeare."
ISREL_QUESTION = "Is the evidence relevant"

RETRIEVE_TOP: Top = [("No", math.log(0.5)), (" No", math.log(0.1)), ("Yes", math.log(0.2)), ("Y", math.log(0.05)),
                     ("The", math.log(0.1))]
ISREL_TOP: Top = [("Yes", math.log(0.6)), ("No", math.log(0.2)), ("[", math.log(0.1))]
ISSUP_TOP: Top = [("F", math.log(0.3)), ("Part", math.log(0.1)), ("No", math.log(0.2)), ("The", math.log(0.3))]
ISUSE_TOP: Top = [("4", math.log(0.4)), ("5", math.log(0.3)), ("3", math.log(0.1)), ("2", math.log(0.05)),
                  ("1", math.log(0.05))]


def by_question(prompt: str) -> Top:
    """Each zero-shot group's answer, told apart by the question the prompt ends with."""
    if "encyclopedia" in prompt:
        return RETRIEVE_TOP
    if ISREL_QUESTION in prompt:
        return ISREL_TOP
    if "supported" in prompt:
        return ISSUP_TOP
    return ISUSE_TOP


def openai_metadata(top: Top) -> dict[str, Any]:
    """``response_metadata["logprobs"]`` as ChatOpenAI reports it."""
    entries = [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in top]
    return {"logprobs": {"content": [{**entries[0], "top_logprobs": entries}], "refusal": None}}


class ScriptedChat(BaseChatModel):
    """Answers each prompt with the first token of ``answer(prompt)`` and its top log-probabilities in the
    OpenAI format; records the bound kwargs and every batch call."""

    answer: Callable[[str], Top] = by_question
    metadata_of: Callable[[Top], dict[str, Any]] = openai_metadata
    kwargs_seen: list[dict[str, Any]] = Field(default_factory=list)
    batches: list[tuple[str, int, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.kwargs_seen.append(kwargs)
        top = self.answer(str(messages[-1].content))
        message = AIMessage(content=top[0][0], response_metadata=self.metadata_of(top))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def batch(self, inputs: Sequence[Any], config: Any = None, **kwargs: Any) -> list[Any]:
        self.batches.append(("batch", len(inputs), config))
        return super().batch(inputs, config, **kwargs)

    async def abatch(self, inputs: Sequence[Any], config: Any = None, **kwargs: Any) -> list[Any]:
        self.batches.append(("abatch", len(inputs), config))
        return await super().abatch(inputs, config, **kwargs)


def branch(evidence: str | None, answer: str = "Shakespeare wrote it.") -> Branch:
    passage = Document(evidence) if evidence is not None else None
    return Branch(passage=passage, evidence=evidence, raw=answer, answer=answer, parsed=parse_generation(answer))


def test_retrieve_reads_the_first_token_summing_spacing_variants() -> None:
    chat = ScriptedChat()
    dist = ChatCriticReflector(chat).retrieve_distribution(QUESTION)
    # "No" and " No" both start the answer No; "Y" is not read once "Yes" is there.
    assert dist == pytest.approx({RETRIEVAL: 0.2 / 0.8, NO_RETRIEVAL: 0.6 / 0.8, "[Continue to Use Evidence]": 0.0})
    assert chat.kwargs_seen[0] == {"logprobs": True, "top_logprobs": 20, "max_tokens": 1}


def test_critique_gives_each_group_its_distribution() -> None:
    (critique,) = ChatCriticReflector(ScriptedChat()).critique(QUESTION, [branch(HAMLET)])
    assert critique.relevance == pytest.approx({RELEVANT: 0.75, IRRELEVANT: 0.25})
    # "Fully" is F+ul+ly and "Partially" Part+ially for SmolLM2: each read from its first piece.
    assert critique.support == pytest.approx({FULLY_SUPPORTED: 0.5, PARTIALLY_SUPPORTED: 1 / 6, NO_SUPPORT: 1 / 3})
    assert critique.utility == pytest.approx(dict(zip(UTILITY, (1 / 18, 1 / 18, 1 / 9, 4 / 9, 1 / 3), strict=True)))
    assert critique.notes == []


def test_a_branch_without_passage_is_judged_for_utility_only() -> None:
    chat = ScriptedChat()
    (critique,) = ChatCriticReflector(chat).critique(QUESTION, [branch(None)])
    assert critique.relevance is None and critique.support is None and critique.utility is not None
    assert chat.batches[0][1] == 1


def test_a_label_outside_the_top_k_is_missing_with_a_note() -> None:
    def answer(prompt: str) -> Top:
        return [("Yes", math.log(0.7)), ("The", math.log(0.2))] if ISREL_QUESTION in prompt else by_question(prompt)

    critic = ChatCriticReflector(ScriptedChat(answer=answer))
    (critique,) = critic.critique(QUESTION, [branch(HAMLET)])
    assert critique.relevance == {RELEVANT: 1.0, IRRELEVANT: 0.0}
    assert critique.notes == [f"IsRel: {IRRELEVANT} outside the backend's top-k, taken as 0"]
    (reading,) = critic.readings([CriticQuery(Group.ISREL, QUESTION, evidence=HAMLET)])
    assert (reading.exact, reading.missing, reading.token) == (False, (IRRELEVANT,), "Yes")
    assert reading.mass == pytest.approx(0.7)


def test_no_label_in_the_top_k_reads_uniform_and_says_so() -> None:
    critic = ChatCriticReflector(ScriptedChat(answer=lambda _: [("The", -0.1), ("I", -2.0)]))
    (critique,) = critic.critique(QUESTION, [branch(None)])
    assert critique.utility == pytest.approx(dict.fromkeys(UTILITY, 0.2))
    assert critique.notes == [f"IsUse: {', '.join(UTILITY)} outside the backend's top-k, taken as 0"]


@pytest.mark.parametrize("metadata", [
    {},
    {"logprobs": None},
    {"logprobs": {"content": []}},
    {"logprobs": {"content": [{"token": "No", "logprob": -0.1, "top_logprobs": []}]}},
])
def test_a_response_without_top_logprobs_is_a_clear_error(metadata: dict[str, Any]) -> None:
    critic = ChatCriticReflector(ScriptedChat(metadata_of=lambda _: metadata))
    with pytest.raises(BackendError, match=r"no top log-probabilities.*--logits_all True.*--max-logprobs"):
        critic.retrieve_distribution(QUESTION)


def test_k_branches_go_out_in_one_batch() -> None:
    chat = ScriptedChat()
    critic = ChatCriticReflector(chat, max_concurrency=3)
    critiques = critic.critique(QUESTION, [branch(HAMLET), branch("Paris is in France."), branch(None)])
    assert [(kind, n) for kind, n, _ in chat.batches] == [("batch", 7)]
    configs = chat.batches[0][2]  # the binding hands one config per input
    assert {c["max_concurrency"] for c in configs} == {3}
    assert [c.support is not None for c in critiques] == [True, True, False]
    critic.relevance_distributions(QUESTION, [HAMLET, "Paris is in France."])
    assert chat.batches[-1][:2] == ("batch", 2)


async def test_async_goes_through_abatch_and_agrees_with_sync() -> None:
    chat = ScriptedChat()
    critic = ChatCriticReflector(chat)
    branches = [branch(HAMLET), branch(None)]
    assert await critic.acritique(QUESTION, branches) == critic.critique(QUESTION, branches)
    assert await critic.aretrieve_distribution(QUESTION) == critic.retrieve_distribution(QUESTION)
    assert await critic.arelevance_distributions(QUESTION, [HAMLET]) == critic.relevance_distributions(
        QUESTION, [HAMLET])
    assert [kind for kind, _, _ in chat.batches] == ["abatch", "batch", "abatch", "batch", "abatch", "batch"]
    assert chat.batches[0][1] == 4


def test_preceding_sentences_reach_the_prompt_without_reflection_tokens() -> None:
    seen: list[str] = []

    def answer(prompt: str) -> Top:
        seen.append(prompt)
        return by_question(prompt)

    ChatCriticReflector(ScriptedChat(answer=answer)).retrieve_distribution(
        QUESTION, preceding="[No Retrieval]Hamlet is a play.[Utility:5]")
    assert "Preceding sentences: Hamlet is a play." in seen[0]


def test_bind_kwargs_merge_over_the_defaults_and_none_drops_a_key() -> None:
    chat = ScriptedChat()
    critic = ChatCriticReflector(chat, top_logprobs=5,
                                 bind_kwargs={"max_tokens": None, "extra_body": {"max_tokens": 1}})
    critic.retrieve_distribution(QUESTION)
    assert chat.kwargs_seen[0] == {"logprobs": True, "top_logprobs": 5, "extra_body": {"max_tokens": 1}}


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"top_logprobs": 0}, ConfigurationError, "top_logprobs must be >= 1, got 0"),
    ({"max_concurrency": 0}, ConfigurationError, "max_concurrency must be >= 1 or None, got 0"),
    ({"prompts": "gpt"}, ModelLoadError, "unknown critic prompts 'gpt'"),
])
def test_settings_out_of_range_are_refused(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        ChatCriticReflector(ScriptedChat(), **kwargs)


@pytest.mark.parametrize(("labels", "top", "expected"), [
    (["Yes", "No"], ["Y", "Yes", " No"], {"Yes": "Yes", "No": "No"}),
    (["Yes", "No"], ["yes", "no"], {"Yes": None, "No": None}),  # case as the label is written
    (["Fully", "Partially", "No"], ["F", "Ful", "P", "N"], {"Fully": "Ful", "Partially": "P", "No": "N"}),
    (["[Relevant]", "[Irrelevant]"], ["[", " ["], {"[Relevant]": None, "[Irrelevant]": None}),  # tells none apart
    (["[Relevant]", "[Irrelevant]"], ["[Relevant]", "[Irrelevant]"],
     {"[Relevant]": "[Relevant]", "[Irrelevant]": "[Irrelevant]"}),  # a critic with the tokens
    (["1", "2"], ["1\n", "\n", "12"], {"1": "1", "2": None}),
])
def test_label_first_tokens(labels: list[str], top: list[str], expected: dict[str, str | None]) -> None:
    assert label_first_tokens(labels, [(t, -1.0) for t in top]) == expected


def test_the_paper_labels_read_exactly_from_a_critic_that_has_them_as_tokens() -> None:
    reading = label_reading(Group.ISREL, ((RELEVANT, RELEVANT), (IRRELEVANT, IRRELEVANT)), RELEVANT,
                            [(RELEVANT, math.log(0.6)), (IRRELEVANT, math.log(0.3))])
    assert reading.probs == pytest.approx({RELEVANT: 2 / 3, IRRELEVANT: 1 / 3}) and reading.exact


def test_the_chosen_token_counts_when_the_top_list_lacks_it() -> None:
    message = AIMessage(content="No", response_metadata={"logprobs": {"content": [
        {"token": "No", "logprob": -0.5, "top_logprobs": [{"token": "Yes", "logprob": -1.0}]}]}})
    assert first_token_logprobs(message) == ("No", [("Yes", -1.0), ("No", -0.5)])
