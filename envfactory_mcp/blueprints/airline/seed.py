"""Deterministic seed state of the airline environment, drawn from small word lists.

Everything comes from the ``random.Random`` passed in: lists are walked in a fixed order,
never through sets or dict iteration of unordered data, so one seed gives one state.
The environment clock is 2026-06-01T12:00:00Z: flights before it have landed (a few were
cancelled), flights after it are scheduled (some delayed or cancelled).
"""

from __future__ import annotations

import datetime
import itertools
import math
import random
from typing import Any

Rows = dict[str, list[dict[str, Any]]]

CLOCK = datetime.datetime(2026, 6, 1, 12, 0)
FIRST_DAY = datetime.date(2026, 5, 21)
DAYS = 18  # flights are on sale from 2026-05-21 to 2026-06-07

# (code, name, city, latitude, longitude)
AIRPORTS = [
    ("ATL", "Hartsfield-Jackson Atlanta International Airport", "Atlanta", 33.64, -84.43),
    ("BOS", "Boston Logan International Airport", "Boston", 42.36, -71.01),
    ("DEN", "Denver International Airport", "Denver", 39.86, -104.67),
    ("DFW", "Dallas/Fort Worth International Airport", "Dallas", 32.90, -97.04),
    ("DTW", "Detroit Metropolitan Wayne County Airport", "Detroit", 42.21, -83.35),
    ("IAH", "George Bush Intercontinental Airport", "Houston", 29.99, -95.34),
    ("JFK", "John F. Kennedy International Airport", "New York", 40.64, -73.78),
    ("LAS", "Harry Reid International Airport", "Las Vegas", 36.08, -115.15),
    ("LAX", "Los Angeles International Airport", "Los Angeles", 33.94, -118.41),
    ("MIA", "Miami International Airport", "Miami", 25.79, -80.29),
    ("MSP", "Minneapolis-Saint Paul International Airport", "Minneapolis", 44.88, -93.22),
    ("ORD", "O'Hare International Airport", "Chicago", 41.98, -87.90),
    ("PHL", "Philadelphia International Airport", "Philadelphia", 39.87, -75.24),
    ("PHX", "Phoenix Sky Harbor International Airport", "Phoenix", 33.43, -112.01),
    ("SEA", "Seattle-Tacoma International Airport", "Seattle", 47.45, -122.31),
    ("SFO", "San Francisco International Airport", "San Francisco", 37.62, -122.38),
]
# City pairs flown both ways; the first six have two flights a day each way.
ROUTES = [
    ("JFK", "LAX"),
    ("JFK", "SFO"),
    ("ORD", "LAX"),
    ("ATL", "JFK"),
    ("BOS", "ORD"),
    ("DFW", "DEN"),
    ("SEA", "SFO"),
    ("MIA", "JFK"),
    ("LAS", "LAX"),
    ("ATL", "MIA"),
    ("PHX", "DEN"),
    ("IAH", "ORD"),
    ("MSP", "SEA"),
    ("DTW", "BOS"),
    ("PHL", "ATL"),
    ("DFW", "LAX"),
]
FIRST_NAMES = [
    "Aisha", "Ben", "Carmen", "Daniel", "Elena", "Farah", "George", "Hana", "Ivan", "Julia",
    "Kenji", "Lucia", "Marcus", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Samuel", "Tara",
    "Umar", "Valeria", "Wei", "Ximena", "Yusuf", "Zoe", "Amelia", "Bruno", "Chloe", "Diego",
    "Emma", "Felix", "Grace", "Hugo", "Isla", "Jonah", "Keira", "Liam", "Maya", "Noah",
]  # fmt: skip
LAST_NAMES = [
    "Anderson", "Bianchi", "Chen", "Dubois", "Evans", "Fischer", "Garcia", "Hughes", "Ito", "Jensen",
    "Kowalski", "Lopez", "Moreau", "Nguyen", "Okafor", "Patel", "Quinto", "Rossi", "Silva", "Tanaka",
    "Ueda", "Varga", "Walsh", "Xu", "Yilmaz", "Zimmerman", "Brooks", "Castillo", "Dalton", "Ferreira",
]  # fmt: skip
EMAIL_DOMAINS = ["example.com", "mail.example", "inbox.example", "post.example"]
CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]
CABINS = ["basic_economy", "economy", "business"]
FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 4},
}
CANCEL_REASONS = ["change of plans", "airline cancelled flight", "health", "weather", "other"]
CODE_LETTERS = "ABCDEFGHJKLMPQRSTUVWXYZ23456789"

