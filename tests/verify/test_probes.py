"""Probe generation: deterministic, schema-valid where it claims to be, ids from the data."""

from __future__ import annotations

import json

import jsonschema
import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.spec import dump_spec
from envfactory_mcp.verify.probes import HOSTILE_STRINGS, ProbeBudget, ToolProber, probers


@pytest.fixture(scope="module")
def retail_probers(retail_env: Environment) -> dict[str, ToolProber]:
    spec = json.loads(dump_spec(retail_env.spec))
    return {p.name: p for p in probers(spec, retail_env.seed_state, seed=3)}


def first_valid(prober: ToolProber, n: int = 20) -> list[dict]:
    out = []
    for probe in prober.valid():
        out.append(probe)
        if len(out) == n:
            break
    return out


def test_same_seed_same_probes(retail_env: Environment):
    spec = json.loads(dump_spec(retail_env.spec))

    def everything(seed: int) -> list[dict]:
        found = []
        for prober in probers(spec, retail_env.seed_state, seed):
            valid = first_valid(prober, 10)
            found += valid + prober.others(valid[0]["arguments"] if valid else {})
        return found

    assert everything(5) == everything(5)
    assert everything(5) != everything(6)


def test_valid_probes_are_schema_valid_and_use_real_ids(
    retail_env: Environment, retail_probers: dict[str, ToolProber]
):
    orders = {o["order_id"]: o for o in retail_env.seed_state["orders"]}
    items = {i["item_id"] for i in retail_env.seed_state["items"]}
    tool = next(t for t in retail_env.spec.tools if t.name == "exchange_delivered_order_items")
    probes = first_valid(retail_probers["exchange_delivered_order_items"], 40)
    assert len(probes) == 40
    for probe in probes:
        jsonschema.validate(probe["arguments"], tool.input_schema)
        args = probe["arguments"]
        assert args["order_id"] in orders
        assert set(args["item_ids"]) <= items and set(args["new_item_ids"]) <= items
        assert len(args["item_ids"]) == len(args["new_item_ids"])  # parallel arrays get one length


def test_related_sampling_keeps_ids_consistent(
    retail_env: Environment, retail_probers: dict[str, ToolProber]
):
    """Most calls pair an order with its own items and its own user's payment methods."""
    lines = {(line["order_id"], line["item_id"]) for line in retail_env.seed_state["order_items"]}
    owner = {o["order_id"]: o["user_id"] for o in retail_env.seed_state["orders"]}
    method_owner = {m["payment_method_id"]: m["user_id"] for m in retail_env.seed_state["payment_methods"]}
    probes = first_valid(retail_probers["return_delivered_order_items"], 60)
    own_items = sum(
        all((p["arguments"]["order_id"], i) in lines for i in p["arguments"]["item_ids"]) for p in probes
    )
    own_methods = sum(
        method_owner[p["arguments"]["payment_method_id"]] == owner[p["arguments"]["order_id"]] for p in probes
    )
    assert own_items >= 40 and own_methods >= 40


def test_unknown_ids_look_real_but_are_in_no_row(
    retail_env: Environment, retail_probers: dict[str, ToolProber]
):
    orders = {o["order_id"] for o in retail_env.seed_state["orders"]}
    base = first_valid(retail_probers["get_order_details"], 1)[0]["arguments"]
    (unknown,) = [p for p in retail_probers["get_order_details"].others(base) if p["kind"] == "unknown_id"]
    value = unknown["arguments"]["order_id"]
    assert value not in orders and value.startswith("#W") and len(value) == 9


def test_invalid_and_hostile_probes_cover_each_parameter(retail_probers: dict[str, ToolProber]):
    prober = retail_probers["modify_user_address"]
    base = first_valid(prober, 1)[0]["arguments"]
    others = prober.others(base)
    kinds = {p["kind"] for p in others}
    assert {"boundary", "missing", "wrong_type", "unknown_id", "hostile"} <= kinds
    hostile_values = {
        v for p in others if p["kind"] == "hostile" for v in p["arguments"].values() if isinstance(v, str)
    }
    assert any("DROP TABLE" in v for v in hostile_values) and any(len(v) >= 10_000 for v in hostile_values)
    assert any("\x00" in v for v in hostile_values) and len(HOSTILE_STRINGS) >= 4
    missing = [p for p in others if p["kind"] == "missing"]
    assert all(len(p["arguments"]) == len(base) - 1 for p in missing)


def test_a_budget_bounds_the_attempts(retail_env: Environment):
    spec = json.loads(dump_spec(retail_env.spec))
    budget = ProbeBudget(valid_attempts=5, attempts_before_dead=7)
    prober = next(
        p for p in probers(spec, retail_env.seed_state, 0, budget) if p.name == "cancel_pending_order"
    )
    assert len(list(prober.valid())) == 7  # nothing reported a success: the larger allowance applies
    prober.succeeded = 1
    assert len(list(prober.valid())) == 5
