"""Travel agency trip-desk tools.

A travel agency's trip desk: travelers (a loyalty tier, saved cards, travel vouchers) book
hotel rooms and rental cars, and group them into trips (itineraries) that may also carry
the record locator of their flights. A hotel sells room types, each with a refundable and
a cheaper non-refundable nightly rate and an allotment of rooms per night; a booking
holds some rooms for consecutive nights, is paid in full when booked and moves
confirmed -> checked_in -> completed (or cancelled). Refundable bookings cancel free until
the hotel's deadline, after that one night per room is kept; non-refundable ones cannot
be cancelled or changed. Rental counters hold a daily fleet per car class; a rental is
paid when reserved and moves reserved -> picked_up -> returned (or cancelled). Drivers
must be 21 (25 for some classes) and pay a surcharge under 25; a car returned elsewhere
pays a one-way fee. A trip's total is what its bookings cost.

Money is integer cents in the tables; tool outputs present dollars with two decimals.

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
    from .runtime import ToolContext

Row = dict  # one database row, column name -> value

RATE_TYPES = ("refundable", "non_refundable")
MAX_NIGHTS = 14
MAX_RENTAL_DAYS = 21
MAX_ROOMS = {"member": 2, "silver": 2, "gold": 3, "platinum": 4}
NO_ONE_WAY_FEE_TIERS = ("gold", "platinum")
NO_LATE_FEE_TIERS = ("platinum",)
MIN_DRIVER_AGE = 21
YOUNG_DRIVER_AGE = 25
YOUNG_DRIVER_FEE_PER_DAY = 2500
ONE_WAY_FEE = 9500


# --------------------------------------------------------------------------- helpers


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def _fmt(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _today(ctx: ToolContext) -> datetime.date:
    return datetime.date.fromisoformat(ctx.now[:10])


def _date(ctx: ToolContext, text: str, what: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text.strip())
    except ValueError:
        ctx.fail(f"{what} must be a date written YYYY-MM-DD.")


def _days(start: datetime.date, count: int) -> list[str]:
    return [(start + datetime.timedelta(days=i)).isoformat() for i in range(count)]


def _age_on(birth: str, day: datetime.date) -> int:
    born = datetime.date.fromisoformat(birth)
    return day.year - born.year - (1 if (day.month, day.day) < (born.month, born.day) else 0)


def _traveler(ctx: ToolContext, traveler_id: str) -> Row:
    row = ctx.one("SELECT * FROM travelers WHERE traveler_id = ?", (traveler_id,))
    if row is None:
        ctx.fail(f"Traveler {traveler_id} not found.")
    return row


def _booking(ctx: ToolContext, booking_id: str) -> Row:
    row = ctx.one("SELECT * FROM hotel_bookings WHERE booking_id = ?", (booking_id,))
    if row is None:
        ctx.fail(f"Hotel booking {booking_id} not found.")
    return row


def _rental(ctx: ToolContext, rental_id: str) -> Row:
    row = ctx.one("SELECT * FROM car_rentals WHERE rental_id = ?", (rental_id,))
    if row is None:
        ctx.fail(f"Car rental {rental_id} not found.")
    return row


def _trip(ctx: ToolContext, trip_id: str) -> Row:
    row = ctx.one("SELECT * FROM trips WHERE trip_id = ?", (trip_id,))
    if row is None:
        ctx.fail(f"Trip {trip_id} not found.")
    return row


def _room_type(ctx: ToolContext, room_type_id: str) -> Row:
    row = ctx.one(
        "SELECT r.*, h.name AS hotel_name, h.city, h.state, h.stars, h.free_cancel_days FROM room_types r "
        "JOIN hotels h ON h.hotel_id = r.hotel_id WHERE r.room_type_id = ?",
        (room_type_id,),
    )
    if row is None:
        ctx.fail(f"Room type {room_type_id} not found.")
    return row


def _location(ctx: ToolContext, location_id: str) -> Row:
    row = ctx.one("SELECT * FROM rental_locations WHERE location_id = ?", (location_id,))
    if row is None:
        ctx.fail(f"Rental location {location_id} not found.")
    return row


def _car_class(ctx: ToolContext, class_id: str) -> Row:
    row = ctx.one("SELECT * FROM car_classes WHERE class_id = ?", (class_id,))
    if row is None:
        ctx.fail(f"Car class {class_id} not found.")
    return row


def _free_cancel_until(check_in: str, days: int) -> str:
    return (datetime.date.fromisoformat(check_in) - datetime.timedelta(days=days)).isoformat()


def _trip_of(ctx: ToolContext, column: str, value: str) -> Row | None:
    sql = {
        "hotel_booking_id": "SELECT * FROM trips WHERE hotel_booking_id = ?",
        "car_rental_id": "SELECT * FROM trips WHERE car_rental_id = ?",
    }[column]
    return ctx.one(sql, (value,))


def _refresh_trip_total(ctx: ToolContext, trip_id: str) -> None:
    """A trip costs what its bookings cost: the stay (or the fee kept when cancelled) and the car."""
    trip = _trip(ctx, trip_id)
    hotel = _booking(ctx, trip["hotel_booking_id"])
    total = hotel["cancellation_fee_cents"] if hotel["status"] == "cancelled" else hotel["total_cents"]
    if trip["car_rental_id"] is not None:
        car = _rental(ctx, trip["car_rental_id"])
        if car["status"] != "cancelled":
            total += car["total_cents"]
    ctx.execute("UPDATE trips SET total_cents = ? WHERE trip_id = ?", (total, trip_id))


def _payments_of(ctx: ToolContext, column: str, value: str) -> list[Row]:
    sql = {
        "hotel_booking_id": "SELECT p.*, COALESCE((SELECT SUM(r.amount_cents) FROM refunds r WHERE r.payment_id = "
        "p.payment_id), 0) AS refunded_cents FROM payments p WHERE p.hotel_booking_id = ? ORDER BY p.payment_id",
        "car_rental_id": "SELECT p.*, COALESCE((SELECT SUM(r.amount_cents) FROM refunds r WHERE r.payment_id = "
        "p.payment_id), 0) AS refunded_cents FROM payments p WHERE p.car_rental_id = ? ORDER BY p.payment_id",
    }[column]
    return ctx.all(sql, (value,))


def _payments_view(payments: list[Row]) -> list[dict]:
    return [
        {
            "payment_id": p["payment_id"],
            "payment_method_id": p["payment_method_id"],
            "voucher_id": p["voucher_id"],
            "amount": _dollars(p["amount_cents"]),
            "refunded": _dollars(p["refunded_cents"]),
            "created_at": p["created_at"],
        }
        for p in payments
    ]


def _card(ctx: ToolContext, traveler_id: str, payment_method_id: str) -> Row:
    method = ctx.one("SELECT * FROM payment_methods WHERE payment_method_id = ?", (payment_method_id,))
    if method is None:
        ctx.fail(f"Payment method {payment_method_id} not found.")
    if method["traveler_id"] != traveler_id:
        ctx.fail(f"Payment method {payment_method_id} does not belong to traveler {traveler_id}.")
    if method["expires"] < ctx.now[:7]:
        ctx.fail(f"Card {payment_method_id} expired in {method['expires']}; choose another card.")
    return method


def _usable_voucher(ctx: ToolContext, traveler_id: str, voucher_id: str) -> Row:
    voucher = ctx.one("SELECT * FROM vouchers WHERE voucher_id = ?", (voucher_id,))
    if voucher is None:
        ctx.fail(f"Voucher {voucher_id} not found.")
    if voucher["traveler_id"] != traveler_id:
        ctx.fail(f"Voucher {voucher_id} does not belong to traveler {traveler_id}.")
    if voucher["status"] != "active" or voucher["expires_on"] < ctx.now[:10]:
        state = (
            "expired" if voucher["status"] == "expired" or voucher["expires_on"] < ctx.now[:10] else "used up"
        )
        ctx.fail(f"Voucher {voucher_id} is {state}; only active vouchers with a balance can be used.")
    return voucher


def _charge(
    ctx: ToolContext,
    traveler_id: str,
    column: str,
    value: str,
    total: int,
    method: Row,
    voucher: Row | None,
) -> None:
    """Pay ``total`` for a booking or rental: the voucher's balance first, the rest on the card."""
    left = total
    if voucher is not None:
        used = min(voucher["balance_cents"], left)
        balance = voucher["balance_cents"] - used
        ctx.execute(
            "UPDATE vouchers SET balance_cents = ?, status = ? WHERE voucher_id = ?",
            (balance, "active" if balance > 0 else "redeemed", voucher["voucher_id"]),
        )
        _add_payment(ctx, traveler_id, column, value, None, voucher["voucher_id"], used)
        left -= used
    if left > 0:
        _add_payment(ctx, traveler_id, column, value, method["payment_method_id"], None, left)


