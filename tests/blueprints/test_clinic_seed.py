"""The clinic seed: deterministic, big enough, realistic, and internally consistent (every
appointment, referral, prescription and bill obeys the rules the tools enforce)."""

from __future__ import annotations

import datetime
import itertools
import random
from collections import Counter, defaultdict

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env

TODAY = datetime.date(2026, 6, 18)
NOW = "2026-06-18T15:00:00Z"


@pytest.fixture(scope="module")
def clinic_env() -> Environment:
    return build_env(load_blueprint("clinic"))


@pytest.fixture(scope="module")
def state(clinic_env) -> dict:
    return clinic_env.seed_state


def _age(born: str, day: datetime.date) -> int:
    b = datetime.date.fromisoformat(born)
    return day.year - b.year - (1 if (day.month, day.day) < (b.month, b.day) else 0)


def test_same_seed_gives_identical_sql(clinic_env):
    blueprint = load_blueprint("clinic")
    assert blueprint.generate_seed(random.Random(5)) == blueprint.generate_seed(random.Random(5))
    again = build_env(blueprint, blueprint.default_seed)
    assert again.seed_sql == clinic_env.seed_sql
    assert again.seed_hash == clinic_env.seed_hash


def test_different_seed_gives_different_state():
    blueprint = load_blueprint("clinic")
    assert blueprint.generate_seed(random.Random(1)) != blueprint.generate_seed(random.Random(2))


def test_sizes_and_every_state_present(state):
    total = sum(len(rows) for rows in state.values())
    assert 1000 <= total <= 2500
    assert len(state["patients"]) >= 80 and len(state["providers"]) >= 15 and len(state["slots"]) >= 300
    assert {a["status"] for a in state["appointments"]} == {"scheduled", "completed", "cancelled", "no_show"}
    assert {a["visit_type"] for a in state["appointments"]} == {
        "new_patient",
        "follow_up",
        "sick_visit",
        "annual_physical",
        "telehealth",
    }
    assert {r["status"] for r in state["referrals"]} == {"active", "used", "expired"}
    assert {r["status"] for r in state["prescriptions"]} == {
        "active",
        "needs_renewal",
        "renewal_requested",
        "discontinued",
    }
    assert {r["status"] for r in state["refills"]} == {"sent", "ready", "picked_up"}
    assert {b["status"] for b in state["bills"]} == {"pending_insurance", "due", "overdue", "paid"}
    assert {b["kind"] for b in state["bills"]} == {
        "copay",
        "visit_balance",
        "late_cancellation_fee",
        "no_show_fee",
    }
    assert {p["tier"] for p in state["insurance_plans"]} == {
        "self_pay",
        "bronze",
        "silver",
        "gold",
        "platinum",
    }
    assert {p["network_type"] for p in state["insurance_plans"]} == {"hmo", "ppo", "none"}
    assert {p["plan_id"] for p in state["patients"]} == {p["plan_id"] for p in state["insurance_plans"]}
    assert {m["kind"] for m in state["payment_methods"]} == {"credit_card", "debit_card", "hsa_card"}
    assert any(m["expires"] < "2026-06" for m in state["payment_methods"])
    assert {p["care_type"] for p in state["providers"]} == {"primary_care", "specialist"}
    assert {p["accepting_new_patients"] for p in state["providers"]} == {0, 1}
    assert any(m["controlled_schedule"] for m in state["medications"])
    assert {s["capacity"] for s in state["slots"]} >= {1, 2}


def test_keys_are_unique_and_references_resolve(clinic_env, state):
    for table in clinic_env.spec.tables:
        keys = [tuple(r[k] for k in table.primary_key) for r in state[table.name]]
        assert len(keys) == len(set(keys)), table.name
        for column in table.columns:
            if column.references is None:
                continue
            target, target_column = column.references.split(".")
            known = {r[target_column] for r in state[target]}
            for r in state[table.name]:
                assert r[column.name] is None or r[column.name] in known, (table.name, column.name, r)


