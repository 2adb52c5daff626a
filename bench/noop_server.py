"""Floors for the per-call benchmarks: what a call costs a server that does nothing.

    python bench/noop_server.py [--transport stdio|streamable-http] [--floor sdk|sdk-transport|raw]

``--floor sdk`` (the default): the MCP SDK's ``Server`` with one no-op tool, over the same
lean stdio transport the runtime serves on (``envfactory_mcp.runtime.stdio``), so the
ratio against it is what the runtime adds beyond the SDK. ``--floor sdk-transport``: the
same server over the SDK's own stdio transport (what this baseline used to be).
``--floor raw``: a JSON-RPC echo with no SDK at all, on that same lean transport and event
loop: read a line, parse it, answer a request with a fixed result of the shape a tool
call returns, write the line. That is the floor of a stdio call served the way the
runtime serves; the acceptance ratios of issue 32 are against it. ``--floor bare``: the
same echo as a blocking loop with no event loop (for reference: below what any asyncio
server can reach).

Like every generated tool the no-op declares an output schema and returns structured
content, so a client does the same work for all of them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's runtime

NOOP_SCHEMA: dict[str, Any] = {
    "name": "noop",
    "description": "Does nothing.",
    "inputSchema": {"type": "object"},
    "outputSchema": {"type": "object", "properties": {}},
}


def build() -> Any:
    import mcp_types as types
    from mcp.server import Server

    noop = types.Tool(
        name="noop",
        description="Does nothing.",
        input_schema={"type": "object"},
        output_schema={"type": "object", "properties": {}},
    )

    async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[noop])

    async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="{}")], structured_content={}
        )

    return Server("noop", on_list_tools=_list_tools, on_call_tool=_call_tool)


async def _serve_sdk(lean: bool) -> None:
    if lean:
        from envfactory_mcp.runtime.stdio import serve_stdio

        await serve_stdio(build)  # the runtime's transport, every line to the SDK's server
        return
    server = build()
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _answers() -> tuple[dict[str, Any], dict[str, Any]]:
    call_result = {"content": [{"type": "text", "text": "{}"}], "structuredContent": {}}
    results = {
        "initialize": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "0"},
        },
        "server/discover": {
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "resultType": "complete",
        },
        "tools/list": {"tools": [NOOP_SCHEMA]},
    }
    return results, call_result


def _answer(line: bytes, results: dict[str, Any], call_result: dict[str, Any]) -> bytes | None:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        return None
    result = results.get(message["method"], call_result)
    return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n"


def serve_bare() -> None:
    """The JSON-RPC echo as a blocking loop: no SDK, no event loop."""
    read, write = sys.stdin.buffer.readline, sys.stdout.buffer
    results, call_result = _answers()
    while line := read():
        answer = _answer(line, results, call_result)
        if answer is not None:
            write.write(answer)
            write.flush()


async def _serve_raw() -> None:
    """The JSON-RPC echo on the runtime's lean stdio transport (its pipe I/O on the event loop)."""
    from envfactory_mcp.runtime.stdio import _claim, _pipe_io

    readline, write, _ = _pipe_io(_claim(0, "rb"), _claim(1, "wb"))
    results, call_result = _answers()
    while line := await readline(1 << 20):
        answer = _answer(line, results, call_result)
        if answer is not None:
            await write(answer)


def serve_raw() -> None:
    import anyio

    from envfactory_mcp.runtime.cli import event_loop_options

    anyio.run(_serve_raw, backend_options=event_loop_options())


def _serve_http(port: int) -> None:
    """Streamable HTTP with the SDK's defaults (and uvicorn, as a generated server uses)."""
    import uvicorn

    app = build().streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Servers that do nothing: the floors of a call.")
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--floor", choices=["sdk", "sdk-transport", "raw", "bare"], default="sdk")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    if options.transport != "stdio":
        _serve_http(options.port)
    elif options.floor == "raw":
        serve_raw()
    elif options.floor == "bare":
        serve_bare()
    else:
        import anyio

        from envfactory_mcp.runtime.cli import event_loop_options

        anyio.run(_serve_sdk, options.floor == "sdk", backend_options=event_loop_options())
