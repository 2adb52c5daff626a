"""Deterministic seed state of the travel environment, drawn from small word lists.

Everything comes from the ``random.Random`` passed in: lists are walked in a fixed order,
never through sets or dict iteration of unordered data, so one seed gives one state. The
environment clock is 2026-06-18T15:00:00Z: hotel rooms and rental cars are on sale for the
nights and days from June 18 to July 15, 2026; earlier stays and rentals are history.
"""

from __future__ import annotations

import datetime
import itertools
import random
from typing import Any

Row = dict[str, Any]
Rows = dict[str, list[Row]]

TODAY = datetime.date(2026, 6, 18)
NOW = "2026-06-18T15:00:00Z"
WINDOW_DAYS = 28  # nights / days on sale: TODAY .. TODAY + 27 (2026-07-15)
WINDOW_END = TODAY + datetime.timedelta(days=WINDOW_DAYS - 1)
N_TRAVELERS = 44
MAX_ROOMS = {"member": 2, "silver": 2, "gold": 3, "platinum": 4}
YOUNG_DRIVER_FEE_PER_DAY = 2500
ONE_WAY_FEE = 9500

FIRST_NAMES = [
    "Aisha", "Ben", "Carla", "Dmitri", "Elena", "Felix", "Grace", "Hiro", "Ingrid", "Jonas",
    "Keisha", "Liam", "Maya", "Noah", "Olivia", "Pedro", "Quinn", "Rosa", "Samir", "Tara",
    "Umar", "Vera", "Wes", "Ximena", "Yusuf", "Zoe", "Amara", "Bruno", "Chloe", "Diego",
]  # fmt: skip
LAST_NAMES = [
    "Adler", "Brooks", "Castro", "Dubois", "Ellis", "Fischer", "Garcia", "Hughes", "Iyer", "Jensen",
    "Khan", "Lopez", "Moreau", "Nakamura", "O'Brien", "Patel", "Rossi", "Schmidt", "Tanaka", "Vogel",
    "Walsh", "Yilmaz", "Zimmerman", "Novak", "Okafor",
]  # fmt: skip
EMAIL_DOMAINS = ["example.com", "mail.example", "inbox.example", "post.example"]
HOME_CITIES = [
    ("Boston", "MA"), ("Chicago", "IL"), ("Atlanta", "GA"), ("Phoenix", "AZ"), ("Portland", "OR"),
    ("Minneapolis", "MN"), ("Nashville", "TN"), ("San Diego", "CA"), ("Philadelphia", "PA"),
    ("Columbus", "OH"), ("Raleigh", "NC"), ("Kansas City", "MO"),
]  # fmt: skip
TIER_WEIGHTS = [("member", 45), ("silver", 25), ("gold", 18), ("platinum", 12)]
BRAND_NAMES = {"visa": "Visa", "mastercard": "Mastercard", "amex": "Amex", "discover": "Discover"}

