"""Deterministic seed state of the clinic environment, drawn from small word lists.

Everything comes from the ``random.Random`` passed in: lists are walked in a fixed order,
never through sets or dict iteration of unordered data, so one seed gives one state. The
environment clock is Thursday 2026-06-18T15:00:00Z: visits before it are completed,
missed or cancelled; the providers' open slots run from Friday June 19 to June 30, and
some scheduled visits fall within the next 24 hours (the late-cancellation window).
Every row is built by the rules the tools enforce (new-patient first visits, referrals
for specialists on HMO plans, one annual physical a year, capacity, no double booking).
"""

from __future__ import annotations

import datetime
import itertools
import random
from typing import Any

Row = dict[str, Any]
Rows = dict[str, list[Row]]

TODAY = datetime.date(2026, 6, 18)
NOW = datetime.datetime(2026, 6, 18, 15, 0)
HORIZON = datetime.date(2026, 6, 30)
HISTORY_START = datetime.date(2025, 1, 6)
N_PATIENTS = 100
LATE_FEE_CENTS = 5000
NO_SHOW_FEE_CENTS = 7500
BILL_DUE_DAYS = 30

FIRST_NAMES = [
    "Aaliyah", "Andre", "Beatriz", "Caleb", "Dana", "Derek", "Elif", "Ethan", "Fatima", "Gavin",
    "Hannah", "Hector", "Imani", "Jacob", "Jasmine", "Kevin", "Laila", "Logan", "Mariana", "Mason",
    "Nia", "Owen", "Paige", "Rafael", "Riley", "Sofia", "Trevor", "Uma", "Victor", "Whitney",
    "Xavier", "Yasmin", "Zachary", "Brianna", "Connor", "Destiny", "Malik", "Natalie", "Tyler", "Vanessa",
]  # fmt: skip
LAST_NAMES = [
    "Abbott", "Baker", "Coleman", "Delgado", "Edwards", "Foster", "Gonzalez", "Harris", "Ibrahim", "Jackson",
    "Kim", "Lee", "Martinez", "Nelson", "Ortiz", "Parker", "Ramirez", "Sanders", "Thompson", "Underwood",
    "Vasquez", "Washington", "Young", "Zhang", "Bennett", "Campbell", "Morales", "Reyes", "Stewart", "Turner",
]  # fmt: skip
EMAIL_DOMAINS = ["example.com", "mail.example", "inbox.example", "post.example"]

# (plan_id, name, carrier, tier, network, primary $, specialist $, telehealth $, accepted, weight)
PLANS: list[tuple[str, str, str, str, str, int, int, int, int, int]] = [
    ("ins_selfpay", "Self-Pay", "None", "self_pay", "none", 150, 250, 90, 1, 6),
    ("ins_bronze_hmo", "CareFirst Bronze HMO", "CareFirst Health", "bronze", "hmo", 45, 90, 30, 1, 12),
    ("ins_silver_hmo", "CareFirst Silver HMO", "CareFirst Health", "silver", "hmo", 30, 60, 20, 1, 16),
    ("ins_gold_hmo", "CareFirst Gold HMO", "CareFirst Health", "gold", "hmo", 20, 40, 10, 1, 10),
    ("ins_bronze_ppo", "Summit Bronze PPO", "Summit Mutual", "bronze", "ppo", 50, 100, 35, 1, 10),
    ("ins_silver_ppo", "Summit Silver PPO", "Summit Mutual", "silver", "ppo", 35, 70, 25, 1, 14),
    ("ins_gold_ppo", "Summit Gold PPO", "Summit Mutual", "gold", "ppo", 25, 50, 15, 1, 10),
    ("ins_platinum_ppo", "Summit Platinum PPO", "Summit Mutual", "platinum", "ppo", 10, 25, 0, 1, 8),
    ("ins_classic_ppo", "Meridian Classic PPO", "Meridian Insurance", "silver", "ppo", 30, 60, 20, 0, 5),
]
MEMBER_PREFIX = {"CareFirst Health": "CFH", "Summit Mutual": "SUM", "Meridian Insurance": "MER"}