def _add_payment(
    ctx: ToolContext,
    traveler_id: str,
    column: str,
    value: str,
    method_id: str | None,
    voucher_id: str | None,
    cents: int,
) -> None:
    payment_id = ctx.next_id("payments", "payment_id", "pay_", 7)
    hotel = value if column == "hotel_booking_id" else None
    car = value if column == "car_rental_id" else None
    ctx.execute(
        "INSERT INTO payments (payment_id, traveler_id, hotel_booking_id, car_rental_id, payment_method_id, "
        "voucher_id, amount_cents, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (payment_id, traveler_id, hotel, car, method_id, voucher_id, cents, ctx.now),
    )


def _refund(ctx: ToolContext, column: str, value: str, cents: int, reason: str) -> int:
    """Give ``cents`` back against the payments of a booking or rental, newest first (the card
    before the voucher); a voucher gets its balance back. Returns the amount refunded."""
    left = cents
    for p in reversed(_payments_of(ctx, column, value)):
        if left <= 0:
            break
        part = min(p["amount_cents"] - p["refunded_cents"], left)
        if part <= 0:
            continue
        refund_id = ctx.next_id("refunds", "refund_id", "rfd_", 7)
        ctx.execute(
            "INSERT INTO refunds (refund_id, payment_id, amount_cents, reason, created_at) VALUES (?, ?, ?, ?, ?)",
            (refund_id, p["payment_id"], part, reason, ctx.now),
        )
        if p["voucher_id"] is not None:
            ctx.execute(
                "UPDATE vouchers SET balance_cents = balance_cents + ?, "
                "status = CASE WHEN status = 'redeemed' THEN 'active' ELSE status END WHERE voucher_id = ?",
                (part, p["voucher_id"]),
            )
        left -= part
    return cents - left