# (name, city, state, stars, free-cancellation days, [(room name, guests, refundable dollars)])
HOTELS: list[tuple[str, str, str, int, int, list[tuple[str, int, int]]]] = [
    ("The Larimer House", "Denver", "CO", 4, 2, [("Standard King", 2, 189), ("Double Queen", 4, 209), ("Junior Suite", 3, 289)]),
    ("Red Rocks Inn", "Denver", "CO", 3, 1, [("Standard Queen", 2, 129), ("Double Queen", 4, 149), ("Family Room", 5, 179)]),
    ("Pike Harbor Hotel", "Seattle", "WA", 4, 3, [("City View King", 2, 229), ("Double Queen", 4, 249), ("Bay Suite", 3, 359)]),
    ("Emerald Lodge", "Seattle", "WA", 3, 1, [("Standard Queen", 2, 139), ("Double Queen", 4, 159), ("Studio", 3, 189)]),
    ("Congress Avenue Hotel", "Austin", "TX", 5, 7, [("Deluxe King", 2, 319), ("Double Queen", 4, 339), ("Penthouse Suite", 4, 599)]),
    ("Riverside Motor Lodge", "Austin", "TX", 2, 1, [("Standard Queen", 2, 99), ("Double Queen", 4, 119), ("Poolside King", 2, 129)]),
    ("Lakeside Resort Orlando", "Orlando", "FL", 4, 3, [("Garden King", 2, 199), ("Family Suite", 6, 299), ("Lake View Double", 4, 239)]),
    ("Sunshine Suites", "Orlando", "FL", 3, 2, [("Standard King", 2, 119), ("Double Queen", 4, 139), ("Kids Suite", 5, 179)]),
]  # fmt: skip
# (location id, counter name, city, state)
LOCATIONS = [
    ("DEN-APT", "Denver International Airport", "Denver", "CO"),
    ("DEN-DTN", "Denver Union Station", "Denver", "CO"),
    ("SEA-APT", "Seattle-Tacoma Airport", "Seattle", "WA"),
    ("SEA-DTN", "Seattle Downtown", "Seattle", "WA"),
    ("AUS-APT", "Austin-Bergstrom Airport", "Austin", "TX"),
    ("ORL-APT", "Orlando International Airport", "Orlando", "FL"),
]
# (ACRISS class code, name, seats, daily dollars, minimum age)
CAR_CLASSES = [
    ("ECAR", "Economy (Kia Rio or similar)", 5, 42, 21),
    ("CCAR", "Compact (Toyota Corolla or similar)", 5, 49, 21),
    ("ICAR", "Midsize (Toyota Camry or similar)", 5, 58, 21),
    ("SFAR", "Standard SUV (Ford Explorer or similar)", 7, 79, 21),
    ("PCAR", "Premium (BMW 5 Series or similar)", 5, 119, 25),
]
VOUCHER_REASONS = ["goodwill", "service recovery", "loyalty reward", "cancellation credit"]
TRIP_NAMES = [
    "{city} getaway",
    "{city} in {month}",
    "Weekend in {city}",
    "{city} family trip",
    "{city} conference",
]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December"]  # fmt: skip
LOCATOR_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def generate_seed(rng: random.Random) -> Rows:
    hotels, room_types = _hotels()
    locations, classes = _locations(), _classes()
    travelers, cards = _travelers(rng)
    vouchers = _vouchers(rng, travelers)
    bookings = _bookings(rng, travelers, room_types)
    rentals, trips = _rentals_and_trips(rng, travelers, bookings, room_types, hotels)
    payments, refunds = _payments(rng, travelers, cards, vouchers, bookings, rentals)
    return {
        "travelers": travelers,
        "payment_methods": cards,
        "hotels": hotels,
        "room_types": room_types,
        "room_nights": _room_nights(rng, room_types, bookings),
        "hotel_bookings": bookings,
        "rental_locations": locations,
        "car_classes": classes,
        "car_availability": _car_availability(rng, rentals),
        "car_rentals": rentals,
        "trips": trips,
        "vouchers": vouchers,
        "payments": payments,
        "refunds": refunds,
    }


# --------------------------------------------------------------------------- catalog


def _hotels() -> tuple[list[Row], list[Row]]:
    hotels: list[Row] = []
    rooms: list[Row] = []
    for h, (name, city, state, stars, cancel_days, types) in enumerate(HOTELS, start=1):
        hotel_id = f"htl_{h:04d}"
        hotels.append(
            {
                "hotel_id": hotel_id,
                "name": name,
                "city": city,
                "state": state,
                "stars": stars,
                "free_cancel_days": cancel_days,
            }
        )
        for room_name, guests, dollars in types:
            rooms.append(
                {
                    "room_type_id": f"rm_{len(rooms) + 1:05d}",
                    "hotel_id": hotel_id,
                    "name": room_name,
                    "max_guests": guests,
                    "refundable_rate_cents": dollars * 100,
                    "non_refundable_rate_cents": round(dollars * 0.85) * 100 - 100,
                }
            )
    return hotels, rooms


def _locations() -> list[Row]:
    return [{"location_id": i, "name": n, "city": c, "state": s} for i, n, c, s in LOCATIONS]


