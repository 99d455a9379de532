"""Self-RAG as LangChain components: retrieve on demand, critique the evidence, cite it."""

from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.reflection import CriticReflector, InlineReflector, Reflector
from selfrag_langchain.results import SelfRAGResult

__all__ = ["CriticReflector", "InlineReflector", "Reflector", "SelfRAG", "SelfRAGResult", "TransformersLLM"]
