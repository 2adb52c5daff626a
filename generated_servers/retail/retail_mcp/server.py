"""Entry points of the retail server: build it in-process, or serve it over stdio / HTTP."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__, tools
from .runtime import Bundle, ServerOptions, create_server
from .runtime.cli import serve

DATA_DIR = Path(__file__).resolve().parent / "data"


def load_bundle() -> Bundle:
    """The spec, schema, seed and tool code this package ships."""
    return Bundle.from_directory(DATA_DIR, tools)


def build_server(options: ServerOptions | None = None) -> Any:
    """An MCP server object, e.g. for ``mcp.Client(build_server())`` in tests."""
    return create_server(load_bundle(), options or ServerOptions(version=__version__))


def main(argv: Sequence[str] | None = None) -> None:
    serve(load_bundle(), prog="retail-mcp", argv=argv, version=__version__)
