"""Deterministic seed state of the telecom environment, drawn from small word lists.

Everything comes from the ``random.Random`` passed in: lists are walked in a fixed order,
never through sets or dict iteration of unordered data, so one seed gives one state. The
environment clock is 2026-06-18T15:00:00Z: the current cycle is June 2026 (its bill is
open), May's bill was issued on June 1 and is due June 21, April's was due May 21.
"""

from __future__ import annotations

import datetime
import itertools
import math
import random
from typing import Any

from envfactory_mcp.tasks.addresses import random_us_address

Row = dict[str, Any]
Rows = dict[str, list[Row]]

TODAY = datetime.date(2026, 6, 18)
NOW = "2026-06-18T15:00:00Z"
CYCLE = "2026-06"
INSTALLMENT_MONTHS = 24
LATE_FEE_CENTS = 1000
N_CUSTOMERS = 75

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
AREA_CODES = {
    "Albuquerque": "505", "Atlanta": "404", "Austin": "512", "Baltimore": "410", "Boise": "208",
    "Boston": "617", "Charlotte": "704", "Chicago": "312", "Cleveland": "216", "Columbus": "614",
    "Denver": "303", "Des Moines": "515", "Detroit": "313", "Houston": "713", "Indianapolis": "317",
    "Kansas City": "816", "Las Vegas": "702", "Los Angeles": "213", "Louisville": "502", "Madison": "608",
    "Miami": "305", "Milwaukee": "414", "Minneapolis": "612", "Nashville": "615", "New Orleans": "504",
    "New York": "212", "Omaha": "402", "Philadelphia": "215", "Phoenix": "602", "Pittsburgh": "412",
    "Portland": "503", "Raleigh": "919", "Richmond": "804", "Sacramento": "916", "Salt Lake City": "801",
    "San Antonio": "210", "San Diego": "619", "San Francisco": "415", "Seattle": "206", "Tampa": "813",
    "Tucson": "520", "Tulsa": "918",
}  # fmt: skip

# (plan_id, name, monthly dollars, data GB or None, roaming, top-up dollars per GB, available, weight)
PLANS: list[tuple[str, str, int, int | None, int, int | None, int, int]] = [
    ("plan_talk3", "55+ Talk & Text 3GB", 20, 3, 0, 10, 1, 6),
    ("plan_basic2", "Basic 2GB", 25, 2, 0, 10, 1, 8),
    ("plan_start5", "Starter 5GB", 35, 5, 0, 8, 1, 14),
    ("plan_classic10", "Classic 10GB", 40, 10, 1, 7, 0, 8),
    ("plan_value15", "Value 15GB", 45, 15, 1, 7, 1, 18),
    ("plan_plus30", "Plus 30GB", 60, 30, 1, 5, 1, 14),
    ("plan_unlimited", "Unlimited", 75, None, 1, None, 1, 20),
    ("plan_unlimmax", "Unlimited Max", 90, None, 1, None, 1, 12),
]
# (name, dollars, in stock)
MODELS: list[tuple[str, float, int]] = [
    ("Apple iPhone 15", 799.99, 1),
    ("Apple iPhone 15 Pro", 999.99, 1),
    ("Apple iPhone 14", 599.99, 0),
    ("Apple iPhone SE", 429.99, 1),
    ("Samsung Galaxy S24", 799.99, 1),
    ("Samsung Galaxy S24 Ultra", 1299.99, 1),
    ("Samsung Galaxy A54", 449.99, 1),
    ("Samsung Galaxy Z Flip5", 999.99, 0),
    ("Google Pixel 8", 699.99, 1),
    ("Google Pixel 8a", 499.99, 1),
    ("Motorola moto g power", 299.99, 1),
    ("OnePlus 12", 799.99, 1),
]
OUTAGE_CAUSES = [
    "fiber cut by third-party construction",
    "power failure at a cell site",
    "storm damage to a tower",
    "planned network maintenance",
    "equipment failure at a switching center",
    "software upgrade rollback",
]
# (title, description) per category.
TICKET_TEXTS: dict[str, list[tuple[str, str]]] = {
    "no service": [
        ("No signal at home", "No signal at home since this morning; restarting the phone did not help"),
        ("SOS only in the apartment", "Phone shows SOS only in the apartment, fine outside"),
        ("Calls fail downtown", "Calls fail to connect downtown during the day"),
    ],
    "slow data": [
        ("Slow data in the evenings", "Mobile data is very slow in the evenings"),
        ("Pages load slowly", "Pages take minutes to load even with full bars"),
        ("Video calls freeze", "Video calls keep freezing on mobile data"),
    ],
    "billing": [
        ("Charged twice for the plan", "Charged twice for the plan this month"),
        ("Unexpected roaming charge", "Roaming charge on the bill although I did not travel"),
        ("Autopay failed", "Autopay did not go through and I got a reminder"),
    ],
    "device": [
        ("Phone overheats", "Phone overheats while charging"),
        ("Screen flickers", "Screen flickers after the latest update"),
        ("Battery drains fast", "Battery drains within a few hours"),
    ],
    "roaming": [
        ("No data abroad", "No data while abroad even though roaming is on"),
        ("Cannot call from Canada", "Cannot make calls while traveling in Canada"),
    ],
    "other": [
        ("Voicemail greeting", "Voicemail greeting cannot be changed"),
        ("Spam calls", "Spam calls several times a day"),
        ("Wi-Fi calling setup", "Need help setting up Wi-Fi calling"),
    ],
}
# Nicknames of a household's other lines, besides "<first name>'s phone".
OTHER_LABELS = ["Work phone", "Kids' phone", "Backup phone", "Travel phone"]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December"]  # fmt: skip
BRAND_NAMES = {"visa": "Visa", "mastercard": "Mastercard", "amex": "Amex", "discover": "Discover"}
TIER_WEIGHTS = [("standard", 60), ("gold", 25), ("platinum", 15)]
UPGRADE_MONTHS = {"standard": 24, "gold": 18, "platinum": 12}
SUSPENSION_REASONS = ["lost device", "stolen device", "travel", "seasonal", "financial hardship"]


