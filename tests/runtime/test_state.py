"""Canonical state, hash, diff and restore behave exactly as the architecture page defines."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envfactory_mcp.env import Environment, canonical_json, diff_states, dump_state, hash_state
from envfactory_mcp.runtime import SessionDatabase, restore_state
from envfactory_mcp.runtime.state import STATE_HASH_VERSION


def test_canonical_json_is_sorted_compact_json(mini_env: Environment):
    state = mini_env.seed_state
    text = json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(state) == text
    ids = [r["account_id"] for r in state["accounts"]]
    assert ids == sorted(ids)


def test_hash_is_the_versioned_definition_over_per_row_digests(mini_env: Environment):
    """Hash v2, written out independently of the code: SHA-256 over a header and, per
    table in name order, the sum mod 2**512 of SHA-512 digests of its rows' compact JSON."""
    state = mini_env.seed_state
    assert STATE_HASH_VERSION == 2
    lines = ["envfactory-mcp state hash v2\n"]
    for table in sorted(state):
        total = 0
        for row in state[table]:
            text = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            total += int.from_bytes(hashlib.sha512(text.encode()).digest(), "big")
        lines.append(f"{json.dumps(table)}:{total % 2**512:0128x}\n")
    expected = hashlib.sha256("".join(lines).encode()).hexdigest()
    assert hash_state(state) == expected == mini_env.seed_hash
    # Row order does not matter; a row moved to another table does.
    shuffled = {table: list(reversed(rows)) for table, rows in state.items()}
    assert hash_state(shuffled) == expected
    moved = {"accounts": [], "other": state["accounts"]} | {k: v for k, v in state.items() if k != "accounts"}
    assert hash_state(moved) != expected
    # Duplicates count (a rowid table may hold equal rows twice).
    doubled = dict(state, accounts=state["accounts"] + state["accounts"][:1])
    assert hash_state(doubled) != expected


def test_diff_lists_inserted_deleted_and_updated_rows(mini_env: Environment):
    before = mini_env.seed_state
    after = json.loads(json.dumps(before))
    after["accounts"][0]["balance_cents"] += 5
    deleted = after["accounts"].pop()
    after["transfers"].append(
        {"transfer_id": "t1", "from_account": "acc_001", "to_account": "acc_002", "amount_cents": 5}
    )
    diff = diff_states(before, after, mini_env.primary_keys)
    assert diff["accounts"]["deleted"] == [deleted]
    assert diff["accounts"]["inserted"] == []
    assert diff["accounts"]["updated"] == [
        {
            "key": {"account_id": "acc_001"},
            "before": {"balance_cents": before["accounts"][0]["balance_cents"]},
            "after": {"balance_cents": before["accounts"][0]["balance_cents"] + 5},
        }
    ]
    assert diff["transfers"]["inserted"][0]["transfer_id"] == "t1"
    assert diff_states(before, before, mini_env.primary_keys) == {}


def test_reset_restores_the_seed_hash_exactly(mini_env: Environment):
    session = mini_env.new_session()
    session.db.execute("UPDATE accounts SET balance_cents = 1")
    assert session.hash() != mini_env.seed_hash
    session.reset()
    assert session.hash() == mini_env.seed_hash
    assert session.db.execute("PRAGMA foreign_keys").fetchone() == (1,)


def test_restore_to_a_given_state_and_reject_a_state_that_breaks_the_schema(mini_env: Environment):
    session = mini_env.new_session()
    target = json.loads(json.dumps(mini_env.seed_state))
    target["accounts"] = target["accounts"][:3]
    session.reset(target)
    assert dump_state(session.db) == target
    bad = {
        "accounts": target["accounts"],
        "transfers": [
            {"transfer_id": "t", "from_account": "acc_404", "to_account": "acc_001", "amount_cents": 1}
        ],
    }
    with pytest.raises(ValueError, match="does not fit the schema"):
        session.reset(bad)
    assert dump_state(session.db) == target
    with pytest.raises(ValueError, match="unknown tables in state: nope"):
        restore_state(session.db, {"nope": []})


def test_file_backed_session_persists_across_reopen(mini_env: Environment, tmp_path):
    path = tmp_path / "bank.sqlite"
    first = SessionDatabase(mini_env.seed_image, path)
    assert first.hash() == mini_env.seed_hash
    mini_env.toolbox().call(
        first.db, "transfer", {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 7}
    )
    changed = first.hash()
    first.close()
    second = SessionDatabase(mini_env.seed_image, path)
    assert second.hash() == changed != mini_env.seed_hash
    second.reset()
    assert second.hash() == mini_env.seed_hash
    second.close()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=10), min_size=1, max_size=6), st.integers(0, 10_000))
def test_hash_equality_is_state_equality(mini_env: Environment, picks, amount):
    """Two sessions given the same updates agree on the hash; any real change moves it."""
    a, b = mini_env.new_session(), mini_env.new_session()
    for db in (a.db, b.db):
        for i in picks:
            db.execute("UPDATE accounts SET balance_cents = ? WHERE account_id = ?", (amount, f"acc_{i:03d}"))
    assert a.hash() == b.hash()
    changed = any(
        r["balance_cents"] != amount
        for r in mini_env.seed_state["accounts"]
        if int(r["account_id"][4:]) in picks
    )
    assert (a.hash() != mini_env.seed_hash) == changed
