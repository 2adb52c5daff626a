"""Entry points of the retail server: build it in-process, or serve it over stdio / HTTP."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .runtime import Bundle, ServerOptions, create_server
from .runtime.cli import serve

PACKAGE_DIR = Path(__file__).resolve().parent


def load_bundle(jailed: bool = False) -> Bundle:
    """The spec, schema, seed and tool code this package ships; ``jailed``: the tool code
    runs in jailed worker processes (bubblewrap) instead of this one."""
    return Bundle.from_package(PACKAGE_DIR, jailed=jailed)


def build_server(options: ServerOptions | None = None) -> Any:
    """An MCP server object, e.g. for ``mcp.Client(build_server())`` in tests."""
    return create_server(load_bundle(), options or ServerOptions(version=__version__))


def main(argv: Sequence[str] | None = None) -> None:
    serve(PACKAGE_DIR, prog="retail-mcp", argv=argv, version=__version__)
