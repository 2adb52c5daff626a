"""Telecom business rules: every rule a tool enforces is refused cleanly (state untouched), and the
happy paths change exactly what they should (money in cents, data in MB, dates from the clock)."""

from __future__ import annotations

import datetime
from collections import defaultdict
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import Toolbox, dump_state, state_hash

TODAY = datetime.date(2026, 6, 18)

# --------------------------------------------------------------------------- helpers


class Seed:
    """Indexes over the seed state, for finding rows that fit a test."""

    def __init__(self, state: dict[str, list[dict[str, Any]]]) -> None:
        self.state = state
        self.plans = {p["plan_id"]: p for p in state["plans"]}
        self.customers = {c["customer_id"]: c for c in state["customers"]}
        self.models = {m["model_id"]: m for m in state["device_models"]}
        self.lines_by_number = {x["phone_number"]: x for x in state["lines"]}
        self.methods: dict[str, list[dict]] = defaultdict(list)
        for m in state["payment_methods"]:
            self.methods[m["customer_id"]].append(m)
        self.bill_total: dict[str, int] = defaultdict(int)
        for i in state["bill_items"]:
            self.bill_total[i["bill_id"]] += i["amount_cents"]
        self.bill_paid: dict[str, int] = defaultdict(int)
        for p in state["payments"]:
            self.bill_paid[p["bill_id"]] += p["amount_cents"]
        self.topups: dict[str, int] = defaultdict(int)
        for t in state["data_topups"]:
            if t["cycle"] == "2026-06":
                self.topups[t["phone_number"]] += 1
        self.suspensions_2026: dict[str, int] = defaultdict(int)
        for s in state["suspensions"]:
            if s["started_at"].startswith("2026"):
                self.suspensions_2026[s["phone_number"]] += 1
        self.device_in_use = {d["phone_number"]: d for d in state["devices"] if d["status"] == "in_use"}
        self.overdue = {b["customer_id"] for b in state["bills"] if b["status"] == "overdue"}
        self.active_outage_zips = {o["zip"] for o in state["outages"] if o["status"] == "active"}

    def lines(self, want=lambda line: True, **fields: Any) -> list[dict]:
        return [x for x in self.state["lines"] if all(x[k] == v for k, v in fields.items()) and want(x)]

    def line(self, want=lambda line: True, **fields: Any) -> dict:
        found = self.lines(want, **fields)
        if not found:
            pytest.fail(f"the seed has no line with {fields}")
        return found[0]

    def bill(self, status: str, want=lambda bill: True) -> dict:
        bill = next((b for b in self.state["bills"] if b["status"] == status and want(b)), None)
        if bill is None:
            pytest.fail(f"the seed has no {status} bill that fits")
        return bill

    def balance(self, bill_id: str) -> int:
        return self.bill_total[bill_id] - self.bill_paid[bill_id]

    def valid_method(self, customer_id: str) -> dict | None:
        return next(
            (m for m in self.methods[customer_id] if m["expires"] is None or m["expires"] >= "2026-06"), None
        )

    def capped(self, line: dict) -> bool:
        return self.plans[line["plan_id"]]["data_mb"] is not None

    def eligible(self, line: dict) -> bool:
        device = self.device_in_use[line["phone_number"]]
        tier = self.customers[line["customer_id"]]["tier"]
        months = {"standard": 24, "gold": 18, "platinum": 12}[tier]
        bought = datetime.date.fromisoformat(device["purchased_at"])
        index = bought.year * 12 + bought.month - 1 + months
        year, month = divmod(index, 12)
        return datetime.date(year, month + 1, min(bought.day, 28)) <= TODAY

    def ticket(self, want) -> dict:
        ticket = next((t for t in self.state["tickets"] if want(t)), None)
        if ticket is None:
            pytest.fail("the seed has no ticket that fits")
        return ticket


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


@pytest.fixture(scope="module")
def telecom_env() -> Environment:
    return build_env(load_blueprint("telecom"))


@pytest.fixture(scope="module")
def seed(telecom_env) -> Seed:
    return Seed(telecom_env.seed_state)


@pytest.fixture(scope="module")
def toolbox(telecom_env) -> Toolbox:
    return telecom_env.toolbox()


