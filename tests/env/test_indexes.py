"""Secondary indexes chosen from the spec: named, deterministic, and a read by key does
not scan, so its cost does not grow with the state."""

from __future__ import annotations

import sqlite3

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env, schema_sql
from envfactory_mcp.env.ddl import index_columns


@pytest.mark.parametrize("name", ["retail", "airline", "banking", "telecom"])
def test_every_foreign_key_leads_an_index_or_the_primary_key(name: str):
    blueprint = load_blueprint(name)
    spec = blueprint.build_spec(blueprint.default_seed)
    ddl = schema_sql(spec)
    assert ddl == schema_sql(spec)  # deterministic
    db = sqlite3.connect(":memory:")
    db.executescript(ddl)
    for table in spec.tables:
        leading = {table.primary_key[0]}
        for (index,) in db.execute(f"SELECT name FROM pragma_index_list('{table.name}')"):
            first = db.execute(f"SELECT name FROM pragma_index_info('{index}') WHERE seqno = 0").fetchone()
            leading.add(first[0])
        for column in table.columns:
            if column.references:
                assert column.name in leading, f"{table.name}.{column.name} has no index"


def test_retail_indexes_are_named_and_chosen_from_the_spec():
    blueprint = load_blueprint("retail")
    spec = blueprint.build_spec(blueprint.default_seed)
    chosen = index_columns(spec)
    assert chosen["orders"] == [("user_id",)]
    assert chosen["payments"] == [("order_id",), ("payment_method_id",)]
    # find_user_id_by_name_zip looks users up by three plain values: an index on each.
    assert chosen["users"] == [("first_name",), ("last_name",), ("zip",)]
    assert "order_items" in chosen and ("order_id",) not in chosen["order_items"]  # leads the pk
    assert 'CREATE INDEX "idx_orders_user_id" ON "orders" ("user_id");' in schema_sql(spec)
    # A write tool's plain parameters (a new address) are values, not lookups.
    assert not any("address1" in index for indexes in chosen.values() for index in indexes)


def _steps(env, tool: str, args: dict) -> int:
    """SQLite VM steps (counted in 100s) that one call takes, independent of the machine."""
    session, toolbox = env.new_session(), env.toolbox()
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    toolbox.call(session.db, tool, args)  # warm: statement cache
    session.db.set_progress_handler(tick, 100)
    try:
        toolbox.call(session.db, tool, args)
    finally:
        session.db.set_progress_handler(None, 0)
    session.close()
    return count[0]


def test_a_read_by_key_does_not_grow_with_the_state():
    blueprint = load_blueprint("retail")
    small, large = build_env(blueprint), build_env(blueprint, scale=20)
    user = small.seed_state["users"][3]
    for tool, args in [
        ("get_user_details", {"user_id": user["user_id"]}),
        ("get_order_details", {"order_id": small.seed_state["orders"][5]["order_id"]}),
        ("find_user_id_by_name_zip", {k: user[k] for k in ("first_name", "last_name", "zip")}),
    ]:
        # A scan of the 20x tables would take hundreds of units; the clones of a user share
        # its name and zip, so the name lookup meets 20 rows where the seed has one.
        assert _steps(large, tool, args) <= _steps(small, tool, args) * 2 + 10, tool
