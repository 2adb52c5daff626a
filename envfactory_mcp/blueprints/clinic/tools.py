"""Clinic patient-services tools.

A multi-site medical clinic: patients (date of birth, an insurance plan with a member id,
a preferred pharmacy, saved cards) see providers (a specialty, primary care or
specialist, a site and a weekly schedule) in appointment slots that hold one or more
patients. Appointments are booked, rescheduled and cancelled: no double booking, one
upcoming visit per provider, a first visit with a provider is a new-patient visit (and
only with providers who take new patients), pediatricians see children and internists
adults, one annual physical a year, and specialist visits on HMO plans need a valid
referral for that specialty. Cancelling or rescheduling less than 24 hours before the
visit costs a late-cancellation fee. The copay of a visit comes from the plan's tier and
the kind of visit. Prescriptions are refilled while refills remain, before they expire
and not too early; controlled substances need a recent visit with the prescriber; a
prescription without refills is sent back to the prescriber for renewal; non-controlled
prescriptions can move to another pharmacy. Statements are paid with saved cards.

Money is integer cents in the tables; tool outputs present dollars with two decimals.
Times are the clinic's local time, written ISO 8601 with a trailing Z like the clock.

Each function is one tool: ``tool(ctx, **arguments) -> dict``. Business-rule violations
call ``ctx.fail`` so the runtime rolls the call back and tells the agent why.
"""

from __future__ import annotations

import ast
import datetime
import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envfactory_mcp.runtime import ToolContext

Row = dict  # one database row, column name -> value

LATE_CANCEL_HOURS = 24
LATE_CANCEL_FEE_CENTS = 5000
BILL_DUE_DAYS = 30
CONTROLLED_VISIT_DAYS = 90
PHYSICAL_INTERVAL_DAYS = 365
ADULT_AGE = 18
VISIT_TYPES = ("new_patient", "follow_up", "sick_visit", "annual_physical", "telehealth")
TRANSFERABLE = ("active", "needs_renewal", "renewal_requested")
MEMBER_ID_LENGTH = 10


