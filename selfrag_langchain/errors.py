"""Errors a user can fix. The CLI prints their message without a traceback; anything else is a bug."""

from __future__ import annotations


class SelfRAGError(Exception):
    """Base of every error caused by input, configuration or environment, not by a bug."""


class ConfigurationError(SelfRAGError, ValueError):
    """A knob or argument has a value the method cannot use (unknown mode, threshold out of range)."""


class InputError(SelfRAGError, ValueError):
    """The question or data given to a run cannot be used (empty question, malformed record)."""


class ModelLoadError(SelfRAGError):
    """A model could not be found or loaded, or lacks what the chosen reflector needs."""


class StoreError(SelfRAGError):
    """The vector store is missing, unreadable or cannot be written."""


class BackendError(SelfRAGError):
    """A model server or inference engine failed, timed out, or cannot be reached."""
