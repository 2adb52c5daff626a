"""Command line of a generated server: ``python -m <package> [--transport ...]``."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from .server import Bundle, ServerOptions, create_server


def parse_args(prog: str, argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=prog, description="Serve this environment over MCP.")
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    parser.add_argument("--path", default="/mcp", help="HTTP endpoint path (default: /mcp)")
    parser.add_argument(
        "--db", type=Path, default=None, help="keep state in this SQLite file across restarts"
    )
    parser.add_argument(
        "--control", action="store_true", help="expose control.* tools (reset, state, state_hash) for hosts"
    )
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser.parse_args(argv)


def serve(bundle: Bundle, prog: str, argv: Sequence[str] | None = None, version: str = "0.1.0") -> None:
    """Parse ``argv`` and serve ``bundle`` until the client disconnects or the process is stopped."""
    args = parse_args(prog, argv)
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    options = ServerOptions(
        control=args.control,
        db_path=args.db,
        prefer_sessions=args.transport == "streamable-http",
        version=version,
    )
    server = create_server(bundle, options)
    try:
        if args.transport == "stdio":
            anyio.run(_serve_stdio, server)
        else:
            anyio.run(_serve_http, server, args.host, args.port, args.path, args.log_level)
    except KeyboardInterrupt:
        pass


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def _serve_http(server: Any, host: str, port: int, path: str, log_level: str) -> None:
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=path, host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level.lower(), lifespan="on")
    await uvicorn.Server(config).serve()
