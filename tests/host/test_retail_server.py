"""`envfactory-mcp serve retail` for real: stdio listing, HTTP session isolation, hostile input."""

from __future__ import annotations

import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters
from paths import ROOT, SERVERS_DIR
from servers import http_server
from tool_calls import text

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.server import portable_schema

pytestmark = pytest.mark.slow


def serve_params(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "envfactory_mcp", "serve", "retail", "--servers-dir", str(SERVERS_DIR), *extra],
        cwd=str(ROOT),
    )


async def test_stdio_lists_every_tool_with_schemas_annotations_and_structured_reads(retail_env: Environment):
    user = retail_env.seed_state["users"][0]
    with anyio.fail_after(60):
        async with Client(serve_params()) as client:
            tools = (await client.list_tools()).tools
            products = await client.call_tool("list_all_product_types", {})
            details = await client.call_tool("get_user_details", {"user_id": user["user_id"]})
    assert len(tools) >= 14
    declared = {t.name: t for t in retail_env.spec.tools}
    assert {t.name for t in tools} == set(declared)
    for tool in tools:
        spec = declared[tool.name]
        # Listed in the portable form (type lists as anyOf), which means the same.
        assert tool.input_schema == portable_schema(spec.input_schema)
        assert tool.output_schema == portable_schema(spec.output_schema)
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint == (spec.effect == "read")
        assert tool.annotations.destructive_hint == spec.is_destructive
        assert tool.annotations.idempotent_hint == spec.is_idempotent
    assert not products.is_error and len(products.structured_content["products"]) >= 20
    assert details.structured_content["user_id"] == user["user_id"]
    assert details.structured_content["email"] == user["email"]


def pending_order(env: Environment) -> dict:
    return next(o for o in env.seed_state["orders"] if o["status"] == "pending")


async def test_two_concurrent_http_sessions_do_not_see_each_others_writes(retail_env: Environment):
    order = pending_order(retail_env)
    with http_server(SERVERS_DIR / "retail", "retail_mcp") as server:
        with anyio.fail_after(60):
            async with Client(server.url) as first, Client(server.url) as second:
                cancelled = await first.call_tool(
                    "cancel_pending_order", {"order_id": order["order_id"], "reason": "no longer needed"}
                )
                mine = await first.call_tool("get_order_details", {"order_id": order["order_id"]})
                theirs = await second.call_tool("get_order_details", {"order_id": order["order_id"]})
    assert not cancelled.is_error, cancelled.content
    assert mine.structured_content["status"] == "cancelled"
    assert theirs.structured_content["status"] == "pending"


HOSTILE = [
    "'; DROP TABLE orders; --",
    "x" * 100_000,
    12345,
    None,
    ["#W0000001"],
    {"$ne": 1},
    "#W9999999",
    "usr_nobody",
]


async def test_bad_input_never_crashes_the_server_or_changes_state(retail_env: Environment):
    with anyio.fail_after(120):
        async with Client(serve_params("--control")) as client:
            before = (await client.call_tool("control.state_hash", {})).structured_content["state_hash"]
            outcomes = []
            for tool in retail_env.spec.tools:
                names = list(tool.input_schema.get("properties", {}))
                for value in HOSTILE:
                    for name in names:
                        args = {n: value for n in names} if name == names[0] else {name: value}
                        result = await client.call_tool(tool.name, args)
                        outcomes.append((tool.name, name, result.is_error, text(result)[:120]))
                missing = await client.call_tool(tool.name, {}) if tool.input_schema.get("required") else None
                if missing is not None:
                    outcomes.append((tool.name, "<missing>", missing.is_error, text(missing)[:120]))
            after = (await client.call_tool("control.state_hash", {})).structured_content["state_hash"]
    # Free-text parameters (a transfer summary) may legitimately accept a hostile string;
    # every write must be refused, and nothing may change.
    writes = {t.name for t in retail_env.spec.tools if t.effect == "write"}
    accepted_writes = [o for o in outcomes if not o[2] and o[0] in writes]
    assert not accepted_writes, accepted_writes[:5]
    assert not [o for o in outcomes if o[3].startswith("Internal error")]
    assert before == after == retail_env.seed_hash
