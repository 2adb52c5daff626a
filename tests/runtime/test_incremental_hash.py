"""The session hash kept from per-row digests of the rows each write touched equals the
hash of a full scan, on every path a write can take, and costs what changed."""

from __future__ import annotations

import random
import sqlite3
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import SessionDatabase, Toolbox, build_seed_image
from envfactory_mcp.runtime import database as database_module
from envfactory_mcp.runtime.state import dump_state, hash_state, state_hash


@pytest.mark.slow  # 30 tasks (the session's shared ones), then a full scan after every call
def test_incremental_hash_matches_a_full_dump_after_every_call(retail_env: Environment, retail_tasks):
    tasks = retail_tasks(30, seed=5)
    toolbox = retail_env.toolbox()
    session = retail_env.new_session()
    rng = random.Random(0)
    for task in tasks:
        session.reset()
        assert session.hash() == retail_env.seed_hash
        for action in task.gold.actions:
            outcome = toolbox.call(session.db, action.name, action.arguments)
            session.mark_written(outcome.written)
            assert session.hash() == state_hash(session.db)
            if rng.random() < 0.3:  # a failing write touches nothing it keeps
                failed = toolbox.call(
                    session.db,
                    "cancel_pending_order",
                    {"order_id": "#W0000000", "reason": "no longer needed"},
                )
                session.mark_written(failed.written)
                assert not failed.ok and session.hash() == state_hash(session.db)
        assert session.hash() == task.gold.final_state_hash


def test_a_write_the_server_was_not_told_about_is_still_seen(retail_env: Environment):
    session = retail_env.new_session()
    session.reset()
    session.db.execute("UPDATE users SET city = 'Nowhere' WHERE user_id = (SELECT min(user_id) FROM users)")
    # Not reported to the session: the triggers saw the row all the same.
    assert session.hash() == state_hash(session.db) != retail_env.seed_hash


SCHEMA = """
CREATE TABLE parents (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, n INTEGER) STRICT, WITHOUT ROWID;
CREATE TABLE lines (
  parent TEXT NOT NULL REFERENCES parents (id) ON DELETE CASCADE ON UPDATE CASCADE,
  no INTEGER NOT NULL, v REAL, PRIMARY KEY (parent, no)
) STRICT, WITHOUT ROWID;
CREATE TABLE notes (body TEXT, weight REAL);
CREATE TABLE tags (id INTEGER PRIMARY KEY, tag TEXT UNIQUE);
"""
SEED = """
INSERT INTO parents VALUES ('p1', 'ann', 1), ('p2', 'bob', 2), ('p3', 'cy', NULL);
INSERT INTO lines VALUES ('p1', 1, 0.5), ('p1', 2, NULL), ('p2', 1, 1e300);
INSERT INTO notes VALUES ('a', 1.0), ('a', 1.0), (NULL, NULL);
INSERT INTO tags VALUES (1, 'x'), (2, 'y');
"""

_ids = st.sampled_from(["p1", "p2", "p3", "p4", "p5"])
_names = st.sampled_from(["ann", "bob", "cy", "dee", "eve"])
_values = (
    st.none()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=3)
)
_ops = st.one_of(
    st.tuples(
        st.just("INSERT OR REPLACE INTO parents VALUES (?, ?, ?)"), st.tuples(_ids, _names, st.integers(0, 9))
    ),
    st.tuples(
        st.just("INSERT OR IGNORE INTO parents VALUES (?, ?, ?)"), st.tuples(_ids, _names, st.integers(0, 9))
    ),
    st.tuples(st.just("UPDATE parents SET id = ? WHERE id = ?"), st.tuples(_ids, _ids)),
    st.tuples(st.just("UPDATE OR REPLACE parents SET name = ? WHERE id = ?"), st.tuples(_names, _ids)),
    st.tuples(st.just("DELETE FROM parents WHERE id = ?"), st.tuples(_ids)),
    st.tuples(
        st.just("INSERT OR REPLACE INTO lines VALUES (?, ?, ?)"), st.tuples(_ids, st.integers(1, 3), _values)
    ),
    st.tuples(st.just("UPDATE lines SET no = no + 1 WHERE parent = ?"), st.tuples(_ids)),
    st.tuples(st.just("INSERT INTO notes VALUES (?, ?)"), st.tuples(_values, _values)),
    st.tuples(st.just("DELETE FROM notes WHERE rowid = (SELECT min(rowid) FROM notes)"), st.just(())),
    st.tuples(st.just("UPDATE notes SET body = ? WHERE body IS NOT NULL"), st.tuples(_values)),
    st.tuples(
        st.just("INSERT OR REPLACE INTO tags (id, tag) VALUES (?, ?)"), st.tuples(st.integers(1, 4), _names)
    ),
    st.tuples(st.just("DELETE FROM notes"), st.just(())),
    st.tuples(st.just("ROLLBACK-ONE"), st.tuples(_ids)),
    st.tuples(st.just("HASH"), st.just(())),
)
_IMAGE = build_seed_image(SCHEMA, SEED)


