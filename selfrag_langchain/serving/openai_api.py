"""The OpenAI chat-completions wire format, as Self-RAG speaks it: requests into LangChain messages, and
answers out as completions whose citations an OpenAI client or a chat front end can show.

Citations travel twice: as the ``url_citation`` annotations of the message (the form the OpenAI API uses
for cited web results, which the ``openai`` client parses; offsets into the content, the ``[n]`` marker
included), and as a top-level ``citations`` list with each passage's number, title, text and source.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from selfrag_langchain.chains.chat_model import RESULT_KEY
from selfrag_langchain.chains.citations import location
from selfrag_langchain.errors import InputError
from selfrag_langchain.results import LongFormResult, SelfRAGResult

Role = Literal["system", "developer", "user", "assistant", "tool"]


class ChatMessageIn(BaseModel):
    """One message of a request; fields Self-RAG does not use (``name``, tool calls) are accepted."""

    model_config = ConfigDict(extra="allow")

    role: Role
    content: str | list[dict[str, Any]] | None = None


class ChatCompletionRequest(BaseModel):
    """A chat-completions request. Sampling fields (``temperature``, ``max_tokens``...) are accepted and
    ignored: Self-RAG decodes greedily and ends its segments itself."""

    model_config = ConfigDict(extra="allow")

    model: str | None = None
    messages: list[ChatMessageIn] = Field(min_length=1)
    stream: bool = False


def message_text(message: ChatMessageIn) -> str:
    """The text of a message: a string, or the text parts of a content list (anything else is refused)."""
    if message.content is None or isinstance(message.content, str):
        return message.content or ""
    texts = []
    for part in message.content:
        if part.get("type") != "text" or not isinstance(part.get("text"), str):
            raise InputError(f"only text content is supported, got a {part.get('type')!r} part")
        texts.append(part["text"])
    return "".join(texts)


def to_messages(messages: Sequence[ChatMessageIn]) -> list[BaseMessage]:
    """LangChain messages for ``ChatSelfRAG``: the last one must be the user's question."""
    if messages[-1].role != "user":
        raise InputError(f"the last message must be the user's question, got a {messages[-1].role!r} message")
    if not message_text(messages[-1]).strip():
        raise InputError("the question (the last user message) is empty")
    converted: list[BaseMessage] = []
    for message in messages:
        text = message_text(message)
        if message.role == "user":
            converted.append(HumanMessage(text))
        elif message.role == "assistant":
            converted.append(AIMessage(text))
        elif message.role in {"system", "developer"}:
            converted.append(SystemMessage(text))
        # tool results have no place in a Self-RAG conversation: left out
    return converted


def citations_of(message: AIMessage) -> list[dict[str, Any]]:
    """The LangChain citation annotations of an answer's text block, in answer order."""
    return [note for block in message.content_blocks if block["type"] == "text"
            for note in block.get("annotations") or [] if note.get("type") == "citation"]


def url_citations(notes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Citations as OpenAI ``url_citation`` annotations; a passage without a URL gets ``passage:<n>``."""
    out = []
    for note in notes:
        extras = note.get("extras") or {}
        url = note.get("url") or extras.get("source") or f"passage:{extras.get('citation', '')}"
        out.append({"type": "url_citation", "url_citation": {
            "start_index": note.get("start_index", 0), "end_index": note.get("end_index", 0),
            "title": note.get("title") or "", "url": str(url)}})
    return out


def cited_passages(notes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each cited passage once, in order of first citation: number, title, text, source, URL, and for a file's
    passage its page or section and ``location`` ("handbook.pdf, p. 12")."""
    seen: dict[Any, dict[str, Any]] = {}
    for note in notes:
        extras = note.get("extras") or {}
        key = extras.get("citation", note.get("title"))
        seen.setdefault(key, {"index": extras.get("citation"), "title": note.get("title"),
                              "text": note.get("cited_text"), "source": extras.get("source"),
                              "url": note.get("url"), "page": extras.get("page"), "section": extras.get("section"),
                              "location": location({"source": extras.get("source"), "page": extras.get("page"),
                                                    "section": extras.get("section")})})
    return list(seen.values())


def support_of(notes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The judge's verdict on each cited claim: the claim's span in the answer, the number of the passage
    it cites, and ``supported``, ``partially supported`` or ``not supported``."""
    verdicts = []
    for note in notes:
        extras = note.get("extras") or {}
        if extras.get("support"):
            verdicts.append({"start_index": note.get("start_index", 0), "end_index": note.get("end_index", 0),
                             "citation": extras.get("citation"), "verdict": extras["support"]})
    return verdicts


def declined(result: dict[str, Any] | None) -> bool:
    """Whether an answer said its sources do not answer the question, from the JSON result in its metadata."""
    return bool(((result or {}).get("result") or {}).get("declined"))


def judgements(result: dict[str, Any] | None) -> list[str]:
    """How Self-RAG judged its evidence, one line per branch or segment (what ``selfrag ask`` prints),
    from the JSON result in an answer's metadata."""
    if not result or "result" not in result:
        return []
    data = result["result"]
    kind = LongFormResult if "candidates" in data else SelfRAGResult
    return kind.model_validate(data).summary_lines()


def turn_view(message: BaseMessage) -> dict[str, Any]:
    """A stored web-chat message as the page shows it."""
    if not isinstance(message, AIMessage):
        return {"role": "user", "content": message.text}
    notes = citations_of(message)
    return {"role": "assistant", "content": message.text, "annotations": url_citations(notes),
            "citations": cited_passages(notes), "support": support_of(notes),
            "declined": bool(message.additional_kwargs.get("declined")),
            "judgements": message.additional_kwargs.get("judgements", [])}


def completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex}"


def completion(answer: AIMessage, model: str) -> dict[str, Any]:
    """A ``chat.completion`` object for a whole answer."""
    notes = citations_of(answer)
    return {
        "id": completion_id(), "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": answer.text, "annotations": url_citations(notes)}}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        "citations": cited_passages(notes),
        "support": support_of(notes),
        "declined": declined(answer.response_metadata.get(RESULT_KEY)),
    }


def chunk(cid: str, created: int, model: str, delta: dict[str, Any], finish: str | None = None,
          **extra: Any) -> dict[str, Any]:
    """One ``chat.completion.chunk`` of a streamed answer."""
    return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def error_body(message: str, kind: str = "invalid_request_error", param: str | None = None,
               code: str | None = None) -> dict[str, Any]:
    """The error object OpenAI clients read (``error.message``)."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