# (name, address, zip, open 24h)
PHARMACIES: list[tuple[str, str, str, int]] = [
    ("Main Street Pharmacy", "210 N High St", "43215", 0),
    ("CityCare Pharmacy Downtown", "88 E Broad St", "43215", 1),
    ("CityCare Pharmacy Clintonville", "3500 N High St", "43214", 0),
    ("Riverside Drug", "1450 W 5th Ave", "43212", 0),
    ("Eastgate Family Pharmacy", "2789 E Main St", "43209", 0),
    ("Northland Apothecary", "1960 Morse Rd", "43229", 0),
    ("Valley Rx", "4100 Refugee Rd", "43232", 1),
    ("Hilltop Pharmacy", "3050 W Broad St", "43204", 0),
    ("Worthington Community Pharmacy", "655 High St", "43085", 0),
    ("German Village Chemists", "560 S 3rd St", "43206", 0),
]
# (location_id, name, address, zip)
LOCATIONS: list[tuple[str, str, str, str]] = [
    ("loc_01", "Northside Family Health Center", "4200 N High St", "43214"),
    ("loc_02", "Downtown Medical Plaza", "175 S 3rd St", "43215"),
    ("loc_03", "Eastgate Specialty Clinic", "2600 E Main St", "43209"),
]
# (name, credentials, specialty, location, accepting new patients)
PROVIDERS: list[tuple[str, str, str, str, int]] = [
    ("Dr. Maya Patel", "MD", "family_medicine", "loc_01", 1),
    ("Dr. Samuel Okafor", "DO", "family_medicine", "loc_01", 0),
    ("Jordan Reyes, NP", "NP", "family_medicine", "loc_02", 1),
    ("Dr. Helen Marsh", "MD", "family_medicine", "loc_02", 1),
    ("Dr. Arjun Mehta", "MD", "internal_medicine", "loc_02", 1),
    ("Dr. Claire Donovan", "MD", "internal_medicine", "loc_01", 0),
    ("Dr. Luis Navarro", "MD", "internal_medicine", "loc_03", 1),
    ("Dr. Priya Raman", "MD", "pediatrics", "loc_01", 1),
    ("Dr. Ben Whitaker", "DO", "pediatrics", "loc_02", 0),
    ("Alicia Grant, NP", "NP", "pediatrics", "loc_01", 1),
    ("Dr. Victor Chen", "MD", "cardiology", "loc_03", 1),
    ("Dr. Ruth Adeyemi", "MD", "cardiology", "loc_03", 0),
    ("Dr. Nora Lindqvist", "MD", "dermatology", "loc_02", 1),
    ("Dr. Omar Haddad", "MD", "dermatology", "loc_03", 1),
    ("Dr. Grace Kowalski", "MD", "orthopedics", "loc_03", 1),
    ("Dr. Ethan Brooks", "DO", "orthopedics", "loc_02", 0),
    ("Dr. Lena Fischer", "MD", "endocrinology", "loc_03", 1),
    ("Dr. Kwame Mensah", "MD", "endocrinology", "loc_02", 1),
]
PRIMARY = ("family_medicine", "internal_medicine", "pediatrics")
SPECIALISTS = ("cardiology", "dermatology", "orthopedics", "endocrinology")
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri"]
# (name, form, controlled schedule, days supply options, max refills)
MEDICATIONS: list[tuple[str, str, str | None, list[int], int]] = [
    ("Lisinopril 10 mg", "tablet", None, [30, 90], 5),
    ("Atorvastatin 20 mg", "tablet", None, [30, 90], 5),
    ("Metformin 500 mg", "tablet", None, [30, 90], 5),
    ("Levothyroxine 50 mcg", "tablet", None, [30, 90], 5),
    ("Amlodipine 5 mg", "tablet", None, [30, 90], 5),
    ("Sertraline 50 mg", "tablet", None, [30, 90], 5),
    ("Albuterol HFA 90 mcg", "inhaler", None, [30], 3),
    ("Fluticasone 50 mcg nasal spray", "solution", None, [30, 60], 3),
    ("Omeprazole 20 mg", "capsule", None, [30, 90], 4),
    ("Losartan 50 mg", "tablet", None, [30, 90], 5),
    ("Montelukast 10 mg", "tablet", None, [30, 90], 5),
    ("Triamcinolone 0.1% cream", "cream", None, [30], 2),
    ("Insulin glargine 100 units/mL", "injection pen", None, [30], 5),
    ("Metoprolol succinate 25 mg", "tablet", None, [30, 90], 5),
    ("Hydrochlorothiazide 25 mg", "tablet", None, [30, 90], 5),
    ("Clopidogrel 75 mg", "tablet", None, [30, 90], 5),
    ("Tretinoin 0.05% cream", "cream", None, [30, 60], 3),
    ("Meloxicam 15 mg", "tablet", None, [30], 3),
    ("Gabapentin 300 mg", "capsule", "V", [30], 5),
    ("Alprazolam 0.5 mg", "tablet", "IV", [30], 2),
    ("Zolpidem 10 mg", "tablet", "IV", [30], 2),
    ("Tramadol 50 mg", "tablet", "IV", [30], 1),
    ("Methylphenidate ER 36 mg", "tablet", "II", [30], 0),
    ("Oxycodone 5 mg", "tablet", "II", [30], 0),
]
# What each specialty prescribes (indexes into MEDICATIONS), and adult primary-care medications.
SPECIALTY_MEDS: dict[str, list[int]] = {
    "cardiology": [0, 1, 4, 13, 15],
    "dermatology": [11, 16],
    "orthopedics": [17, 21, 18],
    "endocrinology": [2, 3, 12],
}
PRIMARY_MEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 18, 19, 20, 21]
CHILD_MEDS = [6, 7, 10, 22]
DIRECTIONS = {
    "tablet": [
        "Take 1 tablet by mouth daily",
        "Take 1 tablet by mouth twice daily",
        "Take 1 tablet at bedtime",
    ],
    "capsule": ["Take 1 capsule by mouth daily", "Take 1 capsule by mouth three times daily"],
    "inhaler": ["Inhale 2 puffs every 4 to 6 hours as needed"],
    "solution": ["Use 2 sprays in each nostril daily"],
    "cream": ["Apply a thin layer to the affected area twice daily"],
    "injection pen": ["Inject 20 units under the skin daily"],
}
REASONS: dict[str, list[str]] = {
    "new_patient": ["Establish care", "New patient visit to get a regular doctor", "Consultation as referred"],
    "follow_up": ["Follow-up on blood pressure", "Review lab results", "Medication check", "Follow-up after treatment"],
    "sick_visit": ["Persistent cough for two weeks", "Sore throat and fever", "Ear pain", "Rash on both arms"],
    "annual_physical": ["Yearly physical", "Annual checkup", "Annual wellness exam"],
    "telehealth": ["Video visit to review medication", "Video follow-up on test results", "Questions about side effects"],
    "specialist": ["Chest pain on exertion", "Mole that changed color", "Knee pain when climbing stairs",
                   "Thyroid follow-up", "Heart palpitations", "Eczema flare-up", "Shoulder pain"],
}  # fmt: skip
SERVICES = ["Office visit", "Lab work", "X-ray", "ECG", "Vaccine", "Skin biopsy", "Injection", "Ultrasound"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
BRAND_NAMES = {"visa": "Visa", "mastercard": "Mastercard", "amex": "Amex", "discover": "Discover"}


def generate_seed(rng: random.Random) -> Rows:
    plans = _plans()
    pharmacies = _pharmacies()
    locations = _locations()
    providers, schedules = _providers(rng)
    medications = _medications()
    patients, methods = _patients(rng, pharmacies)
    world = _World(rng, patients, providers, schedules)
    world.history()
    world.future()
    slots, appointments, referrals = world.finish()
    prescriptions, refills = _prescriptions(rng, patients, providers, appointments, slots)
    bills, items, payments = _bills(rng, patients, methods, providers, appointments, slots)
    return {
        "insurance_plans": plans,
        "pharmacies": pharmacies,
        "locations": locations,
        "providers": providers,
        "patients": patients,
        "payment_methods": methods,
        "slots": slots,
        "referrals": referrals,
        "appointments": appointments,
        "medications": medications,
        "prescriptions": prescriptions,
        "refills": refills,
        "bills": bills,
        "bill_items": items,
        "payments": payments,
    }


# --------------------------------------------------------------------------- catalogs


def _plans() -> list[Row]:
    return [
        {
            "plan_id": plan_id,
            "name": name,
            "carrier": carrier,
            "tier": tier,
            "network_type": network,
            "primary_copay_cents": primary * 100,
            "specialist_copay_cents": specialist * 100,
            "telehealth_copay_cents": telehealth * 100,
            "accepted": accepted,
            "member_id_prefix": MEMBER_PREFIX.get(carrier),
        }
        for plan_id, name, carrier, tier, network, primary, specialist, telehealth, accepted, _ in PLANS
    ]


def _pharmacies() -> list[Row]:
    return [
        {
            "pharmacy_id": f"phm_{i:04d}",
            "name": name,
            "address": address,
            "city": "Columbus",
            "zip": zip_code,
            "phone": f"614555{1000 + i * 37:04d}",
            "open_24h": open_24h,
        }
        for i, (name, address, zip_code, open_24h) in enumerate(PHARMACIES, start=1)
    ]


def _locations() -> list[Row]:
    return [
        {"location_id": lid, "name": name, "address": address, "city": "Columbus", "zip": zip_code}
        for lid, name, address, zip_code in LOCATIONS
    ]


def _medications() -> list[Row]:
    return [
        {"medication_id": f"med_{i:04d}", "name": name, "form": form, "controlled_schedule": schedule}
        for i, (name, form, schedule, _, _) in enumerate(MEDICATIONS, start=1)
    ]


def _providers(rng: random.Random) -> tuple[list[Row], dict[str, list[tuple[int, int]]]]:
    """Providers and their weekly blocks (weekday 0-4, start hour 8 or 13): three half days,
    most including Friday so the next 24 hours have visits."""
    providers: list[Row] = []
    schedules: dict[str, list[tuple[int, int]]] = {}
    for i, (name, credentials, specialty, location, accepting) in enumerate(PROVIDERS, start=1):
        provider_id = f"prv_{i:04d}"
        days = [*sorted(rng.sample([0, 1, 2, 3], 2)), 4] if i % 3 else sorted(rng.sample([0, 1, 2, 3], 3))
        blocks = [(d, rng.choice([8, 13])) for d in days]
        if 4 in days:  # Friday: one provider in two works the morning, the other the afternoon
            blocks = [(d, (8 if i % 2 else 13) if d == 4 else h) for d, h in blocks]
        schedules[provider_id] = blocks
        providers.append(
            {
                "provider_id": provider_id,
                "name": name,
                "credentials": credentials,
                "specialty": specialty,
                "care_type": "primary_care" if specialty in PRIMARY else "specialist",
                "location_id": location,
                "weekly_schedule": "; ".join(f"{WEEKDAYS[d]} {h:02d}:00-{h + 4:02d}:00" for d, h in blocks),
                "accepting_new_patients": accepting,
            }
        )
    return providers, schedules


def _patients(rng: random.Random, pharmacies: list[Row]) -> tuple[list[Row], list[Row]]:
    pairs = list(itertools.product(FIRST_NAMES, LAST_NAMES))
    picks = rng.sample(range(len(pairs)), N_PATIENTS)
    plan_pool = [p for p in PLANS for _ in range(p[9])]
    patients: list[Row] = []
    methods: list[Row] = []
    card_no = 0
    phones: list[str] = []
    for n, pick in enumerate(picks, start=1):
        first, last = pairs[pick]
        child = rng.random() < 0.18
        born = (
            _day(rng, datetime.date(2009, 1, 1), datetime.date(2022, 12, 31))
            if child
            else _day(rng, datetime.date(1945, 1, 1), datetime.date(2007, 12, 31))
        )
        plan = rng.choice(plan_pool)
        while True:
            phone = f"614{rng.randint(200, 999)}{rng.randint(0, 9999):04d}"
            if phone not in phones:
                phones.append(phone)
                break
        patient_id = f"pat_{n:06d}"
        member = None if plan[4] == "none" else f"{MEMBER_PREFIX[plan[2]]}{rng.randint(1000000, 9999999)}"
        patients.append(
            {
                "patient_id": patient_id,
                "first_name": first,
                "last_name": last,
                "date_of_birth": born.isoformat(),
                "email": f"{first}.{last}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}".lower(),
                "phone": phone,
                "plan_id": plan[0],
                "member_id": member,
                "pharmacy_id": rng.choice(pharmacies)["pharmacy_id"],
                "registered_on": _day(rng, datetime.date(2015, 1, 1), datetime.date(2026, 5, 31)).isoformat(),
            }
        )
        kinds = [rng.choice(["credit_card", "credit_card", "debit_card", "hsa_card"])]
        if rng.random() < 0.45:
            kinds.append(rng.choice(["credit_card", "debit_card", "hsa_card"]))
        for k, kind in enumerate(kinds):
            if k == 1 and rng.random() < 0.4:
                expires = f"{rng.choice([2025, 2026])}-{rng.randint(1, 5):02d}"
            else:
                expires = f"{rng.randint(2027, 2031)}-{rng.randint(1, 12):02d}"
            brand = rng.choice(["visa", "mastercard", "amex", "discover"])
            last_four = f"{rng.randint(0, 9999):04d}"
            card_no += rng.randint(1, 6)
            shown = "HSA" if kind == "hsa_card" else BRAND_NAMES[brand]
            methods.append(
                {
                    "payment_method_id": f"card_{card_no:06d}",
                    "patient_id": patient_id,
                    "kind": kind,
                    "brand": brand,
                    "last_four": last_four,
                    "label": f"{shown} {'debit ' if kind == 'debit_card' else ''}ending {last_four}",
                    "expires": expires,
                }
            )
    return patients, methods


# --------------------------------------------------------------------------- helpers


def _day(rng: random.Random, start: datetime.date, end: datetime.date) -> datetime.date:
    return start + datetime.timedelta(days=rng.randint(0, (end - start).days))


def _stamp(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def _label(moment: datetime.datetime) -> str:
    hour = moment.hour % 12 or 12
    return (
        f"{WEEKDAYS[moment.weekday()]} {MONTHS[moment.month - 1]} {moment.day}, "
        f"{hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"
    )


def _age_on(born: str, day: datetime.date) -> int:
    b = datetime.date.fromisoformat(born)
    return day.year - b.year - (1 if (day.month, day.day) < (b.month, b.day) else 0)


def _copay(plan: tuple[Any, ...], care_type: str, visit_type: str) -> int:
    dollars: int
    if visit_type == "telehealth":
        dollars = plan[7]
    elif visit_type == "annual_physical" and plan[4] != "none":
        dollars = 0
    else:
        dollars = plan[6] if care_type == "specialist" else plan[5]
    return dollars * 100


# --------------------------------------------------------------------------- appointments


class _World:
    """Slots, appointments and referrals, built together so every rule holds."""

    def __init__(
        self,
        rng: random.Random,
        patients: list[Row],
        providers: list[Row],
        schedules: dict[str, list[tuple[int, int]]],
    ) -> None:
        self.rng = rng
        self.patients = patients
        self.providers = providers
        self.by_id = {p["provider_id"]: p for p in providers}
        self.schedules = schedules
        self.plans = {p[0]: p for p in PLANS}
        self.slots: list[Row] = []
        self.appointments: list[Row] = []
        self.referrals: list[Row] = []
        self.open_slots: dict[str, list[Row]] = {}
        self.pcp: dict[str, str] = {}
        self.physical: dict[str, datetime.date] = {}
        self.taken: dict[str, list[str]] = {}  # patient -> start times of scheduled visits
        for p in providers:
            self.open_slots[p["provider_id"]] = self._future_slots(p)

    def _future_slots(self, provider: Row) -> list[Row]:
        found: list[Row] = []
        day = TODAY + datetime.timedelta(days=1)
        specialist = provider["care_type"] == "specialist"
        while day <= HORIZON:
            for weekday, hour in self.schedules[provider["provider_id"]]:
                if day.weekday() != weekday:
                    continue
                for h in range(hour, hour + 4):
                    start = datetime.datetime(day.year, day.month, day.day, h)
                    capacity = 1 if specialist or self.rng.random() < 0.85 else self.rng.choice([2, 2, 3])
                    slot = self._slot(provider, start, capacity)
                    found.append(slot)
            day += datetime.timedelta(days=1)
        return found

    def _slot(self, provider: Row, start: datetime.datetime, capacity: int) -> Row:
        specialist = provider["care_type"] == "specialist"
        slot = {
            "slot_id": "",
            "provider_id": provider["provider_id"],
            "start_time": _stamp(start),
            "label": _label(start),
            "duration_minutes": self.rng.choice([30, 40] if specialist else [20, 30]),
            "capacity": capacity,
            "booked": 0,
        }
        self.slots.append(slot)
        return slot

    def _past_slot(self, provider: Row, low: datetime.date, high: datetime.date) -> Row | None:
        if high < low:
            return None
        for _ in range(20):
            day = _day(self.rng, low, high)
            blocks = [b for b in self.schedules[provider["provider_id"]] if b[0] == day.weekday()]
            if not blocks:
                continue
            hour = blocks[0][1] + self.rng.randint(0, 3)
            return self._slot(provider, datetime.datetime(day.year, day.month, day.day, hour), 1)
        return None

    def _add(
        self, patient: Row, provider: Row, slot: Row, visit_type: str, status: str, referral: Row | None
    ) -> Row:
        start = datetime.datetime.fromisoformat(slot["start_time"][:19])
        if status == "scheduled":
            booked = _day(self.rng, datetime.date(2026, 5, 1), TODAY - datetime.timedelta(days=1))
        else:
            booked = (start - datetime.timedelta(days=self.rng.randint(3, 40))).date()
        booked_at = datetime.datetime(
            booked.year, booked.month, booked.day, self.rng.randint(8, 18), self.rng.randint(0, 59)
        )
        cancelled_at = None
        if status == "cancelled":
            # Most cancel days ahead; some within the last 24 hours before the visit (a late fee).
            hours = self.rng.choice([2, 5, 12, 30, 50, 72, 120, 200])
            moment = max(start - datetime.timedelta(hours=hours), booked_at + datetime.timedelta(hours=1))
            cancelled_at = _stamp(moment)
        reason_key = (
            "specialist"
            if provider["care_type"] == "specialist" and visit_type != "new_patient"
            else visit_type
        )
        row = {
            "appointment_id": "",
            "patient_id": patient["patient_id"],
            "provider_id": provider["provider_id"],
            "slot": slot,
            "visit_type": visit_type,
            "reason": self.rng.choice(REASONS[reason_key]),
            "status": status,
            "referral": referral,
            "copay_cents": _copay(self.plans[patient["plan_id"]], provider["care_type"], visit_type),
            "booked_at": _stamp(booked_at),
            "cancelled_at": cancelled_at,
        }
        if status != "cancelled":
            slot["booked"] += 1
            if referral is not None:
                referral["visits_used"] += 1
        if status == "scheduled":
            self.taken.setdefault(patient["patient_id"], []).append(slot["start_time"])
        if visit_type == "annual_physical" and status in ("scheduled", "completed"):
            self.physical[patient["patient_id"]] = start.date()
        self.appointments.append(row)
        return row

    def _choose_pcp(self, patient: Row) -> Row:
        child = _age_on(patient["date_of_birth"], TODAY) < 18
        kinds = ("pediatrics", "family_medicine") if child else ("family_medicine", "internal_medicine")
        options = [p for p in self.providers if p["specialty"] in kinds]
        return self.rng.choice(options)

    def _past_status(self) -> str:
        return self.rng.choices(["completed", "no_show", "cancelled"], [80, 8, 12])[0]

    def history(self) -> None:
        """Past visits: with the primary-care provider (the first one a new_patient visit that was
        kept) and, for some adults, with a specialist (on HMO plans under a referral)."""
        rng = self.rng
        for patient in self.patients:
            pcp = self._choose_pcp(patient)
            self.pcp[patient["patient_id"]] = pcp["provider_id"]
            patient["primary_provider_id"] = pcp["provider_id"]
            if rng.random() < 0.15:
                continue  # new to the clinic: no visits yet
            visits = rng.choice([1, 2, 2, 3])
            low = HISTORY_START
            for k in range(visits):
                slot = self._past_slot(pcp, low, TODAY - datetime.timedelta(days=1))
                if slot is None:
                    break
                day = datetime.date.fromisoformat(slot["start_time"][:10])
                if k == 0:
                    self._add(patient, pcp, slot, "new_patient", "completed", None)
                else:
                    last = self.physical.get(patient["patient_id"])
                    kinds = ["follow_up", "sick_visit", "telehealth"]
                    if last is None or (day - last).days > 365:
                        kinds.append("annual_physical")
                    self._add(patient, pcp, slot, rng.choice(kinds), self._past_status(), None)
                low = day + datetime.timedelta(days=14)
            adult = _age_on(patient["date_of_birth"], TODAY) >= 18
            if adult and rng.random() < 0.6:
                self._referral_history(patient, pcp)

    def _referral_history(self, patient: Row, pcp: Row) -> None:
        rng = self.rng
        specialty = rng.choice(SPECIALISTS)
        issued = _day(rng, datetime.date(2025, 9, 1), datetime.date(2026, 6, 10))
        expires = issued + datetime.timedelta(days=rng.choice([90, 180, 365, 365]))
        allowed = rng.choice([1, 2, 3, 4])
        referral = {
            "referral_id": "",
            "patient_id": patient["patient_id"],
            "referring_provider_id": pcp["provider_id"],
            "specialty": specialty,
            "issued_on": issued.isoformat(),
            "expires_on": expires.isoformat(),
            "visits_allowed": allowed,
            "visits_used": 0,
            "status": "active",
        }
        self.referrals.append(referral)
        hmo = self.plans[patient["plan_id"]][4] == "hmo"
        specialists = [p for p in self.providers if p["specialty"] == specialty]
        doctor = rng.choice(specialists)
        # Past specialist visits within the referral's window.
        end = min(expires, TODAY - datetime.timedelta(days=1))
        count = rng.randint(0, allowed - 1) if allowed > 1 else rng.choice([0, 1])
        low = issued + datetime.timedelta(days=3)
        seen = False
        for _ in range(count):
            slot = self._past_slot(doctor, low, end)
            if slot is None:
                break
            status = "completed" if not seen else self._past_status()
            self._add(
                patient,
                doctor,
                slot,
                "new_patient" if not seen else "follow_up",
                status,
                referral if hmo else None,
            )
            seen = True
            low = datetime.date.fromisoformat(slot["start_time"][:10]) + datetime.timedelta(days=14)

    def _established(self, patient_id: str, provider_id: str) -> bool:
        return any(
            a["patient_id"] == patient_id and a["provider_id"] == provider_id and a["status"] == "completed"
            for a in self.appointments
        )

    def _free_slot(self, patient: Row, provider: Row, late: bool | None = None) -> Row | None:
        taken = self.taken.get(patient["patient_id"], [])
        options = [
            s
            for s in self.open_slots[provider["provider_id"]]
            if s["booked"] < s["capacity"] and s["start_time"] not in taken
        ]
        if late is not None:
            cut = _stamp(NOW + datetime.timedelta(hours=24))
            options = [s for s in options if (s["start_time"] < cut) == late]
        return self.rng.choice(options) if options else None

    def _visit_type(self, patient: Row, provider: Row, day: datetime.date) -> str | None:
        if not self._established(patient["patient_id"], provider["provider_id"]):
            return "new_patient" if provider["accepting_new_patients"] else None
        kinds = ["follow_up", "sick_visit", "telehealth"]
        last = self.physical.get(patient["patient_id"])
        if provider["care_type"] == "primary_care" and (last is None or (day - last).days > 365):
            kinds.append("annual_physical")
        return self.rng.choice(kinds)

    def _book(self, patient: Row, provider: Row, late: bool | None = None) -> bool:
        if self.plans[patient["plan_id"]][8] == 0:
            return False  # the clinic no longer takes the plan: nothing new is booked
        if any(
            a["patient_id"] == patient["patient_id"]
            and a["provider_id"] == provider["provider_id"]
            and a["status"] == "scheduled"
            for a in self.appointments
        ):
            return False
        age = _age_on(patient["date_of_birth"], HORIZON)
        if (provider["specialty"] == "pediatrics" and age >= 18) or (
            provider["specialty"] == "internal_medicine" and age < 18
        ):
            return False
        slot = self._free_slot(patient, provider, late)
        if slot is None:
            return False
        day = datetime.date.fromisoformat(slot["start_time"][:10])
        visit_type = self._visit_type(patient, provider, day)
        if visit_type is None:
            return False
        referral = None
        if provider["care_type"] == "specialist" and self.plans[patient["plan_id"]][4] == "hmo":
            referral = next(
                (
                    r
                    for r in self.referrals
                    if r["patient_id"] == patient["patient_id"]
                    and r["specialty"] == provider["specialty"]
                    and r["expires_on"] >= slot["start_time"][:10]
                    and r["visits_used"] < r["visits_allowed"]
                ),
                None,
            )
            if referral is None:
                return False
        self._add(patient, provider, slot, visit_type, "scheduled", referral)
        return True

    def future(self) -> None:
        """Upcoming visits: a few within the next 24 hours, follow-ups with the primary-care
        provider, specialist visits (on HMO plans only under a valid referral), and slots filled
        by other patients so that some are full."""
        rng = self.rng
        patients = list(self.patients)
        rng.shuffle(patients)
        by_id = self.by_id
        late_done = 0
        for patient in patients:
            pcp = by_id[self.pcp[patient["patient_id"]]]
            if late_done < 6 and self._book(patient, pcp, late=True):
                late_done += 1
                continue
            if rng.random() < 0.55:
                self._book(patient, pcp, late=False)
        for patient in patients:
            refs = [r for r in self.referrals if r["patient_id"] == patient["patient_id"]]
            if refs and rng.random() < 0.6:
                specialty = refs[0]["specialty"]
                doctors = [p for p in self.providers if p["specialty"] == specialty]
                self._book(patient, rng.choice(doctors), late=False)
            elif not refs and _age_on(patient["date_of_birth"], TODAY) >= 18 and rng.random() < 0.1:
                self._book(patient, rng.choice([p for p in self.providers if p["care_type"] == "specialist"]))
        # Fill some slots to capacity with more bookings.
        for patient in patients[:40]:
            pcp = by_id[self.pcp[patient["patient_id"]]]
            others = [p for p in self.providers if p["specialty"] == pcp["specialty"] and p is not pcp]
            if rng.random() < 0.5:
                self._book(patient, rng.choice(others), late=False)

    def finish(self) -> tuple[list[Row], list[Row], list[Row]]:
        slots = sorted(self.slots, key=lambda s: (s["start_time"], s["provider_id"]))
        for i, s in enumerate(slots, start=1):
            s["slot_id"] = f"slt_{i:06d}"
        referrals = sorted(self.referrals, key=lambda r: (r["issued_on"], r["patient_id"]))
        for i, r in enumerate(referrals, start=1):
            r["referral_id"] = f"REF{3000 + i * 7:06d}"
            if r["expires_on"] < TODAY.isoformat():
                r["status"] = "expired"
            elif r["visits_used"] >= r["visits_allowed"]:
                r["status"] = "used"
        appointments = sorted(self.appointments, key=lambda a: (a["booked_at"], a["patient_id"]))
        rows: list[Row] = []
        for i, a in enumerate(appointments, start=1):
            a["appointment_id"] = f"APT{4000 + i * 3:06d}"
        for a in sorted(appointments, key=lambda a: a["appointment_id"]):
            rows.append(
                {
                    "appointment_id": a["appointment_id"],
                    "patient_id": a["patient_id"],
                    "provider_id": a["provider_id"],
                    "slot_id": a["slot"]["slot_id"],
                    "visit_type": a["visit_type"],
                    "reason": a["reason"],
                    "status": a["status"],
                    "referral_id": None if a["referral"] is None else a["referral"]["referral_id"],
                    "copay_cents": a["copay_cents"],
                    "booked_at": a["booked_at"],
                    "cancelled_at": a["cancelled_at"],
                }
            )
        slot_rows = [{k: v for k, v in s.items() if k != "booked"} for s in slots]
        return slot_rows, rows, referrals


# --------------------------------------------------------------------------- prescriptions


def _prescriptions(
    rng: random.Random, patients: list[Row], providers: list[Row], appointments: list[Row], slots: list[Row]
) -> tuple[list[Row], list[Row]]:
    by_id = {p["provider_id"]: p for p in providers}
    seen: dict[str, list[str]] = {}
    for a in appointments:
        if a["status"] == "completed" and a["provider_id"] not in seen.setdefault(a["patient_id"], []):
            seen[a["patient_id"]].append(a["provider_id"])
    prescriptions: list[Row] = []
    refills: list[Row] = []
    for patient in patients:
        doctors = seen.get(patient["patient_id"], [])
        if not doctors:
            continue
        child = _age_on(patient["date_of_birth"], TODAY) < 18
        count = rng.choice([1, 1, 2, 2, 3])
        used: list[int] = []
        for _ in range(count):
            doctor = by_id[rng.choice(doctors)]
            pool = CHILD_MEDS if child else SPECIALTY_MEDS.get(doctor["specialty"], PRIMARY_MEDS)
            pool = [m for m in pool if m not in used]
            if not pool:
                continue
            index = rng.choice(pool)
            used.append(index)
            _, form, schedule, supplies, max_refills = MEDICATIONS[index]
            days = rng.choice(supplies)
            lifetime = 180 if schedule else 365
            # One in five was written long enough ago to have expired.
            if rng.random() < 0.2:
                written = _day(rng, datetime.date(2025, 1, 10), TODAY - datetime.timedelta(days=lifetime + 1))
            else:
                written = _day(
                    rng, TODAY - datetime.timedelta(days=lifetime - 20), datetime.date(2026, 5, 20)
                )
            expires = written + datetime.timedelta(days=lifetime)
            total = rng.randint(1, max_refills) if max_refills else 0
            # Last fill: from a few days ago (too soon to refill) to past the end of the supply.
            last = max(written, min(expires, TODAY) - datetime.timedelta(days=rng.randint(2, days + 20)))
            fills = min(total, max((last - written).days // days, 0), rng.randint(0, 2))
            remaining = total - fills
            roll = rng.random()
            renewal_at = None
            if roll < 0.08:
                status = "discontinued"
            elif remaining > 0 and expires >= TODAY:
                status = "active"
            else:
                status = "needs_renewal"
                if roll > 0.75:
                    status = "renewal_requested"
                    renewal_at = _stamp(
                        datetime.datetime(2026, 6, rng.randint(10, 17), rng.randint(8, 18), 0)
                    )
            rx = {
                "rx_number": "",
                "patient_id": patient["patient_id"],
                "medication_id": f"med_{index + 1:04d}",
                "prescriber_id": doctor["provider_id"],
                "pharmacy_id": patient["pharmacy_id"]
                if rng.random() < 0.8
                else f"phm_{rng.randint(1, len(PHARMACIES)):04d}",
                "directions": rng.choice(DIRECTIONS[form]),
                "days_supply": days,
                "refills_remaining": remaining,
                "written_on": written.isoformat(),
                "expires_on": expires.isoformat(),
                "last_filled_on": last.isoformat(),
                "status": status,
                "renewal_requested_at": renewal_at,
            }
            prescriptions.append(rx)
            for k in range(min(fills, 2)):
                day = last - datetime.timedelta(days=days * k)
                age = (TODAY - day).days
                state = "picked_up" if k > 0 or age > 10 else ("sent" if age <= 4 else "ready")
                refills.append(
                    {
                        "refill_id": "",
                        "rx": rx,
                        "pharmacy_id": rx["pharmacy_id"],
                        "requested_at": _stamp(
                            datetime.datetime(day.year, day.month, day.day, rng.randint(8, 19), 0)
                        ),
                        "status": state,
                    }
                )
    prescriptions.sort(key=lambda r: (r["written_on"], r["patient_id"], r["medication_id"]))
    base = rng.randint(7000000, 7100000)
    for i, rx in enumerate(prescriptions, start=1):
        rx["rx_number"] = f"RX{base + i * 13:07d}"
    refills.sort(key=lambda r: (r["requested_at"], r["rx"]["rx_number"]))
    rows = []
    for i, r in enumerate(refills, start=1):
        rows.append(
            {
                "refill_id": f"rf_{i:07d}",
                "rx_number": r["rx"]["rx_number"],
                "pharmacy_id": r["pharmacy_id"],
                "requested_at": r["requested_at"],
                "status": r["status"],
            }
        )
    return prescriptions, rows


# --------------------------------------------------------------------------- bills


def _bills(
    rng: random.Random,
    patients: list[Row],
    methods: list[Row],
    providers: list[Row],
    appointments: list[Row],
    slots: list[Row],
) -> tuple[list[Row], list[Row], list[Row]]:
    start_of = {s["slot_id"]: s["start_time"] for s in slots}
    care = {p["provider_id"]: p["care_type"] for p in providers}
    usable: dict[str, list[Row]] = {}
    for m in methods:
        if m["expires"] >= "2026-06":
            usable.setdefault(m["patient_id"], []).append(m)
    drafts: list[tuple[Row, str, str, int, datetime.date]] = []  # (appointment, kind, text, cents, issued)
    for a in appointments:
        visit = datetime.date.fromisoformat(start_of[a["slot_id"]][:10])
        if a["status"] == "completed":
            if a["copay_cents"] > 0:
                drafts.append(
                    (a, "copay", f"Copay, {a['visit_type'].replace('_', ' ')} visit", a["copay_cents"], visit)
                )
            if care[a["provider_id"]] == "specialist" or rng.random() < 0.2:
                cents = rng.randint(20, 240) * 100 + rng.choice([0, 50, 75])
                issued = visit + datetime.timedelta(days=rng.randint(1, 10))
                if issued >= TODAY:
                    issued = TODAY - datetime.timedelta(days=1)
                drafts.append((a, "visit_balance", "Balance after insurance", cents, max(issued, visit)))
        elif a["status"] == "no_show":
            drafts.append((a, "no_show_fee", "Missed appointment fee", NO_SHOW_FEE_CENTS, visit))
        elif a["status"] == "cancelled" and a["cancelled_at"] is not None:
            cancelled = datetime.datetime.fromisoformat(a["cancelled_at"][:19])
            start = datetime.datetime.fromisoformat(start_of[a["slot_id"]][:19])
            if start - cancelled < datetime.timedelta(hours=24):
                drafts.append(
                    (a, "late_cancellation_fee", "Late cancellation fee", LATE_FEE_CENTS, cancelled.date())
                )
    drafts.sort(key=lambda d: (d[4], d[0]["appointment_id"], d[1]))
    bills: list[Row] = []
    items: list[Row] = []
    payments: list[Row] = []
    for i, (a, kind, text, cents, issued) in enumerate(drafts, start=1):
        bill_id = f"INV{260000 + i * 3:06d}"
        visit = datetime.date.fromisoformat(start_of[a["slot_id"]][:10])
        when = f"{MONTHS[visit.month - 1]} {visit.day}"
        if kind == "visit_balance":
            services = rng.sample(SERVICES, rng.choice([1, 2, 2, 3]))
            cuts = sorted(rng.sample(range(5, cents // 100 - 4), len(services) - 1)) if cents >= 2000 else []
            cuts = [c * 100 for c in cuts][: len(services) - 1]
            services = services[: len(cuts) + 1]
            bounds = [0, *cuts, cents]
            parts = [(f"{name} ({when})", bounds[k + 1] - bounds[k]) for k, name in enumerate(services)]
        else:
            parts = [(f"{text} ({when})", cents)]
        for label, amount in parts:
            items.append({"item_id": "", "bill_id": bill_id, "label": label, "amount_cents": amount})
        due = issued + datetime.timedelta(days=BILL_DUE_DAYS)
        pool = usable.get(a["patient_id"], [])
        recent = (TODAY - issued).days <= 21
        paid: list[tuple[int, datetime.date]] = []
        if kind == "visit_balance" and recent and rng.random() < 0.6:
            status = "pending_insurance"
        else:
            roll = rng.random()
            settled = 0.92 if (TODAY - due).days > 45 else 0.5
            if roll < settled and pool:
                status = "paid"
                paid = [
                    (
                        cents,
                        min(
                            issued + datetime.timedelta(days=rng.randint(0, 25)),
                            TODAY - datetime.timedelta(days=1),
                        ),
                    )
                ]
            else:
                status = "overdue" if due < TODAY else "due"
                if rng.random() < 0.3 and pool and cents >= 2000:
                    part = (cents * rng.randint(2, 6) // 10) // 100 * 100
                    paid = [
                        (
                            part,
                            min(
                                issued + datetime.timedelta(days=rng.randint(0, 15)),
                                TODAY - datetime.timedelta(days=1),
                            ),
                        )
                    ]
        for amount, day in paid:
            if amount <= 0:
                continue
            payments.append(
                {
                    "payment_id": "",
                    "bill_id": bill_id,
                    "payment_method_id": rng.choice(pool)["payment_method_id"],
                    "amount_cents": amount,
                    "created_at": _stamp(
                        datetime.datetime(
                            day.year, day.month, day.day, rng.randint(8, 20), rng.randint(0, 59)
                        )
                    ),
                }
            )
        bills.append(
            {
                "bill_id": bill_id,
                "patient_id": a["patient_id"],
                "appointment_id": a["appointment_id"],
                "kind": kind,
                "description": text,
                "amount_cents": cents,
                "issued_on": issued.isoformat(),
                "due_date": due.isoformat(),
                "status": status,
            }
        )
    payments.sort(key=lambda p: (p["created_at"], p["bill_id"]))
    for i, p in enumerate(payments, start=1):
        p["payment_id"] = f"pay_{i:07d}"
    for i, item in enumerate(items, start=1):
        item["item_id"] = f"itm_{i:07d}"
    return bills, items, payments