@pytest.fixture
def desk(telecom_env, toolbox):
    session = telecom_env.new_session()
    yield Desk(toolbox, session.db)
    session.close()


# --------------------------------------------------------------------------- identity and lookups


def test_find_customer_by_email_and_by_name_dob(desk, seed):
    c = seed.state["customers"][5]
    out, _, _ = desk.ok("find_customer_id_by_email", email=c["email"].upper())
    assert out == {"customer_id": c["customer_id"]}
    out, _, _ = desk.ok(
        "find_customer_id_by_name_dob",
        first_name=c["first_name"].lower(),
        last_name=c["last_name"],
        date_of_birth=c["date_of_birth"],
    )
    assert out == {"customer_id": c["customer_id"]}


def test_unknown_ids_are_refused(desk, seed):
    desk.refused("find_customer_id_by_email", "no customer found", email="nobody@nowhere.example")
    desk.refused(
        "find_customer_id_by_name_dob",
        "no customer found",
        first_name="No",
        last_name="Body",
        date_of_birth="1900-01-01",
    )
    desk.refused("get_customer_details", "cust_999999 not found", customer_id="cust_999999")
    desk.refused("get_line_details", "no line with phone number", phone_number="2000000000")
    desk.refused("get_bill_details", "bill b99999999 not found", bill_id="B99999999")
    desk.refused("get_ticket_details", "ticket tkt999999 not found", ticket_id="TKT999999")
    desk.refused("get_device_details", "dev_999999 not found", device_id="dev_999999")
    line = seed.line(status="active")
    desk.refused(
        "change_plan", "plan plan_nosuch not found", phone_number=line["phone_number"], plan_id="plan_nosuch"
    )
    desk.refused(
        "upgrade_device", "mdl_9999 not found", phone_number=line["phone_number"], model_id="mdl_9999"
    )
    bill = seed.bill("issued")
    desk.refused(
        "pay_bill", "card_999999 not found", bill_id=bill["bill_id"], payment_method_id="card_999999"
    )


def test_invalid_arguments_are_rejected_before_the_tool_runs(desk, seed):
    line = seed.line(status="active")
    number = line["phone_number"]
    desk.refused("get_line_details", "invalid arguments", phone_number="(512) 555-0143")
    desk.refused("suspend_line", "invalid arguments", phone_number=number, reason="bored")
    desk.refused("purchase_data_topup", "invalid arguments", phone_number=number, gigabytes=3)
    desk.refused(
        "create_ticket", "invalid arguments", phone_number=number, category="weather", description="x"
    )
    bill = seed.bill("issued")
    method = seed.methods[bill["customer_id"]][0]["payment_method_id"]
    desk.refused("pay_bill", "invalid arguments", bill_id=bill["bill_id"], payment_method_id=method, amount=0)
    desk.refused(
        "pay_bill", "invalid arguments", bill_id=bill["bill_id"], payment_method_id=method, amount=-5
    )


def test_reads_show_state_in_dollars_and_gigabytes(desk, seed):
    bill = seed.bill("issued", lambda b: seed.bill_paid[b["bill_id"]] > 0)
    out, _, _ = desk.ok("get_bill_details", bill_id=bill["bill_id"])
    assert out["total"] == round(seed.bill_total[bill["bill_id"]] / 100, 2)
    assert out["balance_due"] == round(seed.balance(bill["bill_id"]) / 100, 2)
    assert out["label"].endswith("2026 bill")
    line = seed.line(lambda x: seed.capped(x) and seed.topups[x["phone_number"]] > 0, status="active")
    out, _, _ = desk.ok("get_line_details", phone_number=line["phone_number"])
    extra = sum(
        t["gigabytes"] * 1000
        for t in seed.state["data_topups"]
        if t["phone_number"] == line["phone_number"] and t["cycle"] == "2026-06"
    )
    allowance = seed.plans[line["plan_id"]]["data_mb"] + extra
    assert out["data_allowance_gb"] == allowance / 1000
    assert out["data_remaining_gb"] == round(max(allowance - line["data_used_mb"], 0) / 1000, 2)
    assert out["topups_this_cycle"] == seed.topups[line["phone_number"]]
    unlimited = seed.line(lambda x: not seed.capped(x))
    out, _, _ = desk.ok("get_line_details", phone_number=unlimited["phone_number"])
    assert out["data_allowance_gb"] is None and out["data_remaining_gb"] is None
    customer = seed.customers[line["customer_id"]]
    out, _, _ = desk.ok("get_customer_details", customer_id=customer["customer_id"])
    assert line["phone_number"] in out["lines"]
    assert out["bills"][0].startswith("B2606")  # newest first