def _rooms_left(
    ctx: ToolContext, room_type_id: str, nights: list[str], skip: str | None = None
) -> list[dict]:
    """Rooms still for sale each night; ``skip`` gives back the rooms of a booking being changed."""
    own: list[str] = []
    rooms = 0
    if skip is not None:
        booking = _booking(ctx, skip)
        own = _days(datetime.date.fromisoformat(booking["check_in"]), booking["nights"])
        rooms = booking["rooms"]
    out = []
    for night in nights:
        row = ctx.one(
            "SELECT rooms_total, rooms_booked FROM room_nights WHERE room_type_id = ? AND night = ?",
            (room_type_id, night),
        )
        if row is None:
            ctx.fail(f"Room type {room_type_id} is not on sale for the night of {night}.")
        booked = row["rooms_booked"] - (rooms if night in own else 0)
        out.append({"night": night, "rooms_available": row["rooms_total"] - booked})
    return out


def _hold_rooms(ctx: ToolContext, room_type_id: str, nights: list[str], rooms: int) -> None:
    for night in nights:
        ctx.execute(
            "UPDATE room_nights SET rooms_booked = rooms_booked + ? WHERE room_type_id = ? AND night = ?",
            (rooms, room_type_id, night),
        )


def _release_rooms(ctx: ToolContext, booking: Row) -> None:
    for night in _days(datetime.date.fromisoformat(booking["check_in"]), booking["nights"]):
        ctx.execute(
            "UPDATE room_nights SET rooms_booked = MAX(rooms_booked - ?, 0) WHERE room_type_id = ? AND night = ?",
            (booking["rooms"], booking["room_type_id"], night),
        )


def _cars_left(ctx: ToolContext, location_id: str, class_id: str, days: list[str]) -> list[dict]:
    out = []
    for day in days:
        row = ctx.one(
            "SELECT cars_total, cars_booked FROM car_availability WHERE location_id = ? AND class_id = ? AND day = ?",
            (location_id, class_id, day),
        )
        if row is None:
            ctx.fail(f"Cars of class {class_id} at {location_id} are not bookable for {day}.")
        out.append({"day": day, "cars_available": row["cars_total"] - row["cars_booked"]})
    return out


def _move_cars(ctx: ToolContext, rental: Row, delta: int) -> None:
    for day in _days(datetime.date.fromisoformat(rental["pickup_date"]), rental["days"]):
        ctx.execute(
            "UPDATE car_availability SET cars_booked = MAX(cars_booked + ?, 0) "
            "WHERE location_id = ? AND class_id = ? AND day = ?",
            (delta, rental["pickup_location_id"], rental["class_id"], day),
        )


def _booking_view(ctx: ToolContext, booking_id: str) -> dict:
    b = _booking(ctx, booking_id)
    room = _room_type(ctx, b["room_type_id"])
    payments = _payments_of(ctx, "hotel_booking_id", booking_id)
    trip = _trip_of(ctx, "hotel_booking_id", booking_id)
    deadline = None
    if b["rate_type"] == "refundable":
        deadline = _free_cancel_until(b["check_in"], room["free_cancel_days"])
    return {
        "booking_id": b["booking_id"],
        "traveler_id": b["traveler_id"],
        "hotel_id": room["hotel_id"],
        "hotel_name": room["hotel_name"],
        "city": room["city"],
        "state": room["state"],
        "room_type_id": b["room_type_id"],
        "room_name": room["name"],
        "check_in": b["check_in"],
        "check_out": b["check_out"],
        "nights": b["nights"],
        "rooms": b["rooms"],
        "rate_type": b["rate_type"],
        "nightly_rate": _dollars(b["nightly_rate_cents"]),
        "total": _dollars(b["total_cents"]),
        "status": b["status"],
        "free_cancellation_until": deadline,
        "cancellation_fee": _dollars(b["cancellation_fee_cents"]),
        "trip_id": None if trip is None else trip["trip_id"],
        "payments": _payments_view(payments),
        "paid": _dollars(sum(p["amount_cents"] for p in payments)),
        "refunded": _dollars(sum(p["refunded_cents"] for p in payments)),
        "created_at": b["created_at"],
    }


def _rental_view(ctx: ToolContext, rental_id: str) -> dict:
    r = _rental(ctx, rental_id)
    car = _car_class(ctx, r["class_id"])
    pickup = _location(ctx, r["pickup_location_id"])
    payments = _payments_of(ctx, "car_rental_id", rental_id)
    trip = _trip_of(ctx, "car_rental_id", rental_id)
    return {
        "rental_id": r["rental_id"],
        "traveler_id": r["traveler_id"],
        "class_id": r["class_id"],
        "class_name": car["name"],
        "pickup_location_id": r["pickup_location_id"],
        "pickup_city": pickup["city"],
        "dropoff_location_id": r["dropoff_location_id"],
        "pickup_date": r["pickup_date"],
        "return_date": r["return_date"],
        "days": r["days"],
        "driver_age": r["driver_age"],
        "daily_rate": _dollars(r["daily_rate_cents"]),
        "young_driver_fee": _dollars(r["young_driver_fee_cents"]),
        "one_way_fee": _dollars(r["one_way_fee_cents"]),
        "total": _dollars(r["total_cents"]),
        "status": r["status"],
        "trip_id": None if trip is None else trip["trip_id"],
        "payments": _payments_view(payments),
        "paid": _dollars(sum(p["amount_cents"] for p in payments)),
        "refunded": _dollars(sum(p["refunded_cents"] for p in payments)),
        "created_at": r["created_at"],
    }


