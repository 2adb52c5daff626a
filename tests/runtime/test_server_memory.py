"""The MCP server over the SDK's in-memory transport: listing, results, sessions, control plane."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client
from tool_calls import key, text

from envfactory_mcp.env import STATE_HASH_VERSION, Environment, hash_state
from envfactory_mcp.runtime import ServerOptions, create_server

TRANSFER = {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 250}


async def test_tools_carry_schemas_and_annotations_from_the_spec(mini_env: Environment):
    async with Client(create_server(mini_env.bundle())) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {t.name for t in mini_env.spec.tools}
    get_account, transfer = tools["get_account"], tools["transfer"]
    assert get_account.annotations is not None and transfer.annotations is not None
    assert get_account.annotations.read_only_hint is True
    assert get_account.annotations.idempotent_hint is True
    assert get_account.annotations.destructive_hint is False
    assert transfer.annotations.read_only_hint is False
    assert transfer.annotations.destructive_hint is True
    assert transfer.annotations.idempotent_hint is False
    spec = mini_env.spec.tool("transfer")
    assert spec is not None
    assert transfer.input_schema == spec.input_schema
    assert transfer.output_schema == spec.output_schema


async def test_results_are_structured_and_errors_are_tool_errors(mini_env: Environment):
    async with Client(create_server(mini_env.bundle())) as client:
        ok = await client.call_tool("get_account", {"account_id": "acc_001"})
        bad = await client.call_tool("get_account", {"account_id": "acc_999"})
        invalid = await client.call_tool("get_account", {"account_id": 12})
    assert not ok.is_error
    assert ok.structured_content == {"account_id": "acc_001", "owner": "bob", "balance_cents": 50_000}
    assert json.loads(text(ok)) == ok.structured_content
    assert bad.is_error and text(bad) == "No account acc_999."
    assert invalid.is_error and 'is not of type "string"' in text(invalid)


async def test_explicit_session_keys_isolate_state_on_one_connection(mini_env: Environment):
    server = create_server(mini_env.bundle(), ServerOptions(control=True))
    async with Client(server) as client:
        for name in ("a", "b"):
            await client.call_tool("control.reset", {}, meta=key(name))
        await client.call_tool("transfer", TRANSFER, meta=key("a"))
        a = await client.call_tool("get_account", {"account_id": "acc_001"}, meta=key("a"))
        b = await client.call_tool("get_account", {"account_id": "acc_001"}, meta=key("b"))
        hash_a = await client.call_tool("control.state_hash", {}, meta=key("a"))
        hash_b = await client.call_tool("control.state_hash", {}, meta=key("b"))
    assert a.structured_content["balance_cents"] == 50_000 - 250
    assert b.structured_content["balance_cents"] == 50_000
    assert hash_b.structured_content["state_hash"] == mini_env.seed_hash
    assert hash_a.structured_content["state_hash"] != mini_env.seed_hash
    assert hash_a.structured_content["state_hash_version"] == STATE_HASH_VERSION == 2


async def test_control_state_answers_the_hash_of_its_dump(mini_env: Environment):
    server = create_server(mini_env.bundle(), ServerOptions(control=True))
    async with Client(server) as client:
        reset = await client.call_tool("control.reset", {}, meta=key("a"))
        await client.call_tool("transfer", TRANSFER, meta=key("a"))
        state = await client.call_tool("control.state", {}, meta=key("a"))
    assert reset.structured_content == {"state_hash": mini_env.seed_hash, "state_hash_version": 2}
    content = state.structured_content
    assert content["state_hash"] == hash_state(content["state"]) != mini_env.seed_hash
    assert content["state_hash_version"] == STATE_HASH_VERSION


async def test_handshake_era_connections_each_get_their_own_database(mini_env: Environment):
    server = create_server(mini_env.bundle())
    async with Client(server, mode="legacy") as first, Client(server, mode="legacy") as second:
        await first.call_tool("transfer", TRANSFER)
        mine = await first.call_tool("get_account", {"account_id": "acc_001"})
        theirs = await second.call_tool("get_account", {"account_id": "acc_001"})
    assert mine.structured_content["balance_cents"] == 50_000 - 250
    assert theirs.structured_content["balance_cents"] == 50_000


async def test_control_plane_is_absent_unless_enabled(mini_env: Environment):
    async with Client(create_server(mini_env.bundle())) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("control.reset", {})
    assert not [n for n in names if n.startswith("control.")]
    assert result.is_error and "Unknown tool 'control.reset'" in text(result)


async def test_control_plane_resets_reads_state_and_ends_sessions(mini_env: Environment):
    async with Client(create_server(mini_env.bundle(), ServerOptions(control=True))) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["control.state"].meta == {"envfactory/control": True}
        await client.call_tool("control.reset", {}, meta=key("x"))
        await client.call_tool("transfer", TRANSFER, meta=key("x"))
        state = (await client.call_tool("control.state", {}, meta=key("x"))).structured_content
        assert state["state"]["transfers"][0]["amount_cents"] == 250
        reset = await client.call_tool("control.reset", {}, meta=key("x"))
        assert reset.structured_content["state_hash"] == mini_env.seed_hash
        restored = await client.call_tool("control.reset", {"state": state["state"]}, meta=key("x"))
        assert restored.structured_content["state_hash"] == state["state_hash"]
        broken = await client.call_tool("control.reset", {"state": {"nope": []}}, meta=key("x"))
        assert broken.is_error and "unknown tables in state: nope" in text(broken)
        ended = await client.call_tool("control.end_session", {}, meta=key("x"))
        assert ended.structured_content == {"ended": True}
        gone = await client.call_tool("control.state_hash", {}, meta=key("x"))
        assert gone.is_error and "is not open on this connection" in text(gone)
        fresh = await client.call_tool("control.reset", {}, meta=key("x"))
        assert fresh.structured_content["state_hash"] == mini_env.seed_hash


async def test_file_backed_mode_shares_one_database_that_survives_restarts(mini_env: Environment, tmp_path):
    options = ServerOptions(control=True, db_path=tmp_path / "state.sqlite")
    async with Client(create_server(mini_env.bundle(), options)) as client:
        await client.call_tool("transfer", TRANSFER, meta=key("one"))
        other = await client.call_tool("get_account", {"account_id": "acc_001"}, meta=key("two"))
    assert other.structured_content["balance_cents"] == 50_000 - 250
    async with Client(create_server(mini_env.bundle(), options)) as client:
        again = await client.call_tool("get_account", {"account_id": "acc_001"})
    assert again.structured_content["balance_cents"] == 50_000 - 250


async def test_concurrent_sessions_never_interleave_writes(mini_env: Environment):
    """Fifty concurrent episodes on one connection; each sees exactly its own transfers."""
    async with Client(create_server(mini_env.bundle(), ServerOptions(control=True))) as client:

        async def episode(i: int) -> None:
            await client.call_tool("control.reset", {}, meta=key(f"e{i}"))
            for _ in range(i % 3 + 1):
                await client.call_tool("transfer", {**TRANSFER, "amount_cents": i + 1}, meta=key(f"e{i}"))

        async with anyio.create_task_group() as tg:
            for i in range(50):
                tg.start_soon(episode, i)
        for i in range(50):
            state = (await client.call_tool("control.state", {}, meta=key(f"e{i}"))).structured_content[
                "state"
            ]
            assert [t["amount_cents"] for t in state["transfers"]] == [i + 1] * (i % 3 + 1)


@pytest.mark.parametrize("value", ["'; DROP TABLE accounts; --", "x" * 100_000, None, 3.5, ["acc_001"]])
async def test_hostile_arguments_never_crash_or_change_state(mini_env: Environment, value):
    async with Client(create_server(mini_env.bundle(), ServerOptions(control=True))) as client:
        before = (await client.call_tool("control.state_hash", {})).structured_content["state_hash"]
        for tool in mini_env.spec.tools:
            for name in tool.input_schema.get("properties", {}):
                result = await client.call_tool(tool.name, {name: value})
                assert result.is_error
        after = (await client.call_tool("control.state_hash", {})).structured_content["state_hash"]
    assert before == after == mini_env.seed_hash
