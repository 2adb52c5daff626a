"""``scale_seed``: a seed repeated with fresh, consistent keys still satisfies its schema."""

from __future__ import annotations

import random

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env, scale_seed
from envfactory_mcp.errors import SeedError
from envfactory_mcp.spec import parse_spec


def _retail_parts():
    blueprint = load_blueprint("retail")
    spec = blueprint.build_spec(blueprint.default_seed)
    rows = blueprint.generate_seed(random.Random(blueprint.default_seed))
    return blueprint, spec, rows


def test_scaled_seed_repeats_every_row_with_fresh_consistent_keys():
    _, spec, rows = _retail_parts()
    scaled = scale_seed(spec, rows, 3)
    for name, table_rows in rows.items():
        assert len(scaled[name]) == 3 * len(table_rows)
        assert scaled[name][: len(table_rows)] == table_rows  # copy 0 is the seed itself
    order_ids = [o["order_id"] for o in scaled["orders"]]
    assert len(set(order_ids)) == len(order_ids)
    assert all(o.startswith("#W") and len(o) == 9 for o in order_ids)  # the GLOB shape holds
    emails = [u["email"] for u in scaled["users"]]
    assert len(set(emails)) == len(emails)
    users = {u["user_id"] for u in scaled["users"]}
    assert all(o["user_id"] in users for o in scaled["orders"])
    # A clone's order belongs to the clone of its user, not to a seed user.
    n = len(rows["orders"])
    seed_users = {u["user_id"] for u in rows["users"]}
    assert not any(o["user_id"] in seed_users for o in scaled["orders"][n:])
    assert scale_seed(spec, rows, 3) == scaled  # deterministic


def test_a_scaled_environment_builds_and_its_tools_work():
    blueprint, _, _ = _retail_parts()
    env = build_env(blueprint, scale=4)
    base = build_env(blueprint)
    assert sum(map(len, env.seed_state.values())) == 4 * sum(map(len, base.seed_state.values()))
    session, toolbox = env.new_session(), env.toolbox()
    clone = env.seed_state["users"][-1]["user_id"]
    out = toolbox.call(session.db, "get_user_details", {"user_id": clone})
    assert out.ok and out.output is not None and out.output["orders"], out


def test_scale_one_is_the_seed_and_below_one_is_refused():
    _, spec, rows = _retail_parts()
    assert scale_seed(spec, rows, 1) == rows
    with pytest.raises(SeedError):
        scale_seed(spec, rows, 0)


def test_integer_keys_are_offset_and_references_follow():
    import mini_env

    spec = parse_spec(mini_env.spec_dict())
    blueprint = mini_env.BLUEPRINT
    rows = blueprint.generate_seed(random.Random(blueprint.default_seed))
    scaled = scale_seed(spec, rows, 5)
    for table in spec.tables:
        pk = table.primary_key
        keys = [tuple(r[c] for c in pk) for r in scaled.get(table.name, [])]
        assert len(set(keys)) == len(keys), table.name
