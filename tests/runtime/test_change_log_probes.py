"""Which change logs hold entries is asked in one statement per ``_PROBED`` tables
(issue 32: a statement per table was most of a hash after one write). A schema with more
tables than one probe covers must hash and reset exactly as full scans say, whichever
tables were written, on either side of a probe's edge."""

from __future__ import annotations

import pytest

from envfactory_mcp.runtime import database
from envfactory_mcp.runtime.database import SessionDatabase, build_seed_image
from envfactory_mcp.runtime.state import dump_state, state_hash

TABLES = database._PROBED + 44  # two probes, the second partly filled


def name(i: int) -> str:
    return f"t{i:04d}"


@pytest.fixture(scope="module")
def image() -> bytes:
    # Tables are tracked in name order: zero-padded names keep it the numbers' order.
    schema = "".join(
        f"CREATE TABLE {name(i)} (id INTEGER PRIMARY KEY, v TEXT NOT NULL);\n" for i in range(TABLES)
    )
    seed = "".join(f"INSERT INTO {name(i)} (id, v) VALUES (1, 'seed {i}');\n" for i in range(TABLES))
    return build_seed_image(schema, seed)


@pytest.mark.parametrize(
    "written",
    [
        [0],
        [database._PROBED - 1],
        [database._PROBED],
        [TABLES - 1],
        [0, database._PROBED - 1, database._PROBED, TABLES - 1],
    ],
)
def test_writes_anywhere_hash_as_a_full_scan_does_and_reset_undoes_them(image: bytes, written: list[int]):
    session = SessionDatabase(image)
    seed_hash, seed_state = session.hash(), session.dump()
    db = session.db
    for i in written:
        db.execute(f"UPDATE {name(i)} SET v = 'changed' WHERE id = 1")
        db.execute(f"INSERT INTO {name(i)} (id, v) VALUES (2, 'added')")
    assert session.hash() == state_hash(db) != seed_hash
    assert session.changed_keys() == {name(i): {(1,), (2,)} for i in written}
    session.reset()
    assert session.hash() == seed_hash == state_hash(session.db)
    assert dump_state(session.db) == seed_state
