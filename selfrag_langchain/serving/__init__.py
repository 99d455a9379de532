"""``selfrag serve``: Self-RAG behind an OpenAI-compatible HTTP API (FastAPI)."""

from selfrag_langchain.serving.app import create_app

__all__ = ["create_app"]
