"""Tables of the clinic environment. Money is INTEGER cents; times are clinic time, ISO 8601; statuses are enums."""

from __future__ import annotations

from typing import Any

from envfactory_mcp.blueprints.kit import col
from envfactory_mcp.spec import ColumnSpec, TableSpec

PLAN_TIERS = ["self_pay", "bronze", "silver", "gold", "platinum"]
NETWORK_TYPES = ["hmo", "ppo", "none"]
SPECIALTIES = [
    "family_medicine",
    "internal_medicine",
    "pediatrics",
    "cardiology",
    "dermatology",
    "orthopedics",
    "endocrinology",
]
CARE_TYPES = ["primary_care", "specialist"]
VISIT_TYPES = ["new_patient", "follow_up", "sick_visit", "annual_physical", "telehealth"]
APPOINTMENT_STATUSES = ["scheduled", "completed", "cancelled", "no_show"]
REFERRAL_STATUSES = ["active", "used", "expired"]
PRESCRIPTION_STATUSES = ["active", "needs_renewal", "renewal_requested", "discontinued"]
REFILL_STATUSES = ["sent", "ready", "picked_up"]
BILL_KINDS = ["copay", "visit_balance", "late_cancellation_fee", "no_show_fee"]
BILL_STATUSES = ["pending_insurance", "due", "overdue", "paid"]
PAYMENT_METHOD_KINDS = ["credit_card", "debit_card", "hsa_card"]
CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]
DOSAGE_FORMS = ["tablet", "capsule", "inhaler", "cream", "injection pen", "solution"]

DATE_CHECK = "GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'"
TIME_CHECK = "GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:00Z'"


def _ref(name: str, target: str, entity: str, description: str, **kw: Any) -> ColumnSpec:
    return col(name, description=description, references=target, entity=entity, **kw)


