"""Smoke tests shipped with the home_removals server: run them with ``pytest`` after installing."""

from __future__ import annotations

import sys

import anyio
from mcp import Client, StdioServerParameters

from home_removals_mcp.runtime import ServerOptions
from home_removals_mcp.server import build_server, load_bundle

TOOL_COUNT = 24


def run(coro_fn):
    return anyio.run(coro_fn)


def test_lists_every_declared_tool_with_schemas_and_annotations():
    async def go():
        async with Client(build_server()) as client:
            return (await client.list_tools()).tools

    tools = run(go)
    assert len(tools) == TOOL_COUNT
    declared = {t["name"]: t for t in load_bundle().spec["tools"]}
    for tool in tools:
        assert tool.name in declared
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema["type"] == "object"
        assert tool.annotations.read_only_hint == (declared[tool.name]["effect"] == "read")


def test_bad_arguments_are_tool_errors_and_leave_state_unchanged():
    async def go():
        async with Client(build_server(ServerOptions(control=True))) as client:
            before = (await client.call_tool("control.state_hash", {})).structured_content["state_hash"]
            errors = []
            for tool in load_bundle().spec["tools"]:
                result = await client.call_tool(tool["name"], {"not_a_parameter": "x" * 100_000})
                errors.append(result.is_error)
            after = (await client.call_tool("control.state_hash", {})).structured_content["state_hash"]
            return before, after, errors

    before, after, errors = run(go)
    assert all(errors)
    assert before == after


def test_serves_over_stdio():
    async def go():
        params = StdioServerParameters(command=sys.executable, args=["-m", "home_removals_mcp"])
        with anyio.fail_after(60):
            async with Client(params) as client:
                return (await client.list_tools()).tools

    tools = run(go)
    assert len(tools) == TOOL_COUNT


def test_control_plane_is_hidden_by_default():
    async def go():
        async with Client(build_server()) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("control.state", {})
            return names, result

    names, result = run(go)
    assert not any(n.startswith("control.") for n in names)
    assert result.is_error