def _classes() -> list[Row]:
    return [
        {"class_id": c, "name": n, "seats": seats, "daily_rate_cents": rate * 100, "min_age": age}
        for c, n, seats, rate, age in CAR_CLASSES
    ]


# --------------------------------------------------------------------------- people


def _day(rng: random.Random, start: datetime.date, end: datetime.date) -> datetime.date:
    return start + datetime.timedelta(days=rng.randint(0, max((end - start).days, 0)))


def _moment(rng: random.Random, day: datetime.date) -> str:
    moment = f"{day.isoformat()}T{rng.randint(7, 21):02d}:{rng.randint(0, 59):02d}:00Z"
    return min(moment, NOW) if day == TODAY else moment


def _age_on(birth: str, day: datetime.date) -> int:
    born = datetime.date.fromisoformat(birth)
    return day.year - born.year - (1 if (day.month, day.day) < (born.month, born.day) else 0)


def _travelers(rng: random.Random) -> tuple[list[Row], list[Row]]:
    pairs = list(itertools.product(FIRST_NAMES, LAST_NAMES))
    picks = rng.sample(range(len(pairs)), N_TRAVELERS)
    tiers = [t for t, w in TIER_WEIGHTS for _ in range(w)]
    travelers: list[Row] = []
    cards: list[Row] = []
    counter = 0
    for n, pick in enumerate(picks, start=1):
        first, last = pairs[pick]
        if n % 16 == 0:  # a few too young to rent a car (19 or 20)
            birth = _day(rng, datetime.date(2005, 8, 1), datetime.date(2007, 5, 31))
        elif n % 7 == 0:  # young drivers (21 to 24) who pay the surcharge
            birth = _day(rng, datetime.date(2001, 9, 1), datetime.date(2005, 4, 30))
        else:
            birth = _day(rng, datetime.date(1952, 1, 1), datetime.date(1999, 12, 31))
        city, state = rng.choice(HOME_CITIES)
        handle = "".join(ch for ch in f"{first}.{last}".lower() if ch.isalnum() or ch == ".")
        travelers.append(
            {
                "traveler_id": f"trv_{n:06d}",
                "first_name": first,
                "last_name": last,
                "date_of_birth": birth.isoformat(),
                "email": f"{handle}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}",
                "tier": rng.choice(tiers),
                "home_city": city,
                "home_state": state,
                "member_since": _day(rng, datetime.date(2015, 1, 1), datetime.date(2025, 12, 31)).isoformat(),
            }
        )
        count = 2 if rng.random() < 0.4 else 1
        for k in range(count):
            counter += rng.randint(1, 6)
            brand = rng.choice(list(BRAND_NAMES))
            kind = rng.choice(["credit_card", "credit_card", "debit_card"])
            last_four = f"{rng.randint(0, 9999):04d}"
            if k == 1 and rng.random() < 0.45:  # an old card, expired
                expires = f"{rng.choice([2025, 2026])}-{rng.randint(1, 5):02d}"
            else:
                expires = f"{rng.randint(2026, 2030)}-{rng.randint(1, 12):02d}"
                if expires < "2026-06":
                    expires = f"{rng.randint(2027, 2030)}-{rng.randint(1, 12):02d}"
            cards.append(
                {
                    "payment_method_id": f"card_{counter:06d}",
                    "traveler_id": f"trv_{n:06d}",
                    "kind": kind,
                    "brand": brand,
                    "last_four": last_four,
                    "label": f"{BRAND_NAMES[brand]} {'debit ' if kind == 'debit_card' else ''}ending {last_four}",
                    "expires": expires,
                }
            )
    return travelers, cards


