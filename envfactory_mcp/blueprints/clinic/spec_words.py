"""How people say the clinic environment's values, and its free text (scoring reads answers
and state by meaning).

Every text enum column is labelled (``kit.worded``): its values in words, and here the other
words an agent would use for one value and no other of its column (a specialty by its
doctor's title too: "cardiologist"). The reason for a visit is the patient's words as the
agent writes them down (``book_appointment``): compared by the facts it carries."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit

_SPECIALTY_WORDS = {
    "family_medicine": ["family doctor", "family practice"],
    "internal_medicine": ["internist"],
    "pediatrics": ["pediatrician"],
    "cardiology": ["cardiologist"],
    "dermatology": ["dermatologist"],
    "orthopedics": ["orthopedist", "orthopedic surgeon"],
    "endocrinology": ["endocrinologist"],
}

WORDS: dict[str, dict[str, list[str]]] = {
    "insurance_plans.tier": {"self_pay": ["uninsured", "no insurance"]},
    "providers.specialty": _SPECIALTY_WORDS,
    "referrals.specialty": _SPECIALTY_WORDS,
    "providers.care_type": {"primary_care": ["PCP", "primary care provider"]},
    "payment_methods.kind": {"hsa_card": ["health savings account card"]},
    "referrals.status": {"active": ["valid"], "used": ["used up", "no visits left"], "expired": ["lapsed"]},
    "appointments.visit_type": {
        "annual_physical": ["yearly physical", "annual checkup"],
        "telehealth": ["video visit", "virtual visit"],
    },
    "appointments.status": {
        "scheduled": ["booked", "upcoming"],
        "completed": ["attended"],
        "cancelled": ["called off"],
        "no_show": ["missed", "did not show up"],
    },
    "medications.form": {"tablet": ["pill"], "solution": ["liquid"]},
    "prescriptions.status": {
        "needs_renewal": ["due for renewal", "needs to be renewed"],
        "renewal_requested": ["renewal pending", "sent for renewal"],
        "discontinued": ["stopped", "no longer prescribed"],
    },
    "refills.status": {
        "sent": ["sent to the pharmacy", "submitted"],
        "ready": ["ready for pickup", "ready to pick up"],
        "picked_up": ["collected"],
    },
    "bills.status": {
        "pending_insurance": [
            "waiting for insurance",
            "awaiting insurance",
            "with the insurer",
            "awaiting the insurer",
            "waiting on the insurer",
            "waiting on insurance",
        ],
        "overdue": ["past due", "late"],
        "paid": ["paid in full", "settled"],
    },
}

DISPLAY: dict[str, dict[str, str]] = {
    "insurance_plans.tier": {"self_pay": "self-pay"},
    "insurance_plans.network_type": {"hmo": "HMO", "ppo": "PPO", "none": "no network"},
    "payment_methods.kind": {"hsa_card": "HSA card"},
    "payment_methods.brand": kit.CARD_BRAND_NAMES,
    "appointments.visit_type": {"new_patient": "new patient visit", "follow_up": "follow-up"},
    "appointments.status": {"no_show": "no-show"},
    "medications.controlled_schedule": {v: f"Schedule {v}" for v in ("II", "III", "IV", "V")},
    "bills.kind": {"no_show_fee": "no-show fee"},
}

TEXT = ["appointments.reason"]