# --------------------------------------------------------------------------- bills


def test_pay_bill_refuses_open_and_paid_bills(desk, seed):
    for status, phrase in (("open", "not been issued"), ("paid", "already paid")):
        bill = seed.bill(status, lambda b: seed.valid_method(b["customer_id"]) is not None)
        method = seed.valid_method(bill["customer_id"])
        assert method is not None
        desk.refused(
            "pay_bill", phrase, bill_id=bill["bill_id"], payment_method_id=method["payment_method_id"]
        )


def test_pay_bill_refuses_a_stranger_method_an_expired_card_and_overpayment(desk, seed):
    bill = seed.bill("issued", lambda b: seed.valid_method(b["customer_id"]) is not None)
    bid = bill["bill_id"]
    stranger = next(m for m in seed.state["payment_methods"] if m["customer_id"] != bill["customer_id"])
    desk.refused("pay_bill", "does not belong", bill_id=bid, payment_method_id=stranger["payment_method_id"])
    method = seed.valid_method(bill["customer_id"])
    assert method is not None
    mid = method["payment_method_id"]
    balance = seed.balance(bid)
    desk.refused(
        "pay_bill", "more than the balance due", bill_id=bid, payment_method_id=mid, amount=balance / 100 + 1
    )
    desk.refused("pay_bill", "at most two decimals", bill_id=bid, payment_method_id=mid, amount=1.005)
    expired = next(
        (m for m in seed.state["payment_methods"] if m["expires"] is not None and m["expires"] < "2026-06"),
        None,
    )
    assert expired is not None, "the seed has no expired card"
    owner_bill = next(
        (
            b
            for b in seed.state["bills"]
            if b["customer_id"] == expired["customer_id"] and b["status"] == "issued"
        ),
        None,
    )
    if owner_bill is None:  # pay an issued bill of the card's owner: make one issued for the test
        owner_bill = next(b for b in seed.state["bills"] if b["customer_id"] == expired["customer_id"])
        desk.sql(
            "UPDATE bills SET status = 'issued', issued_at = '2026-06-01' WHERE bill_id = ?",
            (owner_bill["bill_id"],),
        )
    desk.refused(
        "pay_bill", "expired", bill_id=owner_bill["bill_id"], payment_method_id=expired["payment_method_id"]
    )


def test_partial_then_full_payment(desk, seed):
    bill = seed.bill(
        "issued",
        lambda b: seed.valid_method(b["customer_id"]) is not None and seed.balance(b["bill_id"]) > 2000,
    )
    bid = bill["bill_id"]
    method = seed.valid_method(bill["customer_id"])
    assert method is not None
    balance = seed.balance(bid)
    out, before, after = desk.ok(
        "pay_bill", bill_id=bid, payment_method_id=method["payment_method_id"], amount=12.34
    )
    assert out["status"] == "issued"
    assert out["balance_due"] == round((balance - 1234) / 100, 2)
    (payment,) = new_rows(before, after, "payments")
    assert payment["amount_cents"] == 1234 and payment["created_at"] == "2026-06-18T15:00:00Z"
    assert payment["payment_id"] == f"pmt_{len(before['payments']) + 1:07d}"
    out, _, after = desk.ok("pay_bill", bill_id=bid, payment_method_id=method["payment_method_id"])
    assert out["status"] == "paid" and out["balance_due"] == 0
    assert row(after, "bills", "bill_id", bid)["status"] == "paid"
    desk.refused("pay_bill", "already paid", bill_id=bid, payment_method_id=method["payment_method_id"])


def test_paying_an_overdue_bill_in_full(desk, seed):
    bill = seed.bill("overdue", lambda b: seed.valid_method(b["customer_id"]) is not None)
    method = seed.valid_method(bill["customer_id"])
    assert method is not None
    out, _, _ = desk.ok(
        "pay_bill",
        bill_id=bill["bill_id"],
        payment_method_id=method["payment_method_id"],
        amount=seed.balance(bill["bill_id"]) / 100,
    )
    assert out["status"] == "paid"


