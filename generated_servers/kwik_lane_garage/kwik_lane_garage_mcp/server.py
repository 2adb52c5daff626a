"""Entry points of the kwik_lane_garage server: build it in-process, or serve it over stdio / HTTP.

The MCP stack loads only when a server is built, so ``--help`` and argument errors answer
at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__

if TYPE_CHECKING:
    from .runtime import Bundle, ServerOptions

PACKAGE_DIR = Path(__file__).resolve().parent


def load_bundle(jailed: bool = False) -> Bundle:
    """The spec, schema, seed and tool code this package ships; ``jailed``: the tool code
    runs in jailed worker processes (bubblewrap) instead of this one."""
    from .runtime import Bundle

    return Bundle.from_package(PACKAGE_DIR, jailed=jailed)


def build_server(options: ServerOptions | None = None) -> Any:
    """An MCP server object, e.g. for ``mcp.Client(build_server())`` in tests."""
    from .runtime import ServerOptions, create_server

    return create_server(load_bundle(), options or ServerOptions(version=__version__))


def main(argv: Sequence[str] | None = None) -> None:
    from .runtime.cli import serve

    serve(PACKAGE_DIR, prog="kwik-lane-garage-mcp", argv=argv, version=__version__)
