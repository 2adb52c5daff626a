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


if __name__ == "__main__":
    anyio.run(_main)