N_USERS = 40
N_RESERVATIONS = 180


def generate_seed(rng: random.Random) -> Rows:
    airports = [{"code": c, "airport_name": n, "city": city} for c, n, city, _, _ in AIRPORTS]
    flights, flight_dates = _flights(rng)
    users, methods = _users(rng)
    saved = _saved_passengers(rng, users)
    reservations, segments, passengers, payments = _reservations(
        rng, users, methods, saved, flights, flight_dates
    )
    return {
        "airports": airports,
        "flights": flights,
        "flight_dates": flight_dates,
        "users": users,
        "saved_passengers": saved,
        "payment_methods": methods,
        "reservations": reservations,
        "reservation_flights": segments,
        "reservation_passengers": passengers,
        "payments": payments,
    }


def _miles(a: str, b: str) -> float:
    where = {c: (lat, lon) for c, _, _, lat, lon in AIRPORTS}
    (la1, lo1), (la2, lo2) = where[a], where[b]
    p1, p2, dl = math.radians(la1), math.radians(la2), math.radians(lo2 - lo1)
    cos = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl)
    return 3959 * math.acos(max(-1.0, min(1.0, cos)))


def _day(index: int) -> str:
    return (FIRST_DAY + datetime.timedelta(days=index)).isoformat()


def _flights(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    flights: list[dict[str, Any]] = []
    dates: list[dict[str, Any]] = []
    numbers = sorted(rng.sample(range(100, 1000), len(ROUTES) * 4))
    rng.shuffle(numbers)
    for index, (a, b) in enumerate(ROUTES):
        miles = _miles(a, b)
        minutes = 40 + int(miles / 8.2)  # taxi, climb and ~490 mph cruise
        economy = 6000 + int(miles * 11)  # cents
        for origin, destination in ((a, b), (b, a)):
            departures = sorted(rng.sample(range(6 * 60, 21 * 60, 5), 2 if index < 6 else 1))
            for dep in departures:
                number = f"HAT{numbers.pop():03d}"
                arr = (dep + minutes) % (24 * 60)
                flights.append(
                    {
                        "flight_number": number,
                        "origin": origin,
                        "destination": destination,
                        "departure_time": f"{dep // 60:02d}:{dep % 60:02d}",
                        "arrival_time": f"{arr // 60:02d}:{arr % 60:02d}",
                    }
                )
                for d in range(DAYS):
                    dates.append(_flight_date(rng, number, d, dep, economy))
    flights.sort(key=lambda f: f["flight_number"])
    dates.sort(key=lambda r: (r["flight_number"], r["date"]))
    return flights, dates


def _flight_date(rng: random.Random, number: str, day: int, dep_minutes: int, economy: int) -> dict[str, Any]:
    date = _day(day)
    departs = datetime.datetime.combine(
        FIRST_DAY + datetime.timedelta(days=day), datetime.time()
    ) + datetime.timedelta(minutes=dep_minutes)
    roll = rng.random()
    if departs <= CLOCK:
        status = "cancelled" if roll < 0.04 else "landed"
        if status == "landed" and CLOCK - departs < datetime.timedelta(hours=2):
            status = "departed"
    elif departs - CLOCK < datetime.timedelta(days=3):
        status = "cancelled" if roll < 0.07 else "delayed" if roll < 0.3 else "scheduled"
    else:
        status = "cancelled" if roll < 0.03 else "scheduled"
    factor = rng.uniform(0.8, 1.3)
    eco = int(economy * factor) // 100 * 100 + rng.choice([0, 0, 99])
    return {
        "flight_number": number,
        "date": date,
        "status": status,
        "seats_basic_economy": rng.choice([0, 0, *range(1, 15)]),
        "seats_economy": rng.choice([0, *range(1, 40)]),
        "seats_business": rng.choice([0, 0, *range(1, 10)]),
        "price_basic_economy_cents": int(eco * 0.72) // 100 * 100,
        "price_economy_cents": eco,
        "price_business_cents": int(eco * 2.6) // 100 * 100 + 99,
    }


def _users(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    pairs = list(itertools.product(FIRST_NAMES, LAST_NAMES))
    picks = rng.sample(range(len(pairs)), N_USERS)
    users: list[dict[str, Any]] = []
    methods: list[dict[str, Any]] = []
    counters = {"credit_card": 0, "gift_card": 0, "certificate": 0}

    def method_id(kind: str) -> str:
        counters[kind] += rng.randint(1, 9)
        return f"{kind}_{counters[kind]:06d}"

    for u, pick in enumerate(picks, start=1):
        first, last = pairs[pick]
        user_id = f"user_{u:06d}"
        users.append(
            {
                "user_id": user_id,
                "first_name": first,
                "last_name": last,
                "email": f"{first}.{last}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}".lower(),
                "date_of_birth": _birthday(rng, 1950, 2004),
                "membership": rng.choices(["regular", "silver", "gold"], [0.5, 0.3, 0.2])[0],
            }
        )
        kinds = ["credit_card"] * rng.choice([1, 1, 2])
        if rng.random() < 0.45:
            kinds.append("gift_card")
        if rng.random() < 0.3:
            kinds.append("certificate")
        for kind in kinds:
            row: dict[str, Any] = {
                "payment_method_id": method_id(kind),
                "user_id": user_id,
                "kind": kind,
                "brand": None,
                "last_four": None,
                "balance_cents": None,
            }
            if kind == "credit_card":
                row["brand"] = rng.choice(CARD_BRANDS)
                row["last_four"] = f"{rng.randint(0, 9999):04d}"
            elif kind == "gift_card":
                low = rng.random() < 0.4  # nearly spent, so balance rules bite
                row["balance_cents"] = rng.randint(0, 4000) if low else rng.randint(100, 600) * 100
            else:
                row["balance_cents"] = rng.choice([5000, 10000, 15000, 25000])
            methods.append(row)
    return users, methods


def _saved_passengers(rng: random.Random, users: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The user first, then zero to four companions (family members share the last name)."""
    saved: list[dict[str, Any]] = []
    for user in users:
        people = [(user["first_name"], user["last_name"], user["date_of_birth"])]
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
            last = user["last_name"] if rng.random() < 0.6 else rng.choice(LAST_NAMES)
            first = rng.choice([n for n in FIRST_NAMES if n not in {p[0] for p in people}])
            people.append((first, last, _birthday(rng, 1945, 2022)))
        for first, last, dob in people:
            saved.append(
                {
                    "passenger_id": f"pax_{len(saved) + 1:06d}",
                    "user_id": user["user_id"],
                    "first_name": first,
                    "last_name": last,
                    "date_of_birth": dob,
                }
            )
    return saved


def _birthday(rng: random.Random, first: int, last: int) -> str:
    start = datetime.date(first, 1, 1)
    span = (datetime.date(last, 12, 31) - start).days
    return (start + datetime.timedelta(days=rng.randint(0, span))).isoformat()


def _code(rng: random.Random, taken: set[str]) -> str:
    while True:
        code = rng.choice(CODE_LETTERS.replace("N", "")) + "".join(rng.choice(CODE_LETTERS) for _ in range(5))
        if code not in taken:
            taken.add(code)
            return code


def _reservations(
    rng: random.Random,
    users: list[dict[str, Any]],
    methods: list[dict[str, Any]],
    saved: list[dict[str, Any]],
    flights: list[dict[str, Any]],
    flight_dates: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    by_route: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for f in flights:
        by_route.setdefault((f["origin"], f["destination"]), []).append(f)
    fd = {(r["flight_number"], r["date"]): r for r in flight_dates}
    methods_by_user: dict[str, list[dict[str, Any]]] = {}
    for m in methods:
        methods_by_user.setdefault(m["user_id"], []).append(m)
    owners = [u["user_id"] for u in users] + [
        rng.choice(users)["user_id"] for _ in range(N_RESERVATIONS - len(users))
    ]
    rng.shuffle(owners)
    users_by_id = {u["user_id"]: u for u in users}
    saved_by_user: dict[str, list[dict[str, Any]]] = {}
    for p in saved:
        saved_by_user.setdefault(p["user_id"], []).append(p)
    taken: set[str] = set()
    reservations: list[dict[str, Any]] = []
    segments: list[dict[str, Any]] = []
    passengers: list[dict[str, Any]] = []
    payments: list[dict[str, Any]] = []
    plans = []
    for user_id in owners:
        status = rng.choices(["active", "completed", "cancelled"], [0.62, 0.22, 0.16])[0]
        plans.append((_code(rng, taken), user_id, status))
    plans.sort()
    for code, user_id, status in plans:
        user = users_by_id[user_id]
        a, b = rng.choice(ROUTES)
        origin, destination = (a, b) if rng.random() < 0.5 else (b, a)
        round_trip = rng.random() < 0.55
        legs = _pick_legs(rng, status, origin, destination, round_trip, by_route, fd)
        if legs is None:  # no dates fit this status: book a later one-way instead
            status = "active"
            legs = _pick_legs(rng, status, origin, destination, False, by_route, fd)
            round_trip = False
        assert legs is not None
        cabin = rng.choices(CABINS, [0.3, 0.5, 0.2])[0]
        people = saved_by_user[user_id]
        count = min(len(people), rng.choices([1, 2, 3, 4, 5], [0.45, 0.3, 0.12, 0.08, 0.05])[0])
        travellers = (
            people[:1] + rng.sample(people[1:], count - 1)
            if rng.random() < 0.85
            else rng.sample(people, count)
        )
        first_day = legs[0]["date"]
        booked = _booked_at(rng, status, first_day)
        insurance = 1 if rng.random() < 0.3 else 0
        total_bags = rng.randint(0, 2 * count)
        nonfree = max(0, total_bags - FREE_BAGS[user["membership"]][cabin] * count)
        statuses = [leg["status"] for leg in legs]
        compensated = int(
            user["membership"] != "regular"
            and ("delayed" in statuses or "cancelled" in statuses)
            and rng.random() < 0.3
        )
        cancel_reason = None
        if status == "cancelled":
            cancel_reason = (
                "airline cancelled flight"
                if "cancelled" in statuses
                else rng.choice(["change of plans", "health", "weather", "other"])
            )
        reservations.append(
            {
                "reservation_id": code,
                "user_id": user_id,
                "origin": origin,
                "destination": destination,
                "trip_type": "round_trip" if round_trip else "one_way",
                "cabin": cabin,
                "status": status,
                "insurance": insurance,
                "total_bags": total_bags,
                "nonfree_bags": nonfree,
                "compensated": compensated,
                "created_at": booked,
                "cancel_reason": cancel_reason,
            }
        )
        fare_total = 0
        for number, leg in enumerate(legs, start=1):
            paid = int(leg[f"price_{cabin}_cents"] * rng.uniform(0.85, 1.1)) // 100 * 100 + rng.choice(
                [0, 99]
            )
            fare_total += paid
            segments.append(
                {
                    "reservation_id": code,
                    "segment_no": number,
                    "flight_number": leg["flight_number"],
                    "date": leg["date"],
                    "price_cents": paid,
                }
            )
        for number, person in enumerate(travellers, start=1):
            passengers.append(
                {
                    "reservation_id": code,
                    "passenger_no": number,
                    "first_name": person["first_name"],
                    "last_name": person["last_name"],
                    "date_of_birth": person["date_of_birth"],
                }
            )
        total = fare_total * count + nonfree * 5000 + insurance * 3000 * count
        cards = [m for m in methods_by_user[user_id] if m["kind"] == "credit_card"]
        method = rng.choice(methods_by_user[user_id])
        if method["kind"] != "credit_card" and rng.random() < 0.5:
            method = cards[0]
        _pay(payments, code, method["payment_method_id"], "payment", total, "booking", booked)
        if status == "cancelled":
            _pay(
                payments,
                code,
                method["payment_method_id"],
                "refund",
                total,
                "cancellation",
                _later(rng, booked),
            )
    return reservations, segments, passengers, payments


def _pick_legs(
    rng: random.Random,
    status: str,
    origin: str,
    destination: str,
    round_trip: bool,
    by_route: dict[tuple[str, str], list[dict[str, Any]]],
    fd: dict[tuple[str, str], dict[str, Any]],
) -> list[dict[str, Any]] | None:
    """Flight dates for a reservation of ``status``: completed trips flew (landed) before the
    clock; active ones are ahead (a few are under way); cancelled ones are anywhere."""
    for _ in range(40):
        if status == "completed":
            start = rng.randint(0, 8)
        elif status == "active":
            start = rng.randint(6, DAYS - 3) if rng.random() < 0.12 else rng.randint(11, DAYS - 1)
        else:
            start = rng.randint(0, DAYS - 1)
        days = [start]
        if round_trip:
            back = start + rng.randint(1, 6)
            if back >= DAYS:
                continue
            days.append(back)
        pairs = [(origin, destination), (destination, origin)][: len(days)]
        legs = [
            fd[(rng.choice(by_route[route])["flight_number"], _day(d))]
            for route, d in zip(pairs, days, strict=True)
        ]
        statuses = [leg["status"] for leg in legs]
        if status == "completed" and any(s != "landed" for s in statuses):
            continue
        if status == "active" and statuses[-1] in ("landed", "departed"):
            continue
        return legs
    return None


def _booked_at(rng: random.Random, status: str, first_day: str) -> str:
    """Booking time: before the first flight and before the clock; some active trips were
    booked within the last 24 hours."""
    departs = datetime.datetime.fromisoformat(first_day + "T06:00:00")
    latest = min(departs, CLOCK) - datetime.timedelta(hours=1)
    if status == "active" and departs > CLOCK and rng.random() < 0.3:
        moment = CLOCK - datetime.timedelta(minutes=rng.randint(30, 23 * 60))
    else:
        moment = latest - datetime.timedelta(minutes=rng.randint(26 * 60, 45 * 24 * 60))
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def _later(rng: random.Random, moment: str) -> str:
    at = datetime.datetime.fromisoformat(moment.replace("Z", ""))
    at = min(at + datetime.timedelta(minutes=rng.randint(60, 10 * 24 * 60)), CLOCK)
    return at.strftime("%Y-%m-%dT%H:%M:00Z")


def _pay(
    payments: list[dict[str, Any]], rid: str, method_id: str, kind: str, cents: int, reason: str, at: str
) -> None:
    payments.append(
        {
            "payment_id": f"pay_{len(payments) + 1:07d}",
            "reservation_id": rid,
            "payment_method_id": method_id,
            "kind": kind,
            "amount_cents": cents,
            "reason": reason,
            "created_at": at,
        }
    )