def _vouchers(rng: random.Random, travelers: list[Row]) -> list[Row]:
    vouchers: list[Row] = []
    for t in travelers:
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            issued = _day(rng, datetime.date(2025, 3, 1), datetime.date(2026, 6, 10))
            expires = issued + datetime.timedelta(days=365)
            amount = rng.choice([50, 75, 100, 150, 200]) * 100
            vouchers.append(
                {
                    "voucher_id": "",
                    "traveler_id": t["traveler_id"],
                    "reason": rng.choice(VOUCHER_REASONS),
                    "amount_cents": amount,
                    "balance_cents": amount,
                    "status": "expired" if expires < TODAY else "active",
                    "issued_on": issued.isoformat(),
                    "expires_on": expires.isoformat(),
                }
            )
    vouchers.sort(key=lambda v: (v["issued_on"], v["traveler_id"]))
    for i, v in enumerate(vouchers, start=1):
        v["voucher_id"] = f"TV{550100 + i * 7:06d}"
    return vouchers


# --------------------------------------------------------------------------- hotel bookings


def _bookings(rng: random.Random, travelers: list[Row], room_types: list[Row]) -> list[Row]:
    bookings: list[Row] = []
    statuses = ["confirmed"] * 5 + ["checked_in", "completed", "completed", "cancelled"]
    for t in travelers:
        for _ in range(rng.choice([1, 2, 2, 3, 3, 4])):
            status = rng.choice(statuses)
            room = rng.choice(room_types)
            if status == "confirmed":
                check_in = _day(rng, TODAY, WINDOW_END - datetime.timedelta(days=1))
                if check_in == TODAY and rng.random() < 0.8:
                    check_in += datetime.timedelta(days=rng.randint(1, 5))
                nights = rng.randint(1, min(5, (WINDOW_END - check_in).days + 1))
            elif status == "checked_in":
                nights = rng.randint(2, 6)
                check_in = TODAY - datetime.timedelta(days=rng.randint(0, nights - 1))
            elif status == "completed":
                nights = rng.randint(1, 5)
                check_in = _day(rng, datetime.date(2026, 2, 1), TODAY - datetime.timedelta(days=nights))
            else:
                nights = rng.randint(1, 5)
                check_in = _day(rng, datetime.date(2026, 4, 1), WINDOW_END - datetime.timedelta(days=nights))
            rate_type = "non_refundable" if rng.random() < 0.35 and status != "cancelled" else "refundable"
            rate = (
                room["refundable_rate_cents"]
                if rate_type == "refundable"
                else room["non_refundable_rate_cents"]
            )
            rooms = 1 if rng.random() < 0.75 else rng.randint(2, MAX_ROOMS[t["tier"]])
            lead = rng.randint(3, 60)
            created = min(check_in - datetime.timedelta(days=lead), TODAY - datetime.timedelta(days=1))
            bookings.append(
                {
                    "booking_id": "",
                    "traveler_id": t["traveler_id"],
                    "room_type_id": room["room_type_id"],
                    "check_in": check_in.isoformat(),
                    "check_out": (check_in + datetime.timedelta(days=nights)).isoformat(),
                    "nights": nights,
                    "rooms": rooms,
                    "rate_type": rate_type,
                    "nightly_rate_cents": rate,
                    "total_cents": rate * rooms * nights,
                    "cancellation_fee_cents": 0,
                    "status": status,
                    "created_at": _moment(rng, created),
                }
            )
    free_days = {r["room_type_id"]: HOTELS[int(r["hotel_id"][4:]) - 1][4] for r in room_types}
    for b in bookings:
        if b["status"] == "cancelled" and rng.random() < 0.4:
            # Cancelled after the free-cancellation day: one night per room was kept.
            deadline = datetime.date.fromisoformat(b["check_in"]) - datetime.timedelta(
                days=free_days[b["room_type_id"]]
            )
            if deadline < TODAY:
                b["cancellation_fee_cents"] = b["nightly_rate_cents"] * b["rooms"]
    bookings.sort(key=lambda b: (b["created_at"], b["traveler_id"]))
    for i, b in enumerate(bookings, start=1):
        b["booking_id"] = f"HB{204000 + i * 3:06d}"
    return bookings


def _nights(check_in: str, nights: int) -> list[str]:
    start = datetime.date.fromisoformat(check_in)
    return [(start + datetime.timedelta(days=i)).isoformat() for i in range(nights)]


