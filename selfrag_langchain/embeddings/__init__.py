"""Sentence embeddings: all-MiniLM-L6-v2 as LangChain ``Embeddings`` (:mod:`.minilm`), and its int8 ONNX
runtime for the CPU (:mod:`.onnx`)."""

from selfrag_langchain.embeddings.minilm import EmbeddingRuntime, MiniLMEmbeddings, default_model_path

__all__ = ["EmbeddingRuntime", "MiniLMEmbeddings", "default_model_path"]
