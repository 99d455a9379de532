"""Installs the echo backend (``tests/fakes/echo_backend.py``) in a process started under it."""

import os

if os.environ.get("SELFRAG_ECHO_BACKEND") == "1":
    from tests.fakes.echo_backend import install

    install()
