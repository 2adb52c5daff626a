"""The session hash assembled from per-table fragments equals the full canonical hash."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.state import hash_fragments, hash_state, state_hash, table_fragment
from envfactory_mcp.tasks.generate import generate_tasks


def test_incremental_hash_matches_a_full_dump_after_every_call(retail_env: Environment):
    tasks, _ = generate_tasks(retail_env, 30, seed=4)
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
    # Not marked: the cached fragments are stale, but total_changes moved, so every table
    # is dumped again and the hash is the true one.
    assert session.hash() == state_hash(session.db) != retail_env.seed_hash


@given(
    st.dictionaries(
        st.text(alphabet="abcdefghij_", min_size=1, max_size=8),
        st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.integers(),
                    "name": st.text(max_size=12),
                    "price": st.none() | st.floats(allow_nan=False, allow_infinity=False),
                }
            ),
            max_size=5,
        ),
        max_size=5,
    )
)
def test_fragments_assemble_to_the_canonical_hash_of_any_state(state: dict):
    fragments = {table: table_fragment(rows) for table, rows in state.items()}
    assert hash_fragments(fragments) == hash_state(state)
