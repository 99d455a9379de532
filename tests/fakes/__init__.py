"""Stand-ins the tests share: scripted and fake models, embeddings, judges, tokenizers and servers, and the
scenarios (questions, passages, scripts) several test modules build on."""