# --------------------------------------------------------------------------- plans


def test_change_plan_refusals(desk, seed):
    suspended = seed.line(status="suspended")
    desk.refused(
        "change_plan",
        "only active lines can change plans",
        phone_number=suspended["phone_number"],
        plan_id="plan_value15",
    )
    line = seed.line(
        lambda x: x["plan_id"] != "plan_classic10" and x["pending_plan_id"] is None, status="active"
    )
    number = line["phone_number"]
    desk.refused("change_plan", "retired", phone_number=number, plan_id="plan_classic10")
    desk.refused("change_plan", "already on", phone_number=number, plan_id=line["plan_id"])
    pending = seed.line(lambda x: x["pending_plan_id"] is not None)
    desk.refused(
        "change_plan",
        "already scheduled",
        phone_number=pending["phone_number"],
        plan_id=pending["pending_plan_id"],
    )


def test_dearer_plan_waits_for_next_cycle(desk, seed):
    line = seed.line(plan_id="plan_start5", status="active", pending_plan_id=None)
    out, _, after = desk.ok("change_plan", phone_number=line["phone_number"], plan_id="plan_plus30")
    assert out["immediate"] is False and out["effective_date"] == "2026-07-01"
    stored = row(after, "lines", "phone_number", line["phone_number"])
    assert stored["plan_id"] == "plan_start5" and stored["pending_plan_id"] == "plan_plus30"
    assert out["line"]["pending_plan_effective"] == "2026-07-01"


def test_cheaper_plan_applies_now_and_drops_roaming_it_lacks(desk, seed):
    line = seed.line(
        lambda x: seed.plans[x["plan_id"]]["monthly_price_cents"] > 2500, status="active", roaming_enabled=1
    )
    out, _, after = desk.ok("change_plan", phone_number=line["phone_number"], plan_id="plan_basic2")
    assert out["immediate"] is True and out["effective_date"] == "2026-06-18"
    stored = row(after, "lines", "phone_number", line["phone_number"])
    assert stored["plan_id"] == "plan_basic2" and stored["pending_plan_id"] is None
    assert stored["roaming_enabled"] == 0


# --------------------------------------------------------------------------- data top-ups


def test_topup_refusals(desk, seed):
    suspended = seed.line(status="suspended")
    desk.refused(
        "purchase_data_topup", "only active lines", phone_number=suspended["phone_number"], gigabytes=1
    )
    unlimited = seed.line(lambda x: not seed.capped(x), status="active")
    desk.refused("purchase_data_topup", "unlimited plan", phone_number=unlimited["phone_number"], gigabytes=1)
    full = seed.line(lambda x: seed.topups[x["phone_number"]] >= 3, status="active")
    desk.refused(
        "purchase_data_topup", "the limit is 3 per cycle", phone_number=full["phone_number"], gigabytes=2
    )


def test_topup_is_charged_to_the_open_bill(desk, seed):
    line = seed.line(lambda x: seed.capped(x) and seed.topups[x["phone_number"]] == 0, status="active")
    plan = seed.plans[line["plan_id"]]
    out, before, after = desk.ok("purchase_data_topup", phone_number=line["phone_number"], gigabytes=5)
    assert out["price"] == plan["topup_price_per_gb_cents"] * 5 / 100
    assert out["topups_this_cycle"] == 1
    allowance = plan["data_mb"] + 5000
    assert out["data_remaining_gb"] == round(max(allowance - line["data_used_mb"], 0) / 1000, 2)
    open_bill = next(
        b for b in seed.state["bills"] if b["customer_id"] == line["customer_id"] and b["status"] == "open"
    )
    assert out["charged_to_bill"] == open_bill["bill_id"]
    (item,) = new_rows(before, after, "bill_items")
    assert item["bill_id"] == open_bill["bill_id"] and item["kind"] == "data_topup"
    assert item["amount_cents"] == plan["topup_price_per_gb_cents"] * 5
    assert (
        item["item_no"]
        == max(i["item_no"] for i in before["bill_items"] if i["bill_id"] == open_bill["bill_id"]) + 1
    )
    (topup,) = new_rows(before, after, "data_topups")
    assert topup["cycle"] == "2026-06" and topup["topup_id"] == f"top_{len(before['data_topups']) + 1:07d}"