def _room_nights(rng: random.Random, room_types: list[Row], bookings: list[Row]) -> list[Row]:
    ours: dict[tuple[str, str], int] = {}
    for b in bookings:
        if b["status"] in ("confirmed", "checked_in"):
            for night in _nights(b["check_in"], b["nights"]):
                key = (b["room_type_id"], night)
                ours[key] = ours.get(key, 0) + b["rooms"]
    rows: list[Row] = []
    for room in room_types:
        size = rng.randint(4, 12)
        for i in range(WINDOW_DAYS):
            night = (TODAY + datetime.timedelta(days=i)).isoformat()
            booked = ours.get((room["room_type_id"], night), 0)
            total = max(size, booked)
            roll = rng.random()
            # sold out, or some rooms left
            external = total - booked if roll < 0.05 else rng.randint(0, max(total - booked - 1, 0))
            rows.append(
                {
                    "room_type_id": room["room_type_id"],
                    "night": night,
                    "rooms_total": total,
                    "rooms_booked": booked + external,
                }
            )
    return rows


# --------------------------------------------------------------------------- cars and trips


def _rental(
    rng: random.Random,
    traveler: Row,
    class_row: tuple[str, str, int, int, int],
    pickup: str,
    dropoff: str,
    start: datetime.date,
    days: int,
    status: str,
) -> Row:
    class_id, _, _, dollars, _ = class_row
    age = _age_on(traveler["date_of_birth"], start)
    young = YOUNG_DRIVER_FEE_PER_DAY * days if age < 25 else 0
    one_way = ONE_WAY_FEE if pickup != dropoff and traveler["tier"] not in ("gold", "platinum") else 0
    lead = rng.randint(2, 45)
    created = min(start - datetime.timedelta(days=lead), TODAY - datetime.timedelta(days=1))
    return {
        "rental_id": "",
        "traveler_id": traveler["traveler_id"],
        "class_id": class_id,
        "pickup_location_id": pickup,
        "dropoff_location_id": dropoff,
        "pickup_date": start.isoformat(),
        "return_date": (start + datetime.timedelta(days=days)).isoformat(),
        "days": days,
        "driver_age": age,
        "daily_rate_cents": dollars * 100,
        "young_driver_fee_cents": young,
        "one_way_fee_cents": one_way,
        "total_cents": dollars * 100 * days + young + one_way,
        "status": status,
        "created_at": _moment(rng, created),
    }


def _class_for(rng: random.Random, age: int) -> tuple[str, str, int, int, int]:
    return rng.choice([c for c in CAR_CLASSES if c[4] <= age])