def test_patients_are_identifiable_and_can_pay(state):
    patients = state["patients"]
    assert len({p["email"] for p in patients}) == len(patients)
    assert len({(p["first_name"], p["last_name"], p["date_of_birth"]) for p in patients}) == len(patients)
    assert any(_age(p["date_of_birth"], TODAY) < 18 for p in patients)
    plans = {p["plan_id"]: p for p in state["insurance_plans"]}
    for p in patients:
        plan = plans[p["plan_id"]]
        assert (p["member_id"] is None) == (plan["network_type"] == "none"), p
        assert p["member_id"] is None or p["member_id"].startswith(plan["member_id_prefix"]), p
    usable = {m["patient_id"] for m in state["payment_methods"] if m["expires"] >= "2026-06"}
    assert usable == {p["patient_id"] for p in patients}


def test_appointments_follow_the_booking_rules(state):
    slots = {s["slot_id"]: s for s in state["slots"]}
    providers = {p["provider_id"]: p for p in state["providers"]}
    patients = {p["patient_id"]: p for p in state["patients"]}
    plans = {p["plan_id"]: p for p in state["insurance_plans"]}
    referrals = {r["referral_id"]: r for r in state["referrals"]}
    booked: Counter = Counter()
    upcoming: dict[str, list[str]] = defaultdict(list)
    seen: set[tuple[str, str]] = set()
    for a in sorted(state["appointments"], key=lambda a: slots[a["slot_id"]]["start_time"]):
        slot = slots[a["slot_id"]]
        provider = providers[a["provider_id"]]
        patient = patients[a["patient_id"]]
        plan = plans[patient["plan_id"]]
        assert slot["provider_id"] == a["provider_id"]
        start = slot["start_time"]
        # Past visits are settled; only future ones are still scheduled.
        assert (a["status"] == "scheduled") == (start > NOW), a
        if a["status"] != "cancelled":
            booked[a["slot_id"]] += 1
        if a["status"] == "scheduled":
            assert a["provider_id"] not in upcoming[a["patient_id"]], "two upcoming visits with one provider"
            upcoming[a["patient_id"]].append(a["provider_id"])
            assert plan["accepted"] == 1
        # The first visit with a provider is a kept new-patient visit; later ones never are.
        key = (a["patient_id"], a["provider_id"])
        assert (a["visit_type"] == "new_patient") == (key not in seen), a
        if a["status"] == "completed":
            seen.add(key)
        age = _age(patient["date_of_birth"], datetime.date.fromisoformat(start[:10]))
        if provider["specialty"] == "pediatrics" and a["status"] == "scheduled":
            assert age < 18
        if provider["specialty"] == "internal_medicine":
            assert age >= 18
        if a["visit_type"] == "annual_physical":
            assert provider["care_type"] == "primary_care"
        if (
            provider["care_type"] == "specialist"
            and plan["network_type"] == "hmo"
            and a["status"] == "scheduled"
        ):
            assert a["referral_id"] is not None
        if a["referral_id"] is not None:
            referral = referrals[a["referral_id"]]
            assert (
                referral["patient_id"] == a["patient_id"] and referral["specialty"] == provider["specialty"]
            )
            assert referral["issued_on"] <= start[:10] <= referral["expires_on"]
        assert (a["status"] == "cancelled") == (a["cancelled_at"] is not None)
        assert a["booked_at"] < (a["cancelled_at"] or start) or a["status"] == "scheduled"
    for slot_id, count in booked.items():
        assert count <= slots[slot_id]["capacity"], slot_id
    # No double booking: a patient's scheduled visits start at different times.
    times: dict[str, list[str]] = defaultdict(list)
    for a in state["appointments"]:
        if a["status"] == "scheduled":
            times[a["patient_id"]].append(slots[a["slot_id"]]["start_time"])
    assert all(len(t) == len(set(t)) for t in times.values())
    # Some visits fall in the late-cancellation window, some slots are full, some still open.
    soon = [
        a
        for a in state["appointments"]
        if a["status"] == "scheduled" and slots[a["slot_id"]]["start_time"] < "2026-06-19T15:00:00Z"
    ]
    assert soon
    future = [s for s in state["slots"] if s["start_time"] > NOW]
    assert any(booked[s["slot_id"]] >= s["capacity"] for s in future)
    assert any(booked[s["slot_id"]] < s["capacity"] for s in future)


def test_one_annual_physical_a_year(state):
    slots = {s["slot_id"]: s["start_time"][:10] for s in state["slots"]}
    days: dict[str, list[datetime.date]] = defaultdict(list)
    for a in state["appointments"]:
        if a["visit_type"] == "annual_physical" and a["status"] in ("scheduled", "completed"):
            days[a["patient_id"]].append(datetime.date.fromisoformat(slots[a["slot_id"]]))
    for dates in days.values():
        dates.sort()
        assert all((b - a).days > 365 for a, b in itertools.pairwise(dates))