def test_fourth_topup_in_a_cycle_is_refused(desk, seed):
    line = seed.line(lambda x: seed.capped(x) and seed.topups[x["phone_number"]] == 0, status="active")
    for _ in range(3):
        desk.ok("purchase_data_topup", phone_number=line["phone_number"], gigabytes=1)
    desk.refused(
        "purchase_data_topup", "already has 3 top-ups", phone_number=line["phone_number"], gigabytes=1
    )


# --------------------------------------------------------------------------- roaming


def test_roaming_rules(desk, seed):
    suspended = seed.line(status="suspended")
    desk.refused("enable_roaming", "only active lines", phone_number=suspended["phone_number"])
    no_roaming = seed.line(lambda x: not seed.plans[x["plan_id"]]["roaming_included"], status="active")
    desk.refused("enable_roaming", "does not include roaming", phone_number=no_roaming["phone_number"])
    on = seed.line(status="active", roaming_enabled=1)
    desk.refused("enable_roaming", "already enabled", phone_number=on["phone_number"])
    off = seed.line(roaming_enabled=0)
    desk.refused("disable_roaming", "already disabled", phone_number=off["phone_number"])


def test_roaming_on_and_off(desk, seed):
    line = seed.line(
        lambda x: seed.plans[x["plan_id"]]["roaming_included"] == 1, status="active", roaming_enabled=0
    )
    out, _, _ = desk.ok("enable_roaming", phone_number=line["phone_number"])
    assert out["roaming_enabled"] is True
    out, _, after = desk.ok("disable_roaming", phone_number=line["phone_number"])
    assert out["roaming_enabled"] is False
    assert row(after, "lines", "phone_number", line["phone_number"])["roaming_enabled"] == 0


# --------------------------------------------------------------------------- suspend and resume


def test_suspend_refusals(desk, seed):
    suspended = seed.line(status="suspended")
    desk.refused(
        "suspend_line",
        "only active lines can be suspended",
        phone_number=suspended["phone_number"],
        reason="travel",
    )
    twice = seed.line(lambda x: seed.suspensions_2026[x["phone_number"]] >= 2, status="active")
    desk.refused(
        "suspend_line", "at most 2 times a calendar year", phone_number=twice["phone_number"], reason="travel"
    )


def test_suspend_then_resume(desk, seed):
    line = seed.line(
        lambda x: seed.suspensions_2026[x["phone_number"]] == 0 and x["customer_id"] not in seed.overdue,
        status="active",
    )
    number = line["phone_number"]
    out, before, after = desk.ok("suspend_line", phone_number=number, reason="lost device")
    assert out["status"] == "suspended" and out["suspension_reason"] == "lost device"
    assert out["suspensions_this_year"] == 1
    (sus,) = new_rows(before, after, "suspensions")
    assert sus["started_at"] == "2026-06-18T15:00:00Z" and sus["ended_at"] is None
    out, _, after = desk.ok("resume_line", phone_number=number)
    assert out["status"] == "active" and out["suspension_reason"] is None
    assert (
        row(after, "suspensions", "suspension_id", sus["suspension_id"])["ended_at"] == "2026-06-18T15:00:00Z"
    )
    # A second suspension this year is allowed, a third is not.
    desk.ok("suspend_line", phone_number=number, reason="travel")
    desk.ok("resume_line", phone_number=number)
    desk.refused("suspend_line", "at most 2 times", phone_number=number, reason="travel")


def test_resume_refusals(desk, seed):
    active = seed.line(status="active")
    desk.refused("resume_line", "only suspended lines can be resumed", phone_number=active["phone_number"])
    owing = seed.line(lambda x: x["customer_id"] in seed.overdue, status="suspended")
    desk.refused("resume_line", "overdue bill", phone_number=owing["phone_number"])


def test_paying_the_overdue_bill_allows_resuming(desk, seed):
    owing = seed.line(
        lambda x: x["customer_id"] in seed.overdue and seed.valid_method(x["customer_id"]) is not None,
        status="suspended",
    )
    customer_id = owing["customer_id"]
    method = seed.valid_method(customer_id)
    assert method is not None
    for bill in seed.state["bills"]:
        if bill["customer_id"] == customer_id and bill["status"] == "overdue":
            desk.ok("pay_bill", bill_id=bill["bill_id"], payment_method_id=method["payment_method_id"])
    out, _, _ = desk.ok("resume_line", phone_number=owing["phone_number"])
    assert out["status"] == "active"