def generate_seed(rng: random.Random) -> Rows:
    plans = _plans()
    models = _models()
    customers, methods = _customers(rng)
    lines, devices, suspensions, topups = _lines(rng, customers, models)
    bills, items, payments = _bills(rng, customers, methods, lines, devices, topups)
    outages = _outages(rng, customers)
    tickets = _tickets(rng, lines)
    return {
        "customers": customers,
        "payment_methods": methods,
        "plans": plans,
        "lines": lines,
        "device_models": models,
        "devices": devices,
        "bills": bills,
        "bill_items": items,
        "payments": payments,
        "data_topups": topups,
        "suspensions": suspensions,
        "outages": outages,
        "tickets": tickets,
    }


def _plans() -> list[Row]:
    return [
        {
            "plan_id": plan_id,
            "name": name,
            "monthly_price_cents": price * 100,
            "data_mb": None if gb is None else gb * 1000,
            "roaming_included": roaming,
            "topup_price_per_gb_cents": None if topup is None else topup * 100,
            "available": available,
        }
        for plan_id, name, price, gb, roaming, topup, available, _ in PLANS
    ]


def _models() -> list[Row]:
    return [
        {"model_id": f"mdl_{i:04d}", "name": name, "price_cents": round(price * 100), "in_stock": stock}
        for i, (name, price, stock) in enumerate(MODELS, start=1)
    ]


def _day(rng: random.Random, start: datetime.date, end: datetime.date) -> datetime.date:
    return start + datetime.timedelta(days=rng.randint(0, (end - start).days))


def _moment(rng: random.Random, day: datetime.date) -> str:
    return f"{day.isoformat()}T{rng.randint(7, 21):02d}:{rng.randint(0, 59):02d}:00Z"