def test_copays_come_from_the_plan(state):
    providers = {p["provider_id"]: p for p in state["providers"]}
    patients = {p["patient_id"]: p for p in state["patients"]}
    plans = {p["plan_id"]: p for p in state["insurance_plans"]}
    for a in state["appointments"]:
        plan = plans[patients[a["patient_id"]]["plan_id"]]
        if a["visit_type"] == "telehealth":
            want = plan["telehealth_copay_cents"]
        elif a["visit_type"] == "annual_physical" and plan["network_type"] != "none":
            want = 0
        elif providers[a["provider_id"]]["care_type"] == "specialist":
            want = plan["specialist_copay_cents"]
        else:
            want = plan["primary_copay_cents"]
        assert a["copay_cents"] == want, a


def test_referrals_count_their_visits(state):
    used: Counter = Counter()
    for a in state["appointments"]:
        if a["referral_id"] is not None and a["status"] != "cancelled":
            used[a["referral_id"]] += 1
    for r in state["referrals"]:
        assert r["visits_used"] == used[r["referral_id"]], r
        assert r["issued_on"] < r["expires_on"]
        if r["expires_on"] < TODAY.isoformat():
            assert r["status"] == "expired"
        elif r["visits_used"] >= r["visits_allowed"]:
            assert r["status"] == "used"
        else:
            assert r["status"] == "active"


def test_prescriptions_are_consistent(state):
    meds = {m["medication_id"]: m for m in state["medications"]}
    for rx in state["prescriptions"]:
        assert rx["written_on"] <= rx["last_filled_on"] <= TODAY.isoformat()
        assert rx["written_on"] < rx["expires_on"]
        if rx["status"] == "active":
            assert rx["refills_remaining"] > 0 and rx["expires_on"] >= TODAY.isoformat()
        if rx["status"] in ("needs_renewal", "renewal_requested"):
            assert rx["refills_remaining"] == 0 or rx["expires_on"] < TODAY.isoformat()
        assert (rx["status"] == "renewal_requested") == (rx["renewal_requested_at"] is not None)
        if meds[rx["medication_id"]]["controlled_schedule"] == "II":
            assert rx["refills_remaining"] == 0
    statuses = Counter(
        (meds[r["medication_id"]]["controlled_schedule"] is not None, r["status"])
        for r in state["prescriptions"]
    )
    assert statuses[(False, "active")] and statuses[(True, "active")] + statuses[(True, "needs_renewal")]
    by_rx = {r["rx_number"]: r for r in state["prescriptions"]}
    for refill in state["refills"]:
        rx = by_rx[refill["rx_number"]]
        assert rx["written_on"] <= refill["requested_at"][:10] <= rx["last_filled_on"]


def test_bills_items_and_payments_add_up(state):
    appointments = {a["appointment_id"]: a for a in state["appointments"]}
    items: Counter = Counter()
    for i in state["bill_items"]:
        items[i["bill_id"]] += i["amount_cents"]
    paid: Counter = Counter()
    methods = {m["payment_method_id"]: m for m in state["payment_methods"]}
    bills = {b["bill_id"]: b for b in state["bills"]}
    for p in state["payments"]:
        paid[p["bill_id"]] += p["amount_cents"]
        assert methods[p["payment_method_id"]]["patient_id"] == bills[p["bill_id"]]["patient_id"]
        assert p["created_at"][:10] >= bills[p["bill_id"]]["issued_on"]
    for b in state["bills"]:
        assert items[b["bill_id"]] == b["amount_cents"], b
        assert appointments[b["appointment_id"]]["patient_id"] == b["patient_id"]
        balance = b["amount_cents"] - paid[b["bill_id"]]
        assert (balance == 0) == (b["status"] == "paid"), b
        assert balance >= 0
        if b["status"] == "overdue":
            assert b["due_date"] < TODAY.isoformat()
        if b["status"] == "due":
            assert b["due_date"] >= TODAY.isoformat()
        kind = {"no_show_fee": "no_show", "late_cancellation_fee": "cancelled"}.get(b["kind"], "completed")
        assert appointments[b["appointment_id"]]["status"] == kind
