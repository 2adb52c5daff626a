"""A reset keeps the session's compiled statements (issue 32): where no foreign key takes an
action, the changed rows go back to the seed's with the checks still on, since turning
them off is a PRAGMA that expires every compiled statement of the connection. Whatever
order of writes the episode made (a cycle, swapped unique values, a moved key), the state
after a reset is the seed's exactly: where the checked order cannot hold, the undo falls
back to the unchecked one. Real SQLite, the runtime's own session databases."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envfactory_mcp.runtime import SessionDatabase
from envfactory_mcp.runtime import database as database_module
from envfactory_mcp.runtime.database import Authority, build_seed_image

# Foreign keys with no action (NO ACTION, RESTRICT), a self-reference, a unique column
# other tables do not reference, a WITHOUT ROWID table with a two-column key.
SCHEMA = """
CREATE TABLE users (id TEXT PRIMARY KEY, email TEXT UNIQUE, name TEXT) STRICT, WITHOUT ROWID;
CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL REFERENCES users (id),
  reply_to INTEGER REFERENCES notes (id) ON DELETE RESTRICT, body TEXT
);
CREATE TABLE tags (label TEXT, note_id INTEGER REFERENCES notes (id));
CREATE TABLE grants (user_id TEXT REFERENCES users (id), scope TEXT, level INTEGER,
  PRIMARY KEY (user_id, scope)) WITHOUT ROWID;
"""
SEED = """
INSERT INTO users VALUES ('u1', 'a@x', 'Ann'), ('u2', 'b@x', 'Bob'), ('u3', 'c@x', 'Cy');
INSERT INTO notes (user_id, reply_to, body) VALUES ('u1', NULL, 'a'), ('u2', 1, 'b'), ('u2', 2, 'c');
INSERT INTO tags VALUES ('x', 1), ('y', 3);
INSERT INTO grants VALUES ('u1', 'read', 1), ('u2', 'write', 2);
"""
# The same tables where deleting a user cascades: the undo must turn the checks off.
CASCADING = SCHEMA.replace(
    "user_id TEXT NOT NULL REFERENCES users (id),",
    "user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,",
)


@pytest.fixture(scope="module")
def image() -> bytes:
    return build_seed_image(SCHEMA, SEED)


def state(db: Any) -> list[list[tuple[Any, ...]]]:
    return [
        db.execute(sql).fetchall()
        for sql in (
            "SELECT * FROM users ORDER BY id",
            "SELECT rowid, * FROM notes ORDER BY id",
            "SELECT rowid, * FROM tags ORDER BY rowid",
            "SELECT * FROM grants ORDER BY user_id, scope",
            "SELECT * FROM sqlite_sequence ORDER BY name",
        )
    ]


class Compiles:
    """Counts what the connections' authorizer is asked: a cached statement asks nothing."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.asked = 0
        judge = Authority.__call__

        def counted(authority: Authority, *args: Any) -> int:
            self.asked += 1
            return judge(authority, *args)

        monkeypatch.setattr(Authority, "__call__", counted)

    def of(self, db: sqlite3.Connection, sql: str) -> int:
        before = self.asked
        db.execute(sql).fetchall()
        return self.asked - before


QUERY = "SELECT n.body, u.name FROM notes n JOIN users u ON u.id = n.user_id ORDER BY n.id"


def episode(db: sqlite3.Connection) -> None:
    """Writes of every kind, each allowed by the checks at the time it runs."""
    db.execute("UPDATE users SET name = 'Ann 2' WHERE id = 'u1'")
    db.execute("INSERT INTO users VALUES ('u9', 'z@x', 'Zed')")
    db.execute("INSERT INTO notes (user_id, reply_to, body) VALUES ('u9', 2, 'new')")  # moves sqlite_sequence
    db.execute("INSERT INTO tags VALUES ('z', 4)")
    db.execute("DELETE FROM tags WHERE note_id = 3")
    db.execute("UPDATE notes SET reply_to = NULL WHERE id = 3")
    db.execute("DELETE FROM notes WHERE id = 3")  # a seed row gone; another refers to it after the undo
    db.execute("UPDATE grants SET level = 9 WHERE user_id = 'u1'")
    db.execute("DELETE FROM grants WHERE user_id = 'u2'")
    db.execute("INSERT INTO grants VALUES ('u9', 'read', 0)")


