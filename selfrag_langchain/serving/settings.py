"""What one request may ask of ``selfrag serve``, and how long conversations are kept: each setting
declared once here, with its bounds and its help, read by ``create_app`` and by the command's flags."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ServerLimits(BaseModel):
    """Limits a request is held to before any model work: an oversize request is refused at once, and
    the memory one request can take stays bounded whatever clients send."""

    model_config = ConfigDict(frozen=True)

    max_body_bytes: int = Field(
        1_000_000, ge=1_000, le=100_000_000,
        description="largest request body in bytes; a larger one gets HTTP 413 before it is read whole")
    max_question_chars: int = Field(
        4_000, ge=1, le=1_000_000,
        description="longest question (the last user message) in characters; longer gets HTTP 400")
    max_messages: int = Field(
        64, ge=1, le=10_000,
        description="most messages in one chat-completions request; more gets HTTP 400")
    retention_days: float = Field(
        30.0, ge=0,
        description="web-chat conversations unused for this many days are deleted; 0 keeps them")
