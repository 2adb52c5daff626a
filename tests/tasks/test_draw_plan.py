"""``valid_arguments`` reads each parameter list once (``SeedData.plan``) and makes a
farther level's values only when it draws from them (issue 32): the draws are those of
the plain procedure (``anchor_row``, then ``related_value`` per parameter), value for
value and random number for random number."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.seeddata import (
    _NONE,
    ParamInfo,
    SeedData,
    anchor_row,
    home_tables,
    record_row,
    related_value,
    tool_params,
    valid_arguments,
    value_from_schema,
)


def plain_valid_arguments(
    params: list[ParamInfo], data: SeedData, rng: random.Random, anchor: int | None = None
) -> dict[str, Any]:
    """``valid_arguments`` as it was: every parameter read again at each draw, through
    ``related_value``, whose next level is made to know that it is there."""
    if anchor is None:
        anchor = anchor_row(params, data, rng)
    levels = data.related(anchor) if anchor is not None else []
    args: dict[str, Any] = {}
    used: set[Any] = set()
    first_of_entity: dict[str, Any] = {}
    length = 1 if rng.random() < 0.7 else 2
    home = home_tables(params, data)
    record = record_row(params, levels, data, home, rng)
    for param in params:
        if not param.required and rng.random() < 0.5:
            continue
        if record is not None and not param.entity and param.name in data.rows[record][1]:
            value = data.rows[record][1][param.name]
            if data.fits(param.schema, value):
                args[param.name] = value
                continue
        near = levels
        if param.entity in first_of_entity:
            sibling = data.owner_row(param.entity, first_of_entity[param.entity])
            if sibling is not None:
                near = data.related(sibling, depth=2)[1:]
        value = related_value(param, near, data, rng, used, length, home)
        if value is _NONE:
            value = value_from_schema(param.schema, rng)
        args[param.name] = value
        if param.entity and param.entity not in first_of_entity and value not in (None, []):
            first_of_entity[param.entity] = value[0] if isinstance(value, list) else value
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str | int):
                used.add(v)
    for param in params:
        kinds = param.schema.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        value = args.get(param.name)
        if "boolean" in kinds and value in (0, 1) and not isinstance(value, bool):
            args[param.name] = bool(value)
        elif "array" in kinds and isinstance(value, str) and value.startswith("["):
            try:
                args[param.name] = json.loads(value)
            except ValueError:
                pass
    return args


@pytest.fixture(scope="module", params=["retail", "airline", "telecom"])
def env(request: pytest.FixtureRequest, retail_env: Environment) -> Environment:
    return retail_env if request.param == "retail" else build_env(load_blueprint(request.param))


def tools_of(env: Environment) -> tuple[dict[str, Any], dict[str, list[ParamInfo]]]:
    spec = json.loads(env.spec_text)
    return spec, {t["name"]: tool_params(t) for t in spec["tools"]}


def test_planned_draws_are_the_plain_draws(env: Environment) -> None:
    """Every tool's draws, from a fresh ``SeedData`` and anchored on rows across the data,
    equal the plain procedure's, and leave the random numbers where it leaves them."""
    spec, params = tools_of(env)
    planned, plain = SeedData(spec, env.seed_state), SeedData(spec, env.seed_state)
    for tool, ps in params.items():
        a, b = random.Random(f"plan:{tool}"), random.Random(f"plan:{tool}")
        for _ in range(400):
            assert valid_arguments(ps, planned, a) == plain_valid_arguments(ps, plain, b), tool
        for anchor in range(0, len(plain.rows), max(1, len(plain.rows) // 40)):
            assert valid_arguments(ps, planned, a, anchor) == plain_valid_arguments(ps, plain, b, anchor)
        assert a.getstate() == b.getstate(), tool


def test_a_plan_is_read_again_for_a_list_holding_other_parameters(retail_env: Environment) -> None:
    """A plan is kept per list while the list holds the same parameters: a list changed in
    place draws for what it holds now."""
    spec, params = tools_of(retail_env)
    data = SeedData(spec, retail_env.seed_state)
    ps = list(params["modify_pending_order_items"])
    valid_arguments(ps, data, random.Random(1))
    ps[:] = params["modify_user_address"]
    assert valid_arguments(ps, data, random.Random(2)) == plain_valid_arguments(
        params["modify_user_address"], SeedData(spec, retail_env.seed_state), random.Random(2)
    )


def test_farther_levels_are_made_only_when_drawn_from(retail_env: Environment) -> None:
    """The plain procedure made the level after the first pool at every draw (to know it
    was there); the plan reads only as many of its rows as it takes, so far fewer levels'
    values are made, and the same draws come out."""
    spec, params = tools_of(retail_env)
    made: dict[str, int] = {}
    for name, draw in (("plan", valid_arguments), ("plain", plain_valid_arguments)):
        data = SeedData(spec, retail_env.seed_state)
        count = 0
        fitting_values = data.fitting_values

        def counting(*args: Any, _inner: Any = fitting_values) -> list[Any]:
            nonlocal count
            count += 1
            result: list[Any] = _inner(*args)
            return result

        data.fitting_values = counting  # type: ignore[method-assign, assignment]
        rng = random.Random("levels")
        for _ in range(500):
            draw(params["exchange_delivered_order_items"], data, rng)
        made[name] = count
    assert made["plan"] < 0.75 * made["plain"], made


def test_a_level_whose_values_were_all_used_is_passed_over(env: Environment) -> None:
    """Whether a farther level has values is read without those already used in the call:
    a level holding only used values is passed over as ``related_value`` passes it over
    (no random number drawn for it), whatever the draw that follows."""
    spec, params = tools_of(env)
    planned, plain = SeedData(spec, env.seed_state), SeedData(spec, env.seed_state)
    for tool, ps in params.items():
        home = home_tables(ps, plain)
        plan = planned.plan(ps)
        for anchor in range(0, len(plain.rows), max(1, len(plain.rows) // 60)):
            levels = plain.related(anchor)
            for index, param in enumerate(ps):
                step = plan.steps[index]
                # the values of every level but the farthest, used: only the farthest is left
                used = {
                    v
                    for level in levels[:-1]
                    for v in plain.column_values(level, param, home)
                    if isinstance(v, str | int)
                }
                for length in (1, 2):
                    a, b = (
                        random.Random(f"{tool}:{anchor}:{length}"),
                        random.Random(f"{tool}:{anchor}:{length}"),
                    )
                    drawn = step.draw(planned.related(anchor), planned, a, set(used), length)
                    assert drawn == related_value(param, levels, plain, b, set(used), length, home), (
                        tool,
                        anchor,
                    )
                    assert a.getstate() == b.getstate(), (tool, anchor, param.name)
