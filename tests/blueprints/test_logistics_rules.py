"""Logistics business rules: every rule a tool enforces is refused cleanly (state untouched), and
the happy paths change exactly what they should (money in cents, dates from the clock)."""

from __future__ import annotations

import datetime
import math
from collections import defaultdict
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import Toolbox, dump_state, state_hash

TODAY = datetime.date(2026, 9, 16)
NOW = "2026-09-16T15:00:00Z"
DISCOUNT = {"standard": 0, "business": 10, "premier": 15}

# --------------------------------------------------------------------------- helpers


class Seed:
    """Indexes over the seed state, for finding rows that fit a test."""

    def __init__(self, state: dict[str, list[dict[str, Any]]]) -> None:
        self.state = state
        self.customers = {c["customer_id"]: c for c in state["customers"]}
        self.addresses = {a["address_id"]: a for a in state["addresses"]}
        self.depots = {d["depot_id"]: d for d in state["depots"]}
        self.services = {s["service_id"]: s for s in state["services"]}
        self.rates = {(r["service_id"], r["zone"]): r for r in state["service_rates"]}
        self.book: dict[str, list[dict]] = defaultdict(list)
        for a in state["addresses"]:
            self.book[a["customer_id"]].append(a)
        self.changed = {c["tracking_number"] for c in state["delivery_changes"]}
        self.claimed = {c["tracking_number"] for c in state["claims"] if c["status"] != "withdrawn"}
        self.returned = {s["return_of"] for s in state["shipments"] if s["return_of"]}

    def domestic(self, customer_id: str) -> list[dict]:
        return [a for a in self.book[customer_id] if a["country"] == "US"]

    def abroad(self, address_id: str) -> bool:
        return self.addresses[address_id]["country"] != "US"

    def shipment(self, want=lambda s: True, **fields: Any) -> dict:
        found = [s for s in self.state["shipments"] if all(s[k] == v for k, v in fields.items()) and want(s)]
        if not found:
            pytest.fail(f"the seed has no shipment with {fields} that fits")
        return found[0]

    def customer(self, want=lambda c: True, **fields: Any) -> dict:
        found = [c for c in self.state["customers"] if all(c[k] == v for k, v in fields.items()) and want(c)]
        if not found:
            pytest.fail(f"the seed has no customer with {fields} that fits")
        return found[0]

    def changeable(self, s: dict) -> bool:
        return (
            s["tracking_number"] not in self.changed
            and not self.abroad(s["to_address_id"])
            and not self.abroad(s["from_address_id"])
        )

    def zone(self, a: str, b: str) -> int:
        ra, rb = self.addresses[a]["region"], self.addresses[b]["region"]
        return 6 if ra is None or rb is None else 1 + abs(ra - rb)

    def price(self, service_id: str, zone: int, kg: int, tier: str) -> int:
        rate = self.rates[(service_id, zone)]
        gross = rate["base_cents"] + rate["per_kg_cents"] * kg
        return gross - gross * DISCOUNT[tier] // 100

    def open_invoice(self, customer_id: str) -> dict:
        return next(
            i for i in self.state["invoices"] if i["customer_id"] == customer_id and i["status"] == "open"
        )