def test_a_reset_keeps_the_compiled_statements_and_reaches_the_seed(
    image: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiles = Compiles(monkeypatch)
    seed = SessionDatabase(image)
    seed_state, seed_hash = state(seed.db), seed.hash()
    session = SessionDatabase(image)
    db = session.db
    unchecked: list[bool] = []
    monkeypatch.setattr(database_module, "_undo_unchecked", lambda *a: unchecked.append(True))
    assert compiles.of(db, QUERY) > 0 and compiles.of(db, QUERY) == 0  # compiled once, then cached
    for _ in range(3):
        episode(db)
        assert session.hash() != seed_hash
        session.reset()
        assert state(db) == seed_state and session.hash() == seed_hash
        assert session.db is db and unchecked == []
        assert compiles.of(db, QUERY) == 0  # nothing expired by the reset


def test_where_a_foreign_key_cascades_the_undo_turns_the_checks_off(monkeypatch: pytest.MonkeyPatch) -> None:
    compiles = Compiles(monkeypatch)
    image = build_seed_image(CASCADING, SEED)
    seed = SessionDatabase(image)
    seed_state = state(seed.db)
    session = SessionDatabase(image)
    db = session.db
    compiles.of(db, QUERY)
    db.execute("DELETE FROM tags")
    db.execute("UPDATE notes SET reply_to = NULL")
    db.execute("DELETE FROM grants WHERE user_id = 'u2'")
    db.execute("DELETE FROM users WHERE id = 'u2'")  # cascades to u2's notes
    session.reset()
    assert state(db) == seed_state and session.hash() == seed.hash()
    assert compiles.of(db, QUERY) > 0  # the PRAGMA expired the statements


def test_an_order_the_checks_refuse_falls_back_to_the_unchecked_undo(
    image: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = SessionDatabase(image)
    seed_state, seed_hash = state(seed.db), seed.hash()
    session = SessionDatabase(image)
    db = session.db
    fallbacks: list[bool] = []
    unchecked = database_module._undo_unchecked

    def counted(*args: Any) -> None:
        fallbacks.append(True)
        unchecked(*args)

    monkeypatch.setattr(database_module, "_undo_unchecked", counted)
    # Swapped unique values: putting either row back first collides with the other.
    db.execute("UPDATE users SET email = 'tmp' WHERE id = 'u1'")
    db.execute("UPDATE users SET email = 'a@x' WHERE id = 'u2'")
    db.execute("UPDATE users SET email = 'b@x' WHERE id = 'u1'")
    session.reset()
    assert fallbacks == [True]
    assert state(db) == seed_state and session.hash() == seed_hash
    # A moved key and a new row under the old one.
    db.execute("UPDATE users SET id = 'u7' WHERE id = 'u3'")
    db.execute("INSERT INTO users VALUES ('u3', 'n@x', 'New')")
    db.execute("INSERT INTO notes (user_id, body) VALUES ('u7', 'moved')")
    session.reset()
    assert state(db) == seed_state and session.hash() == seed_hash


_ids = st.sampled_from(["u1", "u2", "u3", "u8", "u9"])
_notes = st.integers(1, 6)
_ops = st.one_of(
    st.tuples(
        st.just("INSERT INTO users VALUES (?, ?, ?)"),
        st.tuples(_ids, st.sampled_from(["a@x", "q@x", "r@x"]), st.text(max_size=2)),
    ),
    st.tuples(st.just("UPDATE users SET name = ? WHERE id = ?"), st.tuples(st.text(max_size=2), _ids)),
    st.tuples(
        st.just("UPDATE users SET email = ? WHERE id = ?"),
        st.tuples(st.sampled_from(["a@x", "b@x", "q@x"]), _ids),
    ),
    st.tuples(st.just("UPDATE users SET id = ? WHERE id = ?"), st.tuples(_ids, _ids)),
    st.tuples(st.just("DELETE FROM users WHERE id = ?"), st.tuples(_ids)),
    st.tuples(
        st.just("INSERT INTO notes (user_id, reply_to, body) VALUES (?, ?, ?)"),
        st.tuples(_ids, st.none() | _notes, st.text(max_size=2)),
    ),
    st.tuples(st.just("INSERT INTO notes (id, user_id, body) VALUES (?, ?, 'k')"), st.tuples(_notes, _ids)),
    st.tuples(st.just("UPDATE notes SET reply_to = ? WHERE id = ?"), st.tuples(st.none() | _notes, _notes)),
    st.tuples(st.just("UPDATE notes SET id = ? WHERE id = ?"), st.tuples(_notes, _notes)),
    st.tuples(st.just("DELETE FROM notes WHERE id = ?"), st.tuples(_notes)),
    st.tuples(st.just("INSERT INTO tags VALUES (?, ?)"), st.tuples(st.text(max_size=2), st.none() | _notes)),
    st.tuples(st.just("DELETE FROM tags WHERE note_id = ?"), st.tuples(_notes)),
    st.tuples(
        st.just("INSERT OR REPLACE INTO grants VALUES (?, ?, ?)"),
        st.tuples(_ids, st.sampled_from(["read", "write"]), st.integers(0, 3)),
    ),
    st.tuples(st.just("DELETE FROM grants WHERE user_id = ?"), st.tuples(_ids)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_ops, max_size=8), min_size=1, max_size=3))
def test_any_episode_is_undone_to_the_seed_exactly(
    image: bytes, episodes: list[list[tuple[str, tuple[Any, ...]]]]
) -> None:
    seed = SessionDatabase(image)
    seed_state, seed_hash = state(seed.db), seed.hash()
    session = SessionDatabase(image)
    db = session.db
    for ops in episodes:
        for sql, params in ops:
            try:
                db.execute(sql, params)
            except sqlite3.IntegrityError:
                pass  # the checks refused this write, as they would a tool's
        session.reset()
        assert state(db) == seed_state and session.hash() == seed_hash
        assert session.db is db