def _trip_view(ctx: ToolContext, trip_id: str) -> dict:
    t = _trip(ctx, trip_id)
    hotel = _booking(ctx, t["hotel_booking_id"])
    room = _room_type(ctx, hotel["room_type_id"])
    car = None if t["car_rental_id"] is None else _rental(ctx, t["car_rental_id"])
    return {
        "trip_id": t["trip_id"],
        "traveler_id": t["traveler_id"],
        "name": t["name"],
        "status": t["status"],
        "city": room["city"],
        "hotel_booking_id": t["hotel_booking_id"],
        "hotel_name": room["hotel_name"],
        "hotel_status": hotel["status"],
        "check_in": hotel["check_in"],
        "check_out": hotel["check_out"],
        "car_rental_id": t["car_rental_id"],
        "car_status": None if car is None else car["status"],
        "flight_locator": t["flight_locator"],
        "total": _dollars(t["total_cents"]),
        "created_at": t["created_at"],
    }


def _voucher_view(ctx: ToolContext, voucher_id: str) -> dict:
    v = ctx.one("SELECT * FROM vouchers WHERE voucher_id = ?", (voucher_id,))
    if v is None:
        ctx.fail(f"Voucher {voucher_id} not found.")
    return {
        "voucher_id": v["voucher_id"],
        "traveler_id": v["traveler_id"],
        "reason": v["reason"],
        "amount": _dollars(v["amount_cents"]),
        "balance": _dollars(v["balance_cents"]),
        "status": v["status"],
        "issued_on": v["issued_on"],
        "expires_on": v["expires_on"],
    }


# --------------------------------------------------------------------------- lookups


def find_traveler_id_by_email(ctx: ToolContext, *, email: str) -> dict:
    row = ctx.one("SELECT traveler_id FROM travelers WHERE email = ?", (email.strip().lower(),))
    if row is None:
        ctx.fail("No traveler found with that email.")
    return {"traveler_id": row["traveler_id"]}


def find_traveler_id_by_name_dob(
    ctx: ToolContext, *, first_name: str, last_name: str, date_of_birth: str
) -> dict:
    rows = ctx.all(
        "SELECT traveler_id FROM travelers WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) "
        "AND date_of_birth = ? ORDER BY traveler_id",
        (first_name.strip(), last_name.strip(), date_of_birth.strip()),
    )
    if not rows:
        ctx.fail("No traveler found with that name and date of birth.")
    if len(rows) > 1:
        ctx.fail("Several travelers match that name and date of birth; ask for the email instead.")
    return {"traveler_id": rows[0]["traveler_id"]}


def get_traveler_details(ctx: ToolContext, *, traveler_id: str) -> dict:
    t = _traveler(ctx, traveler_id)
    cards = [
        {
            "payment_method_id": m["payment_method_id"],
            "kind": m["kind"],
            "brand": m["brand"],
            "label": m["label"],
            "last_four": m["last_four"],
            "expires": m["expires"],
            "expired": m["expires"] < ctx.now[:7],
        }
        for m in ctx.all(
            "SELECT * FROM payment_methods WHERE traveler_id = ? ORDER BY payment_method_id", (traveler_id,)
        )
    ]

    def ids(sql: str) -> list[str]:
        return [r["id"] for r in ctx.all(sql, (traveler_id,))]

    return {
        "traveler_id": t["traveler_id"],
        "first_name": t["first_name"],
        "last_name": t["last_name"],
        "email": t["email"],
        "date_of_birth": t["date_of_birth"],
        "age": _age_on(t["date_of_birth"], _today(ctx)),
        "tier": t["tier"],
        "max_rooms_per_booking": MAX_ROOMS[t["tier"]],
        "home": {"city": t["home_city"], "state": t["home_state"]},
        "member_since": t["member_since"],
        "payment_methods": cards,
        "vouchers": ids("SELECT voucher_id AS id FROM vouchers WHERE traveler_id = ? ORDER BY voucher_id"),
        "hotel_bookings": ids(
            "SELECT booking_id AS id FROM hotel_bookings WHERE traveler_id = ? ORDER BY check_in DESC, booking_id"
        ),
        "car_rentals": ids(
            "SELECT rental_id AS id FROM car_rentals WHERE traveler_id = ? ORDER BY pickup_date DESC, rental_id"
        ),
        "trips": ids("SELECT trip_id AS id FROM trips WHERE traveler_id = ? ORDER BY trip_id"),
    }


