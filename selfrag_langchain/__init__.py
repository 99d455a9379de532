"""Self-RAG as LangChain components: retrieve on demand, critique the evidence, cite it."""

from selfrag_langchain.chains.chat import ChatAnswer, SelfRAGChat, SelfRAGConversation
from selfrag_langchain.chains.chat_model import ChatSelfRAG
from selfrag_langchain.chains.inputs import Question
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.judging import (
    CalibratedReflector,
    ChatCriticReflector,
    CriticReflector,
    EntailmentReflector,
    InlineReflector,
    LearnedReflector,
    Reflector,
)
from selfrag_langchain.llms.factory import build_llm
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.pipeline import PipelineSettings, build_long_form, build_selfrag
from selfrag_langchain.results import CitedSegment, LongFormResult, SelfRAGResult
from selfrag_langchain.retrievers import SelfRAGRetriever

__all__ = [
    "CalibratedReflector",
    "ChatAnswer",
    "ChatCriticReflector",
    "ChatSelfRAG",
    "CitedSegment",
    "CriticReflector",
    "EntailmentReflector",
    "InlineReflector",
    "LearnedReflector",
    "LongFormResult",
    "PipelineSettings",
    "Question",
    "Reflector",
    "SelfRAG",
    "SelfRAGChat",
    "SelfRAGConversation",
    "SelfRAGLongForm",
    "SelfRAGResult",
    "SelfRAGRetriever",
    "TransformersLLM",
    "build_llm",
    "build_long_form",
    "build_selfrag",
]
