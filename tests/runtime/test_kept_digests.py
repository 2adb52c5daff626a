"""Digests kept rather than taken again (issue 32): a row's digest kept by its values
(``state.values_digest``), the seed's table digests kept beside its image
(``cache.py``), and a reset of a session that changed nothing since the seed running no
statement that writes. Every hash is the one a full scan gives."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from envfactory_mcp.runtime import SessionDatabase, cache, state
from envfactory_mcp.runtime import database as database_module
from envfactory_mcp.runtime.database import build_seed_image
from envfactory_mcp.runtime.state import row_digest, state_hash, values_digest

SCHEMA = """
CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL, score ANY) STRICT, WITHOUT ROWID;
CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL REFERENCES users (id), body TEXT
);
"""
SEED = """
INSERT INTO users VALUES ('u1', 'Ann', 1), ('u2', 'Bob', 1.0), ('u3', 'Cy', NULL);
INSERT INTO notes (user_id, body) VALUES ('u1', 'a'), ('u2', 'b');
"""


@pytest.mark.parametrize(
    "values",
    [
        (1, "a", None),
        (1.0, "a", None),
        (True, "a", None),
        (0.0, "é", 2**70),
        (-0.0, "é", 2**70),
        (float("inf"), "x" * 5000, None),
        ("1", "", -1),
    ],
)
def test_a_kept_row_digest_is_the_rows_digest(values: tuple[Any, ...]) -> None:
    columns = ("a", "b", "c")
    expected = row_digest(dict(zip(columns, values, strict=True)))
    assert values_digest(columns, values) == expected
    assert values_digest(columns, values) == expected  # kept (or, when long, taken again)


def test_values_python_holds_equal_keep_their_own_digests() -> None:
    columns = ("v",)
    for a, b in [(1, 1.0), (0.0, -0.0), (1, True), (0, False)]:
        da, db = values_digest(columns, (a,)), values_digest(columns, (b,))
        assert (da, db) == (row_digest({"v": a}), row_digest({"v": b})) and da != db


def test_a_session_hash_after_writes_is_the_full_scans() -> None:
    session = SessionDatabase(build_seed_image(SCHEMA, SEED))
    db = session.db
    for step in range(3):  # the same rows written again hit the kept digests
        db.execute("UPDATE users SET score = ? WHERE id = 'u1'", (1.0 if step % 2 else 1,))
        db.execute("INSERT INTO notes (user_id, body) VALUES ('u3', 'new')")
        db.execute("UPDATE users SET score = -0.0 WHERE id = 'u3'")
        assert session.hash() == state_hash(db)
        session.reset()
        assert session.hash() == state_hash(db)


def test_a_reset_with_nothing_changed_writes_nothing() -> None:
    session = SessionDatabase(build_seed_image(SCHEMA, SEED))
    db = session.db
    seed_hash = session.hash()
    db.execute("SELECT * FROM notes").fetchall()  # reads change nothing
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    session.reset()
    db.set_trace_callback(None)
    # Not one statement that writes (the sqlite_sequence restore, a transaction) ran.
    assert not [s for s in statements if not s.lstrip().upper().startswith(("PRAGMA", "SELECT"))]
    assert session.hash() == seed_hash == state_hash(db)
    db.execute("INSERT INTO notes (user_id, body) VALUES ('u3', 'new')")
    session.reset()  # a change since: undone as before, sqlite_sequence with it
    assert session.hash() == seed_hash == state_hash(db)
    assert db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'notes'").fetchone() == (2,)


def test_a_server_start_reads_the_seeds_digests_kept_with_its_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = cache.seed_image(SCHEMA, SEED, folder=tmp_path)
    expected = SessionDatabase(built).hash()
    scans: list[bool] = []
    real = database_module.table_digests  # type: ignore[attr-defined]

    def counted(db: sqlite3.Connection) -> dict[str, int]:
        scans.append(True)
        return real(db)

    monkeypatch.setattr(database_module, "table_digests", counted)
    image = cache.seed_image(SCHEMA, SEED, folder=tmp_path)  # read back, with its digests
    assert image == built
    session = SessionDatabase(image)
    assert session.hash() == expected
    session.db.execute("UPDATE users SET name = 'Ann 2' WHERE id = 'u1'")
    session.reset()
    assert session.hash() == expected == state.state_hash(session.db)
    assert scans == []  # the seed was never scanned: its digests came with the image


def test_kept_digests_that_do_not_name_the_tables_are_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    image = build_seed_image(SCHEMA, SEED)
    expected = state_hash(SessionDatabase(image).db)
    copy = bytes(bytearray(image))  # another image object: a seed of its own in this process
    database_module.know_digests(copy, {"users": 1})
    assert SessionDatabase(copy).hash() == expected
