"""The logistics seed: deterministic, big enough, realistic, and internally consistent."""

from __future__ import annotations

import datetime
import math
import random
from collections import Counter, defaultdict

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.blueprints.logistics.spec_tables import (
    CLAIM_STATUSES,
    INVOICE_STATUSES,
    PICKUP_STATUSES,
    SHIPMENT_STATUSES,
    TIERS,
)
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.tasks.addresses import is_possible_address

TODAY = datetime.date(2026, 9, 16)
NOW = "2026-09-16T15:00:00Z"
DISCOUNT = {"standard": 0, "business": 10, "premier": 15}


@pytest.fixture(scope="module")
def logistics_env() -> Environment:
    return build_env(load_blueprint("logistics"))


@pytest.fixture(scope="module")
def state(logistics_env) -> dict:
    return logistics_env.seed_state


def test_same_seed_gives_identical_sql(logistics_env):
    blueprint = load_blueprint("logistics")
    assert blueprint.generate_seed(random.Random(5)) == blueprint.generate_seed(random.Random(5))
    again = build_env(blueprint, blueprint.default_seed)
    assert again.seed_sql == logistics_env.seed_sql
    assert again.seed_hash == logistics_env.seed_hash


def test_different_seed_gives_different_state():
    blueprint = load_blueprint("logistics")
    assert blueprint.generate_seed(random.Random(1)) != blueprint.generate_seed(random.Random(2))


def test_sizes_and_every_state_present(state):
    total = sum(len(rows) for rows in state.values())
    assert 1000 <= total <= 2500
    assert len(state["customers"]) >= 40 and len(state["shipments"]) >= 200
    assert {c["tier"] for c in state["customers"]} == set(TIERS)
    assert {c["account_status"] for c in state["customers"]} == {"active", "credit_hold"}
    assert {s["status"] for s in state["shipments"]} == set(SHIPMENT_STATUSES)
    assert {s["kind"] for s in state["shipments"]} == {"outbound", "return"}
    assert {p["status"] for p in state["pickups"]} == set(PICKUP_STATUSES)
    assert {c["status"] for c in state["claims"]} == set(CLAIM_STATUSES)
    assert {c["kind"] for c in state["claims"]} == {"lost", "damaged"}
    assert {i["status"] for i in state["invoices"]} == set(INVOICE_STATUSES)
    assert {c["kind"] for c in state["delivery_changes"]} == {"redirect", "hold_at_depot"}
    assert {s["service_id"] for s in state["shipments"]} == {s["service_id"] for s in state["services"]}
    assert any(a["country"] != "US" for a in state["addresses"])
    assert any(d["accepts_holds"] == 0 for d in state["depots"])
    assert any(c["card_on_file"] is None for c in state["customers"])
    assert Counter(s["insured"] for s in state["shipments"]).keys() == {0, 1}


def test_keys_are_unique_and_references_resolve(logistics_env, state):
    for table in logistics_env.spec.tables:
        keys = [tuple(r[k] for k in table.primary_key) for r in state[table.name]]
        assert len(keys) == len(set(keys)), table.name
        for column in table.columns:
            if column.references is None:
                continue
            target, target_column = column.references.split(".")
            known = {r[target_column] for r in state[target]}
            for r in state[table.name]:
                assert r[column.name] is None or r[column.name] in known, (table.name, column.name, r)


def test_addresses_are_real_and_belong_to_their_region(state):
    depots = {d["depot_id"]: d for d in state["depots"]}
    for a in state["addresses"]:
        if a["country"] == "US":
            assert is_possible_address(a["city"], a["state"], a["postal_code"]), a
            assert depots[a["depot_id"]]["region"] == a["region"]
        else:
            assert a["region"] is None and a["depot_id"] is None
    labels = [(a["customer_id"], a["label"]) for a in state["addresses"]]
    assert len(labels) == len(set(labels))


