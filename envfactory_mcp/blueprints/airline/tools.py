"""Airline customer-service tools.

An airline: users with a membership tier (regular, silver, gold) and saved payment
methods (credit cards; gift cards and travel certificates with a balance), direct
flights flown every day (each date with its own status, seats left and fare per cabin:
basic economy, economy, business), and reservations of one to five passengers on one
or two flight segments (one way or round trip) in one cabin, with checked bags and
optional travel insurance.

Rules the tools enforce: only active reservations change; a segment whose flight has
departed cannot be changed, and a reservation with a departed segment cannot be
cancelled; a reservation can be cancelled within 24 hours of booking, in business, when
the airline cancelled one of its flights, or with insurance for health or weather
reasons; basic economy flights cannot be changed (the cabin can); a cabin change applies
to every segment; bags can only be added, the free allowance depending on tier and
cabin; insurance can be bought only within 24 hours of booking; compensation
certificates go only to silver and gold members whose flight was delayed or cancelled,
once per reservation. Money is stored as integer cents; every payment and refund is a
row of ``payments``, and gift card and certificate balances move with them. Refunds go
to the payment methods that paid. Outputs present money in dollars.

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

CABINS = ("basic_economy", "economy", "business")
CANCEL_REASONS = ("change of plans", "airline cancelled flight", "health", "weather", "other")
INSURED_REASONS = ("health", "weather")
# Free checked bags per passenger, by membership tier and cabin.
FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 4},
}
BAG_FEE_CENTS = 5000
INSURANCE_CENTS = 3000  # per passenger
MAX_PASSENGERS = 5
MAX_BAGS_PER_PASSENGER = 4
COMPENSATION_CENTS = {"cancelled": 10000, "delayed": 5000}  # per passenger
FLOWN = ("departed", "landed")


# --------------------------------------------------------------------------- helpers


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def _fmt(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _words(value: str) -> str:
    return value.replace("_", " ")


def _moment(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text)


def _today(ctx: ToolContext) -> str:
    return ctx.now[:10]


def _user(ctx: ToolContext, user_id: str) -> Row:
    row = ctx.one("SELECT * FROM users WHERE user_id = ?", (user_id,))
    if row is None:
        ctx.fail(f"User {user_id} not found.")
    return row


def _reservation(ctx: ToolContext, reservation_id: str) -> Row:
    row = ctx.one("SELECT * FROM reservations WHERE reservation_id = ?", (reservation_id.upper(),))
    if row is None:
        ctx.fail(f"Reservation {reservation_id} not found.")
    return row


def _require_active(ctx: ToolContext, reservation: Row, action: str) -> None:
    if reservation["status"] != "active":
        ctx.fail(
            f"Reservation {reservation['reservation_id']} is {reservation['status']}; "
            f"only active reservations can {action}."
        )


def _within_24h(ctx: ToolContext, reservation: Row) -> bool:
    return _moment(ctx.now) - _moment(reservation["created_at"]) <= datetime.timedelta(hours=24)


def _segments(ctx: ToolContext, reservation_id: str) -> list[Row]:
    return ctx.all(
        "SELECT rf.segment_no, rf.flight_number, rf.date, rf.price_cents, f.origin, f.destination, "
        "f.departure_time, f.arrival_time, fd.status "
        "FROM reservation_flights rf JOIN flights f ON f.flight_number = rf.flight_number "
        "JOIN flight_dates fd ON fd.flight_number = rf.flight_number AND fd.date = rf.date "
        "WHERE rf.reservation_id = ? ORDER BY rf.segment_no",
        (reservation_id,),
    )


def _passenger_count(ctx: ToolContext, reservation_id: str) -> int:
    return int(
        ctx.scalar("SELECT COUNT(*) FROM reservation_passengers WHERE reservation_id = ?", (reservation_id,))
    )


def _require_not_flown(ctx: ToolContext, reservation: Row, segments: list[Row], action: str) -> None:
    for seg in segments:
        if seg["status"] in FLOWN:
            ctx.fail(
                f"Flight {seg['flight_number']} on {seg['date']} of reservation {reservation['reservation_id']} "
                f"has already {seg['status']}; a reservation with a departed flight cannot {action}."
            )


def _flight_date(ctx: ToolContext, flight_number: str, date: str) -> Row:
    row = ctx.one(
        "SELECT fd.*, f.origin, f.destination, f.departure_time, f.arrival_time FROM flight_dates fd "
        "JOIN flights f ON f.flight_number = fd.flight_number WHERE fd.flight_number = ? AND fd.date = ?",
        (flight_number.upper(), date),
    )
    if row is None:
        if ctx.one("SELECT 1 FROM flights WHERE flight_number = ?", (flight_number.upper(),)) is None:
            ctx.fail(f"Flight {flight_number} not found.")
        ctx.fail(f"Flight {flight_number} does not fly on {date}.")
    return row


def _bookable(ctx: ToolContext, flight: Row, cabin: str, passengers: int) -> None:
    """The flight can take ``passengers`` more passengers in ``cabin`` now."""
    label = f"Flight {flight['flight_number']} on {flight['date']}"
    if flight["status"] not in ("scheduled", "delayed"):
        ctx.fail(f"{label} is {flight['status']} and cannot be booked.")
    if flight["date"] < _today(ctx):
        ctx.fail(f"{label} is in the past.")
    seats = flight[f"seats_{cabin}"]
    if seats < passengers:
        ctx.fail(
            f"{label} has {seats} seat(s) left in {_words(cabin)}, not enough for {passengers} passenger(s)."
        )


def _method(ctx: ToolContext, payment_method_id: str, user_id: str) -> Row:
    row = ctx.one("SELECT * FROM payment_methods WHERE payment_method_id = ?", (payment_method_id,))
    if row is None:
        ctx.fail(f"Payment method {payment_method_id} not found.")
    if row["user_id"] != user_id:
        ctx.fail(f"Payment method {payment_method_id} does not belong to user {user_id}.")
    return row


def _check_can_charge(ctx: ToolContext, method: Row, cents: int) -> None:
    if method["kind"] != "credit_card" and method["balance_cents"] < cents:
        ctx.fail(
            f"{_words(method['kind']).capitalize()} {method['payment_method_id']} has a balance of "
            f"{_fmt(method['balance_cents'])}, which does not cover {_fmt(cents)}; choose another payment method."
        )


def _net_paid(ctx: ToolContext, reservation_id: str) -> dict[str, int]:
    rows = ctx.all(
        "SELECT payment_method_id AS m, "
        "SUM(CASE kind WHEN 'payment' THEN amount_cents ELSE -amount_cents END) AS net "
        "FROM payments WHERE reservation_id = ? GROUP BY payment_method_id ORDER BY payment_method_id",
        (reservation_id,),
    )
    return {r["m"]: r["net"] for r in rows}


def _record(
    ctx: ToolContext, reservation_id: str, method_id: str, kind: str, cents: int, reason: str
) -> None:
    """Insert one payment or refund row and move a gift card's or certificate's balance with it."""
    if cents <= 0:
        return
    method = ctx.one("SELECT kind FROM payment_methods WHERE payment_method_id = ?", (method_id,))
    if method is not None and method["kind"] != "credit_card":
        ctx.execute(
            "UPDATE payment_methods SET balance_cents = balance_cents + ? WHERE payment_method_id = ?",
            (-cents if kind == "payment" else cents, method_id),
        )
    payment_id = ctx.next_id("payments", "payment_id", "pay_", 7)
    ctx.execute(
        "INSERT INTO payments (payment_id, reservation_id, payment_method_id, kind, amount_cents, reason, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (payment_id, reservation_id, method_id, kind, cents, reason, ctx.now),
    )


def _settle(ctx: ToolContext, reservation: Row, method: Row, diff: int, reason: str) -> None:
    """Charge a positive difference to ``method``, refund a negative one to it (it must have paid)."""
    rid = reservation["reservation_id"]
    if diff > 0:
        _check_can_charge(ctx, method, diff)
        _record(ctx, rid, method["payment_method_id"], "payment", diff, reason)
    elif diff < 0:
        paid = _net_paid(ctx, rid).get(method["payment_method_id"], 0)
        if paid < -diff:
            ctx.fail(
                f"The difference of {_fmt(-diff)} is a refund, and refunds go back to a payment method that paid at "
                f"least that much for reservation {rid}; {method['payment_method_id']} paid {_fmt(max(paid, 0))}."
            )
        _record(ctx, rid, method["payment_method_id"], "refund", -diff, reason)


def _free_bags(membership: str, cabin: str, passengers: int) -> int:
    return FREE_BAGS[membership][cabin] * passengers


def _move_seats(ctx: ToolContext, flight_number: str, date: str, cabin: str, delta: int) -> None:
    ctx.execute(
        f"UPDATE flight_dates SET seats_{cabin} = seats_{cabin} + ? WHERE flight_number = ? AND date = ?",
        (delta, flight_number, date),
    )


def _reservation_view(ctx: ToolContext, reservation_id: str) -> Row:
    res = _reservation(ctx, reservation_id)
    rid = res["reservation_id"]
    payments = ctx.all(
        "SELECT payment_id, kind, payment_method_id, amount_cents, reason, created_at "
        "FROM payments WHERE reservation_id = ? ORDER BY payment_id",
        (rid,),
    )
    paid = sum(p["amount_cents"] for p in payments if p["kind"] == "payment")
    refunded = sum(p["amount_cents"] for p in payments if p["kind"] == "refund")
    passengers = ctx.all(
        "SELECT first_name, last_name, date_of_birth FROM reservation_passengers "
        "WHERE reservation_id = ? ORDER BY passenger_no",
        (rid,),
    )
    return {
        "reservation_id": rid,
        "user_id": res["user_id"],
        "origin": res["origin"],
        "destination": res["destination"],
        "trip_type": res["trip_type"],
        "cabin": res["cabin"],
        "status": res["status"],
        "created_at": res["created_at"],
        "insurance": bool(res["insurance"]),
        "total_bags": res["total_bags"],
        "nonfree_bags": res["nonfree_bags"],
        "compensated": bool(res["compensated"]),
        "cancel_reason": res["cancel_reason"],
        "flights": [
            {
                "segment": s["segment_no"],
                "flight_number": s["flight_number"],
                "date": s["date"],
                "origin": s["origin"],
                "destination": s["destination"],
                "departure_time": s["departure_time"],
                "arrival_time": s["arrival_time"],
                "status": s["status"],
                "price": _dollars(s["price_cents"]),
            }
            for s in _segments(ctx, rid)
        ],
        "passengers": [dict(p) for p in passengers],
        "payments": [
            {
                "payment_id": p["payment_id"],
                "kind": p["kind"],
                "payment_method_id": p["payment_method_id"],
                "amount": _dollars(p["amount_cents"]),
                "reason": p["reason"],
                "created_at": p["created_at"],
            }
            for p in payments
        ],
        "totals": {
            "paid": _dollars(paid),
            "refunded": _dollars(refunded),
            "net_paid": _dollars(paid - refunded),
        },
    }


# --------------------------------------------------------------------------- lookups


def find_user_id_by_email(ctx: ToolContext, *, email: str) -> dict:
    row = ctx.one("SELECT user_id FROM users WHERE email = ?", (email.strip().lower(),))
    if row is None:
        ctx.fail("No user found with that email.")
    return {"user_id": row["user_id"]}


def find_user_id_by_name_dob(
    ctx: ToolContext, *, first_name: str, last_name: str, date_of_birth: str
) -> dict:
    rows = ctx.all(
        "SELECT user_id FROM users WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) "
        "AND date_of_birth = ? ORDER BY user_id",
        (first_name.strip(), last_name.strip(), date_of_birth.strip()),
    )
    if not rows:
        ctx.fail("No user found with that name and date of birth.")
    if len(rows) > 1:
        ctx.fail("Several users match that name and date of birth; ask for the email instead.")
    return {"user_id": rows[0]["user_id"]}


def get_user_details(ctx: ToolContext, *, user_id: str) -> dict:
    user = _user(ctx, user_id)
    methods = []
    for m in ctx.all(
        "SELECT * FROM payment_methods WHERE user_id = ? ORDER BY payment_method_id", (user_id,)
    ):
        entry: Row = {"payment_method_id": m["payment_method_id"], "kind": m["kind"]}
        if m["kind"] == "credit_card":
            entry["brand"] = m["brand"]
            entry["last_four"] = m["last_four"]
        else:
            entry["balance"] = _dollars(m["balance_cents"])
        methods.append(entry)
    saved = ctx.all(
        "SELECT passenger_id, first_name, last_name, date_of_birth FROM saved_passengers WHERE user_id = ? "
        "ORDER BY passenger_id",
        (user_id,),
    )
    reservations = [
        r["reservation_id"]
        for r in ctx.all(
            "SELECT reservation_id FROM reservations WHERE user_id = ? ORDER BY reservation_id", (user_id,)
        )
    ]
    return {
        "user_id": user["user_id"],
        "first_name": user["first_name"],
        "last_name": user["last_name"],
        "email": user["email"],
        "date_of_birth": user["date_of_birth"],
        "membership": user["membership"],
        "payment_methods": methods,
        "saved_passengers": [dict(p) for p in saved],
        "reservations": reservations,
    }


def get_reservation_details(ctx: ToolContext, *, reservation_id: str) -> dict:
    return _reservation_view(ctx, reservation_id)


def list_all_airports(ctx: ToolContext) -> dict:
    rows = ctx.all("SELECT code, airport_name, city FROM airports ORDER BY code")
    return {"airports": [{"code": r["code"], "name": r["airport_name"], "city": r["city"]} for r in rows]}


def search_direct_flights(ctx: ToolContext, *, origin: str, destination: str, date: str) -> dict:
    origin, destination = origin.upper(), destination.upper()
    for code in (origin, destination):
        if ctx.one("SELECT 1 FROM airports WHERE code = ?", (code,)) is None:
            ctx.fail(f"Airport {code} not found.")
    if origin == destination:
        ctx.fail("Origin and destination must differ.")
    rows = ctx.all(
        "SELECT fd.*, f.departure_time, f.arrival_time FROM flights f JOIN flight_dates fd "
        "ON fd.flight_number = f.flight_number WHERE f.origin = ? AND f.destination = ? AND fd.date = ? "
        "ORDER BY f.departure_time, f.flight_number",
        (origin, destination, date),
    )
    return {
        "origin": origin,
        "destination": destination,
        "date": date,
        "flights": [
            {
                "flight_number": r["flight_number"],
                "departure_time": r["departure_time"],
                "arrival_time": r["arrival_time"],
                "status": r["status"],
                "seats": {cabin: r[f"seats_{cabin}"] for cabin in CABINS},
                "prices": {cabin: _dollars(r[f"price_{cabin}_cents"]) for cabin in CABINS},
            }
            for r in rows
        ],
    }


def get_flight_status(ctx: ToolContext, *, flight_number: str, date: str) -> dict:
    flight = _flight_date(ctx, flight_number, date)
    return {
        "flight_number": flight["flight_number"],
        "date": flight["date"],
        "origin": flight["origin"],
        "destination": flight["destination"],
        "departure_time": flight["departure_time"],
        "arrival_time": flight["arrival_time"],
        "status": flight["status"],
    }


# --------------------------------------------------------------------------- booking


def book_reservation(
    ctx: ToolContext,
    *,
    flight_number: str,
    date: str,
    cabin: str,
    passenger_ids: list[str],
    payment_method_id: str,
    total_bags: int,
    insurance: str,
    return_flight_number: str | None = None,
    return_date: str | None = None,
) -> dict:
    method = ctx.one("SELECT * FROM payment_methods WHERE payment_method_id = ?", (payment_method_id,))
    if method is None:
        ctx.fail(f"Payment method {payment_method_id} not found.")
    user_id = method["user_id"]
    user = _user(ctx, user_id)
    if len(passenger_ids) > MAX_PASSENGERS:
        ctx.fail(f"A reservation can have at most {MAX_PASSENGERS} passengers; split the group.")
    passengers = []
    for passenger_id in passenger_ids:
        p = ctx.one("SELECT * FROM saved_passengers WHERE passenger_id = ?", (passenger_id,))
        if p is None:
            ctx.fail(f"Passenger {passenger_id} not found.")
        if p["user_id"] != user_id:
            ctx.fail(
                f"Passenger {passenger_id} is not saved on the profile of user {user_id}, who owns payment method "
                f"{payment_method_id}; only the user's saved passengers can be booked."
            )
        passengers.append(p)
    if (return_flight_number is None) != (return_date is None):
        ctx.fail("A round trip needs both return_flight_number and return_date.")
    outbound = _flight_date(ctx, flight_number, date)
    legs = [outbound]
    if return_flight_number is not None and return_date is not None:
        back = _flight_date(ctx, return_flight_number, return_date)
        if back["origin"] != outbound["destination"] or back["destination"] != outbound["origin"]:
            ctx.fail(
                f"Return flight {back['flight_number']} flies {back['origin']}-{back['destination']}, not back "
                f"from {outbound['destination']} to {outbound['origin']}."
            )
        if back["date"] < outbound["date"]:
            ctx.fail("The return flight must not depart before the outbound flight.")
        legs.append(back)
    count = len(passengers)
    for leg in legs:
        _bookable(ctx, leg, cabin, count)
    if total_bags > MAX_BAGS_PER_PASSENGER * count:
        ctx.fail(f"At most {MAX_BAGS_PER_PASSENGER} checked bags per passenger.")
    fares = sum(leg[f"price_{cabin}_cents"] for leg in legs) * count
    nonfree = max(0, total_bags - _free_bags(user["membership"], cabin, count))
    insured = insurance == "yes"
    total = fares + nonfree * BAG_FEE_CENTS + (INSURANCE_CENTS * count if insured else 0)
    _check_can_charge(ctx, method, total)
    rid = ctx.next_id("reservations", "reservation_id", "N", 5)
    ctx.execute(
        "INSERT INTO reservations (reservation_id, user_id, origin, destination, trip_type, cabin, status, insurance, "
        "total_bags, nonfree_bags, compensated, created_at, cancel_reason) "
        "VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, 0, ?, NULL)",
        (
            rid,
            user_id,
            outbound["origin"],
            outbound["destination"],
            "round_trip" if len(legs) == 2 else "one_way",
            cabin,
            1 if insured else 0,
            total_bags,
            nonfree,
            ctx.now,
        ),
    )
    for number, leg in enumerate(legs, start=1):
        ctx.execute(
            "INSERT INTO reservation_flights (reservation_id, segment_no, flight_number, date, price_cents) "
            "VALUES (?, ?, ?, ?, ?)",
            (rid, number, leg["flight_number"], leg["date"], leg[f"price_{cabin}_cents"]),
        )
        _move_seats(ctx, leg["flight_number"], leg["date"], cabin, -count)
    for number, p in enumerate(passengers, start=1):
        ctx.execute(
            "INSERT INTO reservation_passengers (reservation_id, passenger_no, first_name, last_name, date_of_birth) "
            "VALUES (?, ?, ?, ?, ?)",
            (rid, number, p["first_name"], p["last_name"], p["date_of_birth"]),
        )
    _record(ctx, rid, payment_method_id, "payment", total, "booking")
    return _reservation_view(ctx, rid)


# --------------------------------------------------------------------------- changes


def cancel_reservation(ctx: ToolContext, *, reservation_id: str, reason: str) -> dict:
    if reason not in CANCEL_REASONS:
        ctx.fail(f"Reason must be one of: {', '.join(CANCEL_REASONS)}.")
    res = _reservation(ctx, reservation_id)
    rid = res["reservation_id"]
    _require_active(ctx, res, "be cancelled")
    segments = _segments(ctx, rid)
    _require_not_flown(ctx, res, segments, "be cancelled")
    airline_cancelled = any(s["status"] == "cancelled" for s in segments)
    if reason == "airline cancelled flight" and not airline_cancelled:
        ctx.fail(f"None of the flights of reservation {rid} was cancelled by the airline.")
    eligible = (
        _within_24h(ctx, res)
        or res["cabin"] == "business"
        or airline_cancelled
        or (res["insurance"] and reason in INSURED_REASONS)
    )
    if not eligible:
        ctx.fail(
            f"Reservation {rid} cannot be cancelled: it was booked more than 24 hours ago, is not in business, "
            "none of its flights was cancelled by the airline, and travel insurance covers only health or weather "
            "reasons" + ("." if res["insurance"] else " (it has no insurance).")
        )
    for method_id, cents in _net_paid(ctx, rid).items():
        _record(ctx, rid, method_id, "refund", cents, "cancellation")
    count = _passenger_count(ctx, rid)
    for seg in segments:
        _move_seats(ctx, seg["flight_number"], seg["date"], res["cabin"], count)
    ctx.execute(
        "UPDATE reservations SET status = 'cancelled', cancel_reason = ? WHERE reservation_id = ?",
        (reason, rid),
    )
    return _reservation_view(ctx, rid)


def update_reservation_cabin(
    ctx: ToolContext, *, reservation_id: str, cabin: str, payment_method_id: str
) -> dict:
    res = _reservation(ctx, reservation_id)
    rid = res["reservation_id"]
    _require_active(ctx, res, "change cabin")
    if cabin == res["cabin"]:
        ctx.fail(f"Reservation {rid} is already in {_words(cabin)}.")
    segments = _segments(ctx, rid)
    _require_not_flown(ctx, res, segments, "change cabin")
    count = _passenger_count(ctx, rid)
    method = _method(ctx, payment_method_id, res["user_id"])
    diff = 0
    fares = []
    for seg in segments:
        flight = _flight_date(ctx, seg["flight_number"], seg["date"])
        _bookable(ctx, flight, cabin, count)
        fare = flight[f"price_{cabin}_cents"]
        fares.append(fare)
        diff += (fare - seg["price_cents"]) * count
    # Bags already paid stay paid; bags the new cabin's allowance no longer covers are charged.
    user = _user(ctx, res["user_id"])
    nonfree = max(res["nonfree_bags"], res["total_bags"] - _free_bags(user["membership"], cabin, count))
    diff += (nonfree - res["nonfree_bags"]) * BAG_FEE_CENTS
    _settle(ctx, res, method, diff, "cabin_change")
    for seg, fare in zip(segments, fares, strict=True):
        _move_seats(ctx, seg["flight_number"], seg["date"], res["cabin"], count)
        _move_seats(ctx, seg["flight_number"], seg["date"], cabin, -count)
        ctx.execute(
            "UPDATE reservation_flights SET price_cents = ? WHERE reservation_id = ? AND segment_no = ?",
            (fare, rid, seg["segment_no"]),
        )
    ctx.execute(
        "UPDATE reservations SET cabin = ?, nonfree_bags = ? WHERE reservation_id = ?",
        (cabin, nonfree, rid),
    )
    return _reservation_view(ctx, rid)


def change_reservation_flight(
    ctx: ToolContext, *, reservation_id: str, flight_number: str, date: str, payment_method_id: str
) -> dict:
    """Put the reservation on ``flight_number`` on ``date`` in place of its segment on the same route."""
    res = _reservation(ctx, reservation_id)
    rid = res["reservation_id"]
    _require_active(ctx, res, "have flights changed")
    if res["cabin"] == "basic_economy":
        ctx.fail(f"Reservation {rid} is in basic economy; basic economy flights cannot be changed.")
    new = _flight_date(ctx, flight_number, date)
    segments = _segments(ctx, rid)
    route = (new["origin"], new["destination"])
    seg = next((s for s in segments if (s["origin"], s["destination"]) == route), None)
    if seg is None:
        flown = ", ".join(f"{s['origin']}-{s['destination']}" for s in segments)
        ctx.fail(
            f"Flight {new['flight_number']} flies {route[0]}-{route[1]}, but reservation {rid} has no segment on "
            f"that route ({flown}); a flight can only be changed for one on the same route."
        )
    if seg["status"] in FLOWN:
        ctx.fail(
            f"Flight {seg['flight_number']} on {seg['date']} has already {seg['status']} and cannot be changed."
        )
    if new["flight_number"] == seg["flight_number"] and new["date"] == seg["date"]:
        ctx.fail(f"Reservation {rid} is already on flight {seg['flight_number']} on {seg['date']}.")
    for other in segments:
        if (other["segment_no"] < seg["segment_no"] and date < other["date"]) or (
            other["segment_no"] > seg["segment_no"] and date > other["date"]
        ):
            ctx.fail(f"The new date {date} would put the segments of reservation {rid} out of travel order.")
    count = _passenger_count(ctx, rid)
    _bookable(ctx, new, res["cabin"], count)
    method = _method(ctx, payment_method_id, res["user_id"])
    fare = new[f"price_{res['cabin']}_cents"]
    _settle(ctx, res, method, (fare - seg["price_cents"]) * count, "flight_change")
    _move_seats(ctx, seg["flight_number"], seg["date"], res["cabin"], count)
    _move_seats(ctx, new["flight_number"], new["date"], res["cabin"], -count)
    ctx.execute(
        "UPDATE reservation_flights SET flight_number = ?, date = ?, price_cents = ? "
        "WHERE reservation_id = ? AND segment_no = ?",
        (new["flight_number"], new["date"], fare, rid, seg["segment_no"]),
    )
    return _reservation_view(ctx, rid)


def update_reservation_bags(
    ctx: ToolContext, *, reservation_id: str, total_bags: int, payment_method_id: str
) -> dict:
    res = _reservation(ctx, reservation_id)
    rid = res["reservation_id"]
    _require_active(ctx, res, "have bags added")
    _require_not_flown(ctx, res, _segments(ctx, rid), "have bags added")
    if total_bags < res["total_bags"]:
        ctx.fail(
            f"Reservation {rid} has {res['total_bags']} checked bag(s); bags can be added but not removed."
        )
    if total_bags == res["total_bags"]:
        ctx.fail(f"Reservation {rid} already has {total_bags} checked bag(s).")
    count = _passenger_count(ctx, rid)
    if total_bags > MAX_BAGS_PER_PASSENGER * count:
        ctx.fail(
            f"At most {MAX_BAGS_PER_PASSENGER} checked bags per passenger ({MAX_BAGS_PER_PASSENGER * count} here)."
        )
    user = _user(ctx, res["user_id"])
    method = _method(ctx, payment_method_id, res["user_id"])
    free = _free_bags(user["membership"], res["cabin"], count)
    nonfree = max(res["nonfree_bags"], total_bags - free)
    _settle(ctx, res, method, (nonfree - res["nonfree_bags"]) * BAG_FEE_CENTS, "baggage")
    ctx.execute(
        "UPDATE reservations SET total_bags = ?, nonfree_bags = ? WHERE reservation_id = ?",
        (total_bags, nonfree, rid),
    )
    return _reservation_view(ctx, rid)


def add_travel_insurance(ctx: ToolContext, *, reservation_id: str, payment_method_id: str) -> dict:
    res = _reservation(ctx, reservation_id)
    rid = res["reservation_id"]
    _require_active(ctx, res, "have insurance added")
    if res["insurance"]:
        ctx.fail(f"Reservation {rid} already has travel insurance.")
    if not _within_24h(ctx, res):
        ctx.fail(
            f"Travel insurance can only be added within 24 hours of booking; {rid} was booked {res['created_at']}."
        )
    _require_not_flown(ctx, res, _segments(ctx, rid), "have insurance added")
    method = _method(ctx, payment_method_id, res["user_id"])
    _settle(ctx, res, method, INSURANCE_CENTS * _passenger_count(ctx, rid), "insurance")
    ctx.execute("UPDATE reservations SET insurance = 1 WHERE reservation_id = ?", (rid,))
    return _reservation_view(ctx, rid)


def issue_compensation_certificate(ctx: ToolContext, *, user_id: str, reservation_id: str) -> dict:
    user = _user(ctx, user_id)
    res = _reservation(ctx, reservation_id)
    rid = res["reservation_id"]
    if res["user_id"] != user_id:
        ctx.fail(f"Reservation {rid} does not belong to user {user_id}.")
    if user["membership"] not in ("silver", "gold"):
        ctx.fail(
            f"User {user_id} is a {user['membership']} member; compensation certificates are only for silver and "
            "gold members."
        )
    if res["compensated"]:
        ctx.fail(f"A compensation certificate was already issued for reservation {rid}.")
    statuses = [s["status"] for s in _segments(ctx, rid)]
    if "cancelled" in statuses:
        cause = "cancelled"
    elif "delayed" in statuses:
        cause = "delayed"
    else:
        ctx.fail(f"No flight of reservation {rid} was delayed or cancelled; no compensation is due.")
    cents = COMPENSATION_CENTS[cause] * _passenger_count(ctx, rid)
    certificate_id = ctx.next_id("payment_methods", "payment_method_id", "certificate_", 6)
    ctx.execute(
        "INSERT INTO payment_methods (payment_method_id, user_id, kind, brand, last_four, balance_cents) "
        "VALUES (?, ?, 'certificate', NULL, NULL, ?)",
        (certificate_id, user_id, cents),
    )
    ctx.execute("UPDATE reservations SET compensated = 1 WHERE reservation_id = ?", (rid,))
    return {
        "certificate_id": certificate_id,
        "user_id": user_id,
        "reservation_id": rid,
        "cause": cause,
        "amount": _dollars(cents),
    }


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
        "message": "The conversation has been transferred to a human agent, who will follow up with the user.",
        "summary": summary,
    }
