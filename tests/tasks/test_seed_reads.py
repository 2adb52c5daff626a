"""The seed's cheaper reads give what the plain ones gave (issue 32): the walk by hop
distance from each row's remembered links, remembered owner rows, a persona read up to
its first value (the row itself before any walk)."""

from __future__ import annotations

import random
from typing import Any

from envfactory_mcp.env import Environment
from envfactory_mcp.seeddata import ParamInfo, SeedData
from envfactory_mcp.tasks.oracle import Oracle


def plain_owner_row(data: SeedData, entity: str, value: Any) -> int | None:
    if entity not in data.owner:
        return None
    table = data.owner[entity][0]
    return next((i for i in data.by_value.get((entity, value), []) if data.rows[i][0] == table), None)


def test_owner_rows_remembered_are_those_read(retail_env: Environment) -> None:
    """Asked twice (and for values that name no row, or of an entity no table is named
    by), an owner row is the one a scan of the value's rows finds."""
    data = Oracle(retail_env, seed=0).data
    entities = [*sorted({e for cols in data.table_columns.values() for e in cols.values() if e}), "nothing"]
    rng = random.Random(5)
    for _ in range(2):
        for entity in entities:
            known = sorted(data.known(entity), key=repr) if entity in data.owner else []
            for value in [*rng.sample(known, min(5, len(known))), "x0"]:
                assert data.owner_row(entity, value) == plain_owner_row(data, entity, value), (entity, value)


def test_the_first_value_is_the_first_of_column_values(retail_env: Environment) -> None:
    data = Oracle(retail_env, seed=0).data
    entities = sorted({e for cols in data.table_columns.values() for e in cols.values() if e})
    rng = random.Random(8)
    for _ in range(400):
        rows = [rng.randrange(len(data.rows)) for _ in range(rng.choice([1, 3, 40]))]
        entity = rng.choice(entities)
        values = data.column_values(rows, ParamInfo("x", {}, True, entity))
        assert data.first_value(rows, entity) == (values[0] if values else None)


def plain_persona_of(oracle: Oracle, tool: str, args: dict[str, Any]) -> Any:
    """``Oracle._persona_of`` as it was: every level of the walk read whole."""
    entity = oracle.persona_entity
    assert entity is not None
    for param in oracle.params[tool]:
        if not param.entity or param.name not in args:
            continue
        value = args[param.name]
        value = value[0] if isinstance(value, list) and value else value
        if param.entity == entity:
            return value
        row = oracle.data.owner_row(param.entity, value)
        if row is None:
            continue
        for level in oracle.data.related(row, depth=2):
            owners = oracle.data.column_values(level, ParamInfo("", {}, True, entity))
            if owners:
                return owners[0]
    return None


def test_personas_are_those_of_the_whole_walk(retail_env: Environment) -> None:
    """The persona of a pooled call, read from the row itself before walking from it,
    is the one the whole walk gave; so for calls on objects no row of which names a user."""
    oracle = Oracle(retail_env, seed=0)
    calls = [
        (tool, args)
        for tool in ("cancel_pending_order", "get_product_details", "modify_user_address")
        for args in oracle.viable(tool)
    ]
    calls += [("get_order_details", {"order_id": "#W0000000"}), ("get_product_details", {"product_id": "0"})]
    # a call on each kind of object, by each of a few of its ids: the persona at any level
    rng = random.Random(2)
    for entity in sorted(oracle.data.owner):
        oracle.params[f"probe_{entity}"] = [ParamInfo("x", {}, True, entity)]
        known = sorted(oracle.data.known(entity), key=repr)
        calls += [(f"probe_{entity}", {"x": v}) for v in rng.sample(known, min(20, len(known)))]
    assert len(calls) > 150
    for tool, args in calls:
        assert oracle._persona_of(tool, args) == plain_persona_of(oracle, tool, args), (tool, args)


def test_the_persona_is_read_level_by_level_from_the_row_itself(retail_env: Environment) -> None:
    """The row's own persona comes first, then each level's first, nearest first: with the
    walk's levels set by hand, each answer is the plain reading's."""
    oracle = Oracle(retail_env, seed=0)
    data = oracle.data
    orders = data.by_table["orders"]
    products = data.by_table["products"]
    users = {i: data.rows[i][1]["user_id"] for i in orders}
    first, second = orders[0], next(i for i in orders if users[i] != users[orders[0]])
    walks = {
        first: [[first], [second]],  # an order names its user: the next level's is not read
        products[0]: [[products[0]], [first], [second]],  # a product names none: the next level's
        products[1]: [[products[1]], [products[2]], [second]],  # nor its neighbour: the farther one's
    }
    data.related = lambda row, depth=3, per_level=300: walks[row]  # type: ignore[method-assign, assignment]
    oracle.params["probe_order"] = [ParamInfo("x", {}, True, "order")]
    oracle.params["probe_product"] = [ParamInfo("x", {}, True, "product")]
    cases = [
        ("probe_order", data.rows[first][1]["order_id"], users[first]),
        ("probe_product", data.rows[products[0]][1]["product_id"], users[first]),
        ("probe_product", data.rows[products[1]][1]["product_id"], users[second]),
    ]
    for tool, value, user in cases:
        assert oracle._persona_of(tool, {"x": value}) == plain_persona_of(oracle, tool, {"x": value}) == user