# --------------------------------------------------------------------------- helpers


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def _fmt(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _moment(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text[:19])


def _now(ctx: ToolContext) -> datetime.datetime:
    return _moment(ctx.now)


def _today(ctx: ToolContext) -> datetime.date:
    return datetime.date.fromisoformat(ctx.now[:10])


def _stamp(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def _age_on(date_of_birth: str, day: datetime.date) -> int:
    born = datetime.date.fromisoformat(date_of_birth)
    return day.year - born.year - (1 if (day.month, day.day) < (born.month, born.day) else 0)


def _patient(ctx: ToolContext, patient_id: str) -> Row:
    row = ctx.one("SELECT * FROM patients WHERE patient_id = ?", (patient_id,))
    if row is None:
        ctx.fail(f"Patient {patient_id} not found.")
    return row


def _plan(ctx: ToolContext, plan_id: str) -> Row:
    row = ctx.one("SELECT * FROM insurance_plans WHERE plan_id = ?", (plan_id,))
    if row is None:
        ctx.fail(f"Insurance plan {plan_id} not found.")
    return row


def _provider(ctx: ToolContext, provider_id: str) -> Row:
    row = ctx.one("SELECT * FROM providers WHERE provider_id = ?", (provider_id,))
    if row is None:
        ctx.fail(f"Provider {provider_id} not found.")
    return row


def _slot(ctx: ToolContext, slot_id: str) -> Row:
    row = ctx.one("SELECT * FROM slots WHERE slot_id = ?", (slot_id,))
    if row is None:
        ctx.fail(f"Slot {slot_id} not found.")
    return row


def _appointment(ctx: ToolContext, appointment_id: str) -> Row:
    row = ctx.one("SELECT * FROM appointments WHERE appointment_id = ?", (appointment_id,))
    if row is None:
        ctx.fail(f"Appointment {appointment_id} not found.")
    return row


def _referral(ctx: ToolContext, referral_id: str) -> Row:
    row = ctx.one("SELECT * FROM referrals WHERE referral_id = ?", (referral_id,))
    if row is None:
        ctx.fail(f"Referral {referral_id} not found.")
    return row


def _prescription(ctx: ToolContext, rx_number: str) -> Row:
    row = ctx.one("SELECT * FROM prescriptions WHERE rx_number = ?", (rx_number,))
    if row is None:
        ctx.fail(f"Prescription {rx_number} not found.")
    return row


def _pharmacy(ctx: ToolContext, pharmacy_id: str) -> Row:
    row = ctx.one("SELECT * FROM pharmacies WHERE pharmacy_id = ?", (pharmacy_id,))
    if row is None:
        ctx.fail(f"Pharmacy {pharmacy_id} not found.")
    return row


def _bill(ctx: ToolContext, bill_id: str) -> Row:
    row = ctx.one("SELECT * FROM bills WHERE bill_id = ?", (bill_id,))
    if row is None:
        ctx.fail(f"Bill {bill_id} not found.")
    return row


def _booked(ctx: ToolContext, slot_id: str) -> int:
    return ctx.scalar(
        "SELECT COUNT(*) FROM appointments WHERE slot_id = ? AND status != 'cancelled'", (slot_id,)
    )


def _copay(plan: Row, provider: Row, visit_type: str) -> int:
    """The copay of a visit: telehealth, preventive (free on insured plans), specialist or primary care."""
    if visit_type == "telehealth":
        return plan["telehealth_copay_cents"]
    if visit_type == "annual_physical" and plan["network_type"] != "none":
        return 0
    if provider["care_type"] == "specialist":
        return plan["specialist_copay_cents"]
    return plan["primary_copay_cents"]


def _late(ctx: ToolContext, start_time: str) -> bool:
    """Whether a visit starts less than 24 hours from now."""
    return _moment(start_time) - _now(ctx) < datetime.timedelta(hours=LATE_CANCEL_HOURS)


def _charge_fee(ctx: ToolContext, appointment: Row, label: str) -> str:
    bill_id = ctx.next_id("bills", "bill_id", "INV", 6)
    due = _today(ctx) + datetime.timedelta(days=BILL_DUE_DAYS)
    ctx.execute(
        "INSERT INTO bills (bill_id, patient_id, appointment_id, kind, description, amount_cents, issued_on, "
        "due_date, status) VALUES (?, ?, ?, 'late_cancellation_fee', ?, ?, ?, ?, 'due')",
        (
            bill_id,
            appointment["patient_id"],
            appointment["appointment_id"],
            f"Late cancellation fee ({label}, less than {LATE_CANCEL_HOURS} hours before the visit)",
            LATE_CANCEL_FEE_CENTS,
            ctx.now[:10],
            due.isoformat(),
        ),
    )
    item_id = ctx.next_id("bill_items", "item_id", "itm_", 7)
    ctx.execute(
        "INSERT INTO bill_items (item_id, bill_id, label, amount_cents) VALUES (?, ?, ?, ?)",
        (item_id, bill_id, f"Late cancellation fee ({label})", LATE_CANCEL_FEE_CENTS),
    )
    return bill_id


def _check_free(ctx: ToolContext, patient_id: str, slot: Row, ignore: str | None = None) -> None:
    """No double booking: the patient has no other scheduled visit overlapping the slot."""
    start = _moment(slot["start_time"])
    end = start + datetime.timedelta(minutes=slot["duration_minutes"])
    rows = ctx.all(
        "SELECT a.appointment_id, s.start_time, s.duration_minutes FROM appointments a "
        "JOIN slots s ON s.slot_id = a.slot_id WHERE a.patient_id = ? AND a.status = 'scheduled' "
        "AND substr(s.start_time, 1, 10) = ? ORDER BY a.appointment_id",
        (patient_id, slot["start_time"][:10]),
    )
    for r in rows:
        if r["appointment_id"] == ignore:
            continue
        other = _moment(r["start_time"])
        if other < end and start < other + datetime.timedelta(minutes=r["duration_minutes"]):
            ctx.fail(
                f"The patient already has appointment {r['appointment_id']} at {r['start_time']}, which "
                "overlaps that slot; a patient cannot be double-booked."
            )


def _check_open(ctx: ToolContext, slot: Row) -> None:
    if _moment(slot["start_time"]) <= _now(ctx):
        ctx.fail(f"Slot {slot['slot_id']} ({slot['label']}) is in the past; choose an upcoming slot.")
    booked = _booked(ctx, slot["slot_id"])
    if booked >= slot["capacity"]:
        ctx.fail(
            f"Slot {slot['slot_id']} ({slot['label']}) is fully booked ({booked} of {slot['capacity']})."
        )


def _recent_visit(ctx: ToolContext, patient_id: str, provider_id: str, days: int) -> bool:
    since = (_today(ctx) - datetime.timedelta(days=days)).isoformat()
    found = ctx.scalar(
        "SELECT COUNT(*) FROM appointments a JOIN slots s ON s.slot_id = a.slot_id WHERE a.patient_id = ? "
        "AND a.provider_id = ? AND a.status = 'completed' AND substr(s.start_time, 1, 10) >= ?",
        (patient_id, provider_id, since),
    )
    return found > 0


def _plan_view(plan: Row) -> dict:
    return {
        "plan_id": plan["plan_id"],
        "name": plan["name"],
        "carrier": plan["carrier"],
        "tier": plan["tier"],
        "network_type": plan["network_type"],
        "referral_required_for_specialists": plan["network_type"] == "hmo",
        "primary_copay": _dollars(plan["primary_copay_cents"]),
        "specialist_copay": _dollars(plan["specialist_copay_cents"]),
        "telehealth_copay": _dollars(plan["telehealth_copay_cents"]),
        "annual_physical_copay": _dollars(
            0 if plan["network_type"] != "none" else plan["primary_copay_cents"]
        ),
        "accepted": bool(plan["accepted"]),
        "member_id_prefix": plan["member_id_prefix"],
    }


def _provider_view(ctx: ToolContext, provider: Row) -> dict:
    location = ctx.one("SELECT * FROM locations WHERE location_id = ?", (provider["location_id"],))
    assert location is not None
    return {
        "provider_id": provider["provider_id"],
        "name": provider["name"],
        "credentials": provider["credentials"],
        "specialty": provider["specialty"],
        "care_type": provider["care_type"],
        "location": {
            "location_id": location["location_id"],
            "name": location["name"],
            "address": f"{location['address']}, {location['city']} {location['zip']}",
        },
        "weekly_schedule": provider["weekly_schedule"],
        "accepting_new_patients": bool(provider["accepting_new_patients"]),
    }


def _appointment_view(ctx: ToolContext, appointment_id: str) -> dict:
    a = _appointment(ctx, appointment_id)
    slot = _slot(ctx, a["slot_id"])
    provider = _provider(ctx, a["provider_id"])
    location = ctx.one("SELECT name FROM locations WHERE location_id = ?", (provider["location_id"],))
    assert location is not None
    free_until = None
    if a["status"] == "scheduled":
        free_until = _stamp(_moment(slot["start_time"]) - datetime.timedelta(hours=LATE_CANCEL_HOURS))
    return {
        "appointment_id": a["appointment_id"],
        "patient_id": a["patient_id"],
        "provider_id": a["provider_id"],
        "provider_name": provider["name"],
        "specialty": provider["specialty"],
        "location": location["name"],
        "start_time": slot["start_time"],
        "when": slot["label"],
        "duration_minutes": slot["duration_minutes"],
        "visit_type": a["visit_type"],
        "reason": a["reason"],
        "status": a["status"],
        "referral_id": a["referral_id"],
        "copay": _dollars(a["copay_cents"]),
        "booked_at": a["booked_at"],
        "cancelled_at": a["cancelled_at"],
        "free_cancellation_until": free_until,
        "late_cancellation_fee": _dollars(LATE_CANCEL_FEE_CENTS),
    }


def _referral_view(ctx: ToolContext, referral_id: str) -> dict:
    r = _referral(ctx, referral_id)
    referrer = _provider(ctx, r["referring_provider_id"])
    return {
        "referral_id": r["referral_id"],
        "patient_id": r["patient_id"],
        "specialty": r["specialty"],
        "referring_provider": referrer["name"],
        "issued_on": r["issued_on"],
        "expires_on": r["expires_on"],
        "visits_allowed": r["visits_allowed"],
        "visits_used": r["visits_used"],
        "visits_remaining": r["visits_allowed"] - r["visits_used"],
        "status": r["status"],
    }


def _earliest_refill(rx: Row) -> datetime.date:
    """A fill may be refilled once three quarters of its days supply have passed."""
    last = datetime.date.fromisoformat(rx["last_filled_on"])
    return last + datetime.timedelta(days=rx["days_supply"] * 3 // 4)


def _prescription_view(ctx: ToolContext, rx_number: str) -> dict:
    rx = _prescription(ctx, rx_number)
    med = ctx.one("SELECT * FROM medications WHERE medication_id = ?", (rx["medication_id"],))
    assert med is not None
    prescriber = _provider(ctx, rx["prescriber_id"])
    pharmacy = _pharmacy(ctx, rx["pharmacy_id"])
    refills = ctx.all(
        "SELECT r.refill_id, r.requested_at, r.status, p.name AS pharmacy FROM refills r "
        "JOIN pharmacies p ON p.pharmacy_id = r.pharmacy_id WHERE r.rx_number = ? ORDER BY r.refill_id DESC",
        (rx_number,),
    )
    return {
        "rx_number": rx["rx_number"],
        "patient_id": rx["patient_id"],
        "medication": med["name"],
        "form": med["form"],
        "controlled_substance": med["controlled_schedule"] is not None,
        "controlled_schedule": med["controlled_schedule"],
        "directions": rx["directions"],
        "prescriber": prescriber["name"],
        "pharmacy_id": pharmacy["pharmacy_id"],
        "pharmacy": pharmacy["name"],
        "days_supply": rx["days_supply"],
        "refills_remaining": rx["refills_remaining"],
        "written_on": rx["written_on"],
        "expires_on": rx["expires_on"],
        "last_filled_on": rx["last_filled_on"],
        "next_refill_date": _earliest_refill(rx).isoformat(),
        "status": rx["status"],
        "renewal_requested_at": rx["renewal_requested_at"],
        "refills": [
            {
                "refill_id": r["refill_id"],
                "requested_at": r["requested_at"],
                "status": r["status"],
                "pharmacy": r["pharmacy"],
            }
            for r in refills
        ],
    }


def _bill_view(ctx: ToolContext, bill_id: str) -> dict:
    bill = _bill(ctx, bill_id)
    payments = ctx.all(
        "SELECT payment_id, payment_method_id, amount_cents, created_at FROM payments WHERE bill_id = ? "
        "ORDER BY payment_id",
        (bill_id,),
    )
    items = ctx.all(
        "SELECT item_id, label, amount_cents FROM bill_items WHERE bill_id = ? ORDER BY item_id", (bill_id,)
    )
    paid = sum(p["amount_cents"] for p in payments)
    return {
        "bill_id": bill["bill_id"],
        "patient_id": bill["patient_id"],
        "appointment_id": bill["appointment_id"],
        "kind": bill["kind"],
        "description": bill["description"],
        "amount": _dollars(bill["amount_cents"]),
        "issued_on": bill["issued_on"],
        "due_date": bill["due_date"],
        "status": bill["status"],
        "items": [
            {"item_id": i["item_id"], "label": i["label"], "amount": _dollars(i["amount_cents"])}
            for i in items
        ],
        "payments": [
            {
                "payment_id": p["payment_id"],
                "payment_method_id": p["payment_method_id"],
                "amount": _dollars(p["amount_cents"]),
                "created_at": p["created_at"],
            }
            for p in payments
        ],
        "paid": _dollars(paid),
        "balance_due": _dollars(bill["amount_cents"] - paid),
    }


# --------------------------------------------------------------------------- lookups


def find_patient_id_by_email(ctx: ToolContext, *, email: str) -> dict:
    row = ctx.one("SELECT patient_id FROM patients WHERE email = ?", (email.strip().lower(),))
    if row is None:
        ctx.fail("No patient found with that email.")
    return {"patient_id": row["patient_id"]}


def find_patient_id_by_name_dob(
    ctx: ToolContext, *, first_name: str, last_name: str, date_of_birth: str
) -> dict:
    rows = ctx.all(
        "SELECT patient_id FROM patients WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) "
        "AND date_of_birth = ? ORDER BY patient_id",
        (first_name.strip(), last_name.strip(), date_of_birth.strip()),
    )
    if not rows:
        ctx.fail("No patient found with that name and date of birth.")
    if len(rows) > 1:
        ctx.fail("Several patients match that name and date of birth; ask for the email instead.")
    return {"patient_id": rows[0]["patient_id"]}


def get_patient_details(ctx: ToolContext, *, patient_id: str) -> dict:
    p = _patient(ctx, patient_id)
    plan = _plan(ctx, p["plan_id"])
    pharmacy = _pharmacy(ctx, p["pharmacy_id"])
    pcp = _provider(ctx, p["primary_provider_id"])
    month = ctx.now[:7]
    methods = [
        {
            "payment_method_id": m["payment_method_id"],
            "kind": m["kind"],
            "label": m["label"],
            "expires": m["expires"],
            "expired": m["expires"] < month,
        }
        for m in ctx.all(
            "SELECT * FROM payment_methods WHERE patient_id = ? ORDER BY payment_method_id", (patient_id,)
        )
    ]

    def ids(sql: str) -> list[str]:
        return [r["id"] for r in ctx.all(sql, (patient_id,))]

    return {
        "patient_id": p["patient_id"],
        "first_name": p["first_name"],
        "last_name": p["last_name"],
        "date_of_birth": p["date_of_birth"],
        "age": _age_on(p["date_of_birth"], _today(ctx)),
        "email": p["email"],
        "phone": p["phone"],
        "insurance": {
            "plan_id": plan["plan_id"],
            "name": plan["name"],
            "tier": plan["tier"],
            "network_type": plan["network_type"],
            "member_id": p["member_id"],
            "accepted": bool(plan["accepted"]),
        },
        "preferred_pharmacy": {"pharmacy_id": pharmacy["pharmacy_id"], "name": pharmacy["name"]},
        "primary_care_provider": {
            "provider_id": pcp["provider_id"],
            "name": pcp["name"],
            "specialty": pcp["specialty"],
        },
        "payment_methods": methods,
        "appointments": ids(
            "SELECT a.appointment_id AS id FROM appointments a JOIN slots s ON s.slot_id = a.slot_id "
            "WHERE a.patient_id = ? ORDER BY s.start_time DESC, a.appointment_id"
        ),
        "referrals": ids("SELECT referral_id AS id FROM referrals WHERE patient_id = ? ORDER BY referral_id"),
        "prescriptions": ids(
            "SELECT rx_number AS id FROM prescriptions WHERE patient_id = ? ORDER BY rx_number"
        ),
        "bills": ids("SELECT bill_id AS id FROM bills WHERE patient_id = ? ORDER BY issued_on DESC, bill_id"),
    }


def list_insurance_plans(ctx: ToolContext, *, network_type: str | None = None) -> dict:
    rows = ctx.all(
        "SELECT * FROM insurance_plans WHERE ? IS NULL OR network_type = ? ORDER BY accepted DESC, name, plan_id",
        (network_type, network_type),
    )
    return {"plans": [_plan_view(p) for p in rows]}


def get_plan_details(ctx: ToolContext, *, plan_id: str) -> dict:
    view = _plan_view(_plan(ctx, plan_id))
    services = (
        ("primary_care", "Visit with a primary-care provider", "primary_copay"),
        ("specialist", "Visit with a specialist", "specialist_copay"),
        ("telehealth", "Video visit", "telehealth_copay"),
        ("annual_physical", "Yearly preventive physical", "annual_physical_copay"),
    )
    return {
        **view,
        "copays": [
            {"service": name, "description": text, "copay": view[key]} for name, text, key in services
        ],
    }


def list_providers(ctx: ToolContext) -> dict:
    rows = ctx.all("SELECT * FROM providers ORDER BY specialty, name, provider_id")
    return {"providers": [_provider_view(ctx, p) for p in rows]}


def get_provider_schedule(ctx: ToolContext, *, provider_id: str) -> dict:
    provider = _provider(ctx, provider_id)
    rows = ctx.all(
        "SELECT s.*, (SELECT COUNT(*) FROM appointments a WHERE a.slot_id = s.slot_id AND a.status != 'cancelled') "
        "AS booked FROM slots s WHERE s.provider_id = ? AND s.start_time > ? ORDER BY s.start_time, s.slot_id",
        (provider_id, ctx.now),
    )
    open_slots = [
        {
            "slot_id": s["slot_id"],
            "start_time": s["start_time"],
            "label": s["label"],
            "duration_minutes": s["duration_minutes"],
            "spots_left": s["capacity"] - s["booked"],
        }
        for s in rows
        if s["booked"] < s["capacity"]
    ]
    return {
        **_provider_view(ctx, provider),
        "open_slot_count": len(open_slots),
        "next_available": open_slots[0]["label"] if open_slots else None,
        "open_slots": open_slots,
    }


def get_appointment_details(ctx: ToolContext, *, appointment_id: str) -> dict:
    return _appointment_view(ctx, appointment_id)


def get_referral_details(ctx: ToolContext, *, referral_id: str) -> dict:
    return _referral_view(ctx, referral_id)


def get_prescription_details(ctx: ToolContext, *, rx_number: str) -> dict:
    return _prescription_view(ctx, rx_number)


def list_pharmacies(ctx: ToolContext) -> dict:
    rows = ctx.all("SELECT * FROM pharmacies ORDER BY name, pharmacy_id")
    return {
        "pharmacies": [
            {
                "pharmacy_id": r["pharmacy_id"],
                "name": r["name"],
                "address": f"{r['address']}, {r['city']} {r['zip']}",
                "phone": r["phone"],
                "open_24h": bool(r["open_24h"]),
            }
            for r in rows
        ]
    }


def get_bill_details(ctx: ToolContext, *, bill_id: str) -> dict:
    return _bill_view(ctx, bill_id)


# --------------------------------------------------------------------------- appointments


def book_appointment(
    ctx: ToolContext, *, patient_id: str, slot_id: str, provider_id: str, visit_type: str, reason: str
) -> dict:
    if visit_type not in VISIT_TYPES:
        ctx.fail(f"Visit type must be one of: {', '.join(VISIT_TYPES)}.")
    patient = _patient(ctx, patient_id)
    provider = _provider(ctx, provider_id)
    slot = _slot(ctx, slot_id)
    if slot["provider_id"] != provider_id:
        ctx.fail(f"Slot {slot_id} is not one of {provider['name']}'s slots; pick one from their schedule.")
    plan = _plan(ctx, patient["plan_id"])
    if not plan["accepted"]:
        ctx.fail(
            f"The clinic no longer accepts {plan['name']}; the patient must update their insurance "
            "(or switch to self-pay) before booking."
        )
    _check_open(ctx, slot)
    upcoming = ctx.one(
        "SELECT a.appointment_id FROM appointments a JOIN slots s ON s.slot_id = a.slot_id WHERE a.patient_id = ? "
        "AND a.provider_id = ? AND a.status = 'scheduled' AND s.start_time > ? ORDER BY a.appointment_id",
        (patient_id, provider_id, ctx.now),
    )
    if upcoming is not None:
        ctx.fail(
            f"The patient already has upcoming appointment {upcoming['appointment_id']} with {provider['name']}; "
            "reschedule it instead of booking a second one."
        )
    _check_free(ctx, patient_id, slot)
    day = _moment(slot["start_time"]).date()
    age = _age_on(patient["date_of_birth"], day)
    if provider["specialty"] == "pediatrics" and age >= ADULT_AGE:
        ctx.fail(
            f"{provider['name']} is a pediatrician and sees only patients under {ADULT_AGE}; the patient is {age}."
        )
    if provider["specialty"] == "internal_medicine" and age < ADULT_AGE:
        ctx.fail(
            f"{provider['name']} practises internal medicine and sees only adults; the patient is {age}."
        )
    established = ctx.scalar(
        "SELECT COUNT(*) FROM appointments WHERE patient_id = ? AND provider_id = ? AND status = 'completed'",
        (patient_id, provider_id),
    )
    if not established:
        if not provider["accepting_new_patients"]:
            ctx.fail(
                f"{provider['name']} is not accepting new patients, and the patient has not been seen by them before."
            )
        if visit_type != "new_patient":
            ctx.fail(
                f"The patient has never been seen by {provider['name']}; the first visit must be a new_patient visit."
            )
    elif visit_type == "new_patient":
        ctx.fail(
            f"The patient is already established with {provider['name']}; book a follow_up, sick_visit, "
            "annual_physical or telehealth visit instead."
        )
    if visit_type == "annual_physical":
        if provider["care_type"] != "primary_care":
            ctx.fail("Annual physicals are done by primary-care providers only.")
        since = (day - datetime.timedelta(days=PHYSICAL_INTERVAL_DAYS)).isoformat()
        last = ctx.one(
            "SELECT a.appointment_id, a.status, s.start_time FROM appointments a JOIN slots s ON s.slot_id = a.slot_id "
            "WHERE a.patient_id = ? AND a.visit_type = 'annual_physical' AND a.status IN ('scheduled', 'completed') "
            "AND substr(s.start_time, 1, 10) > ? ORDER BY s.start_time DESC",
            (patient_id, since),
        )
        if last is not None:
            ctx.fail(
                f"The patient already has an annual physical on {last['start_time'][:10]} "
                f"({last['appointment_id']}, {last['status']}); one is covered every {PHYSICAL_INTERVAL_DAYS} days."
            )
    referral_id = None
    if provider["care_type"] == "specialist" and plan["network_type"] == "hmo":
        referral = ctx.one(
            "SELECT * FROM referrals WHERE patient_id = ? AND specialty = ? AND status = 'active' AND expires_on >= ? "
            "AND visits_used < visits_allowed ORDER BY expires_on, referral_id",
            (patient_id, provider["specialty"], day.isoformat()),
        )
        if referral is None:
            ctx.fail(
                f"{plan['name']} is an HMO plan: a {provider['specialty'].replace('_', ' ')} visit needs an active "
                "referral for that specialty, valid on the visit date, with visits remaining. The patient must get a "
                "referral from their primary-care provider first."
            )
        referral_id = referral["referral_id"]
        used = referral["visits_used"] + 1
        ctx.execute(
            "UPDATE referrals SET visits_used = ?, status = ? WHERE referral_id = ?",
            (used, "used" if used >= referral["visits_allowed"] else "active", referral_id),
        )
    text = reason.strip()
    if not text:
        ctx.fail("Give the reason for the visit in a few words.")
    appointment_id = ctx.next_id("appointments", "appointment_id", "APT", 6)
    ctx.execute(
        "INSERT INTO appointments (appointment_id, patient_id, provider_id, slot_id, visit_type, reason, status, "
        "referral_id, copay_cents, booked_at, cancelled_at) VALUES (?, ?, ?, ?, ?, ?, 'scheduled', ?, ?, ?, NULL)",
        (
            appointment_id,
            patient_id,
            provider_id,
            slot_id,
            visit_type,
            text,
            referral_id,
            _copay(plan, provider, visit_type),
            ctx.now,
        ),
    )
    return _appointment_view(ctx, appointment_id)


def reschedule_appointment(ctx: ToolContext, *, appointment_id: str, slot_id: str) -> dict:
    a = _appointment(ctx, appointment_id)
    if a["status"] != "scheduled":
        ctx.fail(
            f"Appointment {appointment_id} is {a['status']}; only scheduled appointments can be rescheduled."
        )
    slot = _slot(ctx, slot_id)
    if slot["provider_id"] != a["provider_id"]:
        ctx.fail(
            f"Slot {slot_id} is with another provider; an appointment can only move to another slot of the same "
            "provider (book a new appointment to see someone else)."
        )
    if slot_id == a["slot_id"]:
        ctx.fail(f"Appointment {appointment_id} is already in slot {slot_id} ({slot['label']}).")
    _check_open(ctx, slot)
    _check_free(ctx, a["patient_id"], slot, ignore=appointment_id)
    if a["referral_id"] is not None:
        referral = _referral(ctx, a["referral_id"])
        if referral["expires_on"] < slot["start_time"][:10]:
            ctx.fail(
                f"Referral {referral['referral_id']} expires on {referral['expires_on']}; the visit cannot move past "
                "that date."
            )
    old = _slot(ctx, a["slot_id"])
    fee = 0
    bill_id = None
    if _late(ctx, old["start_time"]):
        fee = LATE_CANCEL_FEE_CENTS
        bill_id = _charge_fee(ctx, a, f"rescheduled {old['label']}")
    ctx.execute("UPDATE appointments SET slot_id = ? WHERE appointment_id = ?", (slot_id, appointment_id))
    return {
        "appointment": _appointment_view(ctx, appointment_id),
        "previous_time": old["start_time"],
        "late_fee": _dollars(fee),
        "fee_bill_id": bill_id,
    }


def cancel_appointment(ctx: ToolContext, *, appointment_id: str) -> dict:
    a = _appointment(ctx, appointment_id)
    if a["status"] != "scheduled":
        ctx.fail(
            f"Appointment {appointment_id} is {a['status']}; only scheduled appointments can be cancelled."
        )
    slot = _slot(ctx, a["slot_id"])
    fee = 0
    bill_id = None
    if _late(ctx, slot["start_time"]):
        fee = LATE_CANCEL_FEE_CENTS
        bill_id = _charge_fee(ctx, a, f"cancelled {slot['label']}")
    if a["referral_id"] is not None:
        referral = _referral(ctx, a["referral_id"])
        used = max(referral["visits_used"] - 1, 0)
        status = referral["status"]
        if status == "used" and referral["expires_on"] >= ctx.now[:10]:
            status = "active"
        ctx.execute(
            "UPDATE referrals SET visits_used = ?, status = ? WHERE referral_id = ?",
            (used, status, referral["referral_id"]),
        )
    ctx.execute(
        "UPDATE appointments SET status = 'cancelled', cancelled_at = ? WHERE appointment_id = ?",
        (ctx.now, appointment_id),
    )
    return {
        "appointment": _appointment_view(ctx, appointment_id),
        "late_fee": _dollars(fee),
        "fee_bill_id": bill_id,
    }


# --------------------------------------------------------------------------- prescriptions


def _require_visit_for_controlled(ctx: ToolContext, rx: Row, action: str) -> None:
    med = ctx.one("SELECT * FROM medications WHERE medication_id = ?", (rx["medication_id"],))
    assert med is not None
    if med["controlled_schedule"] is None:
        return
    if not _recent_visit(ctx, rx["patient_id"], rx["prescriber_id"], CONTROLLED_VISIT_DAYS):
        prescriber = _provider(ctx, rx["prescriber_id"])
        ctx.fail(
            f"{med['name']} is a schedule {med['controlled_schedule']} controlled substance: to {action} it the "
            f"patient needs a completed visit with {prescriber['name']} in the last {CONTROLLED_VISIT_DAYS} days. "
            "Book an appointment first."
        )


def request_refill(ctx: ToolContext, *, rx_number: str) -> dict:
    rx = _prescription(ctx, rx_number)
    if rx["status"] != "active":
        hint = {
            "needs_renewal": "it has no refills left or has expired; request a renewal instead",
            "renewal_requested": "a renewal is already with the prescriber",
            "discontinued": "the prescriber stopped it",
        }[rx["status"]]
        ctx.fail(
            f"Prescription {rx_number} is {rx['status']}; only active prescriptions can be refilled ({hint})."
        )
    if rx["expires_on"] < ctx.now[:10]:
        ctx.fail(f"Prescription {rx_number} expired on {rx['expires_on']}; request a renewal instead.")
    if rx["refills_remaining"] <= 0:
        ctx.fail(f"Prescription {rx_number} has no refills left; request a renewal instead.")
    earliest = _earliest_refill(rx)
    if _today(ctx) < earliest:
        ctx.fail(
            f"Prescription {rx_number} was last filled on {rx['last_filled_on']} for {rx['days_supply']} days; "
            f"it can be refilled from {earliest.isoformat()}."
        )
    _require_visit_for_controlled(ctx, rx, "refill")
    refill_id = ctx.next_id("refills", "refill_id", "rf_", 7)
    ctx.execute(
        "INSERT INTO refills (refill_id, rx_number, pharmacy_id, requested_at, status) VALUES (?, ?, ?, ?, 'sent')",
        (refill_id, rx_number, rx["pharmacy_id"], ctx.now),
    )
    left = rx["refills_remaining"] - 1
    ctx.execute(
        "UPDATE prescriptions SET refills_remaining = ?, last_filled_on = ?, status = ? WHERE rx_number = ?",
        (left, ctx.now[:10], "active" if left > 0 else "needs_renewal", rx_number),
    )
    view = _prescription_view(ctx, rx_number)
    return {
        "refill_id": refill_id,
        "rx_number": rx_number,
        "medication": view["medication"],
        "pharmacy": view["pharmacy"],
        "refills_remaining": left,
        "status": view["status"],
    }


def request_renewal(ctx: ToolContext, *, rx_number: str) -> dict:
    rx = _prescription(ctx, rx_number)
    if rx["status"] != "needs_renewal":
        detail = {
            "active": "it still has refills; request a refill instead",
            "renewal_requested": "a renewal was already requested",
            "discontinued": "the prescriber stopped it",
        }[rx["status"]]
        ctx.fail(
            f"Prescription {rx_number} is {rx['status']}; only prescriptions needing renewal can be renewed ({detail})."
        )
    _require_visit_for_controlled(ctx, rx, "renew")
    ctx.execute(
        "UPDATE prescriptions SET status = 'renewal_requested', renewal_requested_at = ? WHERE rx_number = ?",
        (ctx.now, rx_number),
    )
    return _prescription_view(ctx, rx_number)


def transfer_prescription(ctx: ToolContext, *, rx_number: str, pharmacy_id: str) -> dict:
    rx = _prescription(ctx, rx_number)
    if rx["status"] not in TRANSFERABLE:
        ctx.fail(
            f"Prescription {rx_number} is {rx['status']}; a discontinued prescription cannot be transferred."
        )
    med = ctx.one("SELECT * FROM medications WHERE medication_id = ?", (rx["medication_id"],))
    assert med is not None
    if med["controlled_schedule"] is not None:
        ctx.fail(
            f"{med['name']} is a schedule {med['controlled_schedule']} controlled substance; controlled prescriptions "
            "cannot be transferred to another pharmacy (the prescriber must write a new one)."
        )
    pharmacy = _pharmacy(ctx, pharmacy_id)
    if pharmacy_id == rx["pharmacy_id"]:
        ctx.fail(f"Prescription {rx_number} is already at {pharmacy['name']}.")
    ctx.execute("UPDATE prescriptions SET pharmacy_id = ? WHERE rx_number = ?", (pharmacy_id, rx_number))
    return _prescription_view(ctx, rx_number)


# --------------------------------------------------------------------------- insurance and bills


def update_insurance_plan(
    ctx: ToolContext, *, patient_id: str, plan_id: str, member_id: str | None = None
) -> dict:
    patient = _patient(ctx, patient_id)
    plan = _plan(ctx, plan_id)
    if not plan["accepted"]:
        ctx.fail(f"The clinic does not accept {plan['name']}; choose an accepted plan or self-pay.")
    if plan_id == patient["plan_id"]:
        ctx.fail(f"{plan['name']} is already the plan on file.")
    if plan["network_type"] == "none":
        member = None
    else:
        member = (member_id or "").strip().upper()
        if len(member) != MEMBER_ID_LENGTH or not member[:3].isalpha() or not member[3:].isdigit():
            ctx.fail(
                "The member id from the insurance card is needed: three letters and seven digits, e.g. 'CFH1234567'."
            )
        if not member.startswith(plan["member_id_prefix"]):
            ctx.fail(
                f"Member id {member} is not a {plan['carrier']} member id: those start with "
                f"{plan['member_id_prefix']}. Check the card."
            )
    ctx.execute(
        "UPDATE patients SET plan_id = ?, member_id = ? WHERE patient_id = ?", (plan_id, member, patient_id)
    )
    updated = []
    rows = ctx.all(
        "SELECT a.appointment_id, a.visit_type, a.copay_cents, a.provider_id FROM appointments a "
        "JOIN slots s ON s.slot_id = a.slot_id WHERE a.patient_id = ? AND a.status = 'scheduled' "
        "AND s.start_time > ? ORDER BY a.appointment_id",
        (patient_id, ctx.now),
    )
    for r in rows:
        copay = _copay(plan, _provider(ctx, r["provider_id"]), r["visit_type"])
        if copay != r["copay_cents"]:
            ctx.execute(
                "UPDATE appointments SET copay_cents = ? WHERE appointment_id = ?",
                (copay, r["appointment_id"]),
            )
        updated.append({"appointment_id": r["appointment_id"], "copay": _dollars(copay)})
    return {
        "patient_id": patient_id,
        "previous_plan_id": patient["plan_id"],
        "member_id": member,
        "plan": _plan_view(plan),
        "upcoming_appointments": updated,
    }


def pay_bill(ctx: ToolContext, *, bill_id: str, payment_method_id: str, amount: float | None = None) -> dict:
    bill = _bill(ctx, bill_id)
    if bill["status"] not in ("due", "overdue"):
        detail = (
            "the insurer has not processed it yet"
            if bill["status"] == "pending_insurance"
            else "nothing is left to pay"
        )
        ctx.fail(f"Bill {bill_id} is {bill['status']}; only due or overdue bills can be paid ({detail}).")
    method = ctx.one("SELECT * FROM payment_methods WHERE payment_method_id = ?", (payment_method_id,))
    if method is None:
        ctx.fail(f"Payment method {payment_method_id} not found.")
    if method["patient_id"] != bill["patient_id"]:
        ctx.fail(f"Payment method {payment_method_id} does not belong to the patient of bill {bill_id}.")
    if method["expires"] < ctx.now[:7]:
        ctx.fail(f"Card {payment_method_id} expired in {method['expires']}; choose another card.")
    view = _bill_view(ctx, bill_id)
    balance = round(view["balance_due"] * 100)
    if amount is None:
        cents = balance
    else:
        if amount <= 0:
            ctx.fail("The amount must be positive.")
        cents = round(amount * 100)
        if abs(amount * 100 - cents) > 1e-6:
            ctx.fail("The amount must be in dollars with at most two decimals.")
        if cents > balance:
            ctx.fail(f"{_fmt(cents)} is more than the balance due on bill {bill_id}, {_fmt(balance)}.")
    payment_id = ctx.next_id("payments", "payment_id", "pay_", 7)
    ctx.execute(
        "INSERT INTO payments (payment_id, bill_id, payment_method_id, amount_cents, created_at) VALUES (?, ?, ?, ?, ?)",
        (payment_id, bill_id, payment_method_id, cents, ctx.now),
    )
    if cents == balance:
        ctx.execute("UPDATE bills SET status = 'paid' WHERE bill_id = ?", (bill_id,))
    return _bill_view(ctx, bill_id)


# --------------------------------------------------------------------------- utilities

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_UNARY: dict[type, Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _evaluate(ctx: ToolContext, node: ast.AST) -> int | float:
    if isinstance(node, ast.Expression):
        return _evaluate(ctx, node.body)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(ctx, node.left), _evaluate(ctx, node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            ctx.fail("Division by zero.")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(ctx, node.operand))
    ctx.fail("Only numbers, + - * /, and parentheses are allowed in the expression.")


def calculate(ctx: ToolContext, *, expression: str) -> dict:
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        ctx.fail("The expression is not valid arithmetic; use numbers, + - * /, and parentheses.")
    try:
        value = float(_evaluate(ctx, tree))
    except (OverflowError, RecursionError):
        ctx.fail("The expression is too large to evaluate.")
    if not math.isfinite(value):
        ctx.fail("The result is too large.")
    result = round(value, 2)
    return {"expression": expression, "result": 0.0 if result == 0 else result}


def transfer_to_human_agents(ctx: ToolContext, *, summary: str) -> dict:
    return {
        "transferred": True,
        "message": "The conversation has been transferred to a human agent, who will follow up with the patient.",
        "summary": summary,
    }
