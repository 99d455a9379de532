"""Subcommands of the ``selfrag`` command line, one module each.

Each module exposes ``add_parser(subparsers)``, which registers its subcommand and sets
``run=<callable(args) -> int>`` as the parser default; :mod:`selfrag_langchain.cli` wires them.
"""
