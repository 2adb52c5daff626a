"""The telecom seed: deterministic, big enough, realistic, and internally consistent."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.tasks.addresses import is_possible_address


@pytest.fixture(scope="module")
def telecom_env() -> Environment:
    return build_env(load_blueprint("telecom"))


@pytest.fixture(scope="module")
def state(telecom_env) -> dict:
    return telecom_env.seed_state


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d * 2 > 9 else d * 2
        total += d
    return total % 10 == 0


def test_same_seed_gives_identical_sql(telecom_env):
    blueprint = load_blueprint("telecom")
    assert blueprint.generate_seed(random.Random(5)) == blueprint.generate_seed(random.Random(5))
    again = build_env(blueprint, blueprint.default_seed)
    assert again.seed_sql == telecom_env.seed_sql
    assert again.seed_hash == telecom_env.seed_hash


def test_different_seed_gives_different_state():
    blueprint = load_blueprint("telecom")
    assert blueprint.generate_seed(random.Random(1)) != blueprint.generate_seed(random.Random(2))


def test_sizes_and_every_state_present(state):
    total = sum(len(rows) for rows in state.values())
    assert 1500 <= total <= 2500
    assert len(state["customers"]) >= 60 and len(state["lines"]) >= 100
    assert Counter(x["status"] for x in state["lines"]).keys() == {"active", "suspended"}
    assert Counter(b["status"] for b in state["bills"]).keys() == {"open", "issued", "overdue", "paid"}
    assert set(Counter(t["status"] for t in state["tickets"])) == {
        "open",
        "in_progress",
        "resolved",
        "closed",
    }
    assert {o["status"] for o in state["outages"]} == {"active", "resolved"}
    assert {m["kind"] for m in state["payment_methods"]} == {"credit_card", "debit_card", "bank_account"}
    assert any(m["expires"] is not None and m["expires"] < "2026-06" for m in state["payment_methods"])
    assert any(p["data_mb"] is None for p in state["plans"]) and any(
        p["available"] == 0 for p in state["plans"]
    )
    assert any(m["in_stock"] == 0 for m in state["device_models"])


def test_keys_are_unique_and_references_resolve(telecom_env, state):
    for table in telecom_env.spec.tables:
        keys = [tuple(r[k] for k in table.primary_key) for r in state[table.name]]
        assert len(keys) == len(set(keys)), table.name
        for column in table.columns:
            if column.references is None:
                continue
            target, target_column = column.references.split(".")
            known = {r[target_column] for r in state[target]}
            for r in state[table.name]:
                assert r[column.name] is None or r[column.name] in known, (table.name, column.name, r)


def test_customers_are_real_looking_and_identifiable(state):
    customers = state["customers"]
    assert len({c["email"] for c in customers}) == len(customers)
    assert len({(c["first_name"], c["last_name"], c["date_of_birth"]) for c in customers}) == len(customers)
    for c in customers:
        assert is_possible_address(c["city"], c["state"], c["zip"]), c
        assert "1950-01-01" <= c["date_of_birth"] <= "2004-12-31"
    # Every customer can pay: at least one unexpired method.
    usable = {
        m["customer_id"]
        for m in state["payment_methods"]
        if m["expires"] is None or m["expires"] >= "2026-06"
    }
    assert usable == {c["customer_id"] for c in customers}


def test_lines_devices_and_labels(state):
    by_customer = defaultdict(list)
    for line in state["lines"]:
        by_customer[line["customer_id"]].append(line)
    assert set(by_customer) == {c["customer_id"] for c in state["customers"]}
    for lines in by_customer.values():
        labels = [x["label"] for x in lines]
        assert len(labels) == len(set(labels))
    in_use = Counter(d["phone_number"] for d in state["devices"] if d["status"] == "in_use")
    assert all(in_use[x["phone_number"]] == 1 for x in state["lines"])
    assert len({d["imei"] for d in state["devices"]}) == len(state["devices"])
    for d in state["devices"]:
        assert len(d["imei"]) == 15 and _luhn_ok(d["imei"]), d
        assert (d["monthly_installment_cents"] > 0) == (d["installment_balance_cents"] > 0)
        if d["status"] == "replaced":
            assert d["installment_balance_cents"] == 0
    plans = {p["plan_id"]: p for p in state["plans"]}
    for line in state["lines"]:
        if line["roaming_enabled"]:
            assert plans[line["plan_id"]]["roaming_included"] == 1
        if line["pending_plan_id"] is not None:
            assert plans[line["pending_plan_id"]]["available"] == 1
            assert line["pending_plan_id"] != line["plan_id"]


def test_suspensions_match_line_status_and_the_yearly_limit(state):
    open_ones = Counter(s["phone_number"] for s in state["suspensions"] if s["ended_at"] is None)
    this_year = Counter(s["phone_number"] for s in state["suspensions"] if s["started_at"].startswith("2026"))
    for line in state["lines"]:
        assert open_ones[line["phone_number"]] == (1 if line["status"] == "suspended" else 0)
        assert this_year[line["phone_number"]] <= 2
    assert any(n == 2 for n in this_year.values())
    for s in state["suspensions"]:
        assert s["ended_at"] is None or s["ended_at"] > s["started_at"]


def test_topups_respect_the_cycle_limit_and_plan(state):
    plans = {p["plan_id"]: p for p in state["plans"]}
    lines = {x["phone_number"]: x for x in state["lines"]}
    per_cycle = Counter((t["phone_number"], t["cycle"]) for t in state["data_topups"])
    assert max(per_cycle.values()) == 3
    for t in state["data_topups"]:
        plan = plans[lines[t["phone_number"]]["plan_id"]]
        assert plan["data_mb"] is not None
        assert t["price_cents"] == plan["topup_price_per_gb_cents"] * t["gigabytes"]


def test_bills_add_up(state):
    totals: dict[str, int] = defaultdict(int)
    for item in state["bill_items"]:
        totals[item["bill_id"]] += item["amount_cents"]
    paid: dict[str, int] = defaultdict(int)
    for p in state["payments"]:
        paid[p["bill_id"]] += p["amount_cents"]
    open_per_customer = Counter(b["customer_id"] for b in state["bills"] if b["status"] == "open")
    assert all(open_per_customer[c["customer_id"]] == 1 for c in state["customers"])
    methods = {m["payment_method_id"]: m for m in state["payment_methods"]}
    bills = {b["bill_id"]: b for b in state["bills"]}
    for bill in state["bills"]:
        bid = bill["bill_id"]
        assert totals[bid] > 0
        if bill["status"] == "paid":
            assert paid[bid] == totals[bid]
        else:
            assert paid[bid] < totals[bid]
        if bill["status"] == "open":
            assert paid[bid] == 0 and bill["issued_at"] is None
        fees = [i for i in state["bill_items"] if i["bill_id"] == bid and i["kind"] == "late_fee"]
        assert len(fees) == (1 if bill["status"] == "overdue" else 0)
        if bill["status"] == "overdue":
            assert bill["due_date"] < "2026-06-18"
        if bill["status"] == "issued":
            assert bill["due_date"] >= "2026-06-18"
    for p in state["payments"]:
        assert methods[p["payment_method_id"]]["customer_id"] == bills[p["bill_id"]]["customer_id"]
        assert p["created_at"] <= "2026-06-18T15:00:00Z"


def test_tickets_follow_the_workflow(state):
    open_keys = Counter(
        (t["phone_number"], t["category"]) for t in state["tickets"] if t["status"] in ("open", "in_progress")
    )
    assert max(open_keys.values()) == 1
    resolved = [t for t in state["tickets"] if t["status"] == "resolved"]
    assert any(t["resolved_at"] >= "2026-06-11" for t in resolved)
    assert any(t["resolved_at"] < "2026-06-11" for t in resolved)
    for t in state["tickets"]:
        assert t["created_at"] <= t["updated_at"] <= "2026-06-18T23:59:59Z"
        if t["status"] in ("open", "in_progress"):
            assert t["resolved_at"] is None


def test_some_customers_live_in_an_active_outage(state):
    zips = {o["zip"] for o in state["outages"] if o["status"] == "active"}
    assert any(c["zip"] in zips for c in state["customers"])
    for o in state["outages"]:
        assert o["started_at"] < o["expected_resolution"]
