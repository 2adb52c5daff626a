"""Baseline for the latency benchmark: a bare MCP SDK server with one no-op tool.

It uses the same SDK and transport as a generated server but none of its runtime
(no argument validation, no session lookup, no transaction), so the ratio against it is
the whole cost our runtime adds to a call. Like every generated tool it declares an
output schema and returns structured content, so the client does the same work for both.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server

NOOP = types.Tool(
    name="noop",
    description="Does nothing.",
    input_schema={"type": "object"},
    output_schema={"type": "object", "properties": {}},
)


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[NOOP])


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text="{}")], structured_content={})


def build() -> Server[Any]:
    return Server("noop", on_list_tools=_list_tools, on_call_tool=_call_tool)


async def _main() -> None:
    from mcp.server.stdio import stdio_server

    server = build()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _serve_http(port: int) -> None:
    """Streamable HTTP with the SDK's defaults (and uvicorn, as a generated server uses)."""
    import uvicorn

    app = build().streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="A bare MCP SDK server with one no-op tool.")
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    if options.transport == "stdio":
        anyio.run(_main)
    else:
        _serve_http(options.port)
