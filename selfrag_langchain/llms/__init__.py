"""LLM backends that report the token probabilities Self-RAG's formulas need."""

from selfrag_langchain.llms.base import ContinuationRequest, GenerationStats, GroupReading, ReflectiveLLM
from selfrag_langchain.llms.transformers import TransformersLLM

__all__ = ["ContinuationRequest", "GenerationStats", "GroupReading", "ReflectiveLLM", "TransformersLLM"]