def search_hotels(ctx: ToolContext, *, city: str) -> dict:
    rows = ctx.all(
        "SELECT r.*, h.name AS hotel_name, h.city, h.state, h.stars, h.free_cancel_days FROM room_types r "
        "JOIN hotels h ON h.hotel_id = r.hotel_id WHERE lower(h.city) = lower(?) "
        "ORDER BY h.name, r.refundable_rate_cents, r.room_type_id",
        (city.strip(),),
    )
    if not rows:
        ctx.fail(f"No partner hotels in {city.strip()}.")
    return {
        "city": rows[0]["city"],
        "rooms": [
            {
                "room_type_id": r["room_type_id"],
                "room_name": r["name"],
                "hotel_id": r["hotel_id"],
                "hotel_name": r["hotel_name"],
                "stars": r["stars"],
                "max_guests": r["max_guests"],
                "refundable_rate": _dollars(r["refundable_rate_cents"]),
                "non_refundable_rate": _dollars(r["non_refundable_rate_cents"]),
                "free_cancellation_days": r["free_cancel_days"],
            }
            for r in rows
        ],
    }


def get_hotel_details(ctx: ToolContext, *, hotel_id: str) -> dict:
    hotel = ctx.one("SELECT * FROM hotels WHERE hotel_id = ?", (hotel_id,))
    if hotel is None:
        ctx.fail(f"Hotel {hotel_id} not found.")
    rooms = ctx.all(
        "SELECT * FROM room_types WHERE hotel_id = ? ORDER BY refundable_rate_cents, room_type_id",
        (hotel_id,),
    )
    return {
        "hotel_id": hotel["hotel_id"],
        "name": hotel["name"],
        "city": hotel["city"],
        "state": hotel["state"],
        "stars": hotel["stars"],
        "free_cancellation_days": hotel["free_cancel_days"],
        "room_types": [
            {
                "room_type_id": r["room_type_id"],
                "name": r["name"],
                "max_guests": r["max_guests"],
                "refundable_rate": _dollars(r["refundable_rate_cents"]),
                "non_refundable_rate": _dollars(r["non_refundable_rate_cents"]),
            }
            for r in rooms
        ],
    }


def check_room_availability(ctx: ToolContext, *, room_type_id: str, check_in: str, nights: int) -> dict:
    room = _room_type(ctx, room_type_id)
    start = _date(ctx, check_in, "check_in")
    if not 1 <= nights <= MAX_NIGHTS:
        ctx.fail(f"A stay is 1 to {MAX_NIGHTS} nights.")
    per_night = _rooms_left(ctx, room_type_id, _days(start, nights))
    return {
        "room_type_id": room_type_id,
        "room_name": room["name"],
        "hotel_name": room["hotel_name"],
        "check_in": start.isoformat(),
        "check_out": (start + datetime.timedelta(days=nights)).isoformat(),
        "nights": nights,
        "rooms_available": min(n["rooms_available"] for n in per_night),
        "per_night": per_night,
        "refundable_total_per_room": _dollars(room["refundable_rate_cents"] * nights),
        "non_refundable_total_per_room": _dollars(room["non_refundable_rate_cents"] * nights),
        "free_cancellation_until": _free_cancel_until(start.isoformat(), room["free_cancel_days"]),
    }


def get_hotel_booking_details(ctx: ToolContext, *, booking_id: str) -> dict:
    return _booking_view(ctx, booking_id)


def list_rental_locations(ctx: ToolContext) -> dict:
    return {
        "locations": [
            {"location_id": r["location_id"], "name": r["name"], "city": r["city"], "state": r["state"]}
            for r in ctx.all("SELECT * FROM rental_locations ORDER BY location_id")
        ],
        "car_classes": [
            {
                "class_id": c["class_id"],
                "name": c["name"],
                "seats": c["seats"],
                "daily_rate": _dollars(c["daily_rate_cents"]),
                "min_age": c["min_age"],
            }
            for c in ctx.all("SELECT * FROM car_classes ORDER BY daily_rate_cents, class_id")
        ],
    }


def check_car_availability(
    ctx: ToolContext, *, location_id: str, class_id: str, pickup_date: str, days: int
) -> dict:
    location = _location(ctx, location_id)
    car = _car_class(ctx, class_id)
    start = _date(ctx, pickup_date, "pickup_date")
    if not 1 <= days <= MAX_RENTAL_DAYS:
        ctx.fail(f"A rental is 1 to {MAX_RENTAL_DAYS} days.")
    per_day = _cars_left(ctx, location_id, class_id, _days(start, days))
    return {
        "location_id": location_id,
        "location_name": location["name"],
        "class_id": class_id,
        "class_name": car["name"],
        "pickup_date": start.isoformat(),
        "return_date": (start + datetime.timedelta(days=days)).isoformat(),
        "days": days,
        "cars_available": min(d["cars_available"] for d in per_day),
        "base_price": _dollars(car["daily_rate_cents"] * days),
    }


def get_car_rental_details(ctx: ToolContext, *, rental_id: str) -> dict:
    return _rental_view(ctx, rental_id)


def get_trip_details(ctx: ToolContext, *, trip_id: str) -> dict:
    return _trip_view(ctx, trip_id)


def get_voucher_details(ctx: ToolContext, *, voucher_id: str) -> dict:
    return _voucher_view(ctx, voucher_id)


# --------------------------------------------------------------------------- hotels