def _customers(rng: random.Random) -> tuple[list[Row], list[Row]]:
    pairs = list(itertools.product(FIRST_NAMES, LAST_NAMES))
    picks = rng.sample(range(len(pairs)), N_CUSTOMERS)
    tiers = [t for t, w in TIER_WEIGHTS for _ in range(w)]
    customers: list[Row] = []
    methods: list[Row] = []
    counters = {"card": 0, "bank": 0}

    def method_id(prefix: str) -> str:
        counters[prefix] += rng.randint(1, 7)
        return f"{prefix}_{counters[prefix]:06d}"

    for n, pick in enumerate(picks, start=1):
        first, last = pairs[pick]
        customer_id = f"cust_{n:06d}"
        address = random_us_address(rng)
        customers.append(
            {
                "customer_id": customer_id,
                "first_name": first,
                "last_name": last,
                "date_of_birth": _day(
                    rng, datetime.date(1950, 1, 1), datetime.date(2004, 12, 31)
                ).isoformat(),
                "email": f"{first}.{last}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}".lower(),
                "tier": rng.choice(tiers),
                "city": address.city,
                "state": address.state,
                "zip": address.zip,
                "customer_since": _day(
                    rng, datetime.date(2011, 1, 1), datetime.date(2025, 6, 30)
                ).isoformat(),
            }
        )
        kinds = [rng.choice(["credit_card", "credit_card", "debit_card", "bank_account"])]
        if rng.random() < 0.45:
            kinds.append(rng.choice(["credit_card", "debit_card", "bank_account"]))
        for k, kind in enumerate(kinds):
            is_card = kind != "bank_account"
            expires = None
            if is_card:
                # A second card is sometimes an old one that has expired.
                if k == 1 and rng.random() < 0.4:
                    expires = f"{rng.choice([2025, 2026])}-{rng.randint(1, 5):02d}"
                else:
                    expires = f"{rng.randint(2026, 2030)}-{rng.randint(1, 12):02d}"
                    if expires < CYCLE:
                        expires = f"{rng.randint(2027, 2030)}-{rng.randint(1, 12):02d}"
            brand = rng.choice(["visa", "mastercard", "amex", "discover"]) if is_card else None
            last_four = f"{rng.randint(0, 9999):04d}"
            shown = BRAND_NAMES[brand] if brand else rng.choice(["Checking", "Savings"])
            methods.append(
                {
                    "payment_method_id": method_id("card" if is_card else "bank"),
                    "customer_id": customer_id,
                    "kind": kind,
                    "brand": brand,
                    "last_four": last_four,
                    "label": f"{shown} {'debit ' if kind == 'debit_card' else ''}ending {last_four}",
                    "expires": expires,
                }
            )
    return customers, methods


def _imei(serial: int, prefix: str) -> str:
    body = f"{prefix}{serial:012d}"
    total = 0
    for i, ch in enumerate(body):
        digit = int(ch)
        if i % 2 == 1:
            digit *= 2
            digit = digit - 9 if digit > 9 else digit
        total += digit
    return body + str((10 - total % 10) % 10)


def _months_between(start: datetime.date, end: datetime.date) -> int:
    return (end.year - start.year) * 12 + end.month - start.month - (1 if end.day < start.day else 0)


