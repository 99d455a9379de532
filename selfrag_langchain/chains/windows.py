"""Passages cut to the sentences that answer: each retrieved passage's run of sentences nearest the query.

A small generator told to answer with the passage's words copies the passage's first sentence, whatever was
asked; given the title and the two sentences nearest the question, it copies those, so an answer stated in
a later sentence is within its reach. One embedding call per question covers every run of every passage.
With ``keep_whole`` the whole passages stay beside their windows, so what a passage's lead answers (an
occupation, a genre) is not lost where the window looks elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, ConfigDict, Field

from selfrag_langchain.text.sentences import split_sentences


class PassageWindow(BaseModel):
    """Narrows passages to their ``sentences`` consecutive sentences nearest a query (by embedding).

    The window keeps the passage's metadata (its title among them, which the prompt shows first) and its
    id, and records where it starts in ``metadata["window"]`` (the index of its first sentence). A passage
    of no more sentences than the window is kept whole.

    Example:
        .. code-block:: python

            from langchain_core.documents import Document
            from selfrag_langchain.chains.windows import PassageWindow
            from selfrag_langchain.embeddings import MiniLMEmbeddings

            window = PassageWindow(embeddings=MiniLMEmbeddings())
            doc = Document("Mount Everest is Earth's highest mountain. It lies in the Himalayas. "
                           "Its summit is 8,849 m high.", metadata={"title": "Mount Everest"})
            window.narrow("How high is Mount Everest?", [doc])[0].page_content
            # 'It lies in the Himalayas. Its summit is 8,849 m high.'
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    embeddings: Embeddings
    """Embeds the query and the runs of sentences (the retriever's model is a good choice)."""
    sentences: int = Field(default=2, ge=1)
    """Consecutive sentences kept per passage."""
    lead: bool = False
    """Keep the passage's first sentence too (it names and defines the subject), the run being chosen among
    the sentences after it."""
    keep_whole: bool = False
    """:meth:`views` gives the whole passages first and then the windows of those it narrowed: two branches per
    long passage, the judge choosing between them."""

    def starts(self, query: str, docs: Sequence[Document]) -> list[tuple[list[str], int | None]]:
        """Each passage's sentences and the first sentence of its nearest run (None: kept whole)."""
        split = [split_sentences(d.page_content) for d in docs]
        first = 1 if self.lead else 0
        runs: list[tuple[int, int, str]] = []
        for i, parts in enumerate(split):
            if len(parts) > self.sentences + first:
                runs.extend((i, s, " ".join(parts[s:s + self.sentences]))
                            for s in range(first, len(parts) - self.sentences + 1))
        if not runs:
            return [(parts, None) for parts in split]
        q, *vectors = self.embeddings.embed_documents([query, *(text for _, _, text in runs)])
        best: dict[int, tuple[float, int]] = {}
        for (i, start, _), vector in zip(runs, vectors, strict=True):
            similarity = sum(a * b for a, b in zip(q, vector, strict=True))
            if i not in best or similarity > best[i][0]:
                best[i] = (similarity, start)
        return [(parts, best[i][1] if i in best else None) for i, parts in enumerate(split)]

    def narrow(self, query: str, docs: Sequence[Document]) -> list[Document]:
        """The passages cut to their windows, in the order given."""
        return [self._cut(doc, parts, start) for doc, (parts, start) in zip(docs, self.starts(query, docs),
                                                                            strict=True)]

    def views(self, query: str, docs: Sequence[Document]) -> list[Document]:
        """What the generator reads: the windows (:meth:`narrow`), or with :attr:`keep_whole` the whole passages
        in the order given and then the windows of the passages that were cut, in the same order."""
        if not self.keep_whole:
            return self.narrow(query, docs)
        windows = [self._cut(doc, parts, start) for doc, (parts, start) in zip(docs, self.starts(query, docs),
                                                                               strict=True) if start is not None]
        return [*docs, *windows]

    def _cut(self, doc: Document, parts: list[str], start: int | None) -> Document:
        if start is None:
            return doc
        kept = parts[start:start + self.sentences]
        text = " ".join([parts[0], *kept] if self.lead and start > 0 else kept)
        return Document(page_content=text, metadata={**doc.metadata, "window": start}, id=doc.id)