def book_hotel(
    ctx: ToolContext,
    *,
    traveler_id: str,
    room_type_id: str,
    check_in: str,
    nights: int,
    rooms: int,
    rate_type: str,
    payment_method_id: str,
    voucher_id: str | None = None,
) -> dict:
    if rate_type not in RATE_TYPES:
        ctx.fail("The rate must be 'refundable' or 'non_refundable'.")
    traveler = _traveler(ctx, traveler_id)
    room = _room_type(ctx, room_type_id)
    start = _date(ctx, check_in, "check_in")
    if start <= _today(ctx):
        ctx.fail(f"Check-in must be after today ({ctx.now[:10]}); same-day or past stays cannot be booked.")
    if not 1 <= nights <= MAX_NIGHTS:
        ctx.fail(f"A stay is 1 to {MAX_NIGHTS} nights.")
    limit = MAX_ROOMS[traveler["tier"]]
    if not 1 <= rooms <= limit:
        ctx.fail(f"A {traveler['tier']} member can book 1 to {limit} rooms per booking; {rooms} requested.")
    method = _card(ctx, traveler_id, payment_method_id)
    voucher = None if voucher_id is None else _usable_voucher(ctx, traveler_id, voucher_id)
    dates = _days(start, nights)
    for night in _rooms_left(ctx, room_type_id, dates):
        if night["rooms_available"] < rooms:
            ctx.fail(
                f"{room['name']} at {room['hotel_name']} has only {night['rooms_available']} room(s) left for the "
                f"night of {night['night']}; {rooms} requested."
            )
    rate = room["refundable_rate_cents"] if rate_type == "refundable" else room["non_refundable_rate_cents"]
    total = rate * rooms * nights
    booking_id = ctx.next_id("hotel_bookings", "booking_id", "HB", 6)
    ctx.execute(
        "INSERT INTO hotel_bookings (booking_id, traveler_id, room_type_id, check_in, check_out, nights, rooms, "
        "rate_type, nightly_rate_cents, total_cents, cancellation_fee_cents, status, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'confirmed', ?)",
        (
            booking_id,
            traveler_id,
            room_type_id,
            start.isoformat(),
            (start + datetime.timedelta(days=nights)).isoformat(),
            nights,
            rooms,
            rate_type,
            rate,
            total,
            ctx.now,
        ),
    )
    _hold_rooms(ctx, room_type_id, dates, rooms)
    _charge(ctx, traveler_id, "hotel_booking_id", booking_id, total, method, voucher)
    return _booking_view(ctx, booking_id)


def change_hotel_dates(ctx: ToolContext, *, booking_id: str, check_in: str, nights: int) -> dict:
    booking = _booking(ctx, booking_id)
    if booking["status"] != "confirmed":
        ctx.fail(
            f"Hotel booking {booking_id} is {booking['status']}; only confirmed bookings can change dates."
        )
    if booking["rate_type"] != "refundable":
        ctx.fail(f"Hotel booking {booking_id} is on a non-refundable rate; its dates cannot be changed.")
    today = _today(ctx)
    if datetime.date.fromisoformat(booking["check_in"]) <= today:
        ctx.fail(
            f"Hotel booking {booking_id} checks in on {booking['check_in']}; dates can only be changed before the "
            "check-in day."
        )
    start = _date(ctx, check_in, "check_in")
    if start <= today:
        ctx.fail(f"The new check-in must be after today ({ctx.now[:10]}).")
    if not 1 <= nights <= MAX_NIGHTS:
        ctx.fail(f"A stay is 1 to {MAX_NIGHTS} nights.")
    if start.isoformat() == booking["check_in"] and nights == booking["nights"]:
        ctx.fail(f"Hotel booking {booking_id} already has those dates.")
    dates = _days(start, nights)
    for night in _rooms_left(ctx, booking["room_type_id"], dates, skip=booking_id):
        if night["rooms_available"] < booking["rooms"]:
            ctx.fail(
                f"Only {night['rooms_available']} room(s) of this type are left for the night of {night['night']}; "
                f"the booking needs {booking['rooms']}."
            )
    new_total = booking["nightly_rate_cents"] * booking["rooms"] * nights
    difference = new_total - booking["total_cents"]
    card = None
    if difference > 0:
        payments = [p for p in _payments_of(ctx, "hotel_booking_id", booking_id) if p["payment_method_id"]]
        if not payments:
            ctx.fail(f"Hotel booking {booking_id} was paid without a card; the difference cannot be charged.")
        card = ctx.one(
            "SELECT * FROM payment_methods WHERE payment_method_id = ?", (payments[0]["payment_method_id"],)
        )
        if card is None or card["expires"] < ctx.now[:7]:
            ctx.fail(
                f"The card that paid hotel booking {booking_id} has expired; the longer stay cannot be charged to it."
            )
    _release_rooms(ctx, booking)
    _hold_rooms(ctx, booking["room_type_id"], dates, booking["rooms"])
    ctx.execute(
        "UPDATE hotel_bookings SET check_in = ?, check_out = ?, nights = ?, total_cents = ? WHERE booking_id = ?",
        (
            start.isoformat(),
            (start + datetime.timedelta(days=nights)).isoformat(),
            nights,
            new_total,
            booking_id,
        ),
    )
    charged = refunded = 0
    if difference > 0 and card is not None:
        _add_payment(
            ctx,
            booking["traveler_id"],
            "hotel_booking_id",
            booking_id,
            card["payment_method_id"],
            None,
            difference,
        )
        charged = difference
    elif difference < 0:
        refunded = _refund(ctx, "hotel_booking_id", booking_id, -difference, "hotel stay shortened")
    trip = _trip_of(ctx, "hotel_booking_id", booking_id)
    if trip is not None:
        _refresh_trip_total(ctx, trip["trip_id"])
    return {
        "charged": _dollars(charged),
        "refunded": _dollars(refunded),
        "booking": _booking_view(ctx, booking_id),
    }


