"""Who may use the server: the keys clients present as ``Authorization: Bearer KEY``.

Keys come from flags, a file (one per line, ``#`` starts a comment) or an environment variable. Only
their SHA-256 digests are kept; a presented key is hashed and compared with every digest in constant
time, so neither the match nor its position leaks through timing. A key's digest is also the owner of
the conversations made with it: the database never holds a key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterable
from pathlib import Path

from selfrag_langchain.errors import ConfigurationError

KEYS_VARIABLE = "SELFRAG_CLIENT_KEYS"
"""Environment variable with client keys, separated by commas or whitespace."""
ANYONE = "anyone"
"""The owner of every conversation on a server that asks for no key."""


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class ClientKeys:
    """The keys a server accepts; none means the server answers anyone who reaches it."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self._digests = sorted({_digest(k) for k in keys})

    @classmethod
    def gather(cls, keys: Iterable[str] = (), file: Path | None = None,
               environ: dict[str, str] | None = None) -> ClientKeys:
        """Keys given directly, read from ``file`` and taken from ``SELFRAG_CLIENT_KEYS``.

        Raises:
            ConfigurationError: an unreadable or empty key file, or a key with spaces or under 8 characters.
        """
        found = [k.strip() for k in keys]
        if file is not None:
            try:
                lines = Path(file).read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as e:
                raise ConfigurationError(f"cannot read the client key file {file}: {e}") from e
            from_file = [line.split("#", 1)[0].strip() for line in lines]
            if not any(from_file):
                raise ConfigurationError(f"the client key file {file} holds no key")
            found.extend(from_file)
        found.extend((environ if environ is not None else os.environ).get(KEYS_VARIABLE, "").replace(",", " ").split())
        found = [k for k in found if k]
        for key in found:
            if len(key) < 8 or any(c.isspace() for c in key):
                raise ConfigurationError("a client key is at least 8 characters with no spaces: "
                                         f"got one of {len(key)} character(s)")
        return cls(found)

    @property
    def required(self) -> bool:
        return bool(self._digests)

    def __len__(self) -> int:
        return len(self._digests)

    def owner(self, authorization: str | None) -> str | None:
        """The owner id of the key in an ``Authorization`` header, :data:`ANYONE` when no key is required,
        or None when the header holds no accepted key."""
        if not self._digests:
            return ANYONE
        scheme, _, token = (authorization or "").strip().partition(" ")
        presented = _digest(token.strip())
        matched = False
        for digest in self._digests:  # every digest compared, whichever matches
            matched |= hmac.compare_digest(digest, presented)
        if scheme.lower() != "bearer" or not token.strip() or not matched:
            return None
        return presented.hex()