@settings(max_examples=150, deadline=None)
@given(st.lists(_ops, max_size=25))
def test_every_way_of_writing_is_seen(ops):
    """REPLACE (deleting another row), a key changed by UPDATE, cascades, rowid tables
    with equal rows, rolled-back statements and transactions: the kept hash is always
    the hash of a full scan, and of the dumped state."""
    session = SessionDatabase(_IMAGE)
    seed_hash = state_hash(session.db)
    assert session.hash() == seed_hash
    for sql, params in ops:
        if sql == "HASH":
            assert session.hash() == state_hash(session.db)
            continue
        if sql == "ROLLBACK-ONE":  # a whole call undone
            session.db.execute("BEGIN")
            session.db.execute("DELETE FROM parents WHERE id = ?", params)
            session.db.execute("INSERT INTO notes VALUES ('gone', 0)")
            session.db.execute("ROLLBACK")
            continue
        try:
            session.db.execute(sql, params)
        except sqlite3.IntegrityError:
            pass  # the statement is undone, and so is what its triggers recorded
    assert session.hash() == state_hash(session.db) == hash_state(dump_state(session.db))
    session.reset()
    assert session.hash() == seed_hash == state_hash(session.db)


def test_equal_states_reached_differently_have_equal_hashes():
    a, b = SessionDatabase(_IMAGE), SessionDatabase(_IMAGE)
    a.db.execute("UPDATE parents SET n = 7 WHERE id = 'p1'")
    a.hash()
    a.db.execute("UPDATE parents SET n = 1 WHERE id = 'p1'")
    a.db.execute("DELETE FROM tags WHERE id = 2")
    b.db.execute("INSERT OR REPLACE INTO tags VALUES (3, 'y')")  # deletes tag 2 on the way
    b.db.execute("DELETE FROM tags WHERE id = 3")
    assert a.hash() == b.hash() == state_hash(a.db)
    b.reset(dump_state(a.db))  # restored from a dump: same hash again
    assert b.hash() == a.hash()


def test_a_tool_cannot_touch_the_change_log(mini_env):
    """Only the tracking triggers may write the TEMP log; a tool that tries is refused
    (and so cannot hide a write from the hash)."""
    module = ModuleType("tamper_tools")
    exec(compile(mini_env.tools_source, "tamper.py", "exec"), module.__dict__)  # noqa: S102 - test code

    def transfer(ctx, from_account, to_account, amount_cents):
        ctx.execute("UPDATE accounts SET balance_cents = 0 WHERE account_id = ?", (from_account,))
        ctx.execute('DELETE FROM temp."_ef_was_0"')
        return {"transfer_id": "tr_0001"}

    module.__dict__["transfer"] = transfer
    toolbox = Toolbox(mini_env.bundle().spec, module)
    session = mini_env.new_session()
    out = toolbox.call(
        session.db, "transfer", {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 1}
    )
    assert not out.ok and out.internal and "_ef_was_0" in (out.error or "")
    assert session.hash() == mini_env.seed_hash == state_hash(session.db)