def _rentals_and_trips(
    rng: random.Random, travelers: list[Row], bookings: list[Row], room_types: list[Row], hotels: list[Row]
) -> tuple[list[Row], list[Row]]:
    city_of_room = {}
    for r in room_types:
        hotel = next(h for h in hotels if h["hotel_id"] == r["hotel_id"])
        city_of_room[r["room_type_id"]] = hotel["city"]
    by_id = {t["traveler_id"]: t for t in travelers}
    locations_in = {
        c: [loc[0] for loc in LOCATIONS if loc[2] == c] for c in ("Denver", "Seattle", "Austin", "Orlando")
    }
    all_locations = [loc[0] for loc in LOCATIONS]
    rentals: list[Row] = []
    trips: list[Row] = []
    trip_status = {
        "confirmed": "planned",
        "checked_in": "in_progress",
        "completed": "completed",
        "cancelled": "cancelled",
    }
    car_status = {
        "planned": "reserved",
        "in_progress": "picked_up",
        "completed": "returned",
        "cancelled": "cancelled",
    }
    loose_for_trips = 0
    for b in bookings:
        traveler = by_id[b["traveler_id"]]
        status = trip_status[b["status"]]
        if status == "planned" and b["check_in"] == TODAY.isoformat():
            continue  # a planned trip starts after today
        if rng.random() >= 0.5:
            continue
        city = city_of_room[b["room_type_id"]]
        check_in = datetime.date.fromisoformat(b["check_in"])
        month = MONTH_NAMES[check_in.month - 1]
        trip = {
            "trip_id": "",
            "traveler_id": b["traveler_id"],
            "name": rng.choice(TRIP_NAMES).format(city=city, month=month),
            "hotel_booking_id": b["booking_id"],
            "car_rental_id": None,
            "flight_locator": "".join(rng.choice(LOCATOR_CHARS) for _ in range(6))
            if rng.random() < 0.5
            else None,
            "status": status,
            "total_cents": 0,
            "created_at": b["created_at"],
        }
        age = _age_on(traveler["date_of_birth"], check_in)
        if age >= 21:
            pickup = rng.choice(locations_in[city])
            if rng.random() < 0.55:
                rental = _rental(
                    rng,
                    traveler,
                    _class_for(rng, age),
                    pickup,
                    pickup,
                    check_in,
                    b["nights"],
                    car_status[status],
                )
                rental["created_at"] = b["created_at"]
                rentals.append(rental)
                trip["car_rental_id"] = rental
            elif status == "planned" and loose_for_trips < 14:
                # A car reserved for the stay but not yet added to the trip.
                days = max(1, b["nights"] - rng.randint(0, 1))
                offset = rng.randint(0, b["nights"] - days)
                start = check_in + datetime.timedelta(days=offset)
                rentals.append(
                    _rental(rng, traveler, _class_for(rng, age), pickup, pickup, start, days, "reserved")
                )
                loose_for_trips += 1
        trips.append(trip)
    # Rentals of their own: history, cars out now, reservations and cancellations.
    statuses = ["reserved"] * 4 + ["picked_up", "returned", "returned", "cancelled"]
    for traveler in travelers:
        for _ in range(rng.choice([0, 1, 1, 2, 2])):
            status = rng.choice(statuses)
            if status == "reserved":
                start = _day(rng, TODAY, WINDOW_END - datetime.timedelta(days=1))
                days = rng.randint(1, min(7, (WINDOW_END - start).days + 1))
            elif status == "picked_up":
                days = rng.randint(2, 7)
                start = TODAY - datetime.timedelta(days=rng.randint(0, days - 1))
            elif status == "returned":
                days = rng.randint(1, 7)
                start = _day(rng, datetime.date(2026, 2, 1), TODAY - datetime.timedelta(days=days))
            else:
                days = rng.randint(1, 6)
                start = _day(rng, datetime.date(2026, 4, 1), WINDOW_END - datetime.timedelta(days=days))
            age = _age_on(traveler["date_of_birth"], start)
            if age < 21:
                continue
            pickup = rng.choice(all_locations)
            dropoff = pickup if rng.random() < 0.7 else rng.choice([x for x in all_locations if x != pickup])
            rentals.append(_rental(rng, traveler, _class_for(rng, age), pickup, dropoff, start, days, status))
    rentals.sort(key=lambda r: (r["created_at"], r["traveler_id"], r["pickup_date"]))
    for i, r in enumerate(rentals, start=1):
        r["rental_id"] = f"CR{318000 + i * 5:06d}"
    totals = {b["booking_id"]: b for b in bookings}
    trips.sort(key=lambda t: (t["created_at"], t["traveler_id"]))
    for i, t in enumerate(trips, start=1):
        t["trip_id"] = f"TR{104000 + i * 11:06d}"
        rental = t["car_rental_id"]
        hotel = totals[t["hotel_booking_id"]]
        total = hotel["cancellation_fee_cents"] if hotel["status"] == "cancelled" else hotel["total_cents"]
        if rental is not None:
            t["car_rental_id"] = rental["rental_id"]
            if rental["status"] != "cancelled":
                total += rental["total_cents"]
        t["total_cents"] = total
    return rentals, trips


