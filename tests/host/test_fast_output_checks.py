"""The host's connection checks structured results against output schemas with
jsonschema-rs first (issue 19): a valid result passes as before, an invalid one is still
refused with the SDK's own error."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server import Server

from envfactory_mcp.host.connection import _CheckedFirst, _fast_output_checks

SCHEMA = {
    "type": "object",
    "properties": {"total": {"type": "integer", "minimum": 0}},
    "required": ["total"],
    "additionalProperties": False,
}


def server() -> Server[Any]:
    tools = [
        types.Tool(name=name, input_schema={"type": "object"}, output_schema=SCHEMA)
        for name in ("good", "bad")
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        out = {"total": 3} if params.name == "good" else {"total": -1}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(out))], structured_content=out
        )

    return Server("checks", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_valid_results_pass_and_invalid_ones_are_still_refused():
    async with Client(server()) as client:
        _fast_output_checks(client.session)
        await client.list_tools()
        good = await client.call_tool("good", {})
        with pytest.raises(RuntimeError, match="Invalid structured content returned by tool bad"):
            await client.call_tool("bad", {})
        checked = client.session._output_schema_validator("good", SCHEMA)
    assert good.structured_content == {"total": 3}
    assert isinstance(checked, _CheckedFirst)  # the fast path is the one in use
    assert list(checked.iter_errors({"total": 3})) == []
    assert [e.message for e in checked.iter_errors({"total": -1})]


async def test_a_schema_is_compiled_once_for_every_connection():
    """A second connection (another episode, another worker) uses the checks the first
    one compiled for the same schema: the SDK's compile runs once per schema value."""
    compiled: list[str] = []
    checks = []
    for _ in range(3):
        async with Client(server()) as client:
            original = client.session._output_schema_validator

            def counting(name: str, output_schema: dict[str, Any], original: Any = original) -> Any:
                compiled.append(name)
                return original(name, output_schema)

            # Counts the SDK's compiles: a deliberate patch of this one session's method.
            client.session._output_schema_validator = counting  # type: ignore[method-assign]
            _fast_output_checks(client.session)
            await client.list_tools()
            assert (await client.call_tool("good", {})).structured_content == {"total": 3}
            with pytest.raises(RuntimeError, match="Invalid structured content returned by tool bad"):
                await client.call_tool("bad", {})
            checks.append(client.session._output_schema_validator("good", SCHEMA))
    assert len(compiled) <= 1  # good and bad share one schema value; none if an earlier test compiled it
    assert checks[0] is checks[1] is checks[2]