def test_schema_changed_under_the_session_falls_back_and_reset_restores_tracking():
    session = SessionDatabase(_IMAGE)
    session.db.execute("DROP TABLE notes")  # its triggers go with it
    assert session.hash() == state_hash(session.db)
    session.db.execute("DROP TABLE tags")  # no row changed, the schema did
    assert session.hash() == state_hash(session.db)
    session.reset()
    session.db.execute("INSERT INTO notes VALUES ('back', 2.0)")
    assert session.hash() == state_hash(session.db)


@pytest.fixture(scope="module")
def scaled_envs():
    blueprint = load_blueprint("retail")
    return build_env(blueprint), build_env(blueprint, scale=20)


def test_reset_and_hash_after_a_write_do_not_scan(scaled_envs, monkeypatch):
    """A reset takes the seed's hash as it is; a hash after a one-row write reads the
    rows it touched: the SQLite work is the same at 1x and at 20x."""
    steps = {}
    for label, env in zip(("1x", "20x"), scaled_envs, strict=True):
        toolbox, session = env.toolbox(), env.new_session()
        user = env.seed_state["users"][0]
        args = {k: user[k] for k in ("user_id", "address2", "city", "state", "country", "zip")}
        count = [0]

        def tick(count=count) -> int:
            count[0] += 1
            return 0

        with monkeypatch.context() as m:  # no full scan may happen on these paths
            m.setattr(database_module, "table_digests", _refuse)
            m.setattr(database_module, "state_hash", _refuse)
            session.reset()
            assert session.hash() == env.seed_hash
            out = toolbox.call(session.db, "modify_user_address", dict(args, address1="1 New St"))
            assert out.ok, out.error
            session.db.set_progress_handler(tick, 1)
            value = session.hash()
            session.db.set_progress_handler(None, 0)
        assert value == state_hash(session.db) != env.seed_hash
        steps[label] = count[0]
    assert steps["20x"] <= steps["1x"] * 1.5 + 50, steps


def _refuse(*_args, **_kwargs):
    raise AssertionError("a full scan of the state")


def test_a_file_backed_session_carries_no_change_logs(tmp_path):
    """The file is hashed by full scans; logs nobody empties would only grow in it."""
    session = SessionDatabase(_IMAGE, tmp_path / "state.db")
    names = [r[0] for r in session.db.execute("SELECT name FROM sqlite_schema WHERE name LIKE '%ef_was%'")]
    assert names == []
    session.db.execute("INSERT OR REPLACE INTO tags VALUES (3, 'x')")
    assert session.hash() == state_hash(session.db) == hash_state(dump_state(session.db))
    session.reset()
    assert session.hash() == SessionDatabase(_IMAGE).hash()
    session.close()


def test_the_change_logs_are_not_part_of_the_state():
    session = SessionDatabase(_IMAGE)
    session.db.execute("DELETE FROM notes")
    assert set(dump_state(session.db)) == {"lines", "notes", "parents", "tags"}
    assert session.db.execute("SELECT count(*) FROM _ef_was_1").fetchone()[0] == 3  # notes, logged
    session.hash()
    assert session.db.execute("SELECT count(*) FROM _ef_was_1").fetchone()[0] == 0  # emptied


def test_a_seed_with_triggers_of_its_own_is_hashed_by_full_scans():
    """Tracking would need recursive triggers, which would change what the schema's own
    triggers do: such a seed keeps SQLite's defaults and is hashed by scans."""
    schema = SCHEMA + "CREATE TRIGGER bump AFTER INSERT ON tags BEGIN UPDATE parents SET n = n + 1; END;"
    session = SessionDatabase(build_seed_image(schema, SEED, own_triggers=True))
    assert session.db.execute("PRAGMA recursive_triggers").fetchone()[0] == 0
    assert not [r for r in session.db.execute("SELECT name FROM sqlite_schema WHERE name LIKE '%ef_was%'")]
    session.db.execute("INSERT INTO tags VALUES (9, 'z')")
    assert session.hash() == state_hash(session.db) == hash_state(dump_state(session.db))