def _car_availability(rng: random.Random, rentals: list[Row]) -> list[Row]:
    ours: dict[tuple[str, str, str], int] = {}
    for r in rentals:
        if r["status"] in ("reserved", "picked_up"):
            for day in _nights(r["pickup_date"], r["days"]):
                key = (r["pickup_location_id"], r["class_id"], day)
                ours[key] = ours.get(key, 0) + 1
    rows: list[Row] = []
    for location in LOCATIONS:
        for car in CAR_CLASSES:
            fleet = rng.randint(3, 9) if car[0] != "PCAR" else rng.randint(2, 4)
            for i in range(WINDOW_DAYS):
                day = (TODAY + datetime.timedelta(days=i)).isoformat()
                booked = ours.get((location[0], car[0], day), 0)
                total = max(fleet, booked)
                if rng.random() < 0.05:
                    external = total - booked  # none left
                else:
                    external = rng.randint(0, max(total - booked - 1, 0))
                rows.append(
                    {
                        "location_id": location[0],
                        "class_id": car[0],
                        "day": day,
                        "cars_total": total,
                        "cars_booked": booked + external,
                    }
                )
    return rows


# --------------------------------------------------------------------------- money


def _payments(
    rng: random.Random,
    travelers: list[Row],
    cards: list[Row],
    vouchers: list[Row],
    bookings: list[Row],
    rentals: list[Row],
) -> tuple[list[Row], list[Row]]:
    cards_of: dict[str, list[Row]] = {}
    for c in cards:
        cards_of.setdefault(c["traveler_id"], []).append(c)
    vouchers_of: dict[str, list[Row]] = {}
    for v in vouchers:
        vouchers_of.setdefault(v["traveler_id"], []).append(v)
    payments: list[Row] = []
    refunds: list[Row] = []
    items = [("hotel_booking_id", b["booking_id"], b) for b in bookings] + [
        ("car_rental_id", r["rental_id"], r) for r in rentals
    ]
    items.sort(key=lambda x: (x[2]["created_at"], x[1]))
    for column, key, item in items:
        owner = item["traveler_id"]
        made = item["created_at"]
        usable = [c for c in cards_of[owner] if c["expires"] >= made[:7]] or cards_of[owner]
        card = rng.choice(usable)
        left = item["total_cents"]
        parts: list[tuple[str | None, str | None, int]] = []
        if item["status"] != "cancelled" and rng.random() < 0.5:
            for v in vouchers_of.get(owner, []):
                if v["status"] == "active" and v["balance_cents"] > 0 and v["issued_on"] <= made[:10]:
                    used = min(v["balance_cents"], left - 100)
                    if used > 0:
                        v["balance_cents"] -= used
                        if v["balance_cents"] == 0:
                            v["status"] = "redeemed"
                        parts.append((None, v["voucher_id"], used))
                        left -= used
                    break
        parts.append((card["payment_method_id"], None, left))
        for method_id, voucher_id, cents in parts:
            payments.append(
                {
                    "payment_id": "",
                    "traveler_id": owner,
                    "hotel_booking_id": key if column == "hotel_booking_id" else None,
                    "car_rental_id": key if column == "car_rental_id" else None,
                    "payment_method_id": method_id,
                    "voucher_id": voucher_id,
                    "amount_cents": cents,
                    "created_at": made,
                }
            )
        kept = item.get("cancellation_fee_cents", 0)
        if item["status"] == "cancelled" and item["total_cents"] > kept:
            start = datetime.date.fromisoformat(item.get("check_in") or item["pickup_date"])
            when = min(
                _day(rng, datetime.date.fromisoformat(made[:10]), start), TODAY - datetime.timedelta(days=1)
            )
            refunds.append(
                {
                    "refund_id": "",
                    "payment_id": len(payments) - 1,
                    "amount_cents": item["total_cents"] - kept,
                    "reason": "hotel booking cancelled"
                    if column == "hotel_booking_id"
                    else "car rental cancelled",
                    "created_at": max(_moment(rng, when), made),
                }
            )
    for i, p in enumerate(payments, start=1):
        p["payment_id"] = f"pay_{i:07d}"
    refunds.sort(key=lambda r: (r["created_at"], r["payment_id"]))
    for i, r in enumerate(refunds, start=1):
        r["refund_id"] = f"rfd_{i:07d}"
        r["payment_id"] = payments[r["payment_id"]]["payment_id"]
    return payments, refunds