def build_tables() -> list[TableSpec]:
    insurance_plans = TableSpec(
        name="insurance_plans",
        entity="plan",
        description="Insurance plans the clinic knows: tier, network type (HMO plans need referrals for "
        "specialists) and the copay per kind of visit. Self-pay is a plan of its own.",
        primary_key=["plan_id"],
        columns=[
            col("plan_id", description="Id such as 'ins_silver_hmo'.", entity="plan"),
            col("name", description="Plan name as printed on the member card.", unique=True),
            col("carrier", description="Insurance company.", check="length(carrier) > 0"),
            col("tier", description="Plan tier; sets the copays.", enum=list(PLAN_TIERS)),
            col("network_type", description="hmo, ppo, or none (self-pay).", enum=list(NETWORK_TYPES)),
            col(
                "primary_copay_cents",
                "INTEGER",
                description="Copay of a primary-care visit, cents.",
                check="primary_copay_cents >= 0",
            ),
            col(
                "specialist_copay_cents",
                "INTEGER",
                description="Copay of a specialist visit, cents.",
                check="specialist_copay_cents >= 0",
            ),
            col(
                "telehealth_copay_cents",
                "INTEGER",
                description="Copay of a telehealth visit, cents.",
                check="telehealth_copay_cents >= 0",
            ),
            col(
                "accepted",
                "INTEGER",
                description="1 when the clinic is in network with the plan; 0 for plans it no longer takes.",
                enum=[0, 1],
            ),
            col(
                "member_id_prefix",
                description="The three letters every member id of the carrier starts with; NULL for self-pay.",
                nullable=True,
                check="member_id_prefix GLOB '[A-Z][A-Z][A-Z]' AND (network_type = 'none') = (member_id_prefix IS NULL)",
            ),
        ],
    )
    pharmacies = TableSpec(
        name="pharmacies",
        entity="pharmacy",
        description="Pharmacies prescriptions can be sent to.",
        primary_key=["pharmacy_id"],
        columns=[
            col("pharmacy_id", description="Id such as 'phm_0004'.", entity="pharmacy"),
            col("name", description="Pharmacy name and branch.", unique=True),
            col("address", description="Street address.", check="length(address) > 0"),
            col("city", description="City.", check="length(city) > 0"),
            col("zip", description="Zip code.", check="zip GLOB '[0-9][0-9][0-9][0-9][0-9]'"),
            col(
                "phone",
                description="Phone number, ten digits.",
                check="phone GLOB '[0-9]*' AND length(phone) = 10",
            ),
            col("open_24h", "INTEGER", description="1 when open around the clock.", enum=[0, 1]),
        ],
    )
    patients = TableSpec(
        name="patients",
        entity="patient",
        description="Patients of the clinic, with their insurance plan and preferred pharmacy.",
        primary_key=["patient_id"],
        columns=[
            col("patient_id", description="Internal patient id, e.g. 'pat_000042'.", entity="patient"),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col(
                "date_of_birth", description="Date of birth, YYYY-MM-DD.", check=f"date_of_birth {DATE_CHECK}"
            ),
            col(
                "email",
                description="Lower-case email address; unique.",
                unique=True,
                check="email LIKE '%_@_%'",
            ),
            col(
                "phone",
                description="Phone number, ten digits.",
                check="phone GLOB '[0-9]*' AND length(phone) = 10",
            ),
            _ref("plan_id", "insurance_plans.plan_id", "plan", "Insurance plan on file."),
            col(
                "member_id",
                description="Member id on the insurance card (NULL for self-pay).",
                nullable=True,
                check="member_id GLOB '[A-Z][A-Z][A-Z][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("pharmacy_id", "pharmacies.pharmacy_id", "pharmacy", "Preferred pharmacy."),
            _ref(
                "primary_provider_id",
                "providers.provider_id",
                "provider",
                "Primary-care provider on file (the patient's regular doctor).",
            ),
            col("registered_on", description="Date the patient registered, YYYY-MM-DD."),
        ],
    )
    payment_methods = TableSpec(
        name="payment_methods",
        entity="payment_method",
        description="Cards saved on a patient's file: credit, debit and HSA cards with their expiry month.",
        primary_key=["payment_method_id"],
        columns=[
            col("payment_method_id", description="Id such as 'card_000123'.", entity="payment_method"),
            _ref("patient_id", "patients.patient_id", "patient", "Owner of the card."),
            col("kind", description="Kind of card.", enum=list(PAYMENT_METHOD_KINDS)),
            col("brand", description="Card brand.", enum=list(CARD_BRANDS)),
            col("last_four", description="Last four digits.", check="last_four GLOB '[0-9][0-9][0-9][0-9]'"),
            col(
                "label",
                description="How the card is shown, e.g. 'Visa ending 4242'.",
                check="length(label) > 0",
            ),
            col(
                "expires",
                description="Last month the card is valid, YYYY-MM.",
                check="expires GLOB '20[0-9][0-9]-[01][0-9]'",
            ),
        ],
    )
    locations = TableSpec(
        name="locations",
        entity="location",
        description="Clinic sites.",
        primary_key=["location_id"],
        columns=[
            col("location_id", description="Id such as 'loc_02'.", entity="location"),
            col("name", description="Site name.", unique=True),
            col("address", description="Street address.", check="length(address) > 0"),
            col("city", description="City.", check="length(city) > 0"),
            col("zip", description="Zip code.", check="zip GLOB '[0-9][0-9][0-9][0-9][0-9]'"),
        ],
    )
    providers = TableSpec(
        name="providers",
        entity="provider",
        description="Doctors and nurse practitioners: specialty, site, weekly schedule and whether they take new patients.",
        primary_key=["provider_id"],
        columns=[
            col("provider_id", description="Id such as 'prv_0007'.", entity="provider"),
            col("name", description="Name as shown to patients, e.g. 'Dr. Maya Patel'.", unique=True),
            col("credentials", description="MD, DO, NP...", check="length(credentials) > 0"),
            col("specialty", description="Specialty.", enum=list(SPECIALTIES)),
            col("care_type", description="primary_care or specialist.", enum=list(CARE_TYPES)),
            _ref("location_id", "locations.location_id", "location", "Site the provider works at."),
            col(
                "weekly_schedule",
                description="Clinic hours, e.g. 'Mon 08:00-12:00; Wed 13:00-17:00'.",
                check="length(weekly_schedule) > 0",
            ),
            col(
                "accepting_new_patients",
                "INTEGER",
                description="1 when the provider takes patients they have not seen before.",
                enum=[0, 1],
            ),
        ],
    )
    slots = TableSpec(
        name="slots",
        entity="slot",
        description="Appointment slots of a provider. Capacity is how many patients can be booked into the slot; "
        "a slot is open while fewer non-cancelled appointments than its capacity use it.",
        primary_key=["slot_id"],
        columns=[
            col("slot_id", description="Id such as 'slt_000123'.", entity="slot"),
            _ref("provider_id", "providers.provider_id", "provider", "Provider of the slot."),
            col(
                "start_time",
                description="Start, e.g. '2026-06-22T09:00:00Z'.",
                check=f"start_time {TIME_CHECK}",
            ),
            col(
                "label",
                description="The slot as told to patients, e.g. 'Mon Jun 22, 9:00 AM'.",
                check="length(label) > 0",
            ),
            col("duration_minutes", "INTEGER", description="Length in minutes.", enum=[20, 30, 40]),
            col(
                "capacity",
                "INTEGER",
                description="Patients the slot can take.",
                check="capacity BETWEEN 1 AND 3",
            ),
        ],
    )
    referrals = TableSpec(
        name="referrals",
        entity="referral",
        description="Referrals from a primary-care provider to a specialty, with an expiry date and a number of visits.",
        primary_key=["referral_id"],
        columns=[
            col(
                "referral_id",
                description="Referral number on the referral letter, e.g. 'REF004512'.",
                entity="referral",
                check="referral_id GLOB 'REF[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("patient_id", "patients.patient_id", "patient", "Patient referred."),
            _ref(
                "referring_provider_id",
                "providers.provider_id",
                "provider",
                "Provider who wrote the referral.",
            ),
            col("specialty", description="Specialty the patient is referred to.", enum=list(SPECIALTIES)),
            col("issued_on", description="Date issued, YYYY-MM-DD.", check=f"issued_on {DATE_CHECK}"),
            col(
                "expires_on",
                description="Last day of validity, YYYY-MM-DD.",
                check=f"expires_on {DATE_CHECK}",
            ),
            col(
                "visits_allowed",
                "INTEGER",
                description="Specialist visits covered.",
                check="visits_allowed BETWEEN 1 AND 6",
            ),
            col(
                "visits_used",
                "INTEGER",
                description="Visits booked or held on it.",
                check="visits_used >= 0 AND visits_used <= visits_allowed",
            ),
            col(
                "status",
                description="active, used (no visits left) or expired.",
                enum=list(REFERRAL_STATUSES),
            ),
        ],
    )
    appointments = TableSpec(
        name="appointments",
        entity="appointment",
        description="Appointments: scheduled -> completed, cancelled or no_show. The copay is fixed at booking from "
        "the patient's plan.",
        primary_key=["appointment_id"],
        columns=[
            col(
                "appointment_id",
                description="Confirmation number emailed to the patient, e.g. 'APT004512'.",
                entity="appointment",
                check="appointment_id GLOB 'APT[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("patient_id", "patients.patient_id", "patient", "Patient."),
            _ref("provider_id", "providers.provider_id", "provider", "Provider seen."),
            col("slot_id", description="Slot booked.", references="slots.slot_id"),
            col("visit_type", description="Kind of visit.", enum=list(VISIT_TYPES)),
            col(
                "reason",
                description="Reason for the visit in the patient's words.",
                check="length(reason) > 0",
            ),
            col("status", description="Status.", enum=list(APPOINTMENT_STATUSES)),
            _ref(
                "referral_id",
                "referrals.referral_id",
                "referral",
                "Referral the visit uses (specialist visits on HMO plans).",
                nullable=True,
            ),
            col(
                "copay_cents",
                "INTEGER",
                description="Copay due for the visit, cents.",
                check="copay_cents >= 0",
            ),
            col("booked_at", description="When booked (ISO 8601)."),
            col(
                "cancelled_at",
                description="When cancelled (ISO 8601); NULL unless cancelled.",
                nullable=True,
                check="(status = 'cancelled') = (cancelled_at IS NOT NULL)",
            ),
        ],
    )
    medications = TableSpec(
        name="medications",
        entity="medication",
        description="Medications on the clinic's formulary; controlled substances have a DEA schedule.",
        primary_key=["medication_id"],
        columns=[
            col("medication_id", description="Id such as 'med_0012'.", entity="medication"),
            col("name", description="Drug name and strength, e.g. 'Lisinopril 10 mg'.", unique=True),
            col("form", description="Dosage form.", enum=list(DOSAGE_FORMS)),
            col(
                "controlled_schedule",
                description="DEA schedule ('II'...'V') of a controlled substance; NULL otherwise.",
                nullable=True,
                enum=["II", "III", "IV", "V"],
            ),
        ],
    )
    prescriptions = TableSpec(
        name="prescriptions",
        entity="prescription",
        description="Prescriptions: refills remaining, expiry, pharmacy. active -> needs_renewal (no refills left or "
        "expired) -> renewal_requested; discontinued by the prescriber.",
        primary_key=["rx_number"],
        columns=[
            col(
                "rx_number",
                description="Prescription number on the label, e.g. 'RX7001234'.",
                entity="prescription",
                check="rx_number GLOB 'RX[0-9][0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("patient_id", "patients.patient_id", "patient", "Patient."),
            _ref("medication_id", "medications.medication_id", "medication", "Medication."),
            _ref("prescriber_id", "providers.provider_id", "provider", "Prescribing provider."),
            _ref("pharmacy_id", "pharmacies.pharmacy_id", "pharmacy", "Pharmacy that fills it."),
            col(
                "directions",
                description="Directions, e.g. 'Take 1 tablet daily'.",
                check="length(directions) > 0",
            ),
            col("days_supply", "INTEGER", description="Days one fill lasts.", enum=[30, 60, 90]),
            col("refills_remaining", "INTEGER", description="Refills left.", check="refills_remaining >= 0"),
            col("written_on", description="Date written, YYYY-MM-DD.", check=f"written_on {DATE_CHECK}"),
            col(
                "expires_on",
                description="Last day it can be filled, YYYY-MM-DD.",
                check=f"expires_on {DATE_CHECK}",
            ),
            col(
                "last_filled_on",
                description="Date of the last fill, YYYY-MM-DD.",
                check=f"last_filled_on {DATE_CHECK}",
            ),
            col("status", description="Status.", enum=list(PRESCRIPTION_STATUSES)),
            col(
                "renewal_requested_at",
                description="When a renewal was asked of the prescriber (ISO 8601); NULL otherwise.",
                nullable=True,
                check="(status = 'renewal_requested') = (renewal_requested_at IS NOT NULL)",
            ),
        ],
    )
    refills = TableSpec(
        name="refills",
        entity="refill",
        description="Refill orders sent to pharmacies.",
        primary_key=["refill_id"],
        columns=[
            col("refill_id", description="Id such as 'rf_0000123'.", entity="refill"),
            _ref("rx_number", "prescriptions.rx_number", "prescription", "Prescription refilled."),
            _ref("pharmacy_id", "pharmacies.pharmacy_id", "pharmacy", "Pharmacy it was sent to."),
            col("requested_at", description="When requested (ISO 8601)."),
            col("status", description="sent, ready for pickup, or picked up.", enum=list(REFILL_STATUSES)),
        ],
    )
    bills = TableSpec(
        name="bills",
        entity="bill",
        description="Statements to patients: visit copays, balances after insurance, late-cancellation and no-show "
        "fees. pending_insurance bills wait for the insurer and cannot be paid yet.",
        primary_key=["bill_id"],
        columns=[
            col(
                "bill_id",
                description="Statement number, e.g. 'INV260412'.",
                entity="bill",
                check="bill_id GLOB 'INV[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("patient_id", "patients.patient_id", "patient", "Patient billed."),
            _ref(
                "appointment_id", "appointments.appointment_id", "appointment", "Visit billed.", nullable=True
            ),
            col("kind", description="Kind of charge.", enum=list(BILL_KINDS)),
            col("description", description="Text on the statement.", check="length(description) > 0"),
            col("amount_cents", "INTEGER", description="Amount billed, cents.", check="amount_cents > 0"),
            col("issued_on", description="Date issued, YYYY-MM-DD.", check=f"issued_on {DATE_CHECK}"),
            col("due_date", description="Due date, YYYY-MM-DD.", check=f"due_date {DATE_CHECK}"),
            col("status", description="Status.", enum=list(BILL_STATUSES)),
        ],
    )
    bill_items = TableSpec(
        name="bill_items",
        entity="bill_item",
        description="Line items of a statement; a bill's amount is the sum of its items.",
        primary_key=["item_id"],
        columns=[
            col("item_id", description="Id such as 'itm_0000123'.", entity="bill_item"),
            _ref("bill_id", "bills.bill_id", "bill", "Statement of the item."),
            col(
                "label",
                description="Text printed on the statement, e.g. 'Lab work (May 3)'.",
                check="length(label) > 0",
            ),
            col("amount_cents", "INTEGER", description="Amount, cents.", check="amount_cents > 0"),
        ],
    )
    payments = TableSpec(
        name="payments",
        entity="payment",
        description="Payments against bills; a bill may be paid in parts.",
        primary_key=["payment_id"],
        columns=[
            col("payment_id", description="Id such as 'pay_0000123'.", entity="payment"),
            _ref("bill_id", "bills.bill_id", "bill", "Bill paid."),
            _ref("payment_method_id", "payment_methods.payment_method_id", "payment_method", "Card charged."),
            col("amount_cents", "INTEGER", description="Amount, cents.", check="amount_cents > 0"),
            col("created_at", description="When paid (ISO 8601)."),
        ],
    )
    return [
        insurance_plans,
        pharmacies,
        locations,
        providers,
        patients,
        payment_methods,
        slots,
        referrals,
        appointments,
        medications,
        prescriptions,
        refills,
        bills,
        bill_items,
        payments,
    ]