def test_shipments_fit_their_service_and_are_priced_by_the_rate_table(state):
    services = {s["service_id"]: s for s in state["services"]}
    rates = {(r["service_id"], r["zone"]): r for r in state["service_rates"]}
    addresses = {a["address_id"]: a for a in state["addresses"]}
    customers = {c["customer_id"]: c for c in state["customers"]}
    changes = {c["tracking_number"]: c for c in state["delivery_changes"]}
    caps = {"standard": 100000, "business": 500000, "premier": 1000000}
    for s in state["shipments"]:
        service = services[s["service_id"]]
        assert s["weight_kg"] <= service["max_weight_kg"]
        assert max(s["length_cm"], s["width_cm"], s["height_cm"]) <= service["max_length_cm"]
        assert s["length_cm"] + s["width_cm"] + s["height_cm"] <= service["max_size_cm"]
        tier = customers[s["customer_id"]]["tier"]
        assert s["declared_value_cents"] <= caps[tier]
        origin = addresses[s["from_address_id"]]
        # A redirect moved the recipient after pricing: price on the address the label was made for.
        to = (
            changes[s["tracking_number"]]["previous_address_id"]
            if s["tracking_number"] in changes
            else s["to_address_id"]
        )
        destination = addresses[to]
        assert origin["customer_id"] == destination["customer_id"] == s["customer_id"]
        abroad = destination["country"] != "US"
        assert bool(service["international"]) == abroad
        zone = 6 if abroad else 1 + abs(origin["region"] - destination["region"])
        kg = max(
            1, math.ceil(max(s["weight_kg"], s["length_cm"] * s["width_cm"] * s["height_cm"] / 5000) - 1e-9)
        )
        rate = rates[(s["service_id"], zone)]
        gross = rate["base_cents"] + rate["per_kg_cents"] * kg
        assert s["price_cents"] == gross - gross * DISCOUNT[tier] // 100, s
        if s["insured"]:
            assert s["insurance_cents"] == math.ceil(s["declared_value_cents"] / 10000) * 100


def test_statuses_follow_the_dates_and_events(state):
    events: dict[str, list[dict]] = defaultdict(list)
    for e in state["tracking_events"]:
        assert e["occurred_at"] <= NOW
        events[e["tracking_number"]].append(e)
    for s in state["shipments"]:
        own = sorted(events[s["tracking_number"]], key=lambda e: e["occurred_at"])
        assert own and own[0]["code"] == "label_created" and own[0]["occurred_at"] == s["created_at"]
        assert s["created_at"] <= NOW and s["ship_date"] <= s["estimated_delivery"]
        codes = [e["code"] for e in own]
        status = s["status"]
        if status == "label_created":
            assert s["ship_date"] >= TODAY.isoformat() or "picked_up" not in codes
        if status in ("picked_up", "in_transit"):
            assert "picked_up" in codes and s["estimated_delivery"] > TODAY.isoformat()
        if status == "out_for_delivery":
            assert s["estimated_delivery"] == TODAY.isoformat() and codes[-1] == "out_for_delivery"
        if status == "delivered":
            assert "delivered" in codes and s["delivered_at"] <= NOW
        if status == "lost":
            assert "exception" in codes
        if status == "cancelled":
            assert codes[-1] == "cancelled"
        if status == "held_at_depot":
            assert s["hold_depot_id"] is not None and "held_at_depot" in codes
        if s["kind"] == "return":
            original = next(x for x in state["shipments"] if x["tracking_number"] == s["return_of"])
            assert original["status"] == "delivered"
            assert original["delivered_at"] < s["created_at"]
            delivered = datetime.date.fromisoformat(original["delivered_at"][:10])
            assert datetime.date.fromisoformat(s["created_at"][:10]) <= delivered + datetime.timedelta(
                days=30
            )


def test_delivery_changes_respect_the_rules(state):
    shipments = {s["tracking_number"]: s for s in state["shipments"]}
    addresses = {a["address_id"]: a for a in state["addresses"]}
    depots = {d["depot_id"]: d for d in state["depots"]}
    assert len({c["tracking_number"] for c in state["delivery_changes"]}) == len(state["delivery_changes"])
    fees = {"standard": 900, "business": 600, "premier": 0}
    tiers = {c["customer_id"]: c["tier"] for c in state["customers"]}
    for c in state["delivery_changes"]:
        s = shipments[c["tracking_number"]]
        assert addresses[c["previous_address_id"]]["country"] == "US"
        assert c["created_at"] >= s["created_at"] and c["created_at"] <= NOW
        if c["kind"] == "redirect":
            assert s["to_address_id"] == c["new_address_id"] != c["previous_address_id"]
            assert addresses[c["new_address_id"]]["country"] == "US"
            assert c["fee_cents"] == fees[tiers[s["customer_id"]]]
        else:
            depot = depots[c["depot_id"]]
            assert s["hold_depot_id"] == c["depot_id"] and depot["accepts_holds"] == 1
            assert depot["region"] == addresses[s["to_address_id"]]["region"]


