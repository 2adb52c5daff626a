"""Clinic business rules: every rule a tool enforces is refused cleanly (state untouched), and the
happy paths change exactly what they should (money in cents, dates from the clock)."""

from __future__ import annotations

import datetime
from collections import defaultdict
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import Toolbox, dump_state, state_hash

TODAY = datetime.date(2026, 6, 18)
NOW = "2026-06-18T15:00:00Z"
LATE_CUT = "2026-06-19T15:00:00Z"  # visits starting before this are within 24 hours

# --------------------------------------------------------------------------- helpers


def _age(born: str, day: datetime.date = TODAY) -> int:
    b = datetime.date.fromisoformat(born)
    return day.year - b.year - (1 if (day.month, day.day) < (b.month, b.day) else 0)


class Seed:
    """Indexes over the seed state, for finding rows that fit a test."""

    def __init__(self, state: dict[str, list[dict[str, Any]]]) -> None:
        self.state = state
        self.plans = {p["plan_id"]: p for p in state["insurance_plans"]}
        self.patients = {p["patient_id"]: p for p in state["patients"]}
        self.providers = {p["provider_id"]: p for p in state["providers"]}
        self.slots = {s["slot_id"]: s for s in state["slots"]}
        self.meds = {m["medication_id"]: m for m in state["medications"]}
        self.booked: dict[str, int] = defaultdict(int)
        for a in state["appointments"]:
            if a["status"] != "cancelled":
                self.booked[a["slot_id"]] += 1
        self.paid: dict[str, int] = defaultdict(int)
        for p in state["payments"]:
            self.paid[p["bill_id"]] += p["amount_cents"]

    def start(self, appointment: dict) -> str:
        return self.slots[appointment["slot_id"]]["start_time"]

    def appointments(self, want=lambda a: True, **fields: Any) -> list[dict]:
        return [
            a for a in self.state["appointments"] if all(a[k] == v for k, v in fields.items()) and want(a)
        ]

    def appointment(self, want=lambda a: True, **fields: Any) -> dict:
        found = self.appointments(want, **fields)
        if not found:
            pytest.fail(f"the seed has no appointment with {fields}")
        return found[0]

    def established(self, patient_id: str, provider_id: str) -> bool:
        return bool(self.appointments(patient_id=patient_id, provider_id=provider_id, status="completed"))

    def upcoming(self, patient_id: str) -> list[dict]:
        return self.appointments(lambda a: self.start(a) > NOW, patient_id=patient_id, status="scheduled")

    def open_slot(self, provider_id: str, patient_id: str | None = None, want=lambda s: True) -> dict | None:
        taken = {self.start(a) for a in self.upcoming(patient_id)} if patient_id else set()
        return next(
            (
                s
                for s in self.state["slots"]
                if s["provider_id"] == provider_id
                and s["start_time"] > NOW
                and self.booked[s["slot_id"]] < s["capacity"]
                and s["start_time"] not in taken
                and want(s)
            ),
            None,
        )

    def patient(self, want) -> dict:
        found = next((p for p in self.state["patients"] if want(p)), None)
        if found is None:
            pytest.fail("the seed has no patient that fits")
        return found

    def accepted(self, patient: dict) -> bool:
        return bool(self.plans[patient["plan_id"]]["accepted"])

    def network(self, patient: dict) -> str:
        return self.plans[patient["plan_id"]]["network_type"]

    def rx(self, want) -> dict:
        found = next((r for r in self.state["prescriptions"] if want(r)), None)
        if found is None:
            pytest.fail("the seed has no prescription that fits")
        return found

    def controlled(self, rx: dict) -> bool:
        return self.meds[rx["medication_id"]]["controlled_schedule"] is not None

    def recent_visit(self, patient_id: str, provider_id: str, days: int = 90) -> bool:
        since = (TODAY - datetime.timedelta(days=days)).isoformat()
        return any(
            self.start(a)[:10] >= since
            for a in self.appointments(patient_id=patient_id, provider_id=provider_id, status="completed")
        )

    def refill_due(self, rx: dict) -> bool:
        last = datetime.date.fromisoformat(rx["last_filled_on"])
        return last + datetime.timedelta(days=rx["days_supply"] * 3 // 4) <= TODAY

    def bill(self, status: str, want=lambda b: True) -> dict:
        bill = next((b for b in self.state["bills"] if b["status"] == status and want(b)), None)
        if bill is None:
            pytest.fail(f"the seed has no {status} bill that fits")
        return bill

    def balance(self, bill_id: str) -> int:
        bill = next(b for b in self.state["bills"] if b["bill_id"] == bill_id)
        return bill["amount_cents"] - self.paid[bill_id]

    def valid_card(self, patient_id: str) -> dict | None:
        return next(
            (
                m
                for m in self.state["payment_methods"]
                if m["patient_id"] == patient_id and m["expires"] >= "2026-06"
            ),
            None,
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


def changed_tables(before: dict, after: dict) -> set[str]:
    return {t for t in before if before[t] != after[t]}


def new_rows(before: dict, after: dict, table: str) -> list[dict]:
    old = [repr(sorted(r.items())) for r in before[table]]
    return [r for r in after[table] if repr(sorted(r.items())) not in old]


def row(state: dict, table: str, key: str, value: Any) -> dict:
    return next(r for r in state[table] if r[key] == value)


@pytest.fixture(scope="module")
def clinic_env() -> Environment:
    return build_env(load_blueprint("clinic"))


@pytest.fixture(scope="module")
def seed(clinic_env) -> Seed:
    return Seed(clinic_env.seed_state)


@pytest.fixture(scope="module")
def toolbox(clinic_env) -> Toolbox:
    return clinic_env.toolbox()


@pytest.fixture
def desk(clinic_env, toolbox):
    session = clinic_env.new_session()
    yield Desk(toolbox, session.db)
    session.close()


def _booking(seed: Seed, want_patient, want_provider, established: bool | None = None):
    """(patient, provider, open slot) for a booking that passes every rule but the one under test."""
    for patient in seed.state["patients"]:
        if not want_patient(patient):
            continue
        for provider in seed.state["providers"]:
            if not want_provider(provider):
                continue
            if (
                established is not None
                and seed.established(patient["patient_id"], provider["provider_id"]) != established
            ):
                continue
            if any(a["provider_id"] == provider["provider_id"] for a in seed.upcoming(patient["patient_id"])):
                continue
            slot = seed.open_slot(provider["provider_id"], patient["patient_id"])
            if slot is not None:
                return patient, provider, slot
    pytest.fail("the seed has no booking that fits")


def _book(desk: Desk, patient: dict, provider: dict, slot: dict, visit_type: str, reason: str = "Checkup"):
    return {
        "slot_id": slot["slot_id"],
        "provider_id": provider["provider_id"],
        "patient_id": patient["patient_id"],
        "visit_type": visit_type,
        "reason": reason,
    }


# --------------------------------------------------------------------------- identity and lookups


def test_find_patient_by_email_and_by_name_dob(desk, seed):
    p = seed.state["patients"][7]
    out, _, _ = desk.ok("find_patient_id_by_email", email=p["email"].upper())
    assert out == {"patient_id": p["patient_id"]}
    out, _, _ = desk.ok(
        "find_patient_id_by_name_dob",
        first_name=p["first_name"].lower(),
        last_name=p["last_name"],
        date_of_birth=p["date_of_birth"],
    )
    assert out == {"patient_id": p["patient_id"]}


def test_two_patients_with_one_name_and_birth_date_need_the_email(desk, seed):
    p = seed.state["patients"][3]
    desk.sql(
        "INSERT INTO patients VALUES ('pat_900001', ?, ?, ?, 'twin@example.com', '6145550000', ?, ?, ?, ?, ?)",
        (
            p["first_name"],
            p["last_name"],
            p["date_of_birth"],
            p["plan_id"],
            p["member_id"],
            p["pharmacy_id"],
            p["primary_provider_id"],
            "2026-01-01",
        ),
    )
    desk.refused(
        "find_patient_id_by_name_dob",
        "ask for the email",
        first_name=p["first_name"],
        last_name=p["last_name"],
        date_of_birth=p["date_of_birth"],
    )


def test_unknown_ids_are_refused(desk, seed):
    desk.refused("find_patient_id_by_email", "no patient found", email="nobody@nowhere.example")
    desk.refused(
        "find_patient_id_by_name_dob",
        "no patient found",
        first_name="No",
        last_name="Body",
        date_of_birth="1900-01-01",
    )
    desk.refused("get_patient_details", "pat_999999 not found", patient_id="pat_999999")
    desk.refused("get_provider_schedule", "prv_9999 not found", provider_id="prv_9999")
    desk.refused("get_appointment_details", "apt999999 not found", appointment_id="APT999999")
    desk.refused("get_referral_details", "ref999999 not found", referral_id="REF999999")
    desk.refused("get_prescription_details", "rx9999999 not found", rx_number="RX9999999")
    desk.refused("get_bill_details", "inv999999 not found", bill_id="INV999999")
    rx = seed.rx(lambda r: r["status"] == "active" and not seed.controlled(r))
    desk.refused(
        "transfer_prescription", "phm_9999 not found", rx_number=rx["rx_number"], pharmacy_id="phm_9999"
    )
    patient = seed.state["patients"][0]
    desk.refused(
        "update_insurance_plan",
        "ins_nosuch not found",
        patient_id=patient["patient_id"],
        plan_id="ins_nosuch",
    )


def test_invalid_arguments_are_rejected_before_the_tool_runs(desk, seed):
    patient, provider, slot = _booking(seed, seed.accepted, lambda p: True)
    desk.refused("book_appointment", "invalid arguments", **_book(desk, patient, provider, slot, "massage"))
    desk.refused("get_appointment_details", "invalid arguments", appointment_id="APT-12")
    desk.refused("list_insurance_plans", "invalid arguments", network_type="epo")
    bill = seed.bill("due")
    card = seed.state["payment_methods"][0]["payment_method_id"]
    desk.refused("pay_bill", "invalid arguments", bill_id=bill["bill_id"], payment_method_id=card, amount=0)


def test_reads_show_state_in_dollars(desk, seed):
    bill = (
        seed.bill("due", lambda b: seed.paid[b["bill_id"]] > 0)
        if any(b["status"] == "due" and seed.paid[b["bill_id"]] > 0 for b in seed.state["bills"])
        else seed.bill("overdue", lambda b: seed.paid[b["bill_id"]] > 0)
    )
    out, _, _ = desk.ok("get_bill_details", bill_id=bill["bill_id"])
    assert out["amount"] == bill["amount_cents"] / 100
    assert out["balance_due"] == round(seed.balance(bill["bill_id"]) / 100, 2)
    out, _, _ = desk.ok("list_insurance_plans")
    assert len(out["plans"]) == len(seed.plans)
    assert out["plans"][-1]["accepted"] is False  # plans the clinic no longer takes come last
    gold = next(p for p in out["plans"] if p["plan_id"] == "ins_gold_hmo")
    assert gold["specialist_copay"] == 40.0 and gold["referral_required_for_specialists"] is True
    assert gold["annual_physical_copay"] == 0.0
    out, _, _ = desk.ok("get_plan_details", plan_id="ins_selfpay")
    copays = {c["service"]: c["copay"] for c in out["copays"]}
    assert copays == {
        "primary_care": 150.0,
        "specialist": 250.0,
        "telehealth": 90.0,
        "annual_physical": 150.0,
    }
    hmo, _, _ = desk.ok("list_insurance_plans", network_type="hmo")
    assert {p["network_type"] for p in hmo["plans"]} == {"hmo"}
    provider = seed.state["providers"][0]
    out, _, _ = desk.ok("get_provider_schedule", provider_id=provider["provider_id"])
    assert all(s["start_time"] > NOW and s["spots_left"] >= 1 for s in out["open_slots"])
    assert out["open_slot_count"] == len(out["open_slots"])
    rx = seed.rx(lambda r: r["status"] == "active")
    out, _, _ = desk.ok("get_prescription_details", rx_number=rx["rx_number"])
    assert out["refills_remaining"] == rx["refills_remaining"]
    a = seed.appointment(status="scheduled")
    out, _, _ = desk.ok("get_appointment_details", appointment_id=a["appointment_id"])
    start = datetime.datetime.fromisoformat(seed.start(a)[:19])
    assert out["free_cancellation_until"] == (start - datetime.timedelta(hours=24)).strftime(
        "%Y-%m-%dT%H:%M:00Z"
    )
    patient = seed.patients[a["patient_id"]]
    out, _, _ = desk.ok("get_patient_details", patient_id=patient["patient_id"])
    assert a["appointment_id"] in out["appointments"]
    assert out["age"] == _age(patient["date_of_birth"])


# --------------------------------------------------------------------------- booking


def test_booking_an_established_patient_charges_the_plan_copay(desk, seed):
    patient, provider, slot = _booking(
        seed,
        lambda p: seed.accepted(p) and seed.network(p) == "ppo" and _age(p["date_of_birth"]) >= 18,
        lambda p: p["specialty"] == "family_medicine",
        established=True,
    )
    out, before, after = desk.ok(
        "book_appointment", **_book(desk, patient, provider, slot, "sick_visit", " Sore throat ")
    )
    assert changed_tables(before, after) == {"appointments"}
    [new] = new_rows(before, after, "appointments")
    assert new["status"] == "scheduled" and new["reason"] == "Sore throat" and new["booked_at"] == NOW
    assert new["copay_cents"] == seed.plans[patient["plan_id"]]["primary_copay_cents"]
    assert out["appointment_id"] == new["appointment_id"] and out["copay"] == new["copay_cents"] / 100
    assert out["when"] == slot["label"]


def test_booking_refuses_a_slot_of_another_provider_a_past_slot_and_a_full_one(desk, seed):
    patient, provider, slot = _booking(seed, seed.accepted, lambda p: p["care_type"] == "primary_care")
    other = next(p for p in seed.state["providers"] if p["provider_id"] != provider["provider_id"])
    args = _book(desk, patient, other, slot, "new_patient")
    desk.refused("book_appointment", "not one of", **args)
    past = next(
        s
        for s in seed.state["slots"]
        if s["start_time"] < NOW and s["provider_id"] == provider["provider_id"]
    )
    desk.refused("book_appointment", "in the past", **_book(desk, patient, provider, past, "follow_up"))
    full = next(
        s
        for s in seed.state["slots"]
        if s["start_time"] > NOW
        and seed.booked[s["slot_id"]] >= s["capacity"]
        and not any(a["patient_id"] == patient["patient_id"] for a in seed.appointments(slot_id=s["slot_id"]))
    )
    owner = seed.providers[full["provider_id"]]
    desk.refused("book_appointment", "fully booked", **_book(desk, patient, owner, full, "follow_up"))


def test_capacity_counts_every_patient_in_a_shared_slot(desk, seed):
    slot = next(
        s
        for s in seed.state["slots"]
        if s["start_time"] > NOW and s["capacity"] >= 2 and seed.booked[s["slot_id"]] == 0
    )
    provider = seed.providers[slot["provider_id"]]
    fits = [
        p
        for p in seed.state["patients"]
        if seed.accepted(p)
        and seed.established(p["patient_id"], provider["provider_id"])
        and not any(a["provider_id"] == provider["provider_id"] for a in seed.upcoming(p["patient_id"]))
        and slot["start_time"] not in {seed.start(a) for a in seed.upcoming(p["patient_id"])}
    ]
    # Fill the shared slot with set-up rows, then a booking beyond its capacity is refused.
    for n in range(slot["capacity"]):
        desk.sql(
            "INSERT INTO appointments VALUES (?, ?, ?, ?, 'follow_up', 'x', 'scheduled', NULL, 0, ?, NULL)",
            (
                f"APT9{n:05d}",
                seed.state["patients"][n]["patient_id"],
                provider["provider_id"],
                slot["slot_id"],
                NOW,
            ),
        )
    assert fits, "the seed has no established patient for a shared slot"
    desk.refused("book_appointment", "fully booked", **_book(desk, fits[0], provider, slot, "follow_up"))


def test_no_double_booking_and_one_upcoming_visit_per_provider(desk, seed):
    a = seed.appointment(lambda a: seed.start(a) > NOW, status="scheduled")
    patient = seed.patients[a["patient_id"]]
    provider = seed.providers[a["provider_id"]]
    slot = seed.open_slot(provider["provider_id"], patient["patient_id"])
    assert slot is not None
    desk.refused(
        "book_appointment",
        "already has upcoming appointment",
        **_book(desk, patient, provider, slot, "follow_up"),
    )
    # A set-up open slot of another provider at the very time of the patient's visit overlaps it.
    other = next(p for p in seed.state["providers"] if p["provider_id"] != provider["provider_id"])
    desk.sql(
        "INSERT INTO slots VALUES ('slt_900001', ?, ?, 'set-up slot', 30, 1)",
        (other["provider_id"], seed.start(a)),
    )
    clash = {**slot, "slot_id": "slt_900001"}
    desk.refused("book_appointment", "overlaps", **_book(desk, patient, other, clash, "new_patient"))


def test_booking_refuses_a_plan_the_clinic_no_longer_takes(desk, seed):
    patient = seed.patient(lambda p: not seed.accepted(p))
    provider = next(p for p in seed.state["providers"] if p["specialty"] == "family_medicine")
    slot = seed.open_slot(provider["provider_id"], patient["patient_id"])
    desk.refused(
        "book_appointment", "no longer accepts", **_book(desk, patient, provider, slot, "new_patient")
    )


def test_age_rules_of_pediatrics_and_internal_medicine(desk, seed):
    adult, pediatrician, slot = _booking(
        seed,
        lambda p: seed.accepted(p) and _age(p["date_of_birth"]) >= 18,
        lambda p: p["specialty"] == "pediatrics",
    )
    desk.refused("book_appointment", "pediatrician", **_book(desk, adult, pediatrician, slot, "new_patient"))
    child, internist, slot = _booking(
        seed,
        lambda p: seed.accepted(p) and _age(p["date_of_birth"]) < 17,
        lambda p: p["specialty"] == "internal_medicine",
    )
    desk.refused("book_appointment", "only adults", **_book(desk, child, internist, slot, "new_patient"))


def test_new_patient_rules(desk, seed):
    adult = lambda p: seed.accepted(p) and seed.network(p) == "ppo" and _age(p["date_of_birth"]) >= 18
    patient, closed, slot = _booking(
        seed,
        adult,
        lambda p: not p["accepting_new_patients"] and p["specialty"] != "pediatrics",
        established=False,
    )
    desk.refused(
        "book_appointment", "not accepting new patients", **_book(desk, patient, closed, slot, "new_patient")
    )
    patient, provider, slot = _booking(
        seed,
        adult,
        lambda p: (
            p["accepting_new_patients"]
            and p["care_type"] == "primary_care"
            and p["specialty"] != "pediatrics"
        ),
        established=False,
    )
    desk.refused(
        "book_appointment", "must be a new_patient", **_book(desk, patient, provider, slot, "follow_up")
    )
    out, _, _ = desk.ok("book_appointment", **_book(desk, patient, provider, slot, "new_patient"))
    assert out["visit_type"] == "new_patient" and out["status"] == "scheduled"
    patient, provider, slot = _booking(
        seed, adult, lambda p: p["care_type"] == "primary_care", established=True
    )
    desk.refused(
        "book_appointment", "already established", **_book(desk, patient, provider, slot, "new_patient")
    )


def test_annual_physical_rules(desk, seed):
    patient, specialist, slot = _booking(
        seed,
        lambda p: seed.accepted(p) and seed.network(p) == "ppo",
        lambda p: p["care_type"] == "specialist",
        established=True,
    )
    desk.refused(
        "book_appointment",
        "primary-care providers only",
        **_book(desk, patient, specialist, slot, "annual_physical"),
    )
    recent = seed.appointment(
        lambda a: seed.start(a)[:10] > "2025-07-01" and seed.accepted(seed.patients[a["patient_id"]]),
        visit_type="annual_physical",
        status="completed",
    )
    patient = seed.patients[recent["patient_id"]]
    provider = seed.providers[recent["provider_id"]]
    # The seed is fixed: a skip here would hide the rule; a changed seed must pick another visit.
    assert not any(
        a["provider_id"] == provider["provider_id"] for a in seed.upcoming(patient["patient_id"])
    ), "the seed changed: that patient already has an upcoming visit with the provider"
    slot = seed.open_slot(provider["provider_id"], patient["patient_id"])
    desk.refused(
        "book_appointment",
        "already has an annual physical",
        **_book(desk, patient, provider, slot, "annual_physical"),
    )


def test_a_scheduled_physical_counts_too(desk, seed):
    a = seed.appointment(lambda a: seed.start(a) > NOW, visit_type="annual_physical", status="scheduled")
    patient = seed.patients[a["patient_id"]]
    other = next(
        p
        for p in seed.state["providers"]
        if p["specialty"] == "family_medicine" and p["provider_id"] != a["provider_id"]
    )
    # Set-up: the patient has been seen by the other provider, so a physical there is not a first visit.
    past = next(
        s for s in seed.state["slots"] if s["provider_id"] == other["provider_id"] and s["start_time"] < NOW
    )
    desk.sql(
        "INSERT INTO appointments VALUES ('APT900003', ?, ?, ?, 'new_patient', 'x', 'completed', NULL, 0, ?, NULL)",
        (patient["patient_id"], other["provider_id"], past["slot_id"], "2025-01-02T09:00:00Z"),
    )
    slot = seed.open_slot(other["provider_id"], patient["patient_id"])
    error = desk.refused(
        "book_appointment",
        "already has an annual physical",
        **_book(desk, patient, other, slot, "annual_physical"),
    )
    assert a["appointment_id"] in error and "scheduled" in error


def test_annual_physical_is_free_on_insured_plans(desk, seed):
    patient, provider, slot = _booking(
        seed,
        lambda p: (
            seed.accepted(p)
            and seed.network(p) != "none"
            and _age(p["date_of_birth"]) >= 18
            and not seed.appointments(patient_id=p["patient_id"], visit_type="annual_physical")
        ),
        lambda p: p["care_type"] == "primary_care",
        established=True,
    )
    out, _, _ = desk.ok("book_appointment", **_book(desk, patient, provider, slot, "annual_physical"))
    assert out["copay"] == 0.0


def test_hmo_specialist_visits_need_a_valid_referral_and_use_it(desk, seed):
    patient, provider, slot = _booking(
        seed,
        lambda p: (
            seed.accepted(p)
            and seed.network(p) == "hmo"
            and _age(p["date_of_birth"]) >= 18
            and not any(r["patient_id"] == p["patient_id"] for r in seed.state["referrals"])
        ),
        lambda p: p["care_type"] == "specialist" and p["accepting_new_patients"],
        established=False,
    )
    args = _book(desk, patient, provider, slot, "new_patient", "Chest pain on exertion")
    desk.refused("book_appointment", "needs an active referral", **args)
    referrer = next(p for p in seed.state["providers"] if p["specialty"] == "family_medicine")
    # An expired referral, then one that ends before the visit, are no better.
    insert = "INSERT INTO referrals VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)"
    desk.sql(
        insert,
        (
            "REF900001",
            patient["patient_id"],
            referrer["provider_id"],
            provider["specialty"],
            "2025-01-02",
            "2025-07-01",
            2,
            "expired",
        ),
    )
    desk.refused("book_appointment", "needs an active referral", **args)
    desk.sql(
        insert,
        (
            "REF900002",
            patient["patient_id"],
            referrer["provider_id"],
            provider["specialty"],
            "2026-01-02",
            "2026-06-18",
            2,
            "active",
        ),
    )
    desk.refused("book_appointment", "needs an active referral", **args)
    desk.sql(
        insert,
        (
            "REF900003",
            patient["patient_id"],
            referrer["provider_id"],
            provider["specialty"],
            "2026-06-01",
            "2026-12-01",
            1,
            "active",
        ),
    )
    out, _before, after = desk.ok("book_appointment", **args)
    assert out["referral_id"] == "REF900003"
    assert out["copay"] == seed.plans[patient["plan_id"]]["specialist_copay_cents"] / 100
    referral = row(after, "referrals", "referral_id", "REF900003")
    assert referral["visits_used"] == 1 and referral["status"] == "used"
    # Cancelling gives the visit back.
    out, _, after = desk.ok("cancel_appointment", appointment_id=out["appointment_id"])
    referral = row(after, "referrals", "referral_id", "REF900003")
    assert referral["visits_used"] == 0 and referral["status"] == "active"


def test_ppo_specialist_visits_need_no_referral(desk, seed):
    patient, provider, slot = _booking(
        seed,
        lambda p: seed.accepted(p) and seed.network(p) == "ppo" and _age(p["date_of_birth"]) >= 18,
        lambda p: p["care_type"] == "specialist" and p["accepting_new_patients"],
        established=False,
    )
    out, before, after = desk.ok("book_appointment", **_book(desk, patient, provider, slot, "new_patient"))
    assert out["referral_id"] is None
    assert changed_tables(before, after) == {"appointments"}


def test_booking_needs_a_reason(desk, seed):
    patient, provider, slot = _booking(seed, seed.accepted, lambda p: True, established=True)
    desk.refused("book_appointment", "reason", **_book(desk, patient, provider, slot, "follow_up", "   "))


# --------------------------------------------------------------------------- cancel and reschedule


def test_cancel_and_reschedule_refuse_appointments_that_are_not_scheduled(desk, seed):
    for status in ("completed", "cancelled", "no_show"):
        a = seed.appointment(status=status)
        desk.refused("cancel_appointment", "only scheduled", appointment_id=a["appointment_id"])
        slot = seed.open_slot(a["provider_id"])
        desk.refused(
            "reschedule_appointment",
            "only scheduled",
            appointment_id=a["appointment_id"],
            slot_id=slot["slot_id"],
        )


def test_cancelling_early_is_free(desk, seed):
    a = seed.appointment(lambda a: seed.start(a) >= LATE_CUT and a["referral_id"] is None, status="scheduled")
    out, before, after = desk.ok("cancel_appointment", appointment_id=a["appointment_id"])
    assert out["late_fee"] == 0.0 and out["fee_bill_id"] is None
    assert changed_tables(before, after) == {"appointments"}
    assert row(after, "appointments", "appointment_id", a["appointment_id"])["cancelled_at"] == NOW
    assert out["appointment"]["status"] == "cancelled"
    desk.refused("cancel_appointment", "only scheduled", appointment_id=a["appointment_id"])


def test_cancelling_within_24_hours_costs_the_late_fee(desk, seed):
    a = seed.appointment(lambda a: NOW < seed.start(a) < LATE_CUT, status="scheduled")
    out, before, after = desk.ok("cancel_appointment", appointment_id=a["appointment_id"])
    assert out["late_fee"] == 50.0
    [bill] = new_rows(before, after, "bills")
    assert bill["bill_id"] == out["fee_bill_id"] and bill["kind"] == "late_cancellation_fee"
    assert bill["amount_cents"] == 5000 and bill["status"] == "due"
    assert bill["patient_id"] == a["patient_id"] and bill["appointment_id"] == a["appointment_id"]
    assert bill["issued_on"] == "2026-06-18" and bill["due_date"] == "2026-07-18"
    [item] = new_rows(before, after, "bill_items")
    assert item["bill_id"] == bill["bill_id"] and item["amount_cents"] == 5000


def test_reschedule_rules(desk, seed):
    a = seed.appointment(lambda a: seed.start(a) >= LATE_CUT and a["referral_id"] is None, status="scheduled")
    same = seed.slots[a["slot_id"]]
    desk.refused(
        "reschedule_appointment",
        "already in slot",
        appointment_id=a["appointment_id"],
        slot_id=same["slot_id"],
    )
    other = next(
        s
        for s in seed.state["slots"]
        if s["provider_id"] != a["provider_id"]
        and s["start_time"] > NOW
        and seed.booked[s["slot_id"]] < s["capacity"]
    )
    desk.refused(
        "reschedule_appointment",
        "same provider",
        appointment_id=a["appointment_id"],
        slot_id=other["slot_id"],
    )
    past = next(
        s for s in seed.state["slots"] if s["provider_id"] == a["provider_id"] and s["start_time"] < NOW
    )
    desk.refused(
        "reschedule_appointment", "in the past", appointment_id=a["appointment_id"], slot_id=past["slot_id"]
    )
    target = seed.open_slot(a["provider_id"], a["patient_id"], lambda s: s["slot_id"] != a["slot_id"])
    # Another open slot of the provider, filled up by a set-up booking of someone else.
    full = seed.open_slot(
        a["provider_id"],
        a["patient_id"],
        lambda s: s["slot_id"] not in (a["slot_id"], target["slot_id"]) and seed.booked[s["slot_id"]] == 0,
    )
    other_patient = next(p for p in seed.state["patients"] if p["patient_id"] != a["patient_id"])
    desk.sql("UPDATE slots SET capacity = 1 WHERE slot_id = ?", (full["slot_id"],))
    desk.sql(
        "INSERT INTO appointments VALUES ('APT900002', ?, ?, ?, 'follow_up', 'x', 'scheduled', NULL, 0, ?, NULL)",
        (other_patient["patient_id"], a["provider_id"], full["slot_id"], NOW),
    )
    desk.refused(
        "reschedule_appointment", "fully booked", appointment_id=a["appointment_id"], slot_id=full["slot_id"]
    )
    # A set-up visit of the patient's with another provider at the target time: a double booking.
    other = next(p for p in seed.state["providers"] if p["provider_id"] != a["provider_id"])
    desk.sql(
        "INSERT INTO slots VALUES ('slt_900001', ?, ?, 'set-up slot', 30, 1)",
        (other["provider_id"], target["start_time"]),
    )
    desk.sql(
        "INSERT INTO appointments VALUES ('APT900001', ?, ?, 'slt_900001', 'follow_up', 'x', 'scheduled', NULL, 0, ?, NULL)",
        (a["patient_id"], other["provider_id"], NOW),
    )
    desk.refused(
        "reschedule_appointment", "overlaps", appointment_id=a["appointment_id"], slot_id=target["slot_id"]
    )
    desk.sql("DELETE FROM appointments WHERE appointment_id IN ('APT900001', 'APT900002')")
    desk.sql("DELETE FROM slots WHERE slot_id = 'slt_900001'")
    out, before, after = desk.ok(
        "reschedule_appointment", appointment_id=a["appointment_id"], slot_id=target["slot_id"]
    )
    assert out["late_fee"] == 0.0 and out["previous_time"] == seed.start(a)
    assert row(after, "appointments", "appointment_id", a["appointment_id"])["slot_id"] == target["slot_id"]
    assert changed_tables(before, after) == {"appointments"}


def test_rescheduling_within_24_hours_costs_the_late_fee(desk, seed):
    a = seed.appointment(
        lambda a: NOW < seed.start(a) < LATE_CUT and a["referral_id"] is None, status="scheduled"
    )
    target = seed.open_slot(a["provider_id"], a["patient_id"], lambda s: s["slot_id"] != a["slot_id"])
    out, before, after = desk.ok(
        "reschedule_appointment", appointment_id=a["appointment_id"], slot_id=target["slot_id"]
    )
    assert out["late_fee"] == 50.0
    [bill] = new_rows(before, after, "bills")
    assert bill["kind"] == "late_cancellation_fee" and bill["amount_cents"] == 5000
    assert out["appointment"]["when"] == target["label"]


def test_a_referral_visit_cannot_move_past_the_referral_expiry(desk, seed):
    a = seed.appointment(
        lambda a: a["referral_id"] is not None and seed.start(a) >= LATE_CUT, status="scheduled"
    )
    target = seed.open_slot(a["provider_id"], a["patient_id"], lambda s: s["slot_id"] != a["slot_id"])
    assert target is not None
    desk.sql(
        "UPDATE referrals SET expires_on = ? WHERE referral_id = ?", (seed.start(a)[:10], a["referral_id"])
    )
    later = seed.open_slot(
        a["provider_id"], a["patient_id"], lambda s: s["start_time"][:10] > seed.start(a)[:10]
    )
    assert later is not None, "the seed changed: no later slot with that provider"
    desk.refused(
        "reschedule_appointment",
        "cannot move past",
        appointment_id=a["appointment_id"],
        slot_id=later["slot_id"],
    )


# --------------------------------------------------------------------------- prescriptions


def test_refill_refuses_prescriptions_that_are_not_active(desk, seed):
    for status, hint in (
        ("needs_renewal", "request a renewal"),
        ("renewal_requested", "already with"),
        ("discontinued", "stopped"),
    ):
        rx = seed.rx(lambda r, s=status: r["status"] == s)
        error = desk.refused("request_refill", "only active prescriptions", rx_number=rx["rx_number"])
        assert hint in error


def test_refill_rules(desk, seed):
    rx = seed.rx(lambda r: r["status"] == "active" and not seed.controlled(r) and seed.refill_due(r))
    desk.sql("UPDATE prescriptions SET expires_on = '2026-06-01' WHERE rx_number = ?", (rx["rx_number"],))
    desk.refused("request_refill", "expired on", rx_number=rx["rx_number"])
    desk.sql(
        "UPDATE prescriptions SET expires_on = ?, refills_remaining = 0 WHERE rx_number = ?",
        (rx["expires_on"], rx["rx_number"]),
    )
    desk.refused("request_refill", "no refills left", rx_number=rx["rx_number"])
    soon = seed.rx(lambda r: r["status"] == "active" and not seed.controlled(r) and not seed.refill_due(r))
    desk.refused("request_refill", "can be refilled from", rx_number=soon["rx_number"])


def test_controlled_refills_need_a_recent_visit(desk, seed):
    rx = seed.rx(lambda r: r["status"] == "active" and seed.controlled(r) and seed.refill_due(r))
    desk.sql(
        "UPDATE appointments SET status = 'cancelled', cancelled_at = ? WHERE patient_id = ? AND provider_id = ? "
        "AND status = 'completed'",
        ("2025-01-01T09:00:00Z", rx["patient_id"], rx["prescriber_id"]),
    )
    desk.refused("request_refill", "controlled substance", rx_number=rx["rx_number"])


def test_a_refill_uses_one_refill_and_the_last_one_needs_renewal(desk, seed):
    rx = seed.rx(lambda r: r["status"] == "active" and not seed.controlled(r) and seed.refill_due(r))
    out, before, after = desk.ok("request_refill", rx_number=rx["rx_number"])
    assert changed_tables(before, after) == {"prescriptions", "refills"}
    [refill] = new_rows(before, after, "refills")
    assert (
        refill["status"] == "sent"
        and refill["pharmacy_id"] == rx["pharmacy_id"]
        and refill["requested_at"] == NOW
    )
    updated = row(after, "prescriptions", "rx_number", rx["rx_number"])
    assert updated["refills_remaining"] == rx["refills_remaining"] - 1 == out["refills_remaining"]
    assert updated["last_filled_on"] == "2026-06-18"
    assert updated["status"] == ("active" if rx["refills_remaining"] > 1 else "needs_renewal")
    desk.refused("request_refill", "can be refilled from", rx_number=rx["rx_number"])  # just filled


def test_renewal_rules(desk, seed):
    active = seed.rx(lambda r: r["status"] == "active")
    desk.refused("request_renewal", "only prescriptions needing renewal", rx_number=active["rx_number"])
    for status in ("renewal_requested", "discontinued"):
        rx = seed.rx(lambda r, s=status: r["status"] == s)
        desk.refused("request_renewal", "only prescriptions needing renewal", rx_number=rx["rx_number"])
    rx = seed.rx(lambda r: r["status"] == "needs_renewal" and not seed.controlled(r))
    out, before, after = desk.ok("request_renewal", rx_number=rx["rx_number"])
    assert out["status"] == "renewal_requested" and out["renewal_requested_at"] == NOW
    assert changed_tables(before, after) == {"prescriptions"}


def test_controlled_renewals_need_a_recent_visit(desk, seed):
    rx = (
        seed.rx(lambda r: r["status"] == "needs_renewal" and seed.controlled(r))
        if any(r["status"] == "needs_renewal" and seed.controlled(r) for r in seed.state["prescriptions"])
        else None
    )
    if rx is None:
        rx = seed.rx(lambda r: seed.controlled(r))
        desk.sql(
            "UPDATE prescriptions SET status = 'needs_renewal', renewal_requested_at = NULL WHERE rx_number = ?",
            (rx["rx_number"],),
        )
    desk.sql(
        "UPDATE appointments SET status = 'cancelled', cancelled_at = ? WHERE patient_id = ? AND provider_id = ? "
        "AND status = 'completed'",
        ("2025-01-01T09:00:00Z", rx["patient_id"], rx["prescriber_id"]),
    )
    desk.refused("request_renewal", "controlled substance", rx_number=rx["rx_number"])


def test_transfer_rules(desk, seed):
    gone = seed.rx(lambda r: r["status"] == "discontinued")
    other = next(p for p in seed.state["pharmacies"] if p["pharmacy_id"] != gone["pharmacy_id"])
    desk.refused(
        "transfer_prescription", "discontinued", rx_number=gone["rx_number"], pharmacy_id=other["pharmacy_id"]
    )
    controlled = seed.rx(lambda r: r["status"] != "discontinued" and seed.controlled(r))
    other = next(p for p in seed.state["pharmacies"] if p["pharmacy_id"] != controlled["pharmacy_id"])
    desk.refused(
        "transfer_prescription",
        "cannot be transferred",
        rx_number=controlled["rx_number"],
        pharmacy_id=other["pharmacy_id"],
    )
    rx = seed.rx(lambda r: r["status"] == "needs_renewal" and not seed.controlled(r))
    desk.refused(
        "transfer_prescription", "already at", rx_number=rx["rx_number"], pharmacy_id=rx["pharmacy_id"]
    )
    other = next(p for p in seed.state["pharmacies"] if p["pharmacy_id"] != rx["pharmacy_id"])
    out, before, after = desk.ok(
        "transfer_prescription", rx_number=rx["rx_number"], pharmacy_id=other["pharmacy_id"]
    )
    assert out["pharmacy"] == other["name"]
    assert changed_tables(before, after) == {"prescriptions"}
    assert row(after, "prescriptions", "rx_number", rx["rx_number"])["pharmacy_id"] == other["pharmacy_id"]


# --------------------------------------------------------------------------- insurance


def test_update_insurance_rules(desk, seed):
    patient = seed.patient(lambda p: p["plan_id"] == "ins_silver_ppo")
    desk.refused(
        "update_insurance_plan",
        "does not accept",
        patient_id=patient["patient_id"],
        plan_id="ins_classic_ppo",
        member_id="MER1234567",
    )
    desk.refused(
        "update_insurance_plan",
        "already the plan",
        patient_id=patient["patient_id"],
        plan_id="ins_silver_ppo",
        member_id="SUM1234567",
    )
    desk.refused(
        "update_insurance_plan", "member id", patient_id=patient["patient_id"], plan_id="ins_gold_ppo"
    )
    desk.refused(
        "update_insurance_plan",
        "start with sum",
        patient_id=patient["patient_id"],
        plan_id="ins_gold_ppo",
        member_id="CFH1234567",
    )


def test_update_insurance_recomputes_upcoming_copays(desk, seed):
    a = seed.appointment(
        lambda a: (
            seed.start(a) > NOW
            and seed.patients[a["patient_id"]]["plan_id"] != "ins_platinum_ppo"
            and a["visit_type"] in ("follow_up", "sick_visit", "new_patient")
            and seed.providers[a["provider_id"]]["care_type"] == "primary_care"
        ),
        status="scheduled",
    )
    patient = seed.patients[a["patient_id"]]
    out, _before, after = desk.ok(
        "update_insurance_plan",
        patient_id=patient["patient_id"],
        plan_id="ins_platinum_ppo",
        member_id="sum7654321",
    )
    assert out["member_id"] == "SUM7654321" and out["plan"]["tier"] == "platinum"
    assert out["previous_plan_id"] == patient["plan_id"]
    moved = row(after, "patients", "patient_id", patient["patient_id"])
    assert moved["plan_id"] == "ins_platinum_ppo" and moved["member_id"] == "SUM7654321"
    assert row(after, "appointments", "appointment_id", a["appointment_id"])["copay_cents"] == 1000
    assert {"appointment_id": a["appointment_id"], "copay": 10.0} in out["upcoming_appointments"]
    # Past visits keep the copay they were booked with.
    for old in seed.appointments(lambda x: seed.start(x) < NOW, patient_id=patient["patient_id"]):
        assert (
            row(after, "appointments", "appointment_id", old["appointment_id"])["copay_cents"]
            == old["copay_cents"]
        )


def test_switching_to_self_pay_clears_the_member_id(desk, seed):
    patient = seed.patient(lambda p: p["plan_id"] == "ins_bronze_hmo")
    out, _, after = desk.ok("update_insurance_plan", patient_id=patient["patient_id"], plan_id="ins_selfpay")
    assert out["member_id"] is None and out["plan"]["tier"] == "self_pay"
    assert row(after, "patients", "patient_id", patient["patient_id"])["member_id"] is None


# --------------------------------------------------------------------------- bills


def test_pay_bill_refuses_pending_and_paid_bills(desk, seed):
    for status, phrase in (("pending_insurance", "not processed"), ("paid", "nothing is left")):
        bill = seed.bill(status, lambda b: seed.valid_card(b["patient_id"]) is not None)
        card = seed.valid_card(bill["patient_id"])
        desk.refused("pay_bill", phrase, bill_id=bill["bill_id"], payment_method_id=card["payment_method_id"])


def test_pay_bill_refuses_a_stranger_card_an_expired_card_and_overpayment(desk, seed):
    bill = seed.bill("due", lambda b: seed.valid_card(b["patient_id"]) is not None)
    stranger = next(m for m in seed.state["payment_methods"] if m["patient_id"] != bill["patient_id"])
    desk.refused(
        "pay_bill",
        "does not belong",
        bill_id=bill["bill_id"],
        payment_method_id=stranger["payment_method_id"],
    )
    expired = next(m for m in seed.state["payment_methods"] if m["expires"] < "2026-06")
    owed = (
        next(b for b in seed.state["bills"] if b["patient_id"] == expired["patient_id"])
        if any(
            b["patient_id"] == expired["patient_id"] and b["status"] in ("due", "overdue")
            for b in seed.state["bills"]
        )
        else None
    )
    if owed is None:
        desk.sql(
            "UPDATE payment_methods SET patient_id = ? WHERE payment_method_id = ?",
            (bill["patient_id"], expired["payment_method_id"]),
        )
        owed = bill
    desk.sql("UPDATE bills SET status = 'due' WHERE bill_id = ?", (owed["bill_id"],))
    desk.refused(
        "pay_bill", "expired", bill_id=owed["bill_id"], payment_method_id=expired["payment_method_id"]
    )
    card = seed.valid_card(bill["patient_id"])
    too_much = seed.balance(bill["bill_id"]) / 100 + 1
    desk.refused(
        "pay_bill",
        "more than the balance",
        bill_id=bill["bill_id"],
        payment_method_id=card["payment_method_id"],
        amount=too_much,
    )
    desk.refused(
        "pay_bill",
        "two decimals",
        bill_id=bill["bill_id"],
        payment_method_id=card["payment_method_id"],
        amount=1.005,
    )


def test_partial_then_full_payment(desk, seed):
    bill = seed.bill(
        "overdue",
        lambda b: seed.valid_card(b["patient_id"]) is not None and seed.balance(b["bill_id"]) > 1000,
    )
    card = seed.valid_card(bill["patient_id"])["payment_method_id"]
    balance = seed.balance(bill["bill_id"])
    out, before, after = desk.ok("pay_bill", bill_id=bill["bill_id"], payment_method_id=card, amount=5.0)
    assert out["status"] == "overdue" and out["balance_due"] == round((balance - 500) / 100, 2)
    assert changed_tables(before, after) == {"payments"}
    out, before, after = desk.ok("pay_bill", bill_id=bill["bill_id"], payment_method_id=card)
    assert out["status"] == "paid" and out["balance_due"] == 0.0
    [payment] = new_rows(before, after, "payments")
    assert payment["amount_cents"] == balance - 500 and payment["created_at"] == NOW


# --------------------------------------------------------------------------- utilities


def test_calculator_and_transfer(desk):
    out, _, _ = desk.ok("calculate", expression="(60 - 35) * 2 + 0.5")
    assert out["result"] == 50.5
    desk.refused("calculate", "only numbers", expression="__import__('os')")
    desk.refused("calculate", "division by zero", expression="1 / 0")
    out, _, _ = desk.ok("transfer_to_human_agents", summary="Patient wants the no-show fee waived.")
    assert out["transferred"] is True


def test_every_refusal_rule_is_declared_for_a_write_the_code_refuses(clinic_env):
    rules = clinic_env.spec.policy_rules
    assert {r.tool for r in rules.refusals} == {
        "cancel_appointment",
        "reschedule_appointment",
        "request_refill",
        "request_renewal",
        "transfer_prescription",
        "pay_bill",
    }
    writes = {t.name for t in clinic_env.spec.tools if t.effect == "write"}
    assert set(rules.confirm) == writes
    assert len(rules.transfer.out_of_scope) >= 6
    tables = {t.name: t for t in clinic_env.spec.tables}
    for rule in rules.refusals:
        table = next(t for t in tables.values() if t.entity == rule.entity)
        column = next(c for c in table.columns if c.name == rule.column)
        assert set(rule.allowed) <= set(column.enum), rule