def _lines(
    rng: random.Random, customers: list[Row], models: list[Row]
) -> tuple[list[Row], list[Row], list[Row], list[Row]]:
    plan_pool = [p for p in PLANS for _ in range(p[7])]
    lines: list[Row] = []
    devices: list[Row] = []
    suspensions: list[Row] = []
    topups: list[Row] = []
    numbers: list[str] = []
    serials = iter(rng.sample(range(10**8, 10**9), 400))
    for customer in customers:
        count = rng.choice([1, 1, 1, 1, 2, 2, 2, 3])
        since = datetime.date.fromisoformat(customer["customer_since"])
        others = [f"{n}'s phone" for n in FIRST_NAMES if n != customer["first_name"]]
        extra = rng.sample(others, 2) + rng.sample(OTHER_LABELS, 2)
        labels = [f"{customer['first_name']}'s phone", *rng.sample(extra, count - 1)]
        for label in labels:
            while True:
                area = AREA_CODES.get(customer["city"], "312")
                number = f"{area}{rng.randint(200, 999)}{rng.randint(0, 9999):04d}"
                if number not in numbers:
                    numbers.append(number)
                    break
            plan = rng.choice(plan_pool)
            plan_id, _, _, gb, roaming, topup_price, _, _ = plan
            suspended = rng.random() < 0.14
            activated = _day(rng, since, datetime.date(2026, 3, 31))
            used = rng.randint(800, 45000) if gb is None else int(gb * 1000 * rng.uniform(0.05, 1.15))
            if suspended:
                used = rng.randint(0, 400)
            pending = None
            if not suspended and rng.random() < 0.08:
                price = plan[2]
                dearer = [p[0] for p in PLANS if p[2] > price and p[6]]
                if dearer:
                    pending = rng.choice(dearer)
            line = {
                "phone_number": number,
                "customer_id": customer["customer_id"],
                "label": label,
                "plan_id": plan_id,
                "status": "suspended" if suspended else "active",
                "roaming_enabled": 1 if roaming and rng.random() < 0.3 else 0,
                "data_used_mb": used,
                "pending_plan_id": pending,
                "activated_at": activated.isoformat(),
            }
            lines.append(line)
            # Suspension history: earlier, ended suspensions (some in 2026, so the yearly limit bites).
            past_2026 = rng.choice([0, 0, 0, 1, 1, 2]) if not suspended else rng.choice([0, 0, 1])
            for _ in range(past_2026):
                start = _day(rng, datetime.date(2026, 1, 5), datetime.date(2026, 4, 20))
                end = start + datetime.timedelta(days=rng.randint(5, 30))
                suspensions.append(_suspension(rng, number, start, end))
            if rng.random() < 0.25:
                start = _day(rng, datetime.date(2025, 2, 1), datetime.date(2025, 10, 31))
                suspensions.append(
                    _suspension(rng, number, start, start + datetime.timedelta(days=rng.randint(7, 45)))
                )
            if suspended:
                start = _day(rng, datetime.date(2026, 5, 1), datetime.date(2026, 6, 15))
                suspensions.append(_suspension(rng, number, start, None))
            # Devices: the phone in use, sometimes an older one it replaced.
            bought = _day(rng, max(activated, datetime.date(2022, 6, 1)), datetime.date(2026, 5, 31))
            if rng.random() < 0.3 and bought > datetime.date(2023, 6, 1):
                old_bought = _day(rng, datetime.date(2020, 1, 1), bought - datetime.timedelta(days=400))
                devices.append(
                    _device(rng, number, rng.choice(models), old_bought, bought, "replaced", next(serials))
                )
            devices.append(_device(rng, number, rng.choice(models), bought, TODAY, "in_use", next(serials)))
            # Top-ups of this cycle and the last one, for capped active lines.
            if gb is not None and topup_price is not None and not suspended:
                for cycle, day_range in (("2026-05", (1, 31)), (CYCLE, (1, 17))):
                    heavy = used > gb * 1000 * 0.7 if cycle == CYCLE else rng.random() < 0.3
                    n = rng.choice([1, 1, 2, 3]) if heavy else 0
                    for _ in range(n):
                        size = rng.choice([1, 1, 2, 5])
                        day = datetime.date(int(cycle[:4]), int(cycle[5:]), rng.randint(*day_range))
                        topups.append(
                            {
                                "topup_id": "",
                                "phone_number": number,
                                "cycle": cycle,
                                "gigabytes": size,
                                "price_cents": topup_price * 100 * size,
                                "created_at": _moment(rng, day),
                            }
                        )
    suspensions.sort(key=lambda s: (s["started_at"], s["phone_number"]))
    for i, s in enumerate(suspensions, start=1):
        s["suspension_id"] = f"sus_{i:06d}"
    topups.sort(key=lambda t: (t["created_at"], t["phone_number"]))
    for i, t in enumerate(topups, start=1):
        t["topup_id"] = f"top_{i:07d}"
    devices.sort(key=lambda d: (d["purchased_at"], d["phone_number"]))
    for i, d in enumerate(devices, start=1):
        d["device_id"] = f"dev_{i:06d}"
    return lines, devices, suspensions, topups


def _suspension(rng: random.Random, number: str, start: datetime.date, end: datetime.date | None) -> Row:
    return {
        "suspension_id": "",
        "phone_number": number,
        "reason": rng.choice(SUSPENSION_REASONS),
        "started_at": _moment(rng, start),
        "ended_at": None if end is None else _moment(rng, min(end, TODAY - datetime.timedelta(days=1))),
    }


def _device(
    rng: random.Random,
    number: str,
    model: Row,
    bought: datetime.date,
    until: datetime.date,
    status: str,
    serial: int,
) -> Row:
    price = model["price_cents"]
    monthly = math.ceil(price / INSTALLMENT_MONTHS)
    paid_months = min(_months_between(bought, until), INSTALLMENT_MONTHS)
    balance = max(price - monthly * paid_months, 0)
    if status == "replaced":
        balance = 0
    return {
        "device_id": "",
        "phone_number": number,
        "model_id": model["model_id"],
        "imei": _imei(serial, rng.choice(["35", "01", "99"])),
        "purchased_at": bought.isoformat(),
        "installment_balance_cents": balance,
        "monthly_installment_cents": monthly if balance > 0 else 0,
        "status": status,
    }


