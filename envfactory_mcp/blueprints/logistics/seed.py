"""Deterministic seed state of the logistics environment, drawn from small word lists.

Everything comes from the ``random.Random`` passed in: lists are walked in a fixed order,
never through sets or dict iteration of unordered data, so one seed gives one state. The
environment clock is 2026-09-16T15:00:00Z (a Wednesday): September's invoices are open,
August's were issued on September 1 and are due October 1, July's were due August 31 (an
unpaid one is overdue and puts its account on credit hold). A shipment's status follows
from its dates: labels of the last two days are not handed over yet, parcels whose
estimated delivery has passed were delivered (or lost, returned, held at a depot).
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

TODAY = datetime.date(2026, 9, 16)
NOW = "2026-09-16T15:00:00Z"
N_CUSTOMERS = 50
LATE_FEE_CENTS = 1500
TIER_WEIGHTS = [("standard", 55), ("business", 30), ("premier", 15)]
TIER_DISCOUNT_PERCENT = {"standard": 0, "business": 10, "premier": 15}
DECLARED_VALUE_CAP_CENTS = {"standard": 100000, "business": 500000, "premier": 1000000}
REDIRECT_FEE_CENTS = {"standard": 900, "business": 600, "premier": 0}
DIM_DIVISOR = 5000

FIRST_NAMES = [
    "Aaliyah", "Andre", "Beatriz", "Caleb", "Dana", "Derek", "Elif", "Ethan", "Fatima", "Gavin",
    "Hannah", "Hector", "Imani", "Jacob", "Jasmine", "Kevin", "Laila", "Logan", "Mariana", "Mason",
    "Nia", "Owen", "Paige", "Rafael", "Riley", "Sofia", "Trevor", "Uma", "Victor", "Whitney",
]  # fmt: skip
LAST_NAMES = [
    "Abbott", "Baker", "Coleman", "Delgado", "Edwards", "Foster", "Gonzalez", "Harris", "Ibrahim", "Jackson",
    "Kim", "Lee", "Martinez", "Nelson", "Ortiz", "Parker", "Ramirez", "Sanders", "Thompson", "Underwood",
]  # fmt: skip
COMPANY_WORDS = [
    "Maple", "Harbor", "Copper", "Juniper", "Summit", "Bluebird", "Lantern", "Orchard", "Granite", "Willow",
    "Fox", "Meadow", "Cedar", "Ivy", "Saffron", "Tidewater",
]  # fmt: skip
COMPANY_KINDS = [
    "Ceramics",
    "Books",
    "Apparel",
    "Tea Co.",
    "Outfitters",
    "Print Shop",
    "Candles",
    "Electronics",
]
EMAIL_DOMAINS = ["example.com", "mail.example", "inbox.example", "shop.example"]
CARD_BRANDS = ["Visa", "Mastercard", "Amex", "Discover"]
PLACE_LABELS = ["Office", "Warehouse", "Studio", "Storage unit", "Vacation home", "Workshop"]
STATE_REGION = {
    "NY": 1, "MA": 1, "PA": 1, "MD": 1, "VA": 1,
    "GA": 2, "NC": 2, "FL": 2, "TN": 2, "KY": 2, "LA": 2,
    "IL": 3, "OH": 3, "MI": 3, "IN": 3, "MO": 3, "WI": 3, "MN": 3, "IA": 3, "NE": 3,
    "TX": 4, "OK": 4, "NM": 4, "AZ": 4, "CO": 4,
    "CA": 5, "NV": 5, "UT": 5, "OR": 5, "WA": 5, "ID": 5,
}  # fmt: skip
# (depot_id, name, street, city, state, zip, region, daily pickup capacity, accepts holds, hold days)
DEPOTS: list[tuple[str, str, str, str, str, str, int, int, int, int]] = [
    ("dep_nyc", "New York Hudson Depot", "540 W 33rd St", "New York", "NY", "10001", 1, 4, 1, 7),
    ("dep_phl", "Philadelphia Navy Yard Depot", "4700 S Broad St", "Philadelphia", "PA", "19112", 1, 3, 1, 5),
    ("dep_atl", "Atlanta Fulton Depot", "1200 Chattahoochee Ave NW", "Atlanta", "GA", "30318", 2, 4, 1, 7),
    ("dep_mia", "Miami Airport Depot", "6200 NW 36th St", "Miami", "FL", "33166", 2, 3, 0, 5),
    ("dep_chi", "Chicago Canal Depot", "1500 S Canal St", "Chicago", "IL", "60607", 3, 4, 1, 7),
    (
        "dep_msp",
        "Minneapolis Northeast Depot",
        "2400 Kennedy St NE",
        "Minneapolis",
        "MN",
        "55413",
        3,
        3,
        1,
        5,
    ),
    ("dep_hou", "Houston East Depot", "8800 Market St", "Houston", "TX", "77029", 4, 4, 1, 7),
    ("dep_phx", "Phoenix Sky Harbor Depot", "4400 E Broadway Rd", "Phoenix", "AZ", "85040", 4, 3, 0, 5),
    ("dep_lax", "Los Angeles Vernon Depot", "2800 E 37th St", "Los Angeles", "CA", "90058", 5, 4, 1, 7),
    ("dep_sea", "Seattle SoDo Depot", "3900 1st Ave S", "Seattle", "WA", "98134", 5, 3, 1, 5),
]
# (service_id, name, max kg, longest side cm, L+W+H cm, transit business days, international, weight)
SERVICES: list[tuple[str, str, float, int, int, int, int, int]] = [
    ("svc_ground", "Ground", 30.0, 150, 300, 5, 0, 50),
    ("svc_express", "Express 2-Day", 30.0, 120, 250, 2, 0, 30),
    ("svc_overnight", "Overnight", 15.0, 100, 200, 1, 0, 20),
    ("svc_intl", "International Priority", 20.0, 120, 225, 6, 1, 0),
]
# service -> (base cents at zone 0, base step per zone, per-kg cents at zone 0, per-kg step per zone)
RATE_FORMULA = {
    "svc_ground": (750, 150, 80, 20),
    "svc_express": (1600, 300, 180, 40),
    "svc_overnight": (3200, 500, 350, 60),
}
INTL_RATE = (4500, 900)
# (city, state or province, postal code, country)
ABROAD = [
    ("Toronto", "ON", "M5V 2T6", "CA"),
    ("Vancouver", "BC", "V6B 1A1", "CA"),
    ("London", None, "SW1A 1AA", "GB"),
    ("Berlin", None, "10115", "DE"),
    ("Mexico City", "CDMX", "06600", "MX"),
    ("Paris", None, "75002", "FR"),
    ("Sydney", "NSW", "2000", "AU"),
    ("Tokyo", None, "100-0005", "JP"),
]
ABROAD_STREETS = ["12 King St W", "88 Baker St", "Friedrichstrasse 43", "Av. Reforma 222", "14 Rue du Bac",
                  "5 George St", "2-1 Marunouchi", "301 Water St"]  # fmt: skip
CONTENTS = [
    ("books", 0.4, 3.0), ("shoes", 0.8, 2.5), ("ceramic vase", 1.0, 4.0), ("laptop", 1.5, 3.5),
    ("clothing", 0.3, 2.0), ("tea samples", 0.2, 1.0), ("camera lens", 0.5, 1.5), ("candles", 0.8, 4.0),
    ("printed posters", 0.3, 1.2), ("spare car parts", 2.0, 14.0), ("cast iron pan", 2.5, 6.0),
    ("board games", 1.0, 4.5), ("coffee beans", 0.5, 5.0), ("desk lamp", 1.2, 3.5), ("guitar pedals", 0.6, 2.5),
]  # fmt: skip
DECLARED_VALUES = [25, 40, 60, 80, 95, 120, 150, 200, 350, 600, 900, 1500, 2500]
DAMAGE_TEXTS = [
    "The box arrived crushed and the item inside is broken",
    "The contents were soaked and ruined",
    "One corner was torn open and a piece is missing",
    "The glass cracked in transit",
]
LOST_TEXTS = ["The parcel never arrived", "Tracking stopped at the facility and nothing came"]
CLAIM_STATUS_WEIGHTS = [
    ("submitted", 3), ("under_review", 3), ("approved", 2), ("denied", 2), ("paid", 2), ("withdrawn", 1),
]  # fmt: skip
WINDOWS = ["08:00-12:00", "12:00-16:00", "16:00-19:00"]


def generate_seed(rng: random.Random) -> Rows:
    depots = _depots()
    services, rates = _services()
    customers = _customers(rng)
    addresses = _addresses(rng, customers)
    overdue = _overdue_customers(rng, customers)
    shipments, events, changes = _shipments(rng, customers, addresses, overdue)
    claims = _claims(rng, shipments)
    pickups = _pickups(rng, customers, addresses, overdue)
    invoices, items = _invoices(rng, customers, shipments, changes, overdue)
    held = {i["customer_id"] for i in invoices if i["status"] == "overdue"}
    for c in customers:
        c["account_status"] = "credit_hold" if c["customer_id"] in held else "active"
    return {
        "customers": customers,
        "depots": depots,
        "addresses": addresses,
        "services": services,
        "service_rates": rates,
        "shipments": shipments,
        "tracking_events": events,
        "delivery_changes": changes,
        "pickups": pickups,
        "claims": claims,
        "invoices": invoices,
        "invoice_items": items,
    }


# --------------------------------------------------------------------------- reference data


def _depots() -> list[Row]:
    return [
        {
            "depot_id": d[0],
            "name": d[1],
            "address1": d[2],
            "city": d[3],
            "state": d[4],
            "zip": d[5],
            "region": d[6],
            "daily_pickup_capacity": d[7],
            "accepts_holds": d[8],
            "hold_days": d[9],
        }
        for d in DEPOTS
    ]


def _services() -> tuple[list[Row], list[Row]]:
    services = [
        {
            "service_id": s[0],
            "name": s[1],
            "max_weight_kg": s[2],
            "max_length_cm": s[3],
            "max_size_cm": s[4],
            "transit_days": s[5],
            "international": s[6],
        }
        for s in SERVICES
    ]
    rates: list[Row] = []
    for service_id, (base, base_step, per_kg, per_kg_step) in RATE_FORMULA.items():
        for zone in range(1, 6):
            rates.append(
                {
                    "service_id": service_id,
                    "zone": zone,
                    "base_cents": base + base_step * zone,
                    "per_kg_cents": per_kg + per_kg_step * zone,
                }
            )
    rates.append(
        {"service_id": "svc_intl", "zone": 6, "base_cents": INTL_RATE[0], "per_kg_cents": INTL_RATE[1]}
    )
    return services, rates


# --------------------------------------------------------------------------- helpers


def _day(rng: random.Random, start: datetime.date, end: datetime.date) -> datetime.date:
    return start + datetime.timedelta(days=rng.randint(0, (end - start).days))


def _at(day: datetime.date, hour: int, minute: int) -> str:
    return f"{day.isoformat()}T{hour:02d}:{minute:02d}:00Z"


def _business(day: datetime.date) -> datetime.date:
    while day.weekday() >= 5:
        day += datetime.timedelta(days=1)
    return day


def add_business_days(day: datetime.date, days: int) -> datetime.date:
    while days > 0:
        day += datetime.timedelta(days=1)
        if day.weekday() < 5:
            days -= 1
    return day


def zone(origin: Row, destination: Row) -> int:
    if origin["region"] is None or destination["region"] is None:
        return 6
    apart: int = abs(origin["region"] - destination["region"])
    return 1 + apart


def billable_kg(weight: float, length: int, width: int, height: int) -> int:
    return max(1, math.ceil(max(weight, length * width * height / DIM_DIVISOR) - 1e-9))


def price_cents(
    rates: dict[tuple[str, int], Row], service_id: str, zone_: int, billable: int, tier: str
) -> int:
    rate = rates[(service_id, zone_)]
    gross: int = rate["base_cents"] + rate["per_kg_cents"] * billable
    return gross - gross * TIER_DISCOUNT_PERCENT[tier] // 100


def insurance_cents(declared: int) -> int:
    return math.ceil(declared / 10000) * 100


# --------------------------------------------------------------------------- customers and addresses


def _customers(rng: random.Random) -> list[Row]:
    pairs = list(itertools.product(FIRST_NAMES, LAST_NAMES))
    picks = rng.sample(range(len(pairs)), N_CUSTOMERS)
    tiers = [t for t, w in TIER_WEIGHTS for _ in range(w)]
    companies = [f"{w} {k}" for w, k in itertools.product(COMPANY_WORDS, COMPANY_KINDS)]
    rng.shuffle(companies)
    phones: list[str] = []
    customers: list[Row] = []
    for n, pick in enumerate(picks, start=1):
        first, last = pairs[pick]
        tier = rng.choice(tiers)
        company = companies.pop() if tier != "standard" or rng.random() < 0.2 else None
        while True:
            phone = f"{rng.randint(2, 9)}{rng.randint(0, 9)}{rng.randint(0, 9)}{rng.randint(2, 9)}{rng.randint(0, 999999):06d}"
            if phone not in phones:
                phones.append(phone)
                break
        card = None
        if rng.random() < 0.9:
            card = f"{rng.choice(CARD_BRANDS)} ending {rng.randint(0, 9999):04d}"
        customers.append(
            {
                "customer_id": f"cust_{n:06d}",
                "first_name": first,
                "last_name": last,
                "company": company,
                "email": f"{first}.{last}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}".lower(),
                "phone": phone,
                "tier": tier,
                "account_status": "active",
                "card_on_file": card,
                "customer_since": _day(
                    rng, datetime.date(2014, 1, 1), datetime.date(2026, 3, 31)
                ).isoformat(),
            }
        )
    return customers


def _addresses(rng: random.Random, customers: list[Row]) -> list[Row]:
    by_region: dict[int, list[str]] = {}
    for d in DEPOTS:
        by_region.setdefault(d[6], []).append(d[0])
    rows: list[Row] = []
    for c in customers:
        own = c["company"] or "Home"
        others = [
            f"{f} {la}" for f, la in zip(rng.sample(FIRST_NAMES, 3), rng.sample(LAST_NAMES, 3), strict=True)
        ]
        labels = [own, *rng.sample(PLACE_LABELS, 1), *others]
        count = rng.choice([2, 3, 3, 4])
        for label in labels[:count]:
            while True:
                address = random_us_address(rng)
                if address.state in STATE_REGION:
                    break
            region = STATE_REGION[address.state]
            street = address.address1 + (f", {address.address2}" if address.address2 else "")
            rows.append(
                {
                    "address_id": "",
                    "customer_id": c["customer_id"],
                    "label": label,
                    "address1": street,
                    "city": address.city,
                    "state": address.state,
                    "postal_code": address.zip,
                    "country": "US",
                    "region": region,
                    "depot_id": rng.choice(by_region[region]),
                }
            )
        if rng.random() < 0.3:
            i = rng.randrange(len(ABROAD))
            city, province, postal, country = ABROAD[i]
            rows.append(
                {
                    "address_id": "",
                    "customer_id": c["customer_id"],
                    "label": labels[4] if len(labels) > 4 else f"{rng.choice(FIRST_NAMES)} abroad",
                    "address1": ABROAD_STREETS[i],
                    "city": city,
                    "state": province,
                    "postal_code": postal,
                    "country": country,
                    "region": None,
                    "depot_id": None,
                }
            )
    for i, a in enumerate(rows, start=1):
        a["address_id"] = f"adr_{i:06d}"
    return rows


def _overdue_customers(rng: random.Random, customers: list[Row]) -> list[str]:
    """Accounts whose July invoice goes unpaid (overdue, so on credit hold)."""
    return [c["customer_id"] for c in customers if rng.random() < 0.14]


# --------------------------------------------------------------------------- shipments


def _parcel(rng: random.Random, service: tuple[Any, ...]) -> tuple[str, float, int, int, int]:
    _, _, max_kg, longest, size, _, _, _ = service
    contents, low, high = rng.choice(CONTENTS)
    weight = round(rng.uniform(low, min(high, max_kg)), 1)
    while True:
        dims = sorted((rng.randint(10, 70), rng.randint(8, 50), rng.randint(4, 40)), reverse=True)
        if dims[0] <= longest and sum(dims) <= size:
            return contents, weight, dims[0], dims[1], dims[2]


def _shipments(
    rng: random.Random, customers: list[Row], addresses: list[Row], overdue: list[str]
) -> tuple[list[Row], list[Row], list[Row]]:
    _, rate_rows = _services()
    rates = {(r["service_id"], r["zone"]): r for r in rate_rows}
    service_by_id = {s[0]: s for s in SERVICES}
    domestic_pool = [s for s in SERVICES if not s[6] for _ in range(s[7])]
    depots = {d[0]: d for d in DEPOTS}
    book: dict[str, list[Row]] = {}
    for a in addresses:
        book.setdefault(a["customer_id"], []).append(a)
    shipments: list[Row] = []
    events: list[Row] = []
    changes: list[Row] = []
    serial = rng.randint(100000, 200000)
    for c in customers:
        own = book[c["customer_id"]]
        domestic = [a for a in own if a["country"] == "US"]
        origin = domestic[0]
        destinations = [a for a in own if a is not origin]
        for _ in range(rng.choice([3, 4, 5, 5, 6, 7])):
            recent = rng.random() < 0.35
            if recent:
                created = _day(rng, TODAY - datetime.timedelta(days=7), TODAY)
            else:
                created = _day(rng, datetime.date(2026, 6, 1), TODAY - datetime.timedelta(days=8))
            if c["customer_id"] in overdue and created > datetime.date(2026, 8, 31):
                continue  # on credit hold since August 31: no new labels
            destination = rng.choice(destinations)
            service = (
                service_by_id["svc_intl"] if destination["country"] != "US" else rng.choice(domestic_pool)
            )
            contents, weight, length, width, height = _parcel(rng, service)
            cap = DECLARED_VALUE_CAP_CENTS[c["tier"]] // 100
            declared = rng.choice([v for v in DECLARED_VALUES if v <= cap]) * 100
            insured = 1 if rng.random() < (0.7 if declared > 10000 else 0.15) else 0
            z = zone(origin, destination)
            billable = billable_kg(weight, length, width, height)
            serial += rng.randint(1, 40)
            created_at = _at(created, rng.randint(8, 20), rng.randint(0, 59))
            if created == TODAY:
                created_at = _at(created, rng.randint(8, 14), rng.randint(0, 59))
            s = {
                "tracking_number": f"PX{created.strftime('%y%m')}{serial:06d}",
                "customer_id": c["customer_id"],
                "kind": "outbound",
                "return_of": None,
                "service_id": service[0],
                "from_address_id": origin["address_id"],
                "to_address_id": destination["address_id"],
                "contents": contents,
                "status": "",
                "weight_kg": weight,
                "length_cm": length,
                "width_cm": width,
                "height_cm": height,
                "declared_value_cents": declared,
                "insured": insured,
                "price_cents": price_cents(rates, service[0], z, billable, c["tier"]),
                "insurance_cents": insurance_cents(declared) if insured else 0,
                "created_at": created_at,
                "ship_date": "",
                "estimated_delivery": "",
                "delivered_at": None,
                "hold_depot_id": None,
            }
            _advance(rng, s, service, origin, destination, depots, events)
            recent_delivery = (
                s["status"] == "delivered"
                and s["estimated_delivery"] >= (TODAY - datetime.timedelta(days=5)).isoformat()
            )
            chance = (
                0.18
                if s["status"] in ("label_created", "picked_up", "in_transit")
                else 0.3
                if recent_delivery
                else 0.04
            )
            if (
                s["status"] in ("label_created", "picked_up", "in_transit", "delivered")
                and destination["country"] == "US"
                and rng.random() < chance
            ):
                _delivery_change(rng, c, s, destination, domestic, origin, depots, changes, events)
            shipments.append(s)
    # Return labels for some recently delivered domestic parcels.
    by_address = {a["address_id"]: a for a in addresses}
    tiers = {c["customer_id"]: c["tier"] for c in customers}
    delivered = [
        s
        for s in shipments
        if s["status"] == "delivered"
        and by_address[s["to_address_id"]]["country"] == "US"
        and s["delivered_at"][:10] >= (TODAY - datetime.timedelta(days=40)).isoformat()
    ]
    for s in rng.sample(delivered, min(10, len(delivered))):
        if s["customer_id"] in overdue:
            continue
        delivered_on = datetime.date.fromisoformat(s["delivered_at"][:10])
        created = _day(
            rng,
            delivered_on + datetime.timedelta(days=1),
            min(TODAY, delivered_on + datetime.timedelta(days=12)),
        )
        if created > TODAY or created <= delivered_on:
            continue
        origin, destination = by_address[s["to_address_id"]], by_address[s["from_address_id"]]
        service = service_by_id["svc_ground"]
        serial += rng.randint(1, 40)
        r = {
            **s,
            "tracking_number": f"PX{created.strftime('%y%m')}{serial:06d}",
            "kind": "return",
            "return_of": s["tracking_number"],
            "service_id": "svc_ground",
            "from_address_id": origin["address_id"],
            "to_address_id": destination["address_id"],
            "status": "",
            "insured": 0,
            "insurance_cents": 0,
            "price_cents": price_cents(
                rates,
                "svc_ground",
                zone(origin, destination),
                billable_kg(s["weight_kg"], s["length_cm"], s["width_cm"], s["height_cm"]),
                tiers[s["customer_id"]],
            ),
            "created_at": _at(created, rng.randint(8, 14), rng.randint(0, 59)),
            "delivered_at": None,
            "hold_depot_id": None,
        }
        _advance(rng, r, service, origin, destination, depots, events, allow_trouble=False)
        shipments.append(r)
    events.sort(key=lambda e: (e["occurred_at"], e["tracking_number"], e["order"]))
    for i, e in enumerate(events, start=1):
        e["event_id"] = f"ev_{i:07d}"
        del e["order"]
    changes.sort(key=lambda x: (x["created_at"], x["tracking_number"]))
    for i, x in enumerate(changes, start=1):
        x["change_id"] = f"dc_{i:06d}"
    shipments.sort(key=lambda x: x["tracking_number"])
    return shipments, events, changes


def _place(address: Row) -> str:
    return f"{address['city']}, {address['state'] or address['country']}"


def _add_event(events: list[Row], s: Row, when: str, code: str, location: str, text: str) -> None:
    if when > NOW:
        return
    events.append(
        {
            "event_id": "",
            "tracking_number": s["tracking_number"],
            "occurred_at": when,
            "code": code,
            "location": location,
            "description": text,
            "order": len(events),
        }
    )


def _advance(
    rng: random.Random,
    s: Row,
    service: tuple[Any, ...],
    origin: Row,
    destination: Row,
    depots: dict[str, tuple[Any, ...]],
    events: list[Row],
    allow_trouble: bool = True,
) -> None:
    """Status, dates and tracking events of a shipment from its creation date and the clock."""
    created = datetime.date.fromisoformat(s["created_at"][:10])
    transit = service[5]
    here, there = _place(origin), _place(destination)
    _add_event(events, s, s["created_at"], "label_created", here, "Shipping label created")
    if created >= TODAY - datetime.timedelta(days=2) and (s["kind"] == "return" or rng.random() < 0.7):
        ship = max(_business(created), _business(TODAY))
        s.update(status="label_created", ship_date=ship.isoformat())
        s["estimated_delivery"] = add_business_days(ship, transit).isoformat()
        return
    ship = _business(created + datetime.timedelta(days=1))
    estimated = add_business_days(ship, transit)
    s.update(ship_date=ship.isoformat(), estimated_delivery=estimated.isoformat())
    if ship > TODAY:
        s["status"] = "label_created"
        return
    if allow_trouble and rng.random() < 0.04:
        s["status"] = "cancelled"
        s["ship_date"] = _business(created).isoformat()
        s["estimated_delivery"] = add_business_days(_business(created), transit).isoformat()
        cancelled = min(created + datetime.timedelta(days=1), TODAY)
        _add_event(events, s, _at(cancelled, 9, 15), "cancelled", here, "Label cancelled by the shipper")
        return
    _add_event(
        events,
        s,
        _at(ship, 17 if ship < TODAY else 10, rng.randint(0, 59)),
        "picked_up",
        here,
        "Picked up by driver",
    )
    hubs = [d for d in depots.values() if d[6] == destination["region"]]
    hub_place = f"{hubs[0][3]}, {hubs[0][4]}" if hubs else there
    arrive = add_business_days(ship, max(transit - 1, 1)) if transit > 1 else ship
    if arrive > ship:
        _add_event(
            events,
            s,
            _at(arrive, 4, rng.randint(0, 59)),
            "arrived_facility",
            hub_place,
            "Arrived at carrier facility",
        )
    if estimated > TODAY:
        s["status"] = "picked_up" if ship >= TODAY - datetime.timedelta(days=1) else "in_transit"
        if s["status"] == "in_transit" and not any(
            e["tracking_number"] == s["tracking_number"] and e["code"] == "arrived_facility" for e in events
        ):
            _add_event(events, s, _at(ship, 23, 10), "departed_facility", here, "Departed carrier facility")
        return
    if estimated == TODAY:
        s["status"] = "out_for_delivery"
        _add_event(
            events, s, _at(TODAY, 8, rng.randint(0, 40)), "out_for_delivery", there, "Out for delivery"
        )
        return
    roll = rng.random() if allow_trouble else 1.0
    if roll < 0.05 and estimated <= TODAY - datetime.timedelta(days=4):
        s["status"] = "lost"
        _add_event(
            events,
            s,
            _at(estimated + datetime.timedelta(days=3), 12, 0),
            "exception",
            hub_place,
            "Parcel could not be located; declared lost after a trace",
        )
        return
    if roll < 0.08:
        s["status"] = "returned_to_sender"
        _add_event(
            events, s, _at(estimated, 16, 30), "exception", there, "Delivery attempted; recipient unavailable"
        )
        back = add_business_days(estimated, transit + 1)
        if back <= TODAY:
            _add_event(events, s, _at(back, 14, 0), "returned_to_sender", here, "Returned to sender")
        return
    _deliver(rng, s, estimated, there, events)


def _deliver(rng: random.Random, s: Row, day: datetime.date, place: str, events: list[Row]) -> None:
    s["status"] = "delivered"
    _add_event(events, s, _at(day, 8, rng.randint(0, 40)), "out_for_delivery", place, "Out for delivery")
    s["delivered_at"] = _at(day, rng.randint(10, 18), rng.randint(0, 59))
    _add_event(events, s, s["delivered_at"], "delivered", place, "Delivered")


def _delivery_change(
    rng: random.Random,
    c: Row,
    s: Row,
    destination: Row,
    domestic: list[Row],
    origin: Row,
    depots: dict[str, tuple[Any, ...]],
    changes: list[Row],
    events: list[Row],
) -> None:
    """A redirect or a hold asked for the day after the label was made (before delivery)."""
    created = datetime.date.fromisoformat(s["created_at"][:10])
    when = _at(created + datetime.timedelta(days=1), 7, rng.randint(0, 59))
    when = min(when, NOW)
    others = [a for a in domestic if a["address_id"] not in (destination["address_id"], origin["address_id"])]
    holders = [d for d in depots.values() if d[6] == destination["region"] and d[8]]
    if s["status"] == "delivered":
        recent = s["estimated_delivery"] >= (TODAY - datetime.timedelta(days=5)).isoformat()
        kind = "hold_at_depot" if holders and (recent or not others) else "redirect"
    else:
        kind = "redirect" if others and (rng.random() < 0.6 or not holders) else "hold_at_depot"
    if (kind == "redirect" and not others) or (kind == "hold_at_depot" and not holders):
        return
    if kind == "redirect":
        new = rng.choice(others)
        changes.append(
            {
                "change_id": "",
                "tracking_number": s["tracking_number"],
                "kind": "redirect",
                "previous_address_id": destination["address_id"],
                "new_address_id": new["address_id"],
                "depot_id": None,
                "fee_cents": REDIRECT_FEE_CENTS[c["tier"]],
                "created_at": when,
            }
        )
        s["to_address_id"] = new["address_id"]
        for e in events:
            if e["tracking_number"] == s["tracking_number"] and e["code"] in (
                "out_for_delivery",
                "delivered",
            ):
                e["location"] = _place(new)
        _add_event(
            events,
            s,
            when,
            "delivery_change",
            _place(destination),
            f"Redirected by the shipper to {_place(new)}",
        )
        return
    depot = rng.choice(holders)
    changes.append(
        {
            "change_id": "",
            "tracking_number": s["tracking_number"],
            "kind": "hold_at_depot",
            "previous_address_id": destination["address_id"],
            "new_address_id": None,
            "depot_id": depot[0],
            "fee_cents": 0,
            "created_at": when,
        }
    )
    s["hold_depot_id"] = depot[0]
    _add_event(
        events,
        s,
        when,
        "delivery_change",
        _place(destination),
        f"Hold for collection requested at {depot[1]}",
    )
    if s["status"] == "delivered":
        arrived = datetime.date.fromisoformat(s["estimated_delivery"])
        place = f"{depot[3]}, {depot[4]}"
        events[:] = [
            e
            for e in events
            if not (
                e["tracking_number"] == s["tracking_number"]
                and e["code"] in ("out_for_delivery", "delivered")
            )
        ]
        _add_event(
            events, s, _at(arrived, 9, 30), "held_at_depot", place, f"Held for collection at {depot[1]}"
        )
        if arrived >= TODAY - datetime.timedelta(days=depot[9] - 2) or rng.random() < 0.5:
            s["status"], s["delivered_at"] = "held_at_depot", None
        else:
            collected = min(
                arrived + datetime.timedelta(days=rng.randint(1, 3)), TODAY - datetime.timedelta(days=1)
            )
            s["delivered_at"] = _at(collected, rng.randint(10, 18), rng.randint(0, 59))
            _add_event(events, s, s["delivered_at"], "delivered", place, "Collected at the depot")


def held_parcels(shipments: list[Row]) -> list[Row]:
    return [s for s in shipments if s["status"] == "held_at_depot"]


# --------------------------------------------------------------------------- claims


def _claims(rng: random.Random, shipments: list[Row]) -> list[Row]:
    claims: list[Row] = []
    statuses = [s for s, w in CLAIM_STATUS_WEIGHTS for _ in range(w)]
    for s in shipments:
        if s["status"] == "lost":
            if rng.random() < 0.4:
                continue  # some lost parcels have no claim yet
            kind, start = (
                "lost",
                datetime.date.fromisoformat(s["estimated_delivery"]) + datetime.timedelta(days=4),
            )
            window_end = datetime.date.fromisoformat(s["ship_date"]) + datetime.timedelta(days=60)
        elif s["status"] == "delivered" and rng.random() < 0.12:
            kind = "damaged"
            start = datetime.date.fromisoformat(s["delivered_at"][:10]) + datetime.timedelta(days=1)
            window_end = start + datetime.timedelta(days=29)
        else:
            continue
        end = min(window_end, TODAY - datetime.timedelta(days=1))
        if end < start:
            continue
        filed = _day(rng, start, end)
        cap = s["declared_value_cents"] if s["insured"] else min(s["declared_value_cents"], 10000)
        amount = max(500, (cap * rng.randint(40, 100) // 100) // 100 * 100)
        amount = min(amount, cap)
        status = rng.choice(statuses)
        decided = None
        if status in ("approved", "denied", "paid"):
            decided_day = min(
                filed + datetime.timedelta(days=rng.randint(2, 12)), TODAY - datetime.timedelta(days=1)
            )
            decided = _at(max(decided_day, filed), 16, rng.randint(0, 59))
        claims.append(
            {
                "claim_id": "",
                "tracking_number": s["tracking_number"],
                "customer_id": s["customer_id"],
                "kind": kind,
                "amount_cents": amount,
                "status": status,
                "description": rng.choice(LOST_TEXTS if kind == "lost" else DAMAGE_TEXTS),
                "filed_at": _at(filed, 9, rng.randint(0, 59)),
                "decided_at": decided,
            }
        )
    claims.sort(key=lambda x: (x["filed_at"], x["tracking_number"]))
    base = rng.randint(100, 400)
    for i, x in enumerate(claims, start=1):
        x["claim_id"] = f"CLM{base + i:05d}"
    return claims


# --------------------------------------------------------------------------- pickups


def _business_days(start: datetime.date, end: datetime.date) -> list[datetime.date]:
    days = []
    day = start
    while day <= end:
        if day.weekday() < 5:
            days.append(day)
        day += datetime.timedelta(days=1)
    return days


def _pickups(rng: random.Random, customers: list[Row], addresses: list[Row], overdue: list[str]) -> list[Row]:
    capacity = {d[0]: d[7] for d in DEPOTS}
    book: dict[str, list[Row]] = {}
    for a in addresses:
        if a["country"] == "US":
            book.setdefault(a["customer_id"], []).append(a)
    past = _business_days(datetime.date(2026, 7, 1), TODAY - datetime.timedelta(days=1))
    future = _business_days(TODAY + datetime.timedelta(days=1), TODAY + datetime.timedelta(days=14))
    booked: dict[tuple[str, str], int] = {}
    taken: list[tuple[str, str]] = []
    pickups: list[Row] = []

    def add(c: Row, a: Row, day: datetime.date, status: str) -> None:
        key = (a["address_id"], day.isoformat())
        if key in taken:
            return
        depot_day = (a["depot_id"], day.isoformat())
        if status == "scheduled":
            if booked.get(depot_day, 0) >= capacity[a["depot_id"]]:
                return
            booked[depot_day] = booked.get(depot_day, 0) + 1
        taken.append(key)
        lead = rng.randint(1, 6)
        made = min(day - datetime.timedelta(days=lead), TODAY)
        pickups.append(
            {
                "pickup_id": "",
                "customer_id": c["customer_id"],
                "address_id": a["address_id"],
                "depot_id": a["depot_id"],
                "pickup_date": day.isoformat(),
                "window": rng.choice(WINDOWS),
                "parcel_count": rng.randint(1, 12),
                "status": status,
                "created_at": _at(made, rng.randint(8, 13), rng.randint(0, 59)),
            }
        )

    for c in customers:
        own = book[c["customer_id"]]
        held = c["customer_id"] in overdue
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
            roll = rng.random()
            a = rng.choice(own)
            if roll < 0.5 or held:
                add(
                    c,
                    a,
                    rng.choice(past),
                    rng.choice(["completed", "completed", "completed", "missed", "cancelled"]),
                )
            elif roll < 0.6:
                add(c, a, TODAY, "scheduled")
            else:
                add(
                    c, a, rng.choice(future), rng.choice(["scheduled", "scheduled", "scheduled", "cancelled"])
                )
    # One depot fully booked on one future day, so capacity bites.
    busy = next(d for d in DEPOTS if d[0] == "dep_chi")
    day = future[3]
    for c in customers:
        if c["customer_id"] in overdue:
            continue
        for a in book[c["customer_id"]]:
            if a["depot_id"] == busy[0] and booked.get((busy[0], day.isoformat()), 0) < busy[7]:
                add(c, a, day, "scheduled")
    pickups.sort(key=lambda p: (p["created_at"], p["address_id"]))
    base = rng.randint(2000, 3000)
    for i, p in enumerate(pickups, start=1):
        p["pickup_id"] = f"PU{base + i:06d}"
    return pickups


# --------------------------------------------------------------------------- invoices

PERIODS = [
    ("2026-06", "2026-07-01", "2026-07-31"),
    ("2026-07", "2026-08-01", "2026-08-31"),
    ("2026-08", "2026-09-01", "2026-10-01"),
    ("2026-09", None, "2026-10-31"),
]


def _invoices(
    rng: random.Random, customers: list[Row], shipments: list[Row], changes: list[Row], overdue: list[str]
) -> tuple[list[Row], list[Row]]:
    names = {s[0]: s[1] for s in SERVICES}
    charges: dict[tuple[str, str], list[tuple[str | None, str, str, int]]] = {}
    by_tn = {s["tracking_number"]: s for s in shipments}
    for s in sorted(shipments, key=lambda x: (x["created_at"], x["tracking_number"])):
        key = (s["customer_id"], s["created_at"][:7])
        lines = charges.setdefault(key, [])
        if s["kind"] == "return":
            lines.append(
                (s["tracking_number"], "return_label", f"Return label for {s['return_of']}", s["price_cents"])
            )
        else:
            lines.append(
                (s["tracking_number"], "shipping", f"{names[s['service_id']]} shipment", s["price_cents"])
            )
            if s["insured"]:
                lines.append((s["tracking_number"], "insurance", "Insurance", s["insurance_cents"]))
        if s["status"] == "cancelled":
            credit = s["price_cents"] + s["insurance_cents"]
            lines.append((s["tracking_number"], "credit", f"Label {s['tracking_number']} cancelled", -credit))
    for x in changes:
        if x["fee_cents"]:
            s = by_tn[x["tracking_number"]]
            charges.setdefault((s["customer_id"], x["created_at"][:7]), []).append(
                (s["tracking_number"], "redirect_fee", f"Redirect of {s['tracking_number']}", x["fee_cents"])
            )
    invoices: list[Row] = []
    items: list[Row] = []
    for seq, c in enumerate(customers, start=1):
        cid = c["customer_id"]
        for period, issued, due in PERIODS:
            lines = list(charges.get((cid, period), []))
            if issued is not None and not lines:
                continue
            invoice_id = f"INV{period[2:4]}{period[5:7]}{seq:04d}"
            paid_at = None
            if issued is None:
                status = "open"
            elif period == "2026-07" and cid in overdue:
                status = "overdue"
                lines.append((None, "late_fee", "Late payment fee", LATE_FEE_CENTS))
            elif period == "2026-08" and rng.random() < 0.6:
                status = "issued"
            else:
                status = "paid"
                issue_day = datetime.date.fromisoformat(issued)
                paid_day = _day(
                    rng,
                    issue_day + datetime.timedelta(days=1),
                    min(datetime.date.fromisoformat(due), TODAY - datetime.timedelta(days=1)),
                )
                paid_at = _at(paid_day, rng.randint(8, 20), rng.randint(0, 59))
            invoices.append(
                {
                    "invoice_id": invoice_id,
                    "customer_id": cid,
                    "period": period,
                    "status": status,
                    "issued_at": issued,
                    "due_date": due,
                    "paid_at": paid_at,
                }
            )
            for no, (tn, kind, text, cents) in enumerate(lines, start=1):
                items.append(
                    {
                        "invoice_id": invoice_id,
                        "item_no": no,
                        "tracking_number": tn,
                        "kind": kind,
                        "description": text,
                        "amount_cents": cents,
                    }
                )
    return invoices, items
