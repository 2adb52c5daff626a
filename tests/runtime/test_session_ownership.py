"""Sessions belong to their owner (issue 11, item 4), over the SDK's in-memory transport.

Session keys are a host feature behind ``--control``; a key is opened by
``control.reset`` and belongs to the connection that opened it; keys are limited per
connection and in all, and expire when idle; a full server makes room for a connection
below its fair share from the connection holding the most (issue 25), never from one
below its share. The same guarantees over real stdio and HTTP servers are in
test_served_sessions.py and test_session_key_floods.py.
"""

from __future__ import annotations

import gc
from typing import cast

import anyio
from mcp import Client
from mcp.types import RequestParamsMeta
from minibank_calls import ACC, TRANSFER, balance, key, text

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime import SESSION_META_KEY, ServerOptions, SessionLimits, create_server


async def test_without_control_a_session_key_is_refused_and_changes_nothing(mini_env: Environment):
    async with Client(create_server(mini_env.bundle()), mode="legacy") as client:
        keyed = await client.call_tool("transfer", TRANSFER, meta=key("k1"))
        read = await client.call_tool("get_account", ACC, meta=key("k1"))
        plain = await balance(client)
    assert keyed.is_error and "--control" in text(keyed)
    assert read.is_error and "--control" in text(read)
    assert plain == 50_000  # the refused write went nowhere, not even into the connection's session


async def test_a_key_opened_on_one_connection_is_refused_on_another(mini_env: Environment):
    server = create_server(mini_env.bundle(), ServerOptions(control=True))
    async with Client(server, mode="legacy") as owner, Client(server, mode="legacy") as intruder:
        await owner.call_tool("control.reset", {}, meta=key("episode-1"))
        await owner.call_tool("transfer", TRANSFER, meta=key("episode-1"))
        read = await intruder.call_tool("get_account", ACC, meta=key("episode-1"))
        write = await intruder.call_tool("transfer", TRANSFER, meta=key("episode-1"))
        state = await intruder.call_tool("control.state", {}, meta=key("episode-1"))
        ended = await intruder.call_tool("control.end_session", {}, meta=key("episode-1"))
        # Opening the same key there opens the intruder's own session, from the seed.
        own = await intruder.call_tool("control.reset", {}, meta=key("episode-1"))
        await intruder.call_tool("transfer", {**TRANSFER, "amount_cents": 1}, meta=key("episode-1"))
        mine = await balance(owner, meta=key("episode-1"))
    for refused in (read, write, state):
        assert refused.is_error and "is not open on this connection" in text(refused)
    assert ended.structured_content == {"ended": False}
    assert own.structured_content["state_hash"] == mini_env.seed_hash
    assert mine == 50_000 - 250


async def test_a_key_never_opened_is_refused_instead_of_starting_from_the_seed(mini_env: Environment):
    async with Client(create_server(mini_env.bundle(), ServerOptions(control=True))) as client:
        write = await client.call_tool("transfer", TRANSFER, meta=key("never-opened"))
        control = await client.call_tool("control.state_hash", {}, meta=key("never-opened"))
    assert write.is_error and "Open it with control.reset" in text(write)
    assert control.is_error


async def test_a_flood_of_keys_from_one_client_leaves_another_clients_session_intact(mini_env: Environment):
    """10,000 new keys from one connection: refused past its limit, nobody else's evicted."""
    server = create_server(mini_env.bundle(), ServerOptions(control=True))
    async with Client(server, mode="legacy") as victim, Client(server, mode="legacy") as flooder:
        await victim.call_tool("control.reset", {}, meta=key("victim"))
        await victim.call_tool("transfer", TRANSFER, meta=key("victim"))
        refused = 0
        with anyio.fail_after(120):
            for i in range(10_000):
                result = await flooder.call_tool("control.reset", {}, meta=key(f"flood-{i}"))
                refused += result.is_error
        after = await balance(victim, meta=key("victim"))
        more = await victim.call_tool("control.reset", {}, meta=key("victim-2"))
    assert after == 50_000 - 250
    assert refused == 10_000 - SessionLimits().keys_per_owner
    assert not more.is_error  # the flooder's share is its own; the server still has room


async def test_the_server_wide_limit_is_shared_fairly_between_connections(mini_env: Environment):
    limits = SessionLimits(keys_per_owner=5, max_keys=8)
    server = create_server(mini_env.bundle(), ServerOptions(control=True, session_limits=limits))
    async with Client(server, mode="legacy") as first, Client(server, mode="legacy") as second:
        for i in range(5):
            assert not (await first.call_tool("control.reset", {}, meta=key(f"a{i}"))).is_error
        await first.call_tool("transfer", TRANSFER, meta=key("a0"))  # a0 is now its most recent
        opened = [
            not (await second.call_tool("control.reset", {}, meta=key(f"b{i}"))).is_error for i in range(5)
        ]
        refusal = await second.call_tool("control.reset", {}, meta=key("b9"))
        more = await first.call_tool("control.reset", {}, meta=key("a9"))
        ended = await first.call_tool("get_account", ACC, meta=key("a1"))
        kept = await balance(first, meta=key("a0"))
        others = [await balance(first, meta=key(f"a{i}")) for i in (2, 3, 4)]
    # The second connection's share is 8 / 2: its fourth key ended the first's least recently
    # used one (a1); past its share it is refused, and so is the first at its share.
    assert opened == [True, True, True, True, False]
    assert "--max-session-keys" in text(refusal) and "fair share" in text(refusal)
    assert "--max-session-keys" in text(more) and "holds 4, its fair share" in text(more)
    assert ended.is_error and "not open on this connection" in text(ended)
    assert kept == 50_000 - 250 and others == [50_000] * 3


async def test_an_idle_key_expires_and_is_then_refused(mini_env: Environment):
    limits = SessionLimits(idle_seconds=1.0)
    server = create_server(mini_env.bundle(), ServerOptions(control=True, session_limits=limits))
    async with Client(server) as client:
        await client.call_tool("control.reset", {}, meta=key("busy"))
        await client.call_tool("control.reset", {}, meta=key("idle"))
        for _ in range(12):  # "busy" is used every 0.1 s, "idle" never
            await anyio.sleep(0.1)
            assert await balance(client, meta=key("busy")) == 50_000
        expired = await client.call_tool("get_account", ACC, meta=key("idle"))
    assert expired.is_error and "after 1 s without a request" in text(expired)


async def test_keys_of_a_closed_connection_are_released(mini_env: Environment):
    limits = SessionLimits(keys_per_owner=3, max_keys=3)
    server = create_server(mini_env.bundle(), ServerOptions(control=True, session_limits=limits))
    async with Client(server, mode="legacy") as first:
        for i in range(3):
            await first.call_tool("control.reset", {}, meta=key(f"k{i}"))
    gc.collect()
    async with Client(server, mode="legacy") as second:
        result = await second.call_tool("control.reset", {}, meta=key("k0"))
    assert not result.is_error, text(result)


async def test_keys_must_be_short_strings(mini_env: Environment):
    async with Client(create_server(mini_env.bundle(), ServerOptions(control=True))) as client:
        long = await client.call_tool("control.reset", {}, meta=key("x" * 257))
        number = await client.call_tool(
            "control.reset", {}, meta=cast(RequestParamsMeta, {SESSION_META_KEY: 7})
        )  # on purpose: not a string
    assert long.is_error and number.is_error and "1 to 256 characters" in text(number)
