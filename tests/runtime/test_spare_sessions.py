"""An ended key's database, reset to the seed, serves its owner's next new key.

A new key on a fresh copy of the seed pays the copy and a compile of every statement
it runs; an ended key's database undone to the seed keeps both. What the next key gets
must be exactly what ``control.reset`` gives: the seed state, and only ever to the owner
that ended it (the connection's counters are not reset, so they must not cross owners).
"""

from __future__ import annotations

import sqlite3

from tool_calls import key

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.database import SessionDatabase
from envfactory_mcp.runtime.sessions import SPARES_PER_OWNER, SessionStore


class Owner:
    """Stands in for a transport session (anything weak-referenceable)."""


def opened(store: SessionStore, name: str, owner: Owner) -> SessionDatabase:
    """``control.reset`` on a new key: the request opens it and is over."""
    session = store.open(key(name), owner)
    session.release()
    return session.db


def write_a_transfer(store: SessionStore, name: str, owner: Owner) -> sqlite3.Connection:
    """A write request on the key, over once it returns; its connection."""
    session = store.session(key(name), owner, write=True)
    db = session.db.db
    account = db.execute("SELECT account_id FROM accounts ORDER BY account_id LIMIT 1").fetchone()[0]
    db.execute("INSERT INTO transfers VALUES ('tr_spare', ?, ?, 1)", (account, account))
    db.execute("UPDATE accounts SET balance_cents = balance_cents - 1 WHERE account_id = ?", (account,))
    session.release()
    return db


def test_a_new_key_after_an_ended_one_starts_from_the_seed_on_its_connection(mini_env: Environment):
    store, owner = SessionStore(mini_env.seed_image, keys_allowed=True), Owner()
    first = opened(store, "a", owner)
    seed_hash, seed_state = first.hash(), first.dump()
    connection = write_a_transfer(store, "a", owner)
    assert first.hash() != seed_hash
    assert store.end(key("a"), owner) is True

    second = opened(store, "b", owner)
    assert second.hash() == seed_hash
    assert second.dump() == seed_state
    assert second.db is connection  # the warm connection, statements and all
    # The ended key stays ended, whatever became of its database.
    assert store.end(key("a"), owner) is False


def test_spares_never_go_to_another_owner(mini_env: Environment):
    store, mine, theirs = SessionStore(mini_env.seed_image, keys_allowed=True), Owner(), Owner()
    opened(store, "a", mine)
    ended = write_a_transfer(store, "a", mine)
    store.end(key("a"), mine)

    other = opened(store, "b", theirs).db
    assert other is not ended
    assert other.execute("SELECT last_insert_rowid(), total_changes()").fetchone() == (0, 0)


def test_an_owner_keeps_a_bounded_number_of_spares(mini_env: Environment):
    store, owner = SessionStore(mini_env.seed_image, keys_allowed=True), Owner()
    count = SPARES_PER_OWNER + 2
    connections = []
    for i in range(count):
        opened(store, f"k{i}", owner)
        connections.append(write_a_transfer(store, f"k{i}", owner))
    for i in range(count):
        store.end(key(f"k{i}"), owner)
    reused = [opened(store, f"n{i}", owner).db for i in range(count)]
    kept = [c for c in reused if any(c is old for old in connections)]
    assert len(kept) == SPARES_PER_OWNER


def test_a_key_with_a_request_in_flight_is_closed_not_kept(mini_env: Environment):
    store, owner = SessionStore(mini_env.seed_image, keys_allowed=True), Owner()
    opened(store, "a", owner)
    write_a_transfer(store, "a", owner)
    held = store.session(key("a"), owner, write=True)  # a call still running on it
    connection = held.db.db
    assert store.end(key("a"), owner) is True
    fresh = opened(store, "b", owner).db
    assert fresh is not connection
    # The call in flight still finishes on its own database; nobody else sees its write.
    assert fresh.execute("SELECT count(*) FROM transfers WHERE transfer_id = 'tr_spare'").fetchone() == (0,)
    held.release()
