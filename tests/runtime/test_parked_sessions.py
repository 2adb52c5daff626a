"""Parked writing sessions (issue 19, point 4): an idle session that wrote keeps only the
rows it changed, and comes back with the same state, hash, rowids and AUTOINCREMENT
counters as a twin that was never parked; the store parks the least recently used past
its bounds, never one in the middle of a call."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from tool_calls import key

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime import (
    ServerOptions,
    SessionDatabase,
    build_seed_image,
    create_server,
)
from envfactory_mcp.runtime.database import HotSet
from envfactory_mcp.runtime.isolation import JailedTools, jail_problem
from envfactory_mcp.runtime.server import Bundle
from envfactory_mcp.runtime.sessions import SessionLimits, SessionStore
from envfactory_mcp.runtime.state import dump_state, state_hash

ROOT = Path(__file__).resolve().parents[2]

SCHEMA = """
CREATE TABLE parents (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, n INTEGER) STRICT, WITHOUT ROWID;
CREATE TABLE lines (
  parent TEXT NOT NULL REFERENCES parents (id) ON DELETE CASCADE ON UPDATE CASCADE,
  no INTEGER NOT NULL, v REAL, PRIMARY KEY (parent, no)
) STRICT, WITHOUT ROWID;
CREATE TABLE notes (body TEXT, weight REAL);
CREATE TABLE tags (id INTEGER PRIMARY KEY, tag TEXT UNIQUE);
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, parent TEXT REFERENCES parents (id), what TEXT);
CREATE TABLE codes (code TEXT PRIMARY KEY, used INTEGER);
"""
SEED = """
INSERT INTO parents VALUES ('p1', 'ann', 1), ('p2', 'bob', 2), ('p3', 'cy', NULL);
INSERT INTO lines VALUES ('p1', 1, 0.5), ('p1', 2, NULL), ('p2', 1, 1e300);
INSERT INTO notes VALUES ('a', 1.0), ('a', 1.0), (NULL, NULL);
INSERT INTO tags VALUES (1, 'x'), (2, 'y');
INSERT INTO events (parent, what) VALUES ('p1', 'ab'), ('p2', NULL);
INSERT INTO codes VALUES ('c1', 0), ('c2', 1);
"""
_IMAGE = build_seed_image(SCHEMA, SEED)

_ids = st.sampled_from(["p1", "p2", "p3", "p4", "p5"])
_names = st.sampled_from(["ann", "bob", "cy", "dee", "eve"])
_values = st.none() | st.integers(-3, 3) | st.floats(allow_nan=False, width=32) | st.text(max_size=3)
_ops = st.one_of(
    st.tuples(
        st.just("INSERT OR REPLACE INTO parents VALUES (?, ?, ?)"), st.tuples(_ids, _names, st.integers(0, 9))
    ),
    st.tuples(st.just("UPDATE parents SET id = ? WHERE id = ?"), st.tuples(_ids, _ids)),
    st.tuples(st.just("UPDATE OR REPLACE parents SET name = ? WHERE id = ?"), st.tuples(_names, _ids)),
    st.tuples(st.just("DELETE FROM parents WHERE id = ?"), st.tuples(_ids)),
    st.tuples(
        st.just("INSERT OR REPLACE INTO lines VALUES (?, ?, ?)"), st.tuples(_ids, st.integers(1, 3), _values)
    ),
    st.tuples(st.just("INSERT INTO notes VALUES (?, ?)"), st.tuples(_values, _values)),
    st.tuples(st.just("DELETE FROM notes WHERE rowid = (SELECT min(rowid) FROM notes)"), st.just(())),
    st.tuples(st.just("UPDATE notes SET body = ? WHERE body IS NOT NULL"), st.tuples(_values)),
    st.tuples(
        st.just("INSERT OR REPLACE INTO tags (id, tag) VALUES (?, ?)"), st.tuples(st.integers(1, 4), _names)
    ),
    st.tuples(
        st.just("INSERT INTO events (parent, what) VALUES (?, ?)"), st.tuples(_ids, st.text(max_size=3))
    ),
    st.tuples(st.just("DELETE FROM events WHERE id = (SELECT max(id) FROM events)"), st.just(())),
    st.tuples(st.just("REPLACE INTO codes VALUES (?, ?)"), st.tuples(st.sampled_from(["c1", "c3"]), _values)),
    st.tuples(st.just("DELETE FROM codes WHERE code = ?"), st.tuples(st.sampled_from(["c1", "c2", "c3"]))),
    st.tuples(st.just("HASH"), st.just(())),
    st.tuples(st.just("PARK"), st.just(())),
)


def _everything(db: sqlite3.Connection) -> Any:
    """The state, the rowids of the rowid tables and the AUTOINCREMENT counters."""
    return (
        dump_state(db),
        db.execute("SELECT rowid, * FROM notes ORDER BY rowid").fetchall(),
        db.execute("SELECT rowid, * FROM codes ORDER BY rowid").fetchall(),
        db.execute("SELECT * FROM sqlite_sequence ORDER BY name").fetchall(),
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(_ops, max_size=30))
def test_a_parked_session_comes_back_as_its_twin(ops):
    """Deletes, REPLACE, keys changed by UPDATE, cascades, rowid, WITHOUT ROWID and
    AUTOINCREMENT tables, parked at any point (some more than once): the state, the
    hash, the rowids and the next AUTOINCREMENT id equal those of a twin never parked."""
    parked, twin = SessionDatabase(_IMAGE), SessionDatabase(_IMAGE)
    for sql, params in ops:
        if sql == "HASH":
            assert parked.hash() == twin.hash()
            continue
        if sql == "PARK":
            before, holds_a_copy = parked.hash(), parked.copied and not parked.parked
            assert parked.park() == holds_a_copy  # nothing to park before a copy, or twice
            assert parked.hash() == before
            continue
        results = []
        for session in (parked, twin):
            try:
                session.db.execute(sql, params)
                results.append(True)
            except sqlite3.IntegrityError:
                results.append(False)
        assert results[0] == results[1]
    assert parked.hash() == twin.hash() == state_hash(parked.db) == state_hash(twin.db)
    assert _everything(parked.db) == _everything(twin.db)
    for session in (parked, twin):  # AUTOINCREMENT continues identically
        session.db.execute("INSERT INTO events (parent, what) VALUES (NULL, NULL)")
        session.db.execute("INSERT INTO notes VALUES ('new', 0)")
    assert _everything(parked.db) == _everything(twin.db)
    assert parked.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert parked.db.execute("PRAGMA foreign_key_check").fetchall() == []


def test_a_parked_session_costs_what_it_wrote():
    session = SessionDatabase(_IMAGE)
    session.db.execute("UPDATE parents SET n = 9 WHERE id = 'p1'")
    assert session.park() and len(session._parked or b"") < 1_000
    session.db.execute("DELETE FROM notes")  # unparked: its delta holds every row it touched
    session.park()
    assert session.dump()["notes"] == [] and session.dump()["parents"][0]["n"] == 9


def test_reset_of_a_parked_session_shares_the_seed_again():
    session = SessionDatabase(_IMAGE)
    seed_hash = session.hash()
    session.db.execute("DELETE FROM tags")
    assert session.park()
    session.reset()
    assert not session.copied and session.hash() == seed_hash == state_hash(session.reader())


def test_what_cannot_be_parked_is_left_alone(tmp_path: Path):
    """A file, a session after DDL, one reset to a given state, one in a call or in a
    transaction, and a seed with triggers of its own (no change logs) stay as they are."""
    on_file = SessionDatabase(_IMAGE, tmp_path / "state.db")
    moved = SessionDatabase(_IMAGE)
    moved.db.execute("CREATE TABLE extra (x)")
    restored = SessionDatabase(_IMAGE)
    restored.reset(dump_state(SessionDatabase(_IMAGE).reader()))
    busy, in_transaction = SessionDatabase(_IMAGE), SessionDatabase(_IMAGE)
    in_transaction.db.execute("BEGIN")
    triggers = SessionDatabase(
        build_seed_image(
            SCHEMA + "CREATE TRIGGER t AFTER INSERT ON tags BEGIN SELECT 1; END;", SEED, own_triggers=True
        )
    )
    triggers.db.execute("DELETE FROM tags")
    never_copied = SessionDatabase(_IMAGE)
    with busy.in_use():
        assert not busy.park()
    for session in (on_file, moved, restored, in_transaction, triggers, never_copied):
        assert not session.park() and not session.parked
    assert busy.park()
    on_file.close()


def test_the_hot_set_parks_the_least_recently_used_idle_session():
    hot = HotSet(2)
    a, b, c = (SessionDatabase(_IMAGE, hot=hot) for _ in range(3))
    for name, session in zip("abc", (a, b, c), strict=True):
        session.db.execute("INSERT INTO notes VALUES (?, 0)", (name,))
    assert a.parked and not b.parked and not c.parked and len(hot) == 2
    b.db  # noqa: B018 - a use makes b the most recent
    a.reader()  # a read unparks too, and c is now the least recent
    assert not a.parked and not b.parked and c.parked
    with b.in_use():  # b is in a call: c comes back at a's expense
        c.hash()  # answered from what was kept, without unparking
        assert c.parked
        c.db  # noqa: B018
        assert a.parked and not b.parked
    assert [s.dump()["notes"][-1]["body"] for s in (a, b, c)] == ["a", "b", "c"]
    del a
    assert len(hot) <= 2  # a session dropped leaves the set by itself


def test_a_budget_in_bytes_bounds_the_copies_of_a_large_seed():
    hot = HotSet(None, budget_bytes=3 * (len(_IMAGE) + HotSet.COPY_OVERHEAD))
    sessions = [SessionDatabase(_IMAGE, hot=hot) for _ in range(6)]
    for session in sessions:
        session.db.execute("DELETE FROM codes")
    assert [s.parked for s in sessions] == [True] * 3 + [False] * 3


def _retail_calls(env: Environment, tasks: list[Any], rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    calls = [(a.name, a.arguments) for task in tasks for a in task.gold.actions]
    users, orders = env.seed_state["users"], env.seed_state["orders"]
    for _ in range(20):
        user, order = rng.choice(users), rng.choice(orders)
        address = {k: user[k] for k in ("address1", "address2", "city", "state", "country", "zip")}
        address["city"] = rng.choice(["Springfield", "Shelbyville", user["city"]])
        calls.append(("modify_user_address", {"user_id": user["user_id"], **address}))
        calls.append(("modify_pending_order_address", {"order_id": order["order_id"], **address}))
        calls.append(("cancel_pending_order", {"order_id": order["order_id"], "reason": "no longer needed"}))
    rng.shuffle(calls)
    return calls


@pytest.mark.parametrize("seed", range(4))
def test_retail_sessions_parked_between_random_calls_match_their_twins(
    retail_env: Environment, retail_tasks: Any, seed: int
):
    rng = random.Random(seed)
    toolbox = retail_env.toolbox()
    parked, twin = retail_env.new_session(), retail_env.new_session()
    for name, arguments in _retail_calls(retail_env, retail_tasks(6, seed=5), rng):
        outcomes = [toolbox.call(s.db, name, arguments) for s in (parked, twin)]
        assert outcomes[0].ok == outcomes[1].ok and outcomes[0].output == outcomes[1].output
        if rng.random() < 0.3:
            before = parked.hash()
            assert parked.park() and parked.hash() == before == twin.hash()
    assert parked.hash() == twin.hash() == state_hash(parked.db)
    assert parked.dump() == twin.dump()


async def test_served_sessions_past_the_hot_bound_keep_their_state(mini_env: Environment):
    limits = SessionLimits(hot_sessions=3)
    server = create_server(mini_env.bundle(), ServerOptions(control=True, session_limits=limits))
    async with Client(server) as client:
        for i in range(10):
            await client.call_tool("control.reset", {}, meta=key(f"k{i}"))
            out = await client.call_tool(
                "transfer",
                {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": i + 1},
                meta=key(f"k{i}"),
            )
            assert not out.is_error, out.content
        for i in reversed(range(10)):  # reads of parked sessions see their own writes
            account = await client.call_tool("get_account", {"account_id": "acc_001"}, meta=key(f"k{i}"))
            assert account.structured_content["balance_cents"] == 50_000 - (i + 1)
            state = (await client.call_tool("control.state", {}, meta=key(f"k{i}"))).structured_content
            assert [t["amount_cents"] for t in state["state"]["transfers"]] == [i + 1]
            assert state["state_hash"] == state_hash_of(state["state"])


def state_hash_of(state: dict[str, Any]) -> str:
    from envfactory_mcp.runtime.state import hash_state

    return hash_state(state)


def test_the_store_gives_its_sessions_one_hot_set(mini_env: Environment):
    class Owner:
        pass

    store, owner = (
        SessionStore(mini_env.seed_image, keys_allowed=True, limits=SessionLimits(hot_sessions=1)),
        Owner(),
    )
    first, second = store.open(key("a"), owner).db, store.open(key("b"), owner).db
    first.db.execute("DELETE FROM transfers")
    second.db.execute("DELETE FROM transfers")
    assert first.parked and not second.parked and len(store.hot) == 1
    unbounded = SessionStore(mini_env.seed_image, limits=SessionLimits(hot_sessions=None, hot_megabytes=None))
    sessions = [unbounded.session(None, Owner(), write=True).db for _ in range(3)]
    for session in sessions:
        session.db.execute("DELETE FROM transfers")
    assert not any(s.parked for s in sessions)
    with pytest.raises(ValueError):
        SessionLimits(hot_sessions=0)


@pytest.mark.skipif(jail_problem() is not None, reason="no jail on this machine")
async def test_a_jailed_call_in_flight_is_never_parked(retail_env: Environment):
    """Jailed calls run in worker threads while other sessions' calls come in: with one
    hot session, every call of two busy sessions still succeeds and sees its own writes."""
    spec = retail_env.bundle().spec
    source = ROOT / "generated_servers" / "retail" / "retail_mcp" / "tools.py"
    jailed = JailedTools(source, [t["name"] for t in spec["tools"]])
    try:
        bundle = Bundle(spec, jailed, retail_env.bundle().schema_sql, retail_env.bundle().seed_sql)
        options = ServerOptions(control=True, session_limits=SessionLimits(hot_sessions=1))
        users = retail_env.seed_state["users"][:4]
        async with Client(create_server(bundle, options)) as client:

            async def episode(i: int) -> None:
                user = users[i]
                await client.call_tool("control.reset", {}, meta=key(f"j{i}"))
                for n in range(6):
                    args = {
                        k: user[k] for k in ("user_id", "address1", "address2", "state", "country", "zip")
                    }
                    out = await client.call_tool(
                        "modify_user_address", {**args, "city": f"City {i}-{n}"}, meta=key(f"j{i}")
                    )
                    assert not out.is_error, out.content
                    details = await client.call_tool(
                        "get_user_details", {"user_id": user["user_id"]}, meta=key(f"j{i}")
                    )
                    assert f"City {i}-{n}" in str(details.structured_content)

            async with anyio.create_task_group() as tg:
                for i in range(len(users)):
                    tg.start_soon(episode, i)
    finally:
        jailed.close()