def _cancel_booking(ctx: ToolContext, booking: Row) -> tuple[int, int]:
    """Cancel a confirmed refundable booking: (fee kept, amount refunded)."""
    booking_id = booking["booking_id"]
    if booking["rate_type"] != "refundable":
        ctx.fail(
            f"Hotel booking {booking_id} is on a non-refundable rate; it cannot be cancelled for a refund."
        )
    room = _room_type(ctx, booking["room_type_id"])
    traveler = _traveler(ctx, booking["traveler_id"])
    deadline = _free_cancel_until(booking["check_in"], room["free_cancel_days"])
    fee = 0
    if ctx.now[:10] > deadline and traveler["tier"] not in NO_LATE_FEE_TIERS:
        fee = booking["nightly_rate_cents"] * booking["rooms"]
    _release_rooms(ctx, booking)
    ctx.execute(
        "UPDATE hotel_bookings SET status = 'cancelled', cancellation_fee_cents = ? WHERE booking_id = ?",
        (fee, booking_id),
    )
    refunded = _refund(
        ctx, "hotel_booking_id", booking_id, booking["total_cents"] - fee, "hotel booking cancelled"
    )
    return fee, refunded


def cancel_hotel_booking(ctx: ToolContext, *, booking_id: str) -> dict:
    booking = _booking(ctx, booking_id)
    if booking["status"] != "confirmed":
        ctx.fail(
            f"Hotel booking {booking_id} is {booking['status']}; only confirmed bookings can be cancelled."
        )
    trip = _trip_of(ctx, "hotel_booking_id", booking_id)
    if trip is not None and trip["status"] == "planned":
        ctx.fail(
            f"Hotel booking {booking_id} is the stay of trip {trip['trip_id']}; cancel the trip instead."
        )
    fee, refunded = _cancel_booking(ctx, booking)
    return {"fee": _dollars(fee), "refunded": _dollars(refunded), "booking": _booking_view(ctx, booking_id)}


# --------------------------------------------------------------------------- cars


def book_car_rental(
    ctx: ToolContext,
    *,
    traveler_id: str,
    class_id: str,
    pickup_location_id: str,
    dropoff_location_id: str,
    pickup_date: str,
    days: int,
    payment_method_id: str,
    voucher_id: str | None = None,
) -> dict:
    traveler = _traveler(ctx, traveler_id)
    car = _car_class(ctx, class_id)
    pickup = _location(ctx, pickup_location_id)
    _location(ctx, dropoff_location_id)
    start = _date(ctx, pickup_date, "pickup_date")
    if start <= _today(ctx):
        ctx.fail(f"Pick-up must be after today ({ctx.now[:10]}).")
    if not 1 <= days <= MAX_RENTAL_DAYS:
        ctx.fail(f"A rental is 1 to {MAX_RENTAL_DAYS} days.")
    age = _age_on(traveler["date_of_birth"], start)
    if age < MIN_DRIVER_AGE:
        ctx.fail(
            f"The driver will be {age} on {start.isoformat()}; drivers must be at least {MIN_DRIVER_AGE}."
        )
    if age < car["min_age"]:
        ctx.fail(f"{car['name']} requires drivers aged {car['min_age']} or older; the driver will be {age}.")
    method = _card(ctx, traveler_id, payment_method_id)
    voucher = None if voucher_id is None else _usable_voucher(ctx, traveler_id, voucher_id)
    for day in _cars_left(ctx, pickup_location_id, class_id, _days(start, days)):
        if day["cars_available"] < 1:
            ctx.fail(f"No {car['name']} is left at {pickup['name']} on {day['day']}.")
    young_fee = YOUNG_DRIVER_FEE_PER_DAY * days if age < YOUNG_DRIVER_AGE else 0
    one_way = 0
    if dropoff_location_id != pickup_location_id and traveler["tier"] not in NO_ONE_WAY_FEE_TIERS:
        one_way = ONE_WAY_FEE
    total = car["daily_rate_cents"] * days + young_fee + one_way
    rental_id = ctx.next_id("car_rentals", "rental_id", "CR", 6)
    ctx.execute(
        "INSERT INTO car_rentals (rental_id, traveler_id, class_id, pickup_location_id, dropoff_location_id, "
        "pickup_date, return_date, days, driver_age, daily_rate_cents, young_driver_fee_cents, one_way_fee_cents, "
        "total_cents, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'reserved', ?)",
        (
            rental_id,
            traveler_id,
            class_id,
            pickup_location_id,
            dropoff_location_id,
            start.isoformat(),
            (start + datetime.timedelta(days=days)).isoformat(),
            days,
            age,
            car["daily_rate_cents"],
            young_fee,
            one_way,
            total,
            ctx.now,
        ),
    )
    _move_cars(ctx, _rental(ctx, rental_id), 1)
    _charge(ctx, traveler_id, "car_rental_id", rental_id, total, method, voucher)
    return _rental_view(ctx, rental_id)