class Desk:
    """One session's database and the toolbox, with assertions around each call."""

    def __init__(self, toolbox: Toolbox, db) -> None:
        self.toolbox, self.db = toolbox, db

    def refused(self, tool: str, phrase: str, **args: Any) -> str:
        """The call fails as a request error mentioning phrase, and the state is untouched."""
        before = state_hash(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok is False, out
        assert out.internal is False, out.error
        assert out.error is not None
        assert phrase.lower() in out.error.lower(), out.error
        assert state_hash(self.db) == before
        return out.error

    def ok(self, tool: str, **args: Any) -> tuple[dict, dict, dict]:
        """A successful call that changes only declared tables. Returns (output, state before, state after)."""
        before = dump_state(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok, out.error
        assert out.output is not None
        after = dump_state(self.db)
        changed = {t for t in before if before[t] != after[t]}
        assert changed <= self.toolbox.tools[tool].writes, (tool, changed)
        return out.output, before, after

    def sql(self, statement: str, params: tuple = ()) -> None:
        """Test set-up outside the tools."""
        self.db.execute(statement, params)


def new_rows(before: dict, after: dict, table: str) -> list[dict]:
    old = [repr(sorted(r.items())) for r in before[table]]
    return [r for r in after[table] if repr(sorted(r.items())) not in old]


def row(state: dict, table: str, key: str, value: Any) -> dict:
    return next(r for r in state[table] if r[key] == value)


def changed_tables(before: dict, after: dict) -> set[str]:
    return {t for t in before if before[t] != after[t]}


@pytest.fixture(scope="module")
def logistics_env() -> Environment:
    return build_env(load_blueprint("logistics"))


@pytest.fixture(scope="module")
def seed(logistics_env) -> Seed:
    return Seed(logistics_env.seed_state)


@pytest.fixture(scope="module")
def toolbox(logistics_env) -> Toolbox:
    return logistics_env.toolbox()


@pytest.fixture
def desk(logistics_env, toolbox):
    session = logistics_env.new_session()
    yield Desk(toolbox, session.db)
    session.close()


def _shipper(seed: Seed, status: str = "active", abroad: bool = False) -> tuple[dict, dict, dict]:
    """An account with two domestic addresses (and one abroad when asked): (customer, from, to)."""
    for c in seed.state["customers"]:
        if c["account_status"] != status:
            continue
        domestic = seed.domestic(c["customer_id"])
        foreign = [a for a in seed.book[c["customer_id"]] if a["country"] != "US"]
        if len(domestic) >= 2 and (foreign or not abroad):
            return c, domestic[0], foreign[0] if abroad else domestic[1]
    pytest.fail("the seed has no account that fits")


def _parcel(**overrides: Any) -> dict:
    args = {
        "contents": "books",
        "weight_kg": 2.4,
        "length_cm": 40,
        "width_cm": 30,
        "height_cm": 20,
        "declared_value": 80.0,
    }
    return {**args, **overrides}


# --------------------------------------------------------------------------- identity and lookups


def test_find_customer_by_email_and_by_phone(desk, seed):
    c = seed.state["customers"][4]
    out, _, _ = desk.ok("find_customer_id_by_email", email=c["email"].upper())
    assert out == {"customer_id": c["customer_id"]}
    p = c["phone"]
    out, _, _ = desk.ok("find_customer_id_by_phone", phone=f"+1 ({p[:3]}) {p[3:6]}-{p[6:]}")
    assert out == {"customer_id": c["customer_id"]}


def test_unknown_ids_are_refused(desk, seed):
    desk.refused("find_customer_id_by_email", "no customer found", email="nobody@nowhere.example")
    desk.refused("find_customer_id_by_phone", "no customer found", phone="2025550000")
    desk.refused("get_customer_details", "cust_999999 not found", customer_id="cust_999999")
    desk.refused("get_shipment_details", "no shipment with tracking number", tracking_number="PX0000000000")
    desk.refused("get_pickup_details", "pu999999 not found", pickup_id="PU999999")
    desk.refused("get_claim_details", "clm99999 not found", claim_id="CLM99999")
    desk.refused("get_invoice_details", "inv99999999 not found", invoice_id="INV99999999")
    c, a, b = _shipper(seed)
    desk.refused(
        "create_shipment",
        "svc_nosuch not found",
        customer_id=c["customer_id"],
        from_address_id=a["address_id"],
        to_address_id=b["address_id"],
        service_id="svc_nosuch",
        **_parcel(),
    )
    s = seed.shipment(lambda s: seed.changeable(s), status="in_transit")
    desk.refused(
        "hold_at_depot", "dep_zzz not found", tracking_number=s["tracking_number"], depot_id="dep_zzz"
    )


def test_invalid_arguments_are_rejected_before_the_tool_runs(desk, seed):
    s = seed.shipment(status="delivered")
    desk.refused("get_shipment_details", "invalid arguments", tracking_number="1Z999AA10123456784")
    desk.refused(
        "file_claim",
        "invalid arguments",
        tracking_number=s["tracking_number"],
        kind="stolen",
        amount=10,
        description="x",
    )
    desk.refused(
        "file_claim",
        "invalid arguments",
        tracking_number=s["tracking_number"],
        kind="damaged",
        amount=0,
        description="x",
    )
    c, a, _ = _shipper(seed)
    desk.refused(
        "schedule_pickup",
        "invalid arguments",
        customer_id=c["customer_id"],
        address_id=a["address_id"],
        pickup_date="2026-09-18",
        window="all day",
        parcel_count=2,
    )
    desk.refused(
        "schedule_pickup",
        "invalid arguments",
        customer_id=c["customer_id"],
        address_id=a["address_id"],
        pickup_date="2026-09-18",
        window="08:00-12:00",
        parcel_count=26,
    )


def test_reads_show_state_in_dollars(desk, seed):
    s = seed.shipment(lambda s: s["insured"] == 1, status="delivered")
    out, _, _ = desk.ok("get_shipment_details", tracking_number=s["tracking_number"].lower())
    assert out["price"] == s["price_cents"] / 100 and out["insurance"] == s["insurance_cents"] / 100
    assert out["declared_value"] == s["declared_value_cents"] / 100
    delivered = datetime.date.fromisoformat(s["delivered_at"][:10])
    assert out["claim_deadline"] == (delivered + datetime.timedelta(days=30)).isoformat()
    assert out["events"][-1]["code"] in ("delivered", "delivery_change")
    assert out["events"] == sorted(out["events"], key=lambda e: e["occurred_at"])
    inv = next(i for i in seed.state["invoices"] if i["status"] == "overdue")
    out, _, _ = desk.ok("get_invoice_details", invoice_id=inv["invoice_id"])
    total = sum(
        i["amount_cents"] for i in seed.state["invoice_items"] if i["invoice_id"] == inv["invoice_id"]
    )
    assert out["total"] == total / 100 and out["balance_due"] == total / 100
    assert any(i["kind"] == "late_fee" for i in out["items"])
    out, _, _ = desk.ok("get_customer_details", customer_id=inv["customer_id"])
    assert out["account_status"] == "credit_hold"
    assert out["invoices"][0].startswith("INV2609")  # newest first
    out, _, _ = desk.ok("list_services")
    assert [s["service_id"] for s in out["services"]][-1] == "svc_overnight"
    out, _, _ = desk.ok("list_depots")
    assert len(out["depots"]) == 10


# --------------------------------------------------------------------------- create_shipment


def test_create_shipment_refused_on_credit_hold(desk, seed):
    c, a, b = _shipper(seed, status="credit_hold")
    desk.refused(
        "create_shipment",
        "credit hold",
        customer_id=c["customer_id"],
        from_address_id=a["address_id"],
        to_address_id=b["address_id"],
        service_id="svc_ground",
        **_parcel(),
    )


def test_create_shipment_address_and_service_rules(desk, seed):
    c, a, foreign = _shipper(seed, abroad=True)
    cid = c["customer_id"]
    stranger = next(x for x in seed.state["addresses"] if x["customer_id"] != cid)
    base = {"customer_id": cid, "service_id": "svc_ground", **_parcel()}
    desk.refused(
        "create_shipment",
        "not in the address book",
        from_address_id=a["address_id"],
        to_address_id=stranger["address_id"],
        **base,
    )
    desk.refused(
        "create_shipment",
        "must differ",
        from_address_id=a["address_id"],
        to_address_id=a["address_id"],
        **base,
    )
    desk.refused(
        "create_shipment",
        "leave from a domestic address",
        from_address_id=foreign["address_id"],
        to_address_id=a["address_id"],
        **{**base, "service_id": "svc_intl"},
    )
    desk.refused(
        "create_shipment",
        "international service",
        from_address_id=a["address_id"],
        to_address_id=foreign["address_id"],
        **base,
    )
    desk.refused(
        "create_shipment",
        "abroad only",
        from_address_id=a["address_id"],
        to_address_id=seed.domestic(cid)[1]["address_id"],
        **{**base, "service_id": "svc_intl"},
    )


def test_create_shipment_weight_and_size_limits(desk, seed):
    c, a, b = _shipper(seed)
    base = {
        "customer_id": c["customer_id"],
        "from_address_id": a["address_id"],
        "to_address_id": b["address_id"],
        "service_id": "svc_overnight",
    }
    desk.refused("create_shipment", "up to 15.0 kg", **base, **_parcel(weight_kg=15.1))
    desk.refused("create_shipment", "longest side", **base, **_parcel(length_cm=101))
    desk.refused(
        "create_shipment",
        "length + width + height",
        **base,
        **_parcel(length_cm=100, width_cm=60, height_cm=41),
    )
    desk.refused("create_shipment", "one decimal", **base, **_parcel(weight_kg=2.35))


def test_create_shipment_declared_value_cap_by_tier(desk, seed):
    c, a, b = _shipper(seed)
    cap = {"standard": 1000, "business": 5000, "premier": 10000}[c["tier"]]
    base = {
        "customer_id": c["customer_id"],
        "from_address_id": a["address_id"],
        "to_address_id": b["address_id"],
        "service_id": "svc_ground",
    }
    desk.refused("create_shipment", "can declare at most", **base, **_parcel(declared_value=cap + 0.01))
    desk.refused("create_shipment", "at most two decimals", **base, **_parcel(declared_value=10.005))
    desk.ok("create_shipment", **base, **_parcel(declared_value=float(cap)))


def test_create_shipment_prices_and_bills_the_label(desk, seed):
    c, a, b = _shipper(seed)
    cid = c["customer_id"]
    out, before, after = desk.ok(
        "create_shipment",
        customer_id=cid,
        from_address_id=a["address_id"],
        to_address_id=b["address_id"],
        service_id="svc_express",
        contents="ceramic vase",
        weight_kg=1.2,
        length_cm=50,
        width_cm=40,
        height_cm=30,  # dimensional weight 12 kg beats the actual 1.2 kg
        declared_value=250.0,
        insure=True,
    )
    zone = seed.zone(a["address_id"], b["address_id"])
    price = seed.price("svc_express", zone, 12, c["tier"])
    assert out["billable_kg"] == 12 and out["zone"] == zone
    assert out["price"] == price / 100 and out["insurance"] == 3.0
    assert out["status"] == "label_created" and out["ship_date"] == "2026-09-16"
    assert out["estimated_delivery"] == "2026-09-18"  # two business days after Wednesday
    assert changed_tables(before, after) == {"shipments", "invoice_items", "tracking_events"}
    (shipment,) = new_rows(before, after, "shipments")
    largest = max(int(s["tracking_number"][2:]) for s in before["shipments"])
    assert shipment["tracking_number"] == f"PX{largest + 1:010d}" == out["tracking_number"]
    assert shipment["created_at"] == NOW and shipment["insurance_cents"] == 300
    items = new_rows(before, after, "invoice_items")
    invoice = seed.open_invoice(cid)["invoice_id"]
    assert [(i["invoice_id"], i["kind"], i["amount_cents"]) for i in items] == [
        (invoice, "shipping", price),
        (invoice, "insurance", 300),
    ]
    (event,) = new_rows(before, after, "tracking_events")
    assert event["code"] == "label_created" and event["occurred_at"] == NOW


def test_international_shipment(desk, seed):
    c, a, foreign = _shipper(seed, abroad=True)
    out, _, _ = desk.ok(
        "create_shipment",
        customer_id=c["customer_id"],
        from_address_id=a["address_id"],
        to_address_id=foreign["address_id"],
        service_id="svc_intl",
        **_parcel(),
    )
    assert out["zone"] == 6 and out["international"] is True
    assert out["price"] == seed.price("svc_intl", 6, 5, c["tier"]) / 100  # 40x30x20/5000 = 4.8 -> 5 kg
    assert out["delivery_change_allowed"] is False


# --------------------------------------------------------------------------- cancel_shipment


def test_cancel_shipment_only_before_pickup(desk, seed):
    s = seed.shipment(status="in_transit")
    desk.refused("cancel_shipment", "only while it is label_created", tracking_number=s["tracking_number"])
    s = seed.shipment(
        lambda s: s["customer_id"] in {c["customer_id"] for c in seed.state["customers"]},
        status="label_created",
    )
    out, before, after = desk.ok("cancel_shipment", tracking_number=s["tracking_number"])
    credit = s["price_cents"] + s["insurance_cents"]
    assert out["credited"] == credit / 100 and out["shipment"]["status"] == "cancelled"
    (item,) = new_rows(before, after, "invoice_items")
    assert item["kind"] == "credit" and item["amount_cents"] == -credit
    assert (
        item["invoice_id"] == seed.open_invoice(s["customer_id"])["invoice_id"] == out["credited_to_invoice"]
    )
    desk.refused("cancel_shipment", "is cancelled", tracking_number=s["tracking_number"])


# --------------------------------------------------------------------------- delivery changes


def test_redirect_refusals(desk, seed):
    for status in ("out_for_delivery", "delivered", "lost"):
        s = seed.shipment(status=status)
        other = seed.domestic(s["customer_id"])[-1]
        desk.refused(
            "redirect_shipment",
            "redirected only while",
            tracking_number=s["tracking_number"],
            address_id=other["address_id"],
        )
    done = seed.shipment(lambda s: s["tracking_number"] in seed.changed and s["status"] == "in_transit")
    other = seed.domestic(done["customer_id"])[0]
    desk.refused(
        "redirect_shipment",
        "only one change",
        tracking_number=done["tracking_number"],
        address_id=other["address_id"],
    )
    s = seed.shipment(
        lambda s: seed.changeable(s) and len(seed.domestic(s["customer_id"])) >= 3, status="in_transit"
    )
    tn = s["tracking_number"]
    desk.refused("redirect_shipment", "already goes to", tracking_number=tn, address_id=s["to_address_id"])
    stranger = next(a for a in seed.state["addresses"] if a["customer_id"] != s["customer_id"])
    desk.refused(
        "redirect_shipment", "not in the address book", tracking_number=tn, address_id=stranger["address_id"]
    )
    desk.sql(
        "INSERT INTO addresses VALUES ('adr_900001', ?, 'Cousin in Toronto', '1 Bay St', 'Toronto', 'ON', 'M5J 2T3', "
        "'CA', NULL, NULL)",
        (s["customer_id"],),
    )
    desk.refused("redirect_shipment", "within the country", tracking_number=tn, address_id="adr_900001")


def test_no_delivery_change_for_international_parcels(desk, seed):
    intl = seed.shipment(lambda s: seed.abroad(s["to_address_id"]), status="delivered")
    desk.sql(
        "UPDATE shipments SET status = 'in_transit', delivered_at = NULL WHERE tracking_number = ?",
        (intl["tracking_number"],),
    )
    other = seed.domestic(intl["customer_id"])[0]
    desk.refused(
        "redirect_shipment",
        "international",
        tracking_number=intl["tracking_number"],
        address_id=other["address_id"],
    )
    desk.refused(
        "hold_at_depot", "international", tracking_number=intl["tracking_number"], depot_id="dep_nyc"
    )


def test_redirect_charges_the_tier_fee_and_delays_delivery(desk, seed):
    s = seed.shipment(
        lambda s: (
            seed.changeable(s)
            and seed.customers[s["customer_id"]]["tier"] != "premier"
            and len(seed.domestic(s["customer_id"])) >= 3
        ),
        status="in_transit",
    )
    tn = s["tracking_number"]
    target = next(
        a
        for a in seed.domestic(s["customer_id"])
        if a["address_id"] not in (s["to_address_id"], s["from_address_id"])
    )
    fee = {"standard": 900, "business": 600}[seed.customers[s["customer_id"]]["tier"]]
    out, before, after = desk.ok("redirect_shipment", tracking_number=tn, address_id=target["address_id"])
    assert out["fee"] == fee / 100
    estimated = datetime.date.fromisoformat(s["estimated_delivery"])
    nxt = estimated + datetime.timedelta(days=1)
    while nxt.weekday() >= 5:
        nxt += datetime.timedelta(days=1)
    assert out["shipment"]["estimated_delivery"] == nxt.isoformat()
    assert out["shipment"]["to_address"]["address_id"] == target["address_id"]
    (change,) = new_rows(before, after, "delivery_changes")
    assert change["kind"] == "redirect" and change["previous_address_id"] == s["to_address_id"]
    assert change["fee_cents"] == fee and change["change_id"] == out["change_id"]
    (item,) = new_rows(before, after, "invoice_items")
    assert item["kind"] == "redirect_fee" and item["amount_cents"] == fee
    assert out["shipment"]["delivery_change_allowed"] is False
    desk.refused("redirect_shipment", "only one change", tracking_number=tn, address_id=s["to_address_id"])


def test_premier_redirect_is_free(desk, seed):
    s = seed.shipment(
        lambda s: (
            seed.changeable(s)
            and seed.customers[s["customer_id"]]["tier"] == "premier"
            and len(seed.domestic(s["customer_id"])) >= 3
            and s["status"] in ("label_created", "picked_up", "in_transit")
        ),
    )
    target = next(
        a
        for a in seed.domestic(s["customer_id"])
        if a["address_id"] not in (s["to_address_id"], s["from_address_id"])
    )
    out, before, after = desk.ok(
        "redirect_shipment", tracking_number=s["tracking_number"], address_id=target["address_id"]
    )
    assert out["fee"] == 0
    assert changed_tables(before, after) == {"delivery_changes", "shipments", "tracking_events"}


def test_hold_at_depot_rules(desk, seed):
    s = seed.shipment(status="delivered")
    desk.refused(
        "hold_at_depot",
        "held at a depot only while",
        tracking_number=s["tracking_number"],
        depot_id="dep_nyc",
    )
    s = seed.shipment(
        lambda s: seed.changeable(s) and seed.addresses[s["to_address_id"]]["region"] == 2,
        status="in_transit",
    )
    tn = s["tracking_number"]
    desk.refused("hold_at_depot", "does not hold parcels", tracking_number=tn, depot_id="dep_mia")
    desk.refused("hold_at_depot", "destination's region", tracking_number=tn, depot_id="dep_chi")
    out, before, after = desk.ok("hold_at_depot", tracking_number=tn, depot_id="dep_atl")
    assert out["hold_days"] == 7 and out["shipment"]["hold_depot_id"] == "dep_atl"
    assert changed_tables(before, after) == {"delivery_changes", "shipments", "tracking_events"}
    (change,) = new_rows(before, after, "delivery_changes")
    assert change["kind"] == "hold_at_depot" and change["depot_id"] == "dep_atl" and change["fee_cents"] == 0
    desk.refused("hold_at_depot", "only one change", tracking_number=tn, depot_id="dep_atl")


# --------------------------------------------------------------------------- return labels


def test_return_label_rules(desk, seed):
    s = seed.shipment(status="in_transit")
    desk.refused("create_return_label", "only while it is delivered", tracking_number=s["tracking_number"])
    old = seed.shipment(
        lambda s: s["delivered_at"] < "2026-08-01" and s["kind"] == "outbound", status="delivered"
    )
    desk.refused("create_return_label", "30 days after delivery", tracking_number=old["tracking_number"])
    twice = seed.shipment(lambda s: s["tracking_number"] in seed.returned)
    desk.refused("create_return_label", "already has return label", tracking_number=twice["tracking_number"])
    ret = seed.shipment(kind="return")
    desk.sql(
        "UPDATE shipments SET status = 'delivered', delivered_at = ? WHERE tracking_number = ?",
        ("2026-09-15T12:00:00Z", ret["tracking_number"]),
    )
    desk.refused("create_return_label", "itself a return", tracking_number=ret["tracking_number"])
    intl = seed.shipment(lambda s: seed.abroad(s["to_address_id"]), status="delivered")
    desk.sql(
        "UPDATE shipments SET delivered_at = ? WHERE tracking_number = ?",
        ("2026-09-15T12:00:00Z", intl["tracking_number"]),
    )
    desk.refused("create_return_label", "international", tracking_number=intl["tracking_number"])


def test_return_label_goes_back_to_the_sender_by_ground(desk, seed):
    s = seed.shipment(
        lambda s: (
            s["kind"] == "outbound"
            and s["tracking_number"] not in seed.returned
            and not seed.abroad(s["to_address_id"])
            and s["delivered_at"] >= "2026-08-20"
        ),
        status="delivered",
    )
    out, before, after = desk.ok("create_return_label", tracking_number=s["tracking_number"])
    tier = seed.customers[s["customer_id"]]["tier"]
    kg = max(1, math.ceil(max(s["weight_kg"], s["length_cm"] * s["width_cm"] * s["height_cm"] / 5000) - 1e-9))
    price = seed.price("svc_ground", seed.zone(s["to_address_id"], s["from_address_id"]), kg, tier)
    assert out["kind"] == "return" and out["return_of"] == s["tracking_number"]
    assert out["from_address"]["address_id"] == s["to_address_id"]
    assert out["to_address"]["address_id"] == s["from_address_id"]
    assert out["service_id"] == "svc_ground" and out["price"] == price / 100
    (item,) = new_rows(before, after, "invoice_items")
    assert item["kind"] == "return_label" and item["amount_cents"] == price
    desk.refused("create_return_label", "already has return label", tracking_number=s["tracking_number"])


# --------------------------------------------------------------------------- pickups


def test_pickup_date_rules(desk, seed):
    c, a, _ = _shipper(seed)
    base = {
        "customer_id": c["customer_id"],
        "address_id": a["address_id"],
        "window": "08:00-12:00",
        "parcel_count": 3,
    }
    desk.refused("schedule_pickup", "business days", pickup_date="2026-09-19", **base)  # a Saturday
    desk.refused("schedule_pickup", "not after today", pickup_date="2026-09-16", **base)
    desk.refused("schedule_pickup", "not after today", pickup_date="2026-09-01", **base)
    desk.refused("schedule_pickup", "at most 14 days ahead", pickup_date="2026-10-01", **base)
    desk.refused("schedule_pickup", "not a date", pickup_date="2026-09-31", **base)
    desk.refused(
        "check_pickup_availability", "business days", address_id=a["address_id"], pickup_date="2026-09-20"
    )


def test_pickup_refused_on_credit_hold_and_abroad(desk, seed):
    c, a, _ = _shipper(seed, status="credit_hold")
    desk.refused(
        "schedule_pickup",
        "credit hold",
        customer_id=c["customer_id"],
        address_id=a["address_id"],
        pickup_date="2026-09-18",
        window="12:00-16:00",
        parcel_count=1,
    )
    c, _, foreign = _shipper(seed, abroad=True)
    desk.refused(
        "schedule_pickup",
        "abroad",
        customer_id=c["customer_id"],
        address_id=foreign["address_id"],
        pickup_date="2026-09-18",
        window="12:00-16:00",
        parcel_count=1,
    )


def test_depot_capacity_per_day(desk, seed):
    booked: dict[tuple[str, str], int] = defaultdict(int)
    for p in seed.state["pickups"]:
        if p["status"] == "scheduled":
            booked[(p["depot_id"], p["pickup_date"])] += 1
    full = next(
        (
            k
            for k, n in sorted(booked.items())
            if n >= seed.depots[k[0]]["daily_pickup_capacity"] and k[1] > "2026-09-16"
        ),
        None,
    )
    assert full is not None, "the seed has no fully booked depot day"
    depot, day = full
    c = next(
        c
        for c in seed.state["customers"]
        if c["account_status"] == "active"
        and any(
            a["depot_id"] == depot
            and not any(
                p["address_id"] == a["address_id"] and p["pickup_date"] == day for p in seed.state["pickups"]
            )
            for a in seed.book[c["customer_id"]]
        )
    )
    a = next(a for a in seed.book[c["customer_id"]] if a["depot_id"] == depot)
    out, _, _ = desk.ok("check_pickup_availability", address_id=a["address_id"], pickup_date=day)
    assert out["available"] is False and out["remaining"] == 0
    desk.refused(
        "schedule_pickup",
        "fully booked",
        customer_id=c["customer_id"],
        address_id=a["address_id"],
        pickup_date=day,
        window="08:00-12:00",
        parcel_count=2,
    )


def test_schedule_then_cancel_a_pickup(desk, seed):
    c, a, _ = _shipper(seed)
    args = {
        "customer_id": c["customer_id"],
        "address_id": a["address_id"],
        "pickup_date": "2026-09-22",
        "window": "16:00-19:00",
        "parcel_count": 4,
    }
    taken = [
        p
        for p in seed.state["pickups"]
        if p["address_id"] == a["address_id"] and p["pickup_date"] == "2026-09-22"
    ]
    assert not taken
    out, before, after = desk.ok("schedule_pickup", **args)
    assert out["status"] == "scheduled" and out["depot_id"] == a["depot_id"]
    (p,) = new_rows(before, after, "pickups")
    assert p["pickup_id"] == out["pickup_id"] and p["created_at"] == NOW
    desk.refused("schedule_pickup", "one pickup per address per day", **args)
    out, _, after = desk.ok("cancel_pickup", pickup_id=out["pickup_id"])
    assert out["status"] == "cancelled"
    desk.refused("cancel_pickup", "only scheduled pickups", pickup_id=out["pickup_id"])


def test_cancel_pickup_refusals(desk, seed):
    for status in ("completed", "missed", "cancelled"):
        p = next(p for p in seed.state["pickups"] if p["status"] == status)
        desk.refused("cancel_pickup", "only scheduled pickups", pickup_id=p["pickup_id"])
    today = next(
        p for p in seed.state["pickups"] if p["status"] == "scheduled" and p["pickup_date"] == "2026-09-16"
    )
    desk.refused("cancel_pickup", "before the pickup day", pickup_id=today["pickup_id"])


# --------------------------------------------------------------------------- claims


def test_claim_status_and_kind_rules(desk, seed):
    s = seed.shipment(status="in_transit")
    desk.refused(
        "file_claim",
        "a claim can be filed only while",
        tracking_number=s["tracking_number"],
        kind="lost",
        amount=20,
        description="Never came",
    )
    lost = seed.shipment(status="lost")
    desk.refused(
        "file_claim",
        "needs a delivered parcel",
        tracking_number=lost["tracking_number"],
        kind="damaged",
        amount=20,
        description="Broken",
    )
    delivered = seed.shipment(status="delivered")
    desk.refused(
        "file_claim",
        "declared lost",
        tracking_number=delivered["tracking_number"],
        kind="lost",
        amount=20,
        description="Missing",
    )


def test_claim_window_and_one_claim_per_shipment(desk, seed):
    old = seed.shipment(
        lambda s: s["delivered_at"] < "2026-08-10" and s["tracking_number"] not in seed.claimed,
        status="delivered",
    )
    desk.refused(
        "file_claim",
        "filing window",
        tracking_number=old["tracking_number"],
        kind="damaged",
        amount=10,
        description="Dented",
    )
    claimed = seed.shipment(lambda s: s["tracking_number"] in seed.claimed and s["status"] == "delivered")
    desk.refused(
        "file_claim",
        "one claim per shipment",
        tracking_number=claimed["tracking_number"],
        kind="damaged",
        amount=10,
        description="Dented",
    )


def test_claim_amount_limits(desk, seed):
    uninsured = seed.shipment(
        lambda s: (
            s["insured"] == 0
            and s["declared_value_cents"] > 10000
            and s["tracking_number"] not in seed.claimed
        ),
        status="delivered",
    )
    tn = uninsured["tracking_number"]
    desk.sql("UPDATE shipments SET delivered_at = '2026-09-10T12:00:00Z' WHERE tracking_number = ?", (tn,))
    desk.refused(
        "file_claim", "not insured", tracking_number=tn, kind="damaged", amount=100.01, description="Broken"
    )
    desk.refused(
        "file_claim",
        "more than the declared value",
        tracking_number=tn,
        kind="damaged",
        amount=uninsured["declared_value_cents"] / 100 + 1,
        description="Broken",
    )
    out, _, _ = desk.ok("file_claim", tracking_number=tn, kind="damaged", amount=100.0, description="Broken")
    assert out["amount"] == 100.0


def test_file_and_withdraw_a_claim(desk, seed):
    lost = seed.shipment(
        lambda s: s["tracking_number"] not in seed.claimed and s["ship_date"] >= "2026-07-20", status="lost"
    )
    cap = lost["declared_value_cents"] if lost["insured"] else min(lost["declared_value_cents"], 10000)
    out, before, after = desk.ok(
        "file_claim",
        tracking_number=lost["tracking_number"],
        kind="lost",
        amount=cap / 100,
        description="Never arrived",
    )
    assert changed_tables(before, after) == {"claims"}
    (claim,) = new_rows(before, after, "claims")
    assert claim["status"] == "submitted" and claim["amount_cents"] == cap and claim["filed_at"] == NOW
    assert claim["customer_id"] == lost["customer_id"] and out["claim_id"] == claim["claim_id"]
    out, _, _ = desk.ok("withdraw_claim", claim_id=claim["claim_id"])
    assert out["status"] == "withdrawn"
    # A withdrawn claim does not count: the shipment can be claimed again.
    desk.ok(
        "file_claim",
        tracking_number=lost["tracking_number"],
        kind="lost",
        amount=1.0,
        description="Never arrived",
    )


def test_withdraw_claim_refusals(desk, seed):
    for status in ("approved", "denied", "paid", "withdrawn"):
        c = next((c for c in seed.state["claims"] if c["status"] == status), None)
        if c is None:
            c = seed.state["claims"][0]
            desk.sql(
                "UPDATE claims SET status = ?, decided_at = ? WHERE claim_id = ?",
                (status, NOW, c["claim_id"]),
            )
        desk.refused("withdraw_claim", "only submitted or under-review", claim_id=c["claim_id"])


# --------------------------------------------------------------------------- invoices


def test_pay_invoice_refusals(desk, seed):
    for status, phrase in (("open", "not been issued"), ("paid", "already paid")):
        inv = next(i for i in seed.state["invoices"] if i["status"] == status)
        desk.refused("pay_invoice", phrase, invoice_id=inv["invoice_id"])
    inv = next(i for i in seed.state["invoices"] if i["status"] == "issued")
    desk.sql("UPDATE customers SET card_on_file = NULL WHERE customer_id = ?", (inv["customer_id"],))
    desk.refused("pay_invoice", "no card on file", invoice_id=inv["invoice_id"])


def test_paying_the_overdue_invoice_lifts_the_credit_hold(desk, seed):
    inv = next(
        i
        for i in seed.state["invoices"]
        if i["status"] == "overdue" and seed.customers[i["customer_id"]]["card_on_file"] is not None
    )
    cid = inv["customer_id"]
    total = sum(
        i["amount_cents"] for i in seed.state["invoice_items"] if i["invoice_id"] == inv["invoice_id"]
    )
    out, before, after = desk.ok("pay_invoice", invoice_id=inv["invoice_id"])
    assert out["amount_paid"] == total / 100 and out["account_status"] == "active"
    assert out["charged_to"] == seed.customers[cid]["card_on_file"]
    assert row(after, "invoices", "invoice_id", inv["invoice_id"])["paid_at"] == NOW
    assert row(after, "customers", "customer_id", cid)["account_status"] == "active"
    assert changed_tables(before, after) == {"invoices", "customers"}
    _, a, b = _shipper(seed, status="credit_hold")
    if a["customer_id"] == cid:
        desk.ok(
            "create_shipment",
            customer_id=cid,
            from_address_id=a["address_id"],
            to_address_id=b["address_id"],
            service_id="svc_ground",
            **_parcel(),
        )


def test_paying_an_issued_invoice_leaves_an_active_account_active(desk, seed):
    inv = next(
        i
        for i in seed.state["invoices"]
        if i["status"] == "issued"
        and seed.customers[i["customer_id"]]["card_on_file"] is not None
        and seed.customers[i["customer_id"]]["account_status"] == "active"
    )
    out, before, after = desk.ok("pay_invoice", invoice_id=inv["invoice_id"].lower())
    assert out["status"] == "paid" and out["account_status"] == "active"
    assert changed_tables(before, after) == {"invoices"}
