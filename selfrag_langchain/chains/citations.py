"""Numbering the passages an answer cites: [1], [2], ... in order of first use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.documents import Document


def passage_key(doc: Document) -> tuple[str | None, str, str | None]:
    """What makes two retrieved documents the same passage (retrieved again for another segment)."""
    return doc.id, doc.page_content, doc.metadata.get("title")


class CitationNumbers:
    """Hands out citation numbers in order of first use; the same passage keeps its number."""

    def __init__(self) -> None:
        self._numbers: dict[tuple[str | None, str, str | None], int] = {}
        self.documents: list[Document] = []
        """The numbered passages, ``metadata["citation"] = n``, in order."""

    def number(self, doc: Document | None) -> int | None:
        """The passage's number, assigning the next one at its first use; None for no passage."""
        if doc is None:
            return None
        key = passage_key(doc)
        if key not in self._numbers:
            n = len(self.documents) + 1
            self._numbers[key] = n
            self.documents.append(Document(id=doc.id, page_content=doc.page_content,
                                           metadata={**doc.metadata, "citation": n}))
        return self._numbers[key]

    def document(self, n: int) -> Document:
        return self.documents[n - 1]


def location(metadata: dict[str, Any]) -> str | None:
    """Where in its file a passage is, as a reader finds it: "handbook.pdf, p. 12" or "guide.docx, Installing";
    None for a passage of no file (a JSON Lines passage, the demo corpus)."""
    source, page, section = metadata.get("source"), metadata.get("page"), metadata.get("section")
    if not isinstance(source, str) or "://" in source or (page is None and section is None):
        return None
    name = Path(source).name
    return f"{name}, p. {page}" if page is not None else f"{name}, {section}"
