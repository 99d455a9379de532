"""Training of Self-RAG critics and generators (installed as ``selfrag_langchain.trainer``)."""
