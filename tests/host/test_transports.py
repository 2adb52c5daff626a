"""The emitted package served for real: stdio subprocess and streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from servers import http_server
from tool_calls import key

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment

pytestmark = pytest.mark.slow
TRANSFER = {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 250}


@pytest.fixture(scope="module")
def mini_package(mini_env: Environment, tmp_path_factory) -> Path:
    return write_package(render_package(mini_env), tmp_path_factory.mktemp("servers") / "minibank")


async def balance(client: Client, **kw) -> int:
    result = await client.call_tool("get_account", {"account_id": "acc_001"}, **kw)
    return result.structured_content["balance_cents"]


async def test_stdio_subprocess_serves_tools_and_keeps_state(mini_package: Path, mini_env: Environment):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "minibank_mcp", "--control"],
        env={"PYTHONPATH": str(mini_package)},
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            await client.call_tool("transfer", TRANSFER)
            after = await balance(client)
            state_hash = (await client.call_tool("control.state_hash", {})).structured_content["state_hash"]
    assert len(tools) == len(mini_env.spec.tools) + 4
    assert after == 50_000 - 250
    assert state_hash != mini_env.seed_hash


async def test_http_sessions_are_isolated(mini_package: Path):
    with http_server(mini_package, "minibank_mcp") as server:
        url = server.url
        with anyio.fail_after(60):
            async with Client(url) as first, Client(url) as second:
                version = first.protocol_version
                await first.call_tool("transfer", TRANSFER)
                mine, theirs = await balance(first), await balance(second)
                # A sessionless 2026-07-28 client has no session over HTTP: it reads the seed
                # and cannot write; session keys need --control and a connection.
                async with Client(url, mode="2026-07-28") as modern:
                    write = await modern.call_tool("transfer", TRANSFER)
                    keyed = await modern.call_tool("transfer", TRANSFER, meta=key("k1"))
                    seed = await balance(modern)
    assert version == "2025-11-25"  # steered to the session-ful era
    assert (mine, theirs) == (50_000 - 250, 50_000)
    assert write.is_error and keyed.is_error and seed == 50_000


async def test_http_file_backed_state_survives_a_restart(mini_package: Path, tmp_path: Path):
    db = tmp_path / "bank.sqlite"
    with http_server(mini_package, "minibank_mcp", "--db", str(db)) as server:
        url = server.url
        with anyio.fail_after(60):
            async with Client(url) as client:
                await client.call_tool("transfer", TRANSFER)
    with http_server(mini_package, "minibank_mcp", "--db", str(db)) as server:
        url = server.url
        with anyio.fail_after(60):
            async with Client(url) as client:
                assert await balance(client) == 50_000 - 250
