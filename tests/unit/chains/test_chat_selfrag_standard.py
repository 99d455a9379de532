"""langchain-tests' standard unit suite for ChatSelfRAG, on a scripted long-form pipeline.

What Self-RAG does not do is declared through the suite's properties, not skipped by hand: no tool calling
and no structured output (``bind_tools`` and ``with_structured_output`` raise NotImplementedError saying what
to do instead), no image input. Two tests the suite itself skips by design: ``test_serdes`` (the model holds
live generator, judge and retriever objects, so it is not ``lc_serializable``) and ``test_init_from_env``
(ChatSelfRAG reads no environment variables, so there are no ``init_from_env_params`` to give).
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_tests.unit_tests import ChatModelUnitTests

from selfrag_langchain import ChatSelfRAG, InlineReflector, SelfRAGLongForm
from tests.fakes.scripted_long_form import FULL, REL, RecordingRetriever, ScriptedLongFormLLM, doc, judged


def scripted_rag() -> SelfRAGLongForm:
    """Answers anything with two cited sentences."""
    llm = ScriptedLongFormLLM(script={(0, "Greeting"): judged("Hello to you.", REL, FULL),
                                      (1, "Greeting"): judged("How can I help?", REL, FULL)})
    return SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm),
                           retriever=RecordingRetriever(default=[doc("Greeting")]), k=1, beam_width=1, max_depth=2)


class TestChatSelfRAGUnit(ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ChatSelfRAG

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"rag": scripted_rag()}

    @property
    def has_tool_calling(self) -> bool:
        return False  # bind_tools is overridden only to say so

    @property
    def has_tool_choice(self) -> bool:
        return False

    @property
    def has_structured_output(self) -> bool:
        return False  # with_structured_output is overridden only to say so

    @property
    def supports_image_inputs(self) -> bool:
        return False

    @property
    def returns_usage_metadata(self) -> bool:
        return False  # an answer is many generator and judge calls; one token count would mislead

    @property
    def supports_model_override(self) -> bool:
        return False  # the generator is an object in the pipeline, not a name a call could switch
