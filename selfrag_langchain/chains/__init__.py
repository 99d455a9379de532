"""The Runnables users compose: short-form and long-form Self-RAG, the chat with citations, and Self-RAG as a
chat model."""

from selfrag_langchain.chains.chat import ChatAnswer, SelfRAGChat, SelfRAGConversation
from selfrag_langchain.chains.chat_model import ChatSelfRAG
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.chains.short_form import SelfRAG

__all__ = ["ChatAnswer", "ChatSelfRAG", "SelfRAG", "SelfRAGChat", "SelfRAGConversation", "SelfRAGLongForm"]