def test_pickups_on_business_days_within_capacity(state):
    depots = {d["depot_id"]: d for d in state["depots"]}
    addresses = {a["address_id"]: a for a in state["addresses"]}
    booked: Counter = Counter()
    per_address: Counter = Counter()
    for p in state["pickups"]:
        day = datetime.date.fromisoformat(p["pickup_date"])
        assert day.weekday() < 5
        assert addresses[p["address_id"]]["depot_id"] == p["depot_id"]
        assert addresses[p["address_id"]]["customer_id"] == p["customer_id"]
        assert p["created_at"][:10] <= p["pickup_date"] or p["status"] != "scheduled"
        if p["status"] == "scheduled":
            assert day >= TODAY
            booked[(p["depot_id"], p["pickup_date"])] += 1
            per_address[(p["address_id"], p["pickup_date"])] += 1
        else:
            assert p["status"] == "cancelled" or day < TODAY
    for (depot, _), n in booked.items():
        assert n <= depots[depot]["daily_pickup_capacity"]
    assert any(
        n == depots[d]["daily_pickup_capacity"] for (d, day), n in booked.items() if day > TODAY.isoformat()
    )
    assert max(per_address.values()) == 1


def test_claims_within_windows_and_limits(state):
    shipments = {s["tracking_number"]: s for s in state["shipments"]}
    open_per_shipment: Counter = Counter()
    for c in state["claims"]:
        s = shipments[c["tracking_number"]]
        assert c["customer_id"] == s["customer_id"]
        assert c["amount_cents"] <= s["declared_value_cents"]
        if not s["insured"]:
            assert c["amount_cents"] <= 10000
        filed = datetime.date.fromisoformat(c["filed_at"][:10])
        if c["kind"] == "damaged":
            assert s["status"] == "delivered"
            assert filed <= datetime.date.fromisoformat(s["delivered_at"][:10]) + datetime.timedelta(days=30)
        else:
            assert s["status"] == "lost"
            assert filed <= datetime.date.fromisoformat(s["ship_date"]) + datetime.timedelta(days=60)
        assert (c["decided_at"] is not None) == (c["status"] in ("approved", "denied", "paid"))
        if c["status"] != "withdrawn":
            open_per_shipment[c["tracking_number"]] += 1
    assert max(open_per_shipment.values()) == 1


def test_invoices_hold_every_charge_and_set_the_credit_hold(state):
    items: dict[str, list[dict]] = defaultdict(list)
    for i in state["invoice_items"]:
        items[i["invoice_id"]].append(i)
    invoices = {i["invoice_id"]: i for i in state["invoices"]}
    for s in state["shipments"]:
        charged = [
            (invoices[i["invoice_id"]]["period"], i["kind"], i["amount_cents"])
            for inv in items.values()
            for i in inv
            if i["tracking_number"] == s["tracking_number"] and i["kind"] in ("shipping", "return_label")
        ]
        assert charged == [
            (s["created_at"][:7], "shipping" if s["kind"] == "outbound" else "return_label", s["price_cents"])
        ]
    for c in state["customers"]:
        own = [i for i in state["invoices"] if i["customer_id"] == c["customer_id"]]
        assert sum(1 for i in own if i["status"] == "open") == 1
        overdue = [i for i in own if i["status"] == "overdue"]
        assert (c["account_status"] == "credit_hold") == bool(overdue)
        for i in overdue:
            assert i["due_date"] < TODAY.isoformat()
            assert any(x["kind"] == "late_fee" and x["amount_cents"] == 1500 for x in items[i["invoice_id"]])
        for i in own:
            assert sum(x["amount_cents"] for x in items[i["invoice_id"]]) >= 0
            if i["status"] == "paid":
                assert i["issued_at"] < i["paid_at"][:10] <= i["due_date"]
            if i["status"] == "issued":
                assert i["due_date"] >= TODAY.isoformat()
