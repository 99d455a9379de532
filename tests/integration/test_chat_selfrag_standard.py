"""langchain-tests' standard integration suite for ChatSelfRAG on real models: SmolLM2-135M writes, the
calibrated judge (MiniLM) judges, an in-memory store of three passages is retrieved from.

The pipeline is built once per class and kept small (one passage, one beam, two short segments) so the
suite stays quick. What Self-RAG does not do is declared through the suite's properties, so the suite skips
those tests itself with its own reason: tool calling, tool choice, structured output, JSON mode, image,
audio, PDF and Anthropic-style inputs (not supported), usage metadata (an answer is many generator and judge
calls; one token count would mislead), model override (the generator is an object in the pipeline, not a
name a call could switch), and the VCR timing test (no HTTP to record).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_tests.integration_tests import ChatModelIntegrationTests

from selfrag_langchain import CalibratedReflector, ChatSelfRAG, SelfRAGLongForm, TransformersLLM

pytestmark = pytest.mark.slow

PASSAGES = [
    Document("Hello is a salutation or greeting in the English language.", metadata={"title": "Hello"}),
    Document("The Mona Lisa is a portrait by Leonardo da Vinci, on display at the Louvre in Paris.",
             metadata={"title": "Mona Lisa", "source": "https://en.wikipedia.org/wiki/Mona_Lisa"}),
    Document("Mount Everest is Earth's highest mountain above sea level.", metadata={"title": "Mount Everest"}),
]


class TestChatSelfRAGIntegration(ChatModelIntegrationTests):
    rag: SelfRAGLongForm

    @pytest.fixture(scope="class", autouse=True)
    def _pipeline(self, request: pytest.FixtureRequest, smollm2: TransformersLLM, minilm: Embeddings) -> None:
        """One small long-form pipeline on the session's loaded models, shared by the class's tests."""
        store = InMemoryVectorStore.from_documents(PASSAGES, minilm)
        request.cls.rag = SelfRAGLongForm(generator=smollm2, reflector=CalibratedReflector(embeddings=minilm),
                                          retriever=store.as_retriever(search_kwargs={"k": 1}), k=1, beam_width=1,
                                          max_depth=2, max_segment_tokens=24, max_new_tokens=48)

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ChatSelfRAG

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"rag": self.rag, "condense_max_tokens": 24}

    @property
    def has_tool_calling(self) -> bool:
        return False

    @property
    def has_tool_choice(self) -> bool:
        return False

    @property
    def has_structured_output(self) -> bool:
        return False

    @property
    def supports_json_mode(self) -> bool:
        return False

    @property
    def supports_image_inputs(self) -> bool:
        return False

    @property
    def returns_usage_metadata(self) -> bool:
        return False

    @property
    def supports_model_override(self) -> bool:
        return False
