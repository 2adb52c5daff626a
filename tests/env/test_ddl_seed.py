"""Spec -> DDL enforces the declared constraints; seeding is deterministic and checked."""

from __future__ import annotations

import dataclasses
import random
import sqlite3

import mini_env
import pytest

from envfactory_mcp.env import build_env, schema_sql, seed_sql
from envfactory_mcp.errors import SeedError
from envfactory_mcp.spec import parse_spec


@pytest.fixture()
def db():
    spec = parse_spec(mini_env.spec_dict())
    conn = sqlite3.connect(":memory:")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.executescript(schema_sql(spec))
    conn.execute("INSERT INTO accounts VALUES ('acc_001', 'ada', 'checking', 10)")
    return conn


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("INSERT INTO accounts VALUES ('acc_002', 'bo', 'crypto', 1)", "CHECK constraint failed"),
        ("INSERT INTO accounts VALUES ('acc_002', 'bo', 'savings', -1)", "CHECK constraint failed"),
        ("INSERT INTO accounts VALUES ('acc_002', NULL, 'savings', 1)", "NOT NULL constraint failed"),
        (
            "INSERT INTO accounts VALUES ('acc_002', 'bo', 'savings', 'lots')",
            "cannot store TEXT value in INTEGER column",
        ),
        ("INSERT INTO transfers VALUES ('t1', 'acc_404', 'acc_001', 1)", "FOREIGN KEY constraint failed"),
        ("INSERT INTO accounts VALUES ('acc_001', 'dup', 'savings', 1)", "UNIQUE constraint failed"),
    ],
)
def test_schema_enforces_declared_constraints(db, sql, error):
    with pytest.raises(sqlite3.IntegrityError, match=error):
        db.execute(sql)


def test_same_seed_same_bytes_and_different_seed_different_bytes():
    a = build_env(mini_env.BLUEPRINT, seed=3)
    b = build_env(mini_env.BLUEPRINT, seed=3)
    c = build_env(mini_env.BLUEPRINT, seed=4)
    assert a.seed_sql == b.seed_sql and a.seed_image == b.seed_image and a.seed_hash == b.seed_hash
    assert a.seed_sql != c.seed_sql
    assert a.spec.seed.seed == 3


def test_seed_rows_are_rendered_parents_first_and_sorted():
    spec = parse_spec(mini_env.spec_dict())
    rows = mini_env.generate_seed(random.Random(0))
    rows["transfers"] = [
        {"transfer_id": "t2", "from_account": "acc_001", "to_account": "acc_002", "amount_cents": 1},
        {"transfer_id": "t1", "from_account": "acc_002", "to_account": "acc_001", "amount_cents": 2},
    ]
    rows["accounts"].reverse()
    text = seed_sql(spec, rows)
    lines = [line for line in text.splitlines() if line.startswith("INSERT")]
    assert lines[0].startswith('INSERT INTO "accounts"') and "'acc_001'" in lines[0]
    assert lines[-2].endswith("('t1', 'acc_002', 'acc_001', 2);")


def test_a_seed_that_breaks_a_foreign_key_is_rejected():
    def bad_seed(rng: random.Random):
        rows = mini_env.generate_seed(rng)
        rows["transfers"] = [
            {"transfer_id": "t", "from_account": "acc_404", "to_account": "acc_001", "amount_cents": 1}
        ]
        return rows

    with pytest.raises(SeedError, match="FOREIGN KEY constraint failed"):
        build_env(dataclasses.replace(mini_env.BLUEPRINT, generate_seed=bad_seed))


def test_a_seed_with_unknown_columns_or_tables_is_rejected():
    spec = parse_spec(mini_env.spec_dict())
    with pytest.raises(SeedError, match="unknown tables: ghosts"):
        seed_sql(spec, {"ghosts": [{}]})
    with pytest.raises(SeedError, match=r"accounts row 0: unknown columns \['pin'\]"):
        seed_sql(spec, {"accounts": [{"account_id": "a", "pin": 1}]})
