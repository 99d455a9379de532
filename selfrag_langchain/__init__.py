"""Self-RAG as LangChain components: retrieve on demand, critique the evidence, cite it."""

from selfrag_langchain.chains.chat import ChatAnswer, SelfRAGChat
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.llms.factory import build_llm
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.long_form_results import CitedSegment, LongFormResult
from selfrag_langchain.reflection import CriticReflector, InlineReflector, Reflector
from selfrag_langchain.results import SelfRAGResult

__all__ = [
    "CalibratedReflector",
    "ChatAnswer",
    "CitedSegment",
    "CriticReflector",
    "InlineReflector",
    "LongFormResult",
    "Reflector",
    "SelfRAG",
    "SelfRAGChat",
    "SelfRAGLongForm",
    "SelfRAGResult",
    "TransformersLLM",
    "build_llm",
]