# --------------------------------------------------------------------------- devices


def test_upgrade_refusals(desk, seed):
    in_stock = next(m["model_id"] for m in seed.state["device_models"] if m["in_stock"])
    out_of_stock = next(m["model_id"] for m in seed.state["device_models"] if not m["in_stock"])
    suspended = seed.line(status="suspended")
    desk.refused(
        "upgrade_device", "only active lines", phone_number=suspended["phone_number"], model_id=in_stock
    )
    young = seed.line(lambda x: not seed.eligible(x), status="active")
    desk.refused(
        "upgrade_device",
        "not eligible for an upgrade until",
        phone_number=young["phone_number"],
        model_id=in_stock,
    )
    old = seed.line(seed.eligible, status="active")
    desk.refused("upgrade_device", "out of stock", phone_number=old["phone_number"], model_id=out_of_stock)
    same = seed.line(
        lambda x: (
            seed.eligible(x) and seed.models[seed.device_in_use[x["phone_number"]]["model_id"]]["in_stock"]
        ),
        status="active",
    )
    desk.refused(
        "upgrade_device",
        "choose a different model",
        phone_number=same["phone_number"],
        model_id=seed.device_in_use[same["phone_number"]]["model_id"],
    )


def test_eligibility_depends_on_tier(desk, seed):
    for tier, months in (("standard", 24), ("gold", 18), ("platinum", 12)):
        line = seed.line(lambda x, tier=tier: seed.customers[x["customer_id"]]["tier"] == tier)
        device = seed.device_in_use[line["phone_number"]]
        out, _, _ = desk.ok("get_device_details", device_id=device["device_id"])
        bought = datetime.date.fromisoformat(device["purchased_at"])
        year, month = divmod(bought.year * 12 + bought.month - 1 + months, 12)
        assert out["upgrade_eligible_from"][:7] == f"{year:04d}-{month + 1:02d}"
        assert out["upgrade_eligible"] == (out["upgrade_eligible_from"] <= "2026-06-18")


