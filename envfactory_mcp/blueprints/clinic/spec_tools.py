"""Tool declarations of the clinic environment: schemas, effects, tables, entities and claims."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit
from envfactory_mcp.blueprints.kit import Schema
from envfactory_mcp.spec import ParamSpec, ToolSpec

from .spec_tables import (
    APPOINTMENT_STATUSES,
    BILL_KINDS,
    BILL_STATUSES,
    CARE_TYPES,
    NETWORK_TYPES,
    PAYMENT_METHOD_KINDS,
    PLAN_TIERS,
    PRESCRIPTION_STATUSES,
    REFERRAL_STATUSES,
    REFILL_STATUSES,
    SPECIALTIES,
    VISIT_TYPES,
)

MONEY: Schema = {"type": "number", "description": "Dollars, two decimals."}
TEXT: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
INT: Schema = {"type": "integer"}
NULL_TEXT = kit.nullable("string")
SERVICES = ("primary_care", "specialist", "telehealth", "annual_physical")

PATIENT_ID = kit.string(
    10, "Internal patient id from a find_patient_id_* tool, e.g. 'pat_000042'.", pattern=r"^pat_[0-9]{6}$"
)
PROVIDER_ID = kit.string(8, "Provider id from list_providers, e.g. 'prv_0007'.", pattern=r"^prv_[0-9]{4}$")
SLOT_ID = kit.string(
    10, "Slot id from get_provider_schedule's open slots, e.g. 'slt_000123'.", pattern=r"^slt_[0-9]{6}$"
)
APPOINTMENT_ID = kit.string(9, "Appointment confirmation number, e.g. 'APT004512'.", pattern=r"^APT[0-9]{6}$")
REFERRAL_ID = kit.string(
    9, "Referral number from the referral letter, e.g. 'REF004512'.", pattern=r"^REF[0-9]{6}$"
)
RX_NUMBER = kit.string(9, "Prescription number on the label, e.g. 'RX7001234'.", pattern=r"^RX[0-9]{7}$")
PHARMACY_ID = kit.string(8, "Pharmacy id from list_pharmacies, e.g. 'phm_0004'.", pattern=r"^phm_[0-9]{4}$")
PLAN_ID = kit.string(
    24,
    "Insurance plan id from list_insurance_plans, e.g. 'ins_silver_hmo'.",
    pattern=r"^ins_[a-z0-9_]{2,20}$",
)
BILL_ID = kit.string(9, "Statement number, e.g. 'INV260412'.", pattern=r"^INV[0-9]{6}$")
PAYMENT_METHOD_ID = kit.string(
    11, "Card id from get_patient_details, e.g. 'card_000123'.", pattern=r"^card_[0-9]{6}$"
)

PLAN_OUT = kit.obj(
    {
        "plan_id": TEXT,
        "name": TEXT,
        "carrier": TEXT,
        "tier": kit.enum(PLAN_TIERS),
        "network_type": kit.enum(NETWORK_TYPES),
        "referral_required_for_specialists": BOOL,
        "primary_copay": MONEY,
        "specialist_copay": MONEY,
        "telehealth_copay": MONEY,
        "annual_physical_copay": MONEY,
        "accepted": BOOL,
        "member_id_prefix": NULL_TEXT,
    }
)
PROVIDER_FIELDS: dict[str, Schema] = {
    "provider_id": TEXT,
    "name": TEXT,
    "credentials": TEXT,
    "specialty": kit.enum(SPECIALTIES),
    "care_type": kit.enum(CARE_TYPES),
    "location": kit.obj({"location_id": TEXT, "name": TEXT, "address": TEXT}),
    "weekly_schedule": TEXT,
    "accepting_new_patients": BOOL,
}
PROVIDER_READS = ["locations", "providers"]

APPOINTMENT_OUT = kit.obj(
    {
        "appointment_id": TEXT,
        "patient_id": TEXT,
        "provider_id": TEXT,
        "provider_name": TEXT,
        "specialty": kit.enum(SPECIALTIES),
        "location": TEXT,
        "start_time": TEXT,
        "when": TEXT,
        "duration_minutes": INT,
        "visit_type": kit.enum(VISIT_TYPES),
        "reason": TEXT,
        "status": kit.enum(APPOINTMENT_STATUSES),
        "referral_id": NULL_TEXT,
        "copay": MONEY,
        "booked_at": TEXT,
        "cancelled_at": NULL_TEXT,
        "free_cancellation_until": NULL_TEXT,
        "late_cancellation_fee": MONEY,
    }
)
APPOINTMENT_OUTPUTS = {
    "appointment_id": "appointment",
    "patient_id": "patient",
    "provider_id": "provider",
    "referral_id": "referral",
}
APPOINTMENT_READS = ["appointments", "locations", "providers", "slots"]

PRESCRIPTION_OUT = kit.obj(
    {
        "rx_number": TEXT,
        "patient_id": TEXT,
        "medication": TEXT,
        "form": TEXT,
        "controlled_substance": BOOL,
        "controlled_schedule": NULL_TEXT,
        "directions": TEXT,
        "prescriber": TEXT,
        "pharmacy_id": TEXT,
        "pharmacy": TEXT,
        "days_supply": INT,
        "refills_remaining": INT,
        "written_on": TEXT,
        "expires_on": TEXT,
        "last_filled_on": TEXT,
        "next_refill_date": TEXT,
        "status": kit.enum(PRESCRIPTION_STATUSES),
        "renewal_requested_at": NULL_TEXT,
        "refills": kit.array(
            kit.obj(
                {
                    "refill_id": TEXT,
                    "requested_at": TEXT,
                    "status": kit.enum(REFILL_STATUSES),
                    "pharmacy": TEXT,
                }
            )
        ),
    }
)
PRESCRIPTION_OUTPUTS = {"rx_number": "prescription", "patient_id": "patient", "refills[].refill_id": "refill"}
PRESCRIPTION_READS = ["medications", "pharmacies", "prescriptions", "providers", "refills"]

BILL_OUT = kit.obj(
    {
        "bill_id": TEXT,
        "patient_id": TEXT,
        "appointment_id": NULL_TEXT,
        "kind": kit.enum(BILL_KINDS),
        "description": TEXT,
        "amount": MONEY,
        "issued_on": TEXT,
        "due_date": TEXT,
        "status": kit.enum(BILL_STATUSES),
        "items": kit.array(kit.obj({"item_id": TEXT, "label": TEXT, "amount": MONEY})),
        "payments": kit.array(
            kit.obj({"payment_id": TEXT, "payment_method_id": TEXT, "amount": MONEY, "created_at": TEXT})
        ),
        "paid": MONEY,
        "balance_due": MONEY,
    }
)
BILL_OUTPUTS = {
    "bill_id": "bill",
    "patient_id": "patient",
    "items[].item_id": "bill_item",
    "payments[].payment_id": "payment",
    "payments[].payment_method_id": "payment_method",
}
BILL_READS = ["bill_items", "bills", "payments"]

REFERRAL_OUT = kit.obj(
    {
        "referral_id": TEXT,
        "patient_id": TEXT,
        "specialty": kit.enum(SPECIALTIES),
        "referring_provider": TEXT,
        "issued_on": TEXT,
        "expires_on": TEXT,
        "visits_allowed": INT,
        "visits_used": INT,
        "visits_remaining": INT,
        "status": kit.enum(REFERRAL_STATUSES),
    }
)

FEE_OUT: dict[str, Schema] = {"late_fee": MONEY, "fee_bill_id": NULL_TEXT}
# What a change returns: the appointment, its patient and provider. A referral it used is
# shown by get_appointment_details, the bill of a late-cancellation fee (most changes have
# none) by get_patient_details: neither is offered as a lookup that may come back empty.
BOOKED_OUTPUTS = {k: v for k, v in APPOINTMENT_OUTPUTS.items() if v != "referral"}
FEE_OUTPUTS = {f"appointment.{k}": v for k, v in BOOKED_OUTPUTS.items()}


def build_tools() -> list[ToolSpec]:
    patient_id = (PATIENT_ID, kit.param("patient", False))
    appointment_id = (APPOINTMENT_ID, kit.param("appointment", True))
    rx_number = (RX_NUMBER, kit.param("prescription", True))
    provider_id = (PROVIDER_ID, kit.param("provider", False))
    slot_id = (SLOT_ID, kit.param("slot", False))
    return [
        kit.tool(
            "find_patient_id_by_email",
            "look up my patient record by email",
            "Find a patient's id from their email address (case-insensitive). Use this to authenticate the "
            "patient before anything else. Fails if no patient has that email.",
            {
                "email": (
                    kit.string(254, "Email address of the patient.", pattern=r"^[^@\s]+@[^@\s]+$"),
                    kit.param(None, True),
                )
            },
            kit.obj({"patient_id": TEXT}),
            reads=["patients"],
            outputs={"patient_id": "patient"},
        ),
        kit.tool(
            "find_patient_id_by_name_dob",
            "look up my patient record by name and date of birth",
            "Find a patient's id from first name, last name and date of birth (YYYY-MM-DD). Use this to "
            "authenticate a patient who cannot give their email. Fails if no patient, or more than one, matches.",
            {
                "first_name": (kit.string(60, "First name."), kit.param(None, True)),
                "last_name": (kit.string(60, "Last name."), kit.param(None, True)),
                "date_of_birth": (
                    kit.string(10, "Date of birth, YYYY-MM-DD.", pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
                    kit.param(None, True),
                ),
            },
            kit.obj({"patient_id": TEXT}),
            reads=["patients"],
            outputs={"patient_id": "patient"},
        ),
        kit.tool(
            "get_patient_details",
            "see my patient record",
            "Get a patient's record: name, date of birth and age, contact details, the insurance plan on file "
            "(tier, network type, member id, whether the clinic still accepts it), the primary-care provider on "
            "file, the preferred pharmacy, saved "
            "cards (with expiry month and whether expired), and the numbers of their appointments (latest first), "
            "referrals, prescriptions and bills (newest first).",
            {"patient_id": patient_id},
            kit.obj(
                {
                    "patient_id": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "date_of_birth": TEXT,
                    "age": INT,
                    "email": TEXT,
                    "phone": TEXT,
                    "insurance": kit.obj(
                        {
                            "plan_id": TEXT,
                            "name": TEXT,
                            "tier": kit.enum(PLAN_TIERS),
                            "network_type": kit.enum(NETWORK_TYPES),
                            "member_id": NULL_TEXT,
                            "accepted": BOOL,
                        }
                    ),
                    "preferred_pharmacy": kit.obj({"pharmacy_id": TEXT, "name": TEXT}),
                    "primary_care_provider": kit.obj(
                        {"provider_id": TEXT, "name": TEXT, "specialty": kit.enum(SPECIALTIES)}
                    ),
                    "payment_methods": kit.array(
                        kit.obj(
                            {
                                "payment_method_id": TEXT,
                                "kind": kit.enum(PAYMENT_METHOD_KINDS),
                                "label": TEXT,
                                "expires": TEXT,
                                "expired": BOOL,
                            }
                        )
                    ),
                    "appointments": kit.array(TEXT),
                    "referrals": kit.array(TEXT),
                    "prescriptions": kit.array(TEXT),
                    "bills": kit.array(TEXT),
                }
            ),
            reads=[
                "appointments",
                "bills",
                "insurance_plans",
                "patients",
                "payment_methods",
                "pharmacies",
                "prescriptions",
                "providers",
                "referrals",
                "slots",
            ],
            outputs={
                "patient_id": "patient",
                "payment_methods[].payment_method_id": "payment_method",
                "primary_care_provider.provider_id": "provider",
                "appointments[]": "appointment",
                "referrals[]": "referral",
                "prescriptions[]": "prescription",
                "bills[]": "bill",
            },
        ),
        kit.tool(
            "list_insurance_plans",
            "see which insurance plans the clinic takes",
            "List the insurance plans the clinic knows, with tier, network type (HMO plans need a referral for "
            "specialist visits), the copays of a primary-care, specialist, telehealth visit and an annual physical, "
            "and whether the clinic accepts the plan (plans it no longer takes are listed last). Give "
            "network_type (hmo, ppo, none) to list only plans of that kind.",
            {
                "network_type": (
                    kit.enum(NETWORK_TYPES, "Only plans of this network type; omit for every plan."),
                    kit.param(None, True),
                )
            },
            kit.obj({"plans": kit.array(PLAN_OUT)}),
            reads=["insurance_plans"],
            outputs={"plans[].plan_id": "plan"},
            required=[],
        ),
        kit.tool(
            "get_plan_details",
            "find out what a visit costs on an insurance plan",
            "Get one insurance plan: carrier, tier, network type, whether the clinic accepts it, and the copay of "
            "each kind of visit (primary_care, specialist, telehealth, annual_physical) in dollars.",
            {"plan_id": (PLAN_ID, kit.param("plan", False))},
            kit.obj(
                {
                    **PLAN_OUT["properties"],
                    "copays": kit.array(
                        kit.obj({"service": kit.enum(list(SERVICES)), "description": TEXT, "copay": MONEY})
                    ),
                }
            ),
            reads=["insurance_plans"],
            outputs={"plan_id": "plan"},
            claims=["specialist_copay", "telehealth_copay"],
        ),
        kit.tool(
            "list_providers",
            "see the clinic's doctors",
            "List every provider: specialty, primary care or specialist, site and address, weekly clinic hours, "
            "and whether they accept new patients.",
            {},
            kit.obj({"providers": kit.array(kit.obj(PROVIDER_FIELDS))}),
            reads=PROVIDER_READS,
            outputs={"providers[].provider_id": "provider", "providers[].location.location_id": "location"},
        ),
        kit.tool(
            "get_provider_schedule",
            "see when a doctor is available",
            "Get a provider and their open slots from now on (start time, how it is told to patients, length, "
            "places left), with the number of open slots and the next available one.",
            {"provider_id": provider_id},
            kit.obj(
                {
                    **PROVIDER_FIELDS,
                    "open_slot_count": INT,
                    "next_available": NULL_TEXT,
                    "open_slots": kit.array(
                        kit.obj(
                            {
                                "slot_id": TEXT,
                                "start_time": TEXT,
                                "label": TEXT,
                                "duration_minutes": INT,
                                "spots_left": INT,
                            }
                        )
                    ),
                }
            ),
            reads=[*PROVIDER_READS, "appointments", "slots"],
            outputs={
                "provider_id": "provider",
                "location.location_id": "location",
                "open_slots[].slot_id": "slot",
            },
            claims=["next_available"],
        ),
        kit.tool(
            "get_appointment_details",
            "check on my appointment",
            "Get an appointment: provider, specialty, site, time, visit type, reason, status (scheduled, "
            "completed, cancelled, no_show), the referral it uses, the copay, and until when it can be cancelled "
            "or moved without the late-cancellation fee.",
            {"appointment_id": appointment_id},
            APPOINTMENT_OUT,
            reads=APPOINTMENT_READS,
            outputs=APPOINTMENT_OUTPUTS,
            claims=["status", "copay"],
        ),
        kit.tool(
            "get_referral_details",
            "check on my referral",
            "Get a referral: specialty, referring provider, issue and expiry dates, visits allowed, used and "
            "remaining, and status (active, used, expired).",
            {"referral_id": (REFERRAL_ID, kit.param("referral", True))},
            REFERRAL_OUT,
            reads=["providers", "referrals"],
            outputs={"referral_id": "referral", "patient_id": "patient"},
            claims=["status", "visits_remaining"],
        ),
        kit.tool(
            "get_prescription_details",
            "check on my prescription",
            "Get a prescription: medication, whether it is a controlled substance, directions, prescriber, "
            "pharmacy, days supply, refills remaining, dates (written, expiry, last fill, earliest next refill), "
            "status (active, needs_renewal, renewal_requested, discontinued) and its refill orders.",
            {"rx_number": rx_number},
            PRESCRIPTION_OUT,
            reads=PRESCRIPTION_READS,
            outputs=PRESCRIPTION_OUTPUTS,
            claims=["status", "refills_remaining"],
        ),
        kit.tool(
            "list_pharmacies",
            "see the pharmacies prescriptions can go to",
            "List the pharmacies prescriptions can be sent to, with address, phone and whether open 24 hours.",
            {},
            kit.obj(
                {
                    "pharmacies": kit.array(
                        kit.obj(
                            {
                                "pharmacy_id": TEXT,
                                "name": TEXT,
                                "address": TEXT,
                                "phone": TEXT,
                                "open_24h": BOOL,
                            }
                        )
                    )
                }
            ),
            reads=["pharmacies"],
            outputs={"pharmacies[].pharmacy_id": "pharmacy"},
        ),
        kit.tool(
            "get_bill_details",
            "check on my bill",
            "Get a statement: what it is for (copay, balance after insurance, late-cancellation or no-show fee), "
            "the visit, its line items, amount, issue and due dates, status (pending_insurance: not payable yet; "
            "due; overdue; paid), payments made and the balance due in dollars.",
            {"bill_id": (BILL_ID, kit.param("bill", True))},
            BILL_OUT,
            reads=BILL_READS,
            outputs=BILL_OUTPUTS,
            claims=["status", "balance_due", "items[].amount"],
        ),
        kit.tool(
            "book_appointment",
            "book an appointment",
            "Book a patient into one of a provider's open slots (from get_provider_schedule) with a visit type "
            "(new_patient, follow_up, sick_visit, annual_physical, telehealth) and the reason in the patient's words. "
            "Refused when: the slot is past, full or not the provider's; the patient has an overlapping visit or "
            "already an upcoming one with this provider; the clinic no longer takes the patient's plan; a "
            "pediatrician and a patient 18 or older, or an internist and a child; a first visit with the provider "
            "that is not new_patient (or a provider not taking new patients), or new_patient for an established "
            "patient; an annual physical with a specialist or within 365 days of the last; a specialist on an HMO "
            "plan without an active referral for the specialty valid on the visit date (booking uses one of its "
            "visits). The copay comes from the plan. Returns the appointment.",
            {
                "patient_id": patient_id,
                "slot_id": slot_id,
                "provider_id": provider_id,
                "visit_type": (
                    {"type": "string", "enum": VISIT_TYPES, "description": "Kind of visit."},
                    kit.param(None, True),
                ),
                "reason": (
                    {
                        **kit.string(300, "Reason for the visit, in the patient's words."),
                        "examples": [
                            "Persistent cough for two weeks",
                            "Follow-up on blood pressure",
                            "Rash on both arms",
                        ],
                    },
                    ParamSpec(user_provided=True, composed=True),
                ),
            },
            APPOINTMENT_OUT,
            effect="write",
            reads=[*APPOINTMENT_READS, "insurance_plans", "patients", "referrals"],
            writes=["appointments", "referrals"],
            outputs=BOOKED_OUTPUTS,
            claims=["appointment_id", "copay"],
        ),
        kit.tool(
            "reschedule_appointment",
            "move my appointment to another time",
            "Move a scheduled appointment to another open slot of the same provider (from get_provider_schedule). "
            "The patient must not have another visit at that time, and a visit using a referral cannot move past "
            "the referral's expiry. Moving it less than 24 hours before its current start costs the $50.00 "
            "late-cancellation fee, billed to the patient. Returns the appointment and the fee.",
            {"appointment_id": appointment_id, "slot_id": slot_id},
            kit.obj({"appointment": APPOINTMENT_OUT, "previous_time": TEXT, **FEE_OUT}),
            effect="write",
            reads=[*APPOINTMENT_READS, "bill_items", "bills", "patients", "referrals"],
            writes=["appointments", "bill_items", "bills"],
            outputs=FEE_OUTPUTS,
            claims=["appointment.when", "late_fee"],
        ),
        kit.tool(
            "cancel_appointment",
            "cancel my appointment",
            "Cancel a scheduled appointment. Cancelling less than 24 hours before the start costs the $50.00 "
            "late-cancellation fee, billed to the patient; a referral visit it used is given back. Returns the "
            "appointment and the fee.",
            {"appointment_id": appointment_id},
            kit.obj({"appointment": APPOINTMENT_OUT, **FEE_OUT}),
            effect="write",
            reads=[*APPOINTMENT_READS, "bill_items", "bills", "patients", "referrals"],
            writes=["appointments", "bill_items", "bills", "referrals"],
            outputs=FEE_OUTPUTS,
            claims=["late_fee"],
        ),
        kit.tool(
            "request_refill",
            "refill my prescription",
            "Send a refill of an active prescription to its pharmacy. Refused when it has no refills left or has "
            "expired (request a renewal instead), when it is too early (three quarters of the last fill's days "
            "supply must have passed), and for a controlled substance without a completed visit with the "
            "prescriber in the last 90 days. Uses one refill.",
            {"rx_number": rx_number},
            kit.obj(
                {
                    "refill_id": TEXT,
                    "rx_number": TEXT,
                    "medication": TEXT,
                    "pharmacy": TEXT,
                    "refills_remaining": INT,
                    "status": kit.enum(PRESCRIPTION_STATUSES),
                }
            ),
            effect="write",
            reads=[*PRESCRIPTION_READS, "appointments", "slots"],
            writes=["prescriptions", "refills"],
            outputs={"refill_id": "refill", "rx_number": "prescription"},
            claims=["refills_remaining"],
        ),
        kit.tool(
            "request_renewal",
            "get my prescription renewed",
            "Ask the prescriber to renew a prescription that needs renewal (no refills left or expired). A "
            "controlled substance needs a completed visit with the prescriber in the last 90 days. Returns the "
            "prescription.",
            {"rx_number": rx_number},
            PRESCRIPTION_OUT,
            effect="write",
            reads=[*PRESCRIPTION_READS, "appointments", "slots"],
            writes=["prescriptions"],
            outputs=PRESCRIPTION_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "transfer_prescription",
            "move my prescription to another pharmacy",
            "Move a prescription that is not discontinued to another pharmacy (from list_pharmacies). Controlled "
            "substances cannot be transferred. Returns the prescription.",
            {"rx_number": rx_number, "pharmacy_id": (PHARMACY_ID, kit.param("pharmacy", False))},
            PRESCRIPTION_OUT,
            effect="write",
            reads=PRESCRIPTION_READS,
            writes=["prescriptions"],
            outputs=PRESCRIPTION_OUTPUTS,
            claims=["pharmacy"],
        ),
        kit.tool(
            "update_insurance_plan",
            "update my insurance on file",
            "Put another insurance plan the clinic accepts on the patient's file, with the member id from the new "
            "card (three letters, the carrier's prefix, and seven digits; not needed for self-pay). Copays of upcoming "
            "appointments are "
            "recomputed from the new plan. Returns the plan and the upcoming appointments' copays.",
            {
                "patient_id": patient_id,
                "plan_id": (PLAN_ID, kit.param("plan", False)),
                "member_id": (
                    {
                        **kit.string(
                            10, "Member id on the insurance card.", pattern=r"^[A-Za-z]{3}[0-9]{7}$"
                        ),
                        "examples": ["CFH1234567", "SUM7654321"],
                    },
                    kit.param(None, True),
                ),
            },
            kit.obj(
                {
                    "patient_id": TEXT,
                    "previous_plan_id": TEXT,
                    "member_id": NULL_TEXT,
                    "plan": PLAN_OUT,
                    "upcoming_appointments": kit.array(kit.obj({"appointment_id": TEXT, "copay": MONEY})),
                }
            ),
            effect="write",
            reads=["appointments", "insurance_plans", "patients", "providers", "slots"],
            writes=["appointments", "patients"],
            outputs={
                "patient_id": "patient",
                "previous_plan_id": "plan",
                "plan.plan_id": "plan",
                "upcoming_appointments[].appointment_id": "appointment",
            },
            claims=["plan.primary_copay"],
            required=["patient_id", "plan_id"],
        ),
        kit.tool(
            "pay_bill",
            "pay my bill",
            "Pay a due or overdue bill with one of the patient's saved cards (not an expired one). amount is in "
            "dollars and may be a partial payment up to the balance due; leave it out to pay the whole balance. "
            "The bill becomes paid when nothing is left. Returns the updated bill.",
            {
                "bill_id": (BILL_ID, kit.param("bill", True)),
                "payment_method_id": (PAYMENT_METHOD_ID, kit.param("payment_method", False)),
                "amount": (
                    {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "description": "Dollars to pay, two decimals at most; omit to pay the full balance due.",
                        "examples": [10.0, 20.0, 25.0],
                    },
                    kit.param(None, True),
                ),
            },
            BILL_OUT,
            effect="write",
            reads=[*BILL_READS, "payment_methods"],
            writes=["bills", "payments"],
            outputs=BILL_OUTPUTS,
            claims=["status", "balance_due"],
            required=["bill_id", "payment_method_id"],
        ),
        kit.tool(
            "calculate",
            "work out an amount",
            "Evaluate an arithmetic expression with numbers, + - * /, and parentheses, e.g. '(60 - 35) * 2'. "
            "The result is rounded to 2 decimals. Anything else is rejected.",
            {
                "expression": (
                    {**kit.string(200, "Arithmetic expression."), "examples": ["(60 - 35) * 2", "40 + 50"]},
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"expression": TEXT, "result": {"type": "number"}}),
            claims=["result"],
        ),
        kit.tool(
            "transfer_to_human_agents",
            "talk to a human",
            "Transfer the patient to a human agent, with a summary of the issue. Use only when the patient "
            "explicitly asks for a human or the request cannot be handled with the other tools under the policy.",
            {
                "summary": (
                    kit.string(2000, "Summary of the patient's issue for the human agent."),
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"transferred": BOOL, "message": TEXT, "summary": TEXT}),
        ),
    ]
