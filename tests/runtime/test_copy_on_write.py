"""Sessions copy the seed on first write: a session that only reads shares the seed's
read-only connection, and isolation holds exactly as with a copy per session."""

from __future__ import annotations

import sqlite3

import anyio
import pytest
from mcp import Client
from tool_calls import key

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime import ServerOptions, create_server
from envfactory_mcp.runtime.state import state_hash

TRANSFER = {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 250}


def test_reads_share_the_seed_and_the_first_write_copies_it(mini_env: Environment):
    toolbox = mini_env.toolbox()
    reader, writer = mini_env.new_session(), mini_env.new_session()
    out = toolbox.call(reader.reader(), "get_account", {"account_id": "acc_001"})
    assert out.ok and not reader.copied
    assert reader.hash() == mini_env.seed_hash and reader.dump() == mini_env.seed_state
    assert toolbox.call(writer.db, "transfer", TRANSFER).ok and writer.copied
    assert writer.reader() is writer.db  # from now on it reads its own copy
    assert writer.hash() == state_hash(writer.db) != mini_env.seed_hash
    reread = toolbox.call(reader.reader(), "get_account", {"account_id": "acc_001"}).output
    assert reread is not None and reread["balance_cents"] == 50_000
    connection = writer.db
    connection.set_progress_handler(lambda: 0, 1000)
    writer.reset()  # the seed reloaded into the same connection: what was set on it stays
    assert writer.db is connection and writer.hash() == mini_env.seed_hash == state_hash(connection)
    assert toolbox.call(writer.db, "transfer", TRANSFER).ok
    assert writer.hash() == state_hash(writer.db) != mini_env.seed_hash
    fresh = mini_env.new_session()
    fresh.reset()  # never copied: nothing to reload
    assert not fresh.copied and fresh.hash() == mini_env.seed_hash


def test_the_shared_seed_cannot_be_written(mini_env: Environment):
    """A read tool that writes is refused by its authorizer; even without one the shared
    connection is query_only, so no session can change what the others read."""
    toolbox, session = mini_env.toolbox(), mini_env.new_session()
    sneaky = toolbox.call(session.reader(), "sneaky_read", {"account_id": "acc_001"})
    assert not sneaky.ok and not session.copied
    with pytest.raises(sqlite3.OperationalError, match=r"readonly|query_only|attempt to write"):
        session.reader().execute("UPDATE accounts SET balance_cents = 0")
    assert state_hash(mini_env.new_session().reader()) == mini_env.seed_hash


def test_served_sessions_sharing_the_seed_stay_isolated(mini_env: Environment):
    server = create_server(mini_env.bundle(), ServerOptions(control=True))

    async def main() -> dict:
        async with Client(server) as client:
            for name in ("r", "w"):
                await client.call_tool("control.reset", {}, meta=key(name))
            await client.call_tool("get_account", {"account_id": "acc_001"}, meta=key("r"))
            await client.call_tool("transfer", TRANSFER, meta=key("w"))
            r = await client.call_tool("get_account", {"account_id": "acc_001"}, meta=key("r"))
            w = await client.call_tool("get_account", {"account_id": "acc_001"}, meta=key("w"))
            hashes = {n: await client.call_tool("control.state_hash", {}, meta=key(n)) for n in ("r", "w")}
            state = await client.call_tool("control.state", {}, meta=key("r"))
            await client.call_tool("control.reset", {}, meta=key("w"))
            after = await client.call_tool("control.state_hash", {}, meta=key("w"))
        return {"r": r, "w": w, "hashes": hashes, "state": state, "after": after}

    got = anyio.run(main)
    assert got["r"].structured_content["balance_cents"] == 50_000
    assert got["w"].structured_content["balance_cents"] == 50_000 - 250
    assert got["hashes"]["r"].structured_content["state_hash"] == mini_env.seed_hash
    assert got["hashes"]["w"].structured_content["state_hash"] != mini_env.seed_hash
    assert got["state"].structured_content["state"] == mini_env.seed_state
    assert got["after"].structured_content["state_hash"] == mini_env.seed_hash
