"""LLM backends that report the token probabilities Self-RAG's formulas need.

Each backend's own library (vLLM, openai, llama-cpp-python) is imported only when the backend is used.
"""

from selfrag_langchain.llms.backend import ReflectiveBackend
from selfrag_langchain.llms.base import ContinuationRequest, GenerationStats, GroupReading, ReflectiveLLM
from selfrag_langchain.llms.factory import BACKENDS, build_llm
from selfrag_langchain.llms.llamacpp import LlamaCppLLM
from selfrag_langchain.llms.openai import OpenAICompatibleLLM
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.llms.vllm import VllmLLM

__all__ = [
    "BACKENDS",
    "ContinuationRequest",
    "GenerationStats",
    "GroupReading",
    "LlamaCppLLM",
    "OpenAICompatibleLLM",
    "ReflectiveBackend",
    "ReflectiveLLM",
    "TransformersLLM",
    "VllmLLM",
    "build_llm",
]