def _cancel_rental(ctx: ToolContext, rental: Row) -> int:
    rental_id = rental["rental_id"]
    if rental["pickup_date"] <= ctx.now[:10]:
        ctx.fail(
            f"Car rental {rental_id} is picked up on {rental['pickup_date']}; rentals can only be cancelled before "
            "the pick-up day."
        )
    _move_cars(ctx, rental, -1)
    ctx.execute("UPDATE car_rentals SET status = 'cancelled' WHERE rental_id = ?", (rental_id,))
    return _refund(ctx, "car_rental_id", rental_id, rental["total_cents"], "car rental cancelled")


def cancel_car_rental(ctx: ToolContext, *, rental_id: str) -> dict:
    rental = _rental(ctx, rental_id)
    if rental["status"] != "reserved":
        ctx.fail(f"Car rental {rental_id} is {rental['status']}; only reserved rentals can be cancelled.")
    refunded = _cancel_rental(ctx, rental)
    trip = _trip_of(ctx, "car_rental_id", rental_id)
    if trip is not None:
        ctx.execute("UPDATE trips SET car_rental_id = NULL WHERE trip_id = ?", (trip["trip_id"],))
        _refresh_trip_total(ctx, trip["trip_id"])
    return {"refunded": _dollars(refunded), "rental": _rental_view(ctx, rental_id)}


# --------------------------------------------------------------------------- trips


def add_car_rental_to_trip(ctx: ToolContext, *, trip_id: str, rental_id: str) -> dict:
    trip = _trip(ctx, trip_id)
    if trip["status"] != "planned":
        ctx.fail(f"Trip {trip_id} is {trip['status']}; a car can only be added to a planned trip.")
    if trip["car_rental_id"] is not None:
        ctx.fail(f"Trip {trip_id} already has car rental {trip['car_rental_id']}.")
    rental = _rental(ctx, rental_id)
    if rental["traveler_id"] != trip["traveler_id"]:
        ctx.fail(f"Car rental {rental_id} belongs to another traveler than trip {trip_id}.")
    if rental["status"] != "reserved":
        ctx.fail(
            f"Car rental {rental_id} is {rental['status']}; only reserved rentals can be added to a trip."
        )
    other = _trip_of(ctx, "car_rental_id", rental_id)
    if other is not None:
        ctx.fail(f"Car rental {rental_id} is already part of trip {other['trip_id']}.")
    hotel = _booking(ctx, trip["hotel_booking_id"])
    room = _room_type(ctx, hotel["room_type_id"])
    pickup = _location(ctx, rental["pickup_location_id"])
    if pickup["city"] != room["city"]:
        ctx.fail(
            f"Car rental {rental_id} is picked up in {pickup['city']}, but trip {trip_id} stays in {room['city']}."
        )
    if not hotel["check_in"] <= rental["pickup_date"] <= hotel["check_out"]:
        ctx.fail(
            f"Car rental {rental_id} is picked up on {rental['pickup_date']}, outside the stay of trip {trip_id} "
            f"({hotel['check_in']} to {hotel['check_out']})."
        )
    ctx.execute("UPDATE trips SET car_rental_id = ? WHERE trip_id = ?", (rental_id, trip_id))
    _refresh_trip_total(ctx, trip_id)
    return _trip_view(ctx, trip_id)


def set_flight_locator(ctx: ToolContext, *, trip_id: str, flight_locator: str) -> dict:
    trip = _trip(ctx, trip_id)
    if trip["status"] != "planned":
        ctx.fail(f"Trip {trip_id} is {trip['status']}; flights can only be recorded on a planned trip.")
    locator = flight_locator.strip().upper()
    if len(locator) != 6 or not locator.isalnum() or not locator.isascii():
        ctx.fail("A record locator is six letters or digits, e.g. 'K7XQ2M'.")
    if locator == trip["flight_locator"]:
        ctx.fail(f"Trip {trip_id} already carries record locator {locator}.")
    ctx.execute("UPDATE trips SET flight_locator = ? WHERE trip_id = ?", (locator, trip_id))
    return _trip_view(ctx, trip_id)


def cancel_trip(ctx: ToolContext, *, trip_id: str) -> dict:
    trip = _trip(ctx, trip_id)
    if trip["status"] != "planned":
        ctx.fail(f"Trip {trip_id} is {trip['status']}; only planned trips can be cancelled.")
    hotel = _booking(ctx, trip["hotel_booking_id"])
    fee, refunded = _cancel_booking(ctx, hotel)
    if trip["car_rental_id"] is not None:
        rental = _rental(ctx, trip["car_rental_id"])
        if rental["status"] == "reserved":
            refunded += _cancel_rental(ctx, rental)
    ctx.execute("UPDATE trips SET status = 'cancelled' WHERE trip_id = ?", (trip_id,))
    _refresh_trip_total(ctx, trip_id)
    return {"fee": _dollars(fee), "refunded": _dollars(refunded), "trip": _trip_view(ctx, trip_id)}


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
        "message": "The conversation has been transferred to a human agent, who will follow up with the traveler.",
        "summary": summary,
    }
