"""``selfrag serve``: Self-RAG behind an OpenAI-compatible HTTP API.

Examples:
    selfrag serve                                   # the web chat and the API on http://127.0.0.1:8000
    selfrag serve --store ./store --port 9000 --short
    selfrag serve --host 0.0.0.0 --client-keys-file keys.txt   # for a team: every client sends a key
    curl -s localhost:8000/v1/chat/completions -H 'content-type: application/json' \\
         -d '{"model": "selfrag", "messages": [{"role": "user", "content": "Who painted the Mona Lisa?"}]}'
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from selfrag_langchain.commands.options import (
    add_conversation_options,
    add_long_form_options,
    add_run_options,
    run_settings,
)
from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.history import HistoryDatabase
from selfrag_langchain.pipeline import build_long_form, build_selfrag, uses_demo_corpus
from selfrag_langchain.serving.access import KEYS_VARIABLE, ClientKeys
from selfrag_langchain.serving.settings import ServerLimits

MAX_PENDING = 32
"""Admitted requests wait in the server's thread pool (40 threads): beyond this, a request would queue
there instead of getting its 503."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="serve Self-RAG over HTTP: an OpenAI-compatible chat API")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default: %(default)s)")
    parser.add_argument("--max-pending", type=int, default=16,
                        help="requests admitted at once; one more gets HTTP 503 (default: %(default)s)")
    parser.add_argument("--model-name", default="selfrag",
                        help="the model id the API reports and answers as (default: %(default)s)")
    parser.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                        help="listen at once, without first answering one question: the first request then "
                             "loads the judges and encoders (with a remote backend, the warm-up is a few calls)")
    parser.add_argument("--client-key", action="append", default=[], metavar="KEY",
                        help="a key clients must send as 'Authorization: Bearer KEY' (repeatable; also "
                             f"--client-keys-file and ${KEYS_VARIABLE}); with none, anyone who reaches the "
                             "port may ask. Not --api-key, which is the key of an OpenAI-compatible backend")
    parser.add_argument("--client-keys-file", type=Path, default=None, metavar="FILE",
                        help="a file of client keys, one per line ('#' starts a comment)")
    for name, field in ServerLimits.model_fields.items():  # each limit declared once, in ServerLimits
        parser.add_argument("--" + name.replace("_", "-"), type=type(field.default), default=field.default, metavar="N",
                            help=f"{field.description} (default: %(default)s)")
    add_conversation_options(parser, history_of="the web chat's conversations")
    add_run_options(parser)
    add_long_form_options(parser)
    parser.set_defaults(run=run)


def _check_port(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as e:
            msg = f"port {port} on {host} is not free ({e.strerror or e}): choose another with --port"
            raise SelfRAGError(msg) from e


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from selfrag_langchain.chains.chat_model import ChatSelfRAG
    from selfrag_langchain.serving import create_app

    if not 0 < args.port < 65536:
        raise SelfRAGError(f"--port must be in 1..65535, got {args.port}")
    if not 1 <= args.max_pending <= MAX_PENDING:
        raise SelfRAGError(f"--max-pending must be in 1..{MAX_PENDING}, got {args.max_pending}")
    limits = _limits(args)
    keys = ClientKeys.gather(args.client_key, args.client_keys_file)
    _check_port(args.host, args.port)  # before the models load: a taken port is one line, at once
    database = HistoryDatabase(args.history)  # an unreachable database too
    if database.recovered:
        print(f"selfrag: warning: {database.recovered}", file=sys.stderr)
    if not keys.required and not _is_loopback(args.host):
        print(f"selfrag: warning: listening on {args.host} with no client key: anyone who reaches the port may "
              "ask and read the conversations whose ids they learn (--client-key)", file=sys.stderr)
    settings = run_settings(args)
    rag = build_selfrag(settings) if args.short else build_long_form(settings)
    load = getattr(rag.generator, "load", None)
    if callable(load):  # the model loads now, not during the first request
        load()
    if args.warm_up:
        _warm_up(rag)
    about = {"answers": "short" if args.short else "long",
             "store": "demo corpus" if uses_demo_corpus(settings) else str(settings.store or "")}
    app = create_app(ChatSelfRAG(rag=rag), model_name=args.model_name, max_pending=args.max_pending,
                     history=database, about=about, keys=keys, limits=limits)
    print(f"selfrag: serving {about['answers']}-form answers: the web chat at http://{args.host}:{args.port}/, "
          f"the OpenAI API at /v1 (Ctrl-C stops)", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _warm_up(rag: Any) -> None:
    """One question answered before the server listens, so the first request is as quick as the next; a fault
    here is reported and left to the requests, which report their own."""
    print("selfrag: warming up (one question, so the first request does not load the models)", file=sys.stderr,
          flush=True)
    try:
        with ThreadPoolExecutor(max_workers=1) as own_thread:
            # Warmed up in the main thread, every later request (answered in the server's worker threads) took
            # 0.5-1 s longer; warmed up in a thread that ends with it, none did (benchmarks/serve_start.py).
            own_thread.submit(rag.warm_up).result()
    except Exception as e:  # the server starts; each request reports the fault it meets
        print(f"selfrag: warning: the warm-up question failed ({type(e).__name__}: {e}); the first request "
              "loads what it needs", file=sys.stderr, flush=True)


def _limits(args: argparse.Namespace) -> ServerLimits:
    """The limits from their flags; a value out of bounds is one line naming its flag."""
    try:
        return ServerLimits(**{name: getattr(args, name) for name in ServerLimits.model_fields})
    except ValidationError as e:
        first = e.errors()[0]
        flag = "--" + str(first["loc"][0]).replace("_", "-")
        raise SelfRAGError(f"{flag}: {first['msg'][0].lower()}{first['msg'][1:]}, got {first['input']}") from e


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