def _bills(
    rng: random.Random,
    customers: list[Row],
    methods: list[Row],
    lines: list[Row],
    devices: list[Row],
    topups: list[Row],
) -> tuple[list[Row], list[Row], list[Row]]:
    prices = {p[0]: p[2] * 100 for p in PLANS}
    names = {p[0]: p[1] for p in PLANS}
    lines_of: dict[str, list[Row]] = {}
    for line in lines:
        lines_of.setdefault(line["customer_id"], []).append(line)
    device_of = {d["phone_number"]: d for d in devices if d["status"] == "in_use"}
    usable: dict[str, list[Row]] = {}
    for m in methods:
        if m["expires"] is None or m["expires"] >= CYCLE:
            usable.setdefault(m["customer_id"], []).append(m)
    any_method: dict[str, list[Row]] = {}
    for m in methods:
        any_method.setdefault(m["customer_id"], []).append(m)
    suspended_customers = {line["customer_id"] for line in lines if line["status"] == "suspended"}
    bills: list[Row] = []
    items: list[Row] = []
    payments: list[Row] = []
    periods = [
        ("2026-04", "2026-05-01", "2026-05-21"),
        ("2026-05", "2026-06-01", "2026-06-21"),
        (CYCLE, None, "2026-07-21"),
    ]
    for seq, customer in enumerate(customers, start=1):
        customer_id = customer["customer_id"]
        overdue_chance = 0.5 if customer_id in suspended_customers else 0.1
        overdue = rng.random() < overdue_chance
        for period, issued, due in periods:
            bill_id = f"B{period[2:4]}{period[5:7]}{seq:04d}"
            bill_items: list[tuple[str | None, str, str, int]] = []
            for line in lines_of[customer_id]:
                number = line["phone_number"]
                bill_items.append(
                    (number, "plan", f"{names[line['plan_id']]} monthly charge", prices[line["plan_id"]])
                )
                device = device_of.get(number)
                if device is not None and device["monthly_installment_cents"] > 0:
                    bill_items.append(
                        (
                            number,
                            "device_installment",
                            "Device installment",
                            device["monthly_installment_cents"],
                        )
                    )
                for t in topups:
                    if t["phone_number"] == number and t["cycle"] == period:
                        bill_items.append(
                            (number, "data_topup", f"Data top-up {t['gigabytes']} GB", t["price_cents"])
                        )
                if period != CYCLE and line["roaming_enabled"] and rng.random() < 0.35:
                    bill_items.append(
                        (number, "roaming", "International roaming usage", rng.randint(5, 60) * 100 + 99)
                    )
            subtotal = sum(i[3] for i in bill_items)
            bill_items.append(
                (None, "taxes_fees", "Taxes and regulatory fees", max(round(subtotal * 0.085), 100))
            )
            if period == "2026-04" and overdue:
                bill_items.append((None, "late_fee", "Late payment fee", LATE_FEE_CENTS))
            total = sum(i[3] for i in bill_items)
            for no, (number, kind, text, cents) in enumerate(bill_items, start=1):
                items.append(
                    {
                        "bill_id": bill_id,
                        "item_no": no,
                        "phone_number": number,
                        "kind": kind,
                        "description": text,
                        "amount_cents": cents,
                    }
                )
            if issued is None:
                status = "open"
                paid_parts: list[tuple[int, str]] = []
            elif period == "2026-04":
                if overdue:
                    status = "overdue"
                    part = (round(total * rng.uniform(0.2, 0.6)) // 100) * 100
                    paid_parts = [(part, "2026-05-19")] if rng.random() < 0.4 and part > 0 else []
                else:
                    status = "paid"
                    paid_parts = [
                        (total, _day(rng, datetime.date(2026, 5, 2), datetime.date(2026, 5, 21)).isoformat())
                    ]
            else:
                roll = rng.random()
                if roll < 0.25 and not overdue:
                    status = "paid"
                    paid_parts = [
                        (total, _day(rng, datetime.date(2026, 6, 2), datetime.date(2026, 6, 17)).isoformat())
                    ]
                elif roll < 0.45:
                    status = "issued"
                    part = (round(total * rng.uniform(0.2, 0.6)) // 100) * 100
                    paid_parts = [
                        (part, _day(rng, datetime.date(2026, 6, 2), datetime.date(2026, 6, 17)).isoformat())
                    ]
                else:
                    status = "issued"
                    paid_parts = []
            pool = usable.get(customer_id) or any_method[customer_id]
            method = rng.choice(pool)
            for cents, day in paid_parts:
                payments.append(
                    {
                        "payment_id": "",
                        "bill_id": bill_id,
                        "payment_method_id": method["payment_method_id"],
                        "amount_cents": cents,
                        "created_at": _moment(rng, datetime.date.fromisoformat(day)),
                    }
                )
            bills.append(
                {
                    "bill_id": bill_id,
                    "customer_id": customer_id,
                    "label": f"{MONTH_NAMES[int(period[5:]) - 1]} {period[:4]} bill",
                    "period": period,
                    "status": status,
                    "issued_at": issued,
                    "due_date": due,
                }
            )
    payments.sort(key=lambda p: (p["created_at"], p["bill_id"]))
    for i, p in enumerate(payments, start=1):
        p["payment_id"] = f"pmt_{i:07d}"
    return bills, items, payments


def _outages(rng: random.Random, customers: list[Row]) -> list[Row]:
    outages: list[Row] = []
    homes = sorted({(c["zip"], c["city"], c["state"]) for c in customers})
    affected = rng.sample(homes, 16)
    for i, (zip_code, city, state) in enumerate(affected, start=1):
        active = i <= 6
        if active:
            start = datetime.datetime(2026, 6, 18, 15) - datetime.timedelta(minutes=rng.randint(60, 2 * 1440))
            end = datetime.datetime(2026, 6, 18, 15) + datetime.timedelta(minutes=rng.randint(120, 2 * 1440))
        else:
            start = datetime.datetime(2026, 6, 18, 15) - datetime.timedelta(
                minutes=rng.randint(3 * 1440, 80 * 1440)
            )
            end = start + datetime.timedelta(minutes=rng.randint(90, 1440))
        outages.append(
            {
                "outage_id": "",
                "city": city,
                "state": state,
                "zip": zip_code,
                "service": rng.choice(["voice", "data", "voice_and_data"]),
                "status": "active" if active else "resolved",
                "cause": rng.choice(OUTAGE_CAUSES),
                "started_at": start.strftime("%Y-%m-%dT%H:%M:00Z"),
                "expected_resolution": end.strftime("%Y-%m-%dT%H:%M:00Z"),
            }
        )
    outages.sort(key=lambda o: (o["started_at"], o["zip"]))
    for i, o in enumerate(outages, start=1):
        o["outage_id"] = f"OUT-{i:05d}"
    return outages


def _tickets(rng: random.Random, lines: list[Row]) -> list[Row]:
    tickets: list[Row] = []
    open_keys: list[tuple[str, str]] = []
    categories = list(TICKET_TEXTS)
    for line in lines:
        for _ in range(rng.choice([0, 0, 1, 1, 1, 2])):
            category = rng.choice(categories)
            status = rng.choice(["open", "in_progress", "resolved", "resolved", "closed", "closed"])
            key = (line["phone_number"], category)
            if status in ("open", "in_progress"):
                if key in open_keys:
                    status = "closed"
                else:
                    open_keys.append(key)
            created = _day(rng, datetime.date(2026, 3, 1), datetime.date(2026, 6, 16))
            resolved_at = None
            updated = created
            if status in ("resolved", "closed"):
                # About half of the resolved tickets are still within the 7-day reopen window.
                lo = max(created, TODAY - datetime.timedelta(days=20))
                resolved_day = _day(rng, min(lo, TODAY), TODAY)
                resolved_at = _moment(rng, resolved_day)
                updated = resolved_day
            elif status == "in_progress":
                updated = _day(rng, created, TODAY)
            created_at = _moment(rng, created)
            updated_at = _moment(rng, updated)
            if resolved_at is not None:
                updated_at = resolved_at
            if updated_at < created_at:
                updated_at = created_at
                if resolved_at is not None:
                    resolved_at = created_at
            text = rng.choice(TICKET_TEXTS[category])
            tickets.append(
                {
                    "ticket_id": "",
                    "customer_id": line["customer_id"],
                    "phone_number": line["phone_number"],
                    "category": category,
                    "status": status,
                    "title": text[0],
                    "description": text[1],
                    "created_at": created_at,
                    "updated_at": updated_at,
                    "resolved_at": resolved_at,
                }
            )
    tickets.sort(key=lambda t: (t["created_at"], t["phone_number"]))
    base = rng.randint(3000, 4000)
    for i, t in enumerate(tickets, start=1):
        t["ticket_id"] = f"TKT{base + i:06d}"
    return tickets
