"""The Runnables users compose: short-form Self-RAG."""

from selfrag_langchain.chains.short_form import SelfRAG

__all__ = ["SelfRAG"]
