"""A handful of short passages the examples index, so each example runs in seconds."""

from langchain_core.documents import Document

PASSAGES = [
    ("Mona Lisa", "The Mona Lisa is a half-length portrait painting by the Italian artist Leonardo da Vinci. "
     "It has been on permanent display at the Louvre in Paris since 1797."),
    ("Eiffel Tower", "The Eiffel Tower is a wrought-iron lattice tower in Paris. It is named after the engineer "
     "Gustave Eiffel, whose company designed and built the tower from 1887 to 1889."),
    ("Photosynthesis", "Photosynthesis is the process by which plants use sunlight, water and carbon dioxide to "
     "make glucose and release oxygen."),
    ("Hamlet", "Hamlet is a tragedy written by William Shakespeare sometime between 1599 and 1601. It is "
     "Shakespeare's longest play."),
    ("Mount Everest", "Mount Everest is Earth's highest mountain above sea level, located in the Himalayas on "
     "the border between Nepal and China. Its elevation is 8,849 metres."),
]


def documents() -> list[Document]:
    """The passages as LangChain documents with a title."""
    return [Document(page_content=text, metadata={"title": title}) for title, text in PASSAGES]
