"""What a reset and a hash run on a session's connection (issue 32, "close to the floor"):
a reset right after a hash (what a host does at the end of every episode) asks no change
log whether it holds entries, a reset of a session already at the seed runs nothing but
the schema cookie, the seed's rows an undo needs are read from the seed once per keys,
and a hash reads each written table's log once. Every state and hash stays the one a
full scan gives.
A control operation on a session nothing else is using runs without a pass of the event
loop. The state hash writes table names as ``json.dumps`` does."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest

from envfactory_mcp.runtime import database
from envfactory_mcp.runtime.database import SessionDatabase, build_seed_image
from envfactory_mcp.runtime.state import dump_state, hash_digests, state_hash

SCHEMA = """
CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE pets (
    pet_id TEXT PRIMARY KEY,
    owner_id INTEGER NOT NULL REFERENCES owners(id),
    name TEXT NOT NULL
) WITHOUT ROWID;
"""
SEED = """
INSERT INTO owners (id, name) VALUES (1, 'Ada'), (2, 'Bo');
INSERT INTO pets (pet_id, owner_id, name) VALUES ('p1', 1, 'Rex'), ('p2', 2, 'Tom');
"""


@pytest.fixture(scope="module")
def image() -> bytes:
    return build_seed_image(SCHEMA, SEED)


@contextmanager
def traced(db: sqlite3.Connection) -> Iterator[list[str]]:
    seen: list[str] = []
    db.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        db.set_trace_callback(None)


def write(db: sqlite3.Connection) -> None:
    db.execute("UPDATE owners SET name = 'Ada L.' WHERE id = 1")
    db.execute("UPDATE owners SET name = 'Ada M.' WHERE id = 1")  # a key logged twice
    db.execute("INSERT INTO owners (id, name) VALUES (3, 'Cy')")
    db.execute("DELETE FROM pets WHERE pet_id = 'p2'")
    db.execute("INSERT INTO pets (pet_id, owner_id, name) VALUES ('p3', 3, 'Kit')")
    db.execute("DELETE FROM pets WHERE pet_id = 'p3'")  # added and removed again


def probes(statements: list[str]) -> list[str]:
    return [s for s in statements if "LIMIT 1)" in s and database.TRACK_PREFIX in s]


def test_a_reset_after_a_hash_asks_no_log_and_undoes_everything(image: bytes):
    session = SessionDatabase(image)
    seed_hash, seed_state = session.hash(), session.dump()
    db = session.db
    write(db)
    assert session.hash() == state_hash(db) != seed_hash
    with traced(db) as statements:
        session.reset()
    assert statements and not probes(statements)
    assert session.hash() == seed_hash == state_hash(db)
    assert dump_state(db) == seed_state


def test_a_reset_with_writes_after_the_hash_still_asks_the_logs(image: bytes):
    session = SessionDatabase(image)
    seed_hash, seed_state = session.hash(), session.dump()
    db = session.db
    write(db)
    session.hash()
    db.execute("UPDATE pets SET name = 'Rexy' WHERE pet_id = 'p1'")  # after the hash: only in a log
    with traced(db) as statements:
        session.reset()
    assert probes(statements)
    assert session.hash() == seed_hash == state_hash(db)
    assert dump_state(db) == seed_state


def test_a_reset_of_a_session_at_the_seed_runs_only_the_cookie(image: bytes):
    session = SessionDatabase(image)
    db = session.db
    before = db.total_changes
    with traced(db) as statements:
        session.reset()
        session.reset()
    assert [s.split("\n")[0] for s in statements] == ["PRAGMA schema_version"] * 2
    assert db.total_changes == before
    assert session.hash() == state_hash(db)


def test_the_seed_rows_of_the_same_keys_are_read_once():
    image = build_seed_image(SCHEMA, SEED)  # a seed of its own: nothing read from it yet
    reader = database._seed(image).reader
    first, second = SessionDatabase(image), SessionDatabase(image)
    seed_state = first.dump()
    first.hash()  # the seed's digests, taken once on the reader
    with traced(reader) as statements:
        for session in (first, second, first):
            write(session.db)
            session.hash()
            session.reset()
            assert dump_state(session.db) == seed_state
            assert session.hash() == state_hash(session.db)
    reads = [s for s in statements if s.startswith("SELECT") and "IN (VALUES" in s]
    assert len(reads) == 2  # owners and pets, each once for the three undos


def test_a_hash_reads_each_written_log_once(image: bytes):
    session = SessionDatabase(image)
    db = session.db
    write(db)
    with traced(db) as statements:
        value = session.hash()
    assert value == state_hash(db)
    log = 'main."' + database.TRACK_PREFIX
    logs = [
        s
        for s in statements
        if s.startswith("SELECT") and s.split(" FROM ", 1)[1].startswith(log) and not probes([s])
    ]
    assert len(logs) == 2  # owners' log and pets' log, one read each
    assert session.changed_keys() == {"owners": {(1,), (3,)}, "pets": {("p2",), ("p3",)}}


def test_a_control_call_on_an_idle_session_does_not_yield_to_other_tasks():
    from pathlib import Path

    from envfactory_mcp.runtime.bundle import Bundle
    from envfactory_mcp.runtime.calls import Calls, ServerOptions

    servers = Path(__file__).resolve().parents[2] / "generated_servers"
    package = servers / "retail" / "retail_mcp"
    if not package.is_dir():
        pytest.skip("generated_servers/retail is not built")
    calls = Calls(Bundle.from_package(package, jailed=False), ServerOptions(control=True))

    class Owner:
        pass

    owner = Owner()
    meta = {"envfactory/session": "k"}

    async def main() -> list[str]:
        order: list[str] = []
        await calls.run_call("control.reset", {}, meta, owner)
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: _note(order, "other task"))
            outcome = await calls.run_call("control.state_hash", {}, meta, owner)
            assert outcome.ok
            order.append("control call done")
        return order

    assert anyio.run(main) == ["control call done", "other task"]


async def _note(order: list[str], what: str) -> None:
    order.append(what)


def test_hash_digests_writes_names_as_json_does():
    import hashlib
    import json

    from envfactory_mcp.runtime.state import _HEADER, DIGEST_MODULUS

    digests = {'caf\u00e9 "x"': 5, "a\\b": DIGEST_MODULUS + 7, "z": 0}
    text = _HEADER + "".join(
        f"{json.dumps(name, ensure_ascii=False)}:{digests[name] % DIGEST_MODULUS:0128x}\n"
        for name in sorted(digests)
    )
    for _ in range(2):  # the second time from what the first kept
        assert hash_digests(digests) == hashlib.sha256(text.encode("utf-8")).hexdigest()
