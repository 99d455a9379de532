"""The Runnables users compose: short-form and long-form Self-RAG, and the chat with citations."""

from selfrag_langchain.chains.chat import ChatAnswer, SelfRAGChat
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.chains.short_form import SelfRAG

__all__ = ["ChatAnswer", "SelfRAG", "SelfRAGChat", "SelfRAGLongForm"]