def test_upgrade_pays_off_the_old_device_on_the_open_bill(desk, seed):
    line = seed.line(
        lambda x: seed.eligible(x) and seed.device_in_use[x["phone_number"]]["installment_balance_cents"] > 0,
        status="active",
    )
    old = seed.device_in_use[line["phone_number"]]
    model = next(m for m in seed.state["device_models"] if m["in_stock"] and m["model_id"] != old["model_id"])
    out, before, after = desk.ok(
        "upgrade_device", phone_number=line["phone_number"], model_id=model["model_id"]
    )
    assert out["payoff_charge"] == old["installment_balance_cents"] / 100
    new = out["new_device"]
    assert new["device_id"] == f"dev_{len(before['devices']) + 1:06d}"
    assert new["purchased_at"] == "2026-06-18" and new["upgrade_eligible"] is False
    assert new["installment_balance"] == model["price_cents"] / 100
    assert new["monthly_installment"] == -(-model["price_cents"] // 24) / 100
    assert len(new["imei"]) == 15
    replaced = row(after, "devices", "device_id", old["device_id"])
    assert replaced["status"] == "replaced" and replaced["installment_balance_cents"] == 0
    (item,) = new_rows(before, after, "bill_items")
    assert item["kind"] == "device_payoff" and item["amount_cents"] == old["installment_balance_cents"]
    open_bill = next(
        b for b in seed.state["bills"] if b["customer_id"] == line["customer_id"] and b["status"] == "open"
    )
    assert item["bill_id"] == open_bill["bill_id"] == out["charged_to_bill"]
    line_out, _, _ = desk.ok("get_line_details", phone_number=line["phone_number"])
    assert line_out["device_id"] == new["device_id"]


# --------------------------------------------------------------------------- tickets and outages


def test_one_open_ticket_per_category(desk, seed):
    ticket = seed.ticket(lambda t: t["status"] in ("open", "in_progress"))
    desk.refused(
        "create_ticket",
        "only one open ticket per category",
        phone_number=ticket["phone_number"],
        category=ticket["category"],
        description="Still broken.",
    )


def test_no_network_ticket_during_an_active_outage(desk, seed):
    line = seed.line(lambda x: seed.customers[x["customer_id"]]["zip"] in seed.active_outage_zips)
    for category in ("no service", "slow data"):
        desk.refused(
            "create_ticket",
            "active outage",
            phone_number=line["phone_number"],
            category=category,
            description="No bars.",
        )
    out, _, _ = desk.ok("get_outages", zip=seed.customers[line["customer_id"]]["zip"])
    assert out["active_outages"] >= 1 and out["outages"][0]["status"] == "active"


def test_create_ticket(desk, seed):
    line = seed.line(
        lambda x: (
            seed.customers[x["customer_id"]]["zip"] not in seed.active_outage_zips
            and not any(
                t["phone_number"] == x["phone_number"]
                and t["category"] == "no service"
                and t["status"] in ("open", "in_progress")
                for t in seed.state["tickets"]
            )
        )
    )
    out, before, after = desk.ok(
        "create_ticket",
        phone_number=line["phone_number"],
        category="no service",
        description="The phone shows no signal at home. Restarted twice.",
    )
    assert out["status"] == "open" and out["title"] == "The phone shows no signal at home"
    assert out["customer_id"] == line["customer_id"] and out["created_at"] == "2026-06-18T15:00:00Z"
    largest = max(int(t["ticket_id"][3:]) for t in before["tickets"])
    assert out["ticket_id"] == f"TKT{largest + 1:06d}"
    assert len(new_rows(before, after, "tickets")) == 1


def test_close_and_reopen_rules(desk, seed):
    closed = seed.ticket(lambda t: t["status"] == "closed")
    desk.refused("close_ticket", "already closed", ticket_id=closed["ticket_id"])
    desk.refused("reopen_ticket", "only resolved tickets can be reopened", ticket_id=closed["ticket_id"])
    opened = seed.ticket(lambda t: t["status"] == "open")
    desk.refused("reopen_ticket", "only resolved tickets", ticket_id=opened["ticket_id"])
    stale = seed.ticket(lambda t: t["status"] == "resolved" and t["resolved_at"] < "2026-06-11")
    desk.refused("reopen_ticket", "within 7 days", ticket_id=stale["ticket_id"])


def test_reopen_within_seven_days_then_close(desk, seed):
    recent = seed.ticket(lambda t: t["status"] == "resolved" and t["resolved_at"] >= "2026-06-11")
    view, _, _ = desk.ok("get_ticket_details", ticket_id=recent["ticket_id"])
    assert view["reopen_until"] >= "2026-06-18"
    out, _, _ = desk.ok("reopen_ticket", ticket_id=recent["ticket_id"])
    assert (
        out["status"] == "open" and out["resolved_at"] is None and out["updated_at"] == "2026-06-18T15:00:00Z"
    )
    out, _, _ = desk.ok("close_ticket", ticket_id=recent["ticket_id"])
    assert out["status"] == "closed"
    desk.refused("reopen_ticket", "only resolved tickets", ticket_id=recent["ticket_id"])


# --------------------------------------------------------------------------- utilities


def test_calculator_and_transfer(desk):
    out, _, _ = desk.ok("calculate", expression="(45 - 35) * 2 + 0.5")
    assert out["result"] == 20.5
    desk.refused("calculate", "only numbers", expression="__import__('os')")
    desk.refused("calculate", "division by zero", expression="1 / 0")
    out, _, _ = desk.ok("transfer_to_human_agents", summary="Customer wants a late fee waived.")
    assert out["transferred"] is True


def test_every_refusal_rule_is_declared_for_a_write_the_code_refuses(telecom_env):
    rules = telecom_env.spec.policy_rules
    assert {r.tool for r in rules.refusals} == {
        "pay_bill",
        "change_plan",
        "purchase_data_topup",
        "enable_roaming",
        "suspend_line",
        "resume_line",
        "upgrade_device",
        "close_ticket",
        "reopen_ticket",
    }
    writes = {t.name for t in telecom_env.spec.tools if t.effect == "write"}
    assert set(rules.confirm) == writes
