"""Tool declarations of the travel environment: schemas, effects, tables, entities and claims."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit
from envfactory_mcp.blueprints.kit import Schema
from envfactory_mcp.spec import ParamSpec, ToolSpec

from .spec_tables import (
    CAR_RENTAL_STATUSES,
    CARD_BRANDS,
    CARD_KINDS,
    HOTEL_BOOKING_STATUSES,
    RATE_TYPES,
    TIERS,
    TRIP_STATUSES,
    VOUCHER_REASONS,
    VOUCHER_STATUSES,
)

MONEY: Schema = {"type": "number", "description": "Dollars, two decimals."}
TEXT: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
INT: Schema = {"type": "integer"}
NULLABLE_TEXT: Schema = kit.nullable("string")

TRAVELER_ID = kit.string(
    10, "Internal traveler id from a find_traveler_id_* tool, e.g. 'trv_000042'.", pattern=r"^trv_[0-9]{6}$"
)
BOOKING_ID = kit.string(8, "Hotel booking number as emailed, e.g. 'HB204518'.", pattern=r"^HB[0-9]{6}$")
RENTAL_ID = kit.string(8, "Car rental confirmation number, e.g. 'CR318204'.", pattern=r"^CR[0-9]{6}$")
TRIP_ID = kit.string(8, "Itinerary number, e.g. 'TR104233'.", pattern=r"^TR[0-9]{6}$")
VOUCHER_ID = kit.string(8, "Travel voucher code, e.g. 'TV550123'.", pattern=r"^TV[0-9]{6}$")
ROOM_TYPE_ID = kit.string(8, "Room type id from search_hotels, e.g. 'rm_00012'.", pattern=r"^rm_[0-9]{5}$")
LOCATION_ID = kit.string(
    7, "Rental location code from list_rental_locations, e.g. 'DEN-APT'.", pattern=r"^[A-Z]{3}-[A-Z]{3}$"
)
CLASS_ID = kit.string(
    4, "Car class code (ACRISS) from list_rental_locations, e.g. 'ICAR'.", pattern=r"^[A-Z]{4}$"
)
PAYMENT_METHOD_ID = kit.string(
    11, "Card id from get_traveler_details, e.g. 'card_000123'.", pattern=r"^card_[0-9]{6}$"
)
DATE = kit.string(10, "Date, YYYY-MM-DD.", pattern=r"^20[0-9]{2}-[01][0-9]-[0-3][0-9]$")

PAYMENTS_OUT = kit.array(
    kit.obj(
        {
            "payment_id": TEXT,
            "payment_method_id": NULLABLE_TEXT,
            "voucher_id": NULLABLE_TEXT,
            "amount": MONEY,
            "refunded": MONEY,
            "created_at": TEXT,
        }
    )
)
BOOKING_OUT = kit.obj(
    {
        "booking_id": TEXT,
        "traveler_id": TEXT,
        "hotel_id": TEXT,
        "hotel_name": TEXT,
        "city": TEXT,
        "state": TEXT,
        "room_type_id": TEXT,
        "room_name": TEXT,
        "check_in": TEXT,
        "check_out": TEXT,
        "nights": INT,
        "rooms": INT,
        "rate_type": kit.enum(RATE_TYPES),
        "nightly_rate": MONEY,
        "total": MONEY,
        "status": kit.enum(HOTEL_BOOKING_STATUSES),
        "free_cancellation_until": NULLABLE_TEXT,
        "cancellation_fee": MONEY,
        "trip_id": NULLABLE_TEXT,
        "payments": PAYMENTS_OUT,
        "paid": MONEY,
        "refunded": MONEY,
        "created_at": TEXT,
    }
)
# The cards and vouchers that paid are shown but not offered as lookups: new bookings take
# the traveler's cards and vouchers from get_traveler_details.
PAYMENT_OUTPUTS = {"payments[].payment_id": "payment"}
BOOKING_OUTPUTS = {
    "booking_id": "hotel_booking",
    "traveler_id": "traveler",
    "hotel_id": "hotel",
    "room_type_id": "room_type",
    "trip_id": "trip",
    **PAYMENT_OUTPUTS,
}
BOOKING_READS = ["hotel_bookings", "hotels", "payments", "refunds", "room_types", "trips"]

RENTAL_OUT = kit.obj(
    {
        "rental_id": TEXT,
        "traveler_id": TEXT,
        "class_id": TEXT,
        "class_name": TEXT,
        "pickup_location_id": TEXT,
        "pickup_city": TEXT,
        "dropoff_location_id": TEXT,
        "pickup_date": TEXT,
        "return_date": TEXT,
        "days": INT,
        "driver_age": INT,
        "daily_rate": MONEY,
        "young_driver_fee": MONEY,
        "one_way_fee": MONEY,
        "total": MONEY,
        "status": kit.enum(CAR_RENTAL_STATUSES),
        "trip_id": NULLABLE_TEXT,
        "payments": PAYMENTS_OUT,
        "paid": MONEY,
        "refunded": MONEY,
        "created_at": TEXT,
    }
)
# Classes and locations are what the traveler names (a new rental is not copied from an old one).
RENTAL_OUTPUTS = {
    "rental_id": "car_rental",
    "traveler_id": "traveler",
    "trip_id": "trip",
    **PAYMENT_OUTPUTS,
}
RENTAL_READS = ["car_classes", "car_rentals", "payments", "refunds", "rental_locations", "trips"]

TRIP_OUT = kit.obj(
    {
        "trip_id": TEXT,
        "traveler_id": TEXT,
        "name": TEXT,
        "status": kit.enum(TRIP_STATUSES),
        "city": TEXT,
        "hotel_booking_id": TEXT,
        "hotel_name": TEXT,
        "hotel_status": kit.enum(HOTEL_BOOKING_STATUSES),
        "check_in": TEXT,
        "check_out": TEXT,
        "car_rental_id": NULLABLE_TEXT,
        "car_status": kit.enum(CAR_RENTAL_STATUSES, nullable=True),
        "flight_locator": NULLABLE_TEXT,
        "total": MONEY,
        "created_at": TEXT,
    }
)
TRIP_OUTPUTS = {
    "trip_id": "trip",
    "traveler_id": "traveler",
    "hotel_booking_id": "hotel_booking",
    "car_rental_id": "car_rental",
}
TRIP_READS = ["car_rentals", "hotel_bookings", "hotels", "room_types", "trips"]

NIGHTS = (
    {
        "type": "integer",
        "minimum": 1,
        "maximum": 14,
        "description": "Nights of the stay.",
        "examples": [2, 3, 4],
    },
    kit.param(None, True),
)
DAYS = (
    {"type": "integer", "minimum": 1, "maximum": 21, "description": "Rental days.", "examples": [2, 3, 5]},
    kit.param(None, True),
)


def _nested(prefix: str, outputs: dict[str, str]) -> dict[str, str]:
    return {f"{prefix}.{k}": v for k, v in outputs.items()}


def build_tools() -> list[ToolSpec]:
    traveler_id = (TRAVELER_ID, kit.param("traveler", False))
    booking_id = (BOOKING_ID, kit.param("hotel_booking", True))
    rental_id = (RENTAL_ID, kit.param("car_rental", True))
    trip_id = (TRIP_ID, kit.param("trip", True))
    payment_method_id = (PAYMENT_METHOD_ID, kit.param("payment_method", False))
    # Named by the traveler ("use my voucher"), found by the agent in get_traveler_details.
    voucher_id = (VOUCHER_ID, kit.param("voucher", False))
    return [
        kit.tool(
            "find_traveler_id_by_email",
            "look up my profile by email",
            "Find a traveler's id from their email address (case-insensitive). Use this to authenticate the "
            "traveler before anything else. Fails if no traveler has that email.",
            {
                "email": (
                    kit.string(254, "Email address of the traveler.", pattern=r"^[^@\s]+@[^@\s]+$"),
                    kit.param(None, True),
                )
            },
            kit.obj({"traveler_id": TEXT}),
            reads=["travelers"],
            outputs={"traveler_id": "traveler"},
        ),
        kit.tool(
            "find_traveler_id_by_name_dob",
            "look up my profile by name and date of birth",
            "Find a traveler's id from first name, last name and date of birth (YYYY-MM-DD). Use this to "
            "authenticate a traveler who cannot give their email. Fails if no traveler, or more than one, matches.",
            {
                "first_name": (kit.string(60, "First name."), kit.param(None, True)),
                "last_name": (kit.string(60, "Last name."), kit.param(None, True)),
                "date_of_birth": (
                    kit.string(10, "Date of birth, YYYY-MM-DD.", pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
                    kit.param(None, True),
                ),
            },
            kit.obj({"traveler_id": TEXT}),
            reads=["travelers"],
            outputs={"traveler_id": "traveler"},
        ),
        kit.tool(
            "get_traveler_details",
            "see my travel profile",
            "Get a traveler's profile: name, email, date of birth and age today, loyalty tier (member, silver, "
            "gold, platinum) and the rooms it allows per booking, home city, saved cards (with expiry month and "
            "whether expired), and the numbers of their travel vouchers, hotel bookings and car rentals (latest "
            "first) and trips.",
            {"traveler_id": traveler_id},
            kit.obj(
                {
                    "traveler_id": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "email": TEXT,
                    "date_of_birth": TEXT,
                    "age": INT,
                    "tier": kit.enum(TIERS),
                    "max_rooms_per_booking": INT,
                    "home": kit.obj({"city": TEXT, "state": TEXT}),
                    "member_since": TEXT,
                    "payment_methods": kit.array(
                        kit.obj(
                            {
                                "payment_method_id": TEXT,
                                "kind": kit.enum(CARD_KINDS),
                                "brand": kit.enum(CARD_BRANDS),
                                "label": TEXT,
                                "last_four": TEXT,
                                "expires": TEXT,
                                "expired": BOOL,
                            }
                        )
                    ),
                    "vouchers": kit.array(TEXT),
                    "hotel_bookings": kit.array(TEXT),
                    "car_rentals": kit.array(TEXT),
                    "trips": kit.array(TEXT),
                }
            ),
            reads=["car_rentals", "hotel_bookings", "payment_methods", "travelers", "trips", "vouchers"],
            outputs={
                "traveler_id": "traveler",
                "payment_methods[].payment_method_id": "payment_method",
                "vouchers[]": "voucher",
                "hotel_bookings[]": "hotel_booking",
                "car_rentals[]": "car_rental",
                "trips[]": "trip",
            },
            claims=["tier"],
        ),
        kit.tool(
            "search_hotels",
            "find hotels in a city",
            "List the partner hotels' room types in a city: hotel, stars, guests per room, the nightly refundable "
            "and non-refundable rates per room, and how many days before check-in a refundable booking can be "
            "cancelled free. Fails if the agency has no hotel there.",
            {"city": (kit.string(60, "City, e.g. 'Denver'."), kit.param(None, True))},
            kit.obj(
                {
                    "city": TEXT,
                    "rooms": kit.array(
                        kit.obj(
                            {
                                "room_type_id": TEXT,
                                "room_name": TEXT,
                                "hotel_id": TEXT,
                                "hotel_name": TEXT,
                                "stars": INT,
                                "max_guests": INT,
                                "refundable_rate": MONEY,
                                "non_refundable_rate": MONEY,
                                "free_cancellation_days": INT,
                            }
                        )
                    ),
                }
            ),
            reads=["hotels", "room_types"],
            outputs={"rooms[].room_type_id": "room_type", "rooms[].hotel_id": "hotel"},
            claims=["rooms[].refundable_rate"],
        ),
        kit.tool(
            "get_hotel_details",
            "see a hotel's rooms and rates",
            "Get a partner hotel: city, stars, how many days before check-in a refundable booking cancels free, "
            "and each room type with guests per room and the nightly refundable and non-refundable rates per room.",
            {
                "hotel_id": (
                    kit.string(8, "Hotel id from search_hotels, e.g. 'htl_0003'.", pattern=r"^htl_[0-9]{4}$"),
                    kit.param("hotel", False),
                )
            },
            kit.obj(
                {
                    "hotel_id": TEXT,
                    "name": TEXT,
                    "city": TEXT,
                    "state": TEXT,
                    "stars": INT,
                    "free_cancellation_days": INT,
                    "room_types": kit.array(
                        kit.obj(
                            {
                                "room_type_id": TEXT,
                                "name": TEXT,
                                "max_guests": INT,
                                "refundable_rate": MONEY,
                                "non_refundable_rate": MONEY,
                            }
                        )
                    ),
                }
            ),
            reads=["hotels", "room_types"],
            outputs={"hotel_id": "hotel", "room_types[].room_type_id": "room_type"},
            claims=["room_types[].refundable_rate"],
        ),
        kit.tool(
            "check_room_availability",
            "check if a room is free for my dates",
            "Check how many rooms of a room type are still for sale on every night of a stay (check_in and a "
            "number of nights), the fewest over the stay, the price per room for the stay at each rate, and until "
            "when a refundable booking would cancel free. Fails for nights not on sale.",
            {
                "room_type_id": (ROOM_TYPE_ID, kit.param("room_type", False)),
                "check_in": ({**DATE, "description": "Check-in date, YYYY-MM-DD."}, kit.param(None, True)),
                "nights": NIGHTS,
            },
            kit.obj(
                {
                    "room_type_id": TEXT,
                    "room_name": TEXT,
                    "hotel_name": TEXT,
                    "check_in": TEXT,
                    "check_out": TEXT,
                    "nights": INT,
                    "rooms_available": INT,
                    "per_night": kit.array(kit.obj({"night": TEXT, "rooms_available": INT})),
                    "refundable_total_per_room": MONEY,
                    "non_refundable_total_per_room": MONEY,
                    "free_cancellation_until": TEXT,
                }
            ),
            reads=["hotels", "room_nights", "room_types"],
            outputs={"room_type_id": "room_type"},
            claims=["rooms_available"],
        ),
        kit.tool(
            "get_hotel_booking_details",
            "check on my hotel booking",
            "Get a hotel booking: hotel and room type, check-in and check-out dates, nights, rooms, rate type, "
            "nightly rate and total, status (confirmed, checked_in, completed, cancelled), the last day it cancels "
            "free (refundable rates only), the fee kept on a late cancellation, the trip it belongs to, and its "
            "payments and refunds.",
            {"booking_id": booking_id},
            BOOKING_OUT,
            reads=BOOKING_READS,
            outputs=BOOKING_OUTPUTS,
            claims=["status", "total"],
        ),
        kit.tool(
            "book_hotel",
            "book a hotel room",
            "Book rooms of a room type for a stay starting after today (1 to 14 nights) at the refundable or "
            "non-refundable rate, for the traveler, paid in full now with one of their unexpired cards; a travel "
            "voucher of theirs can pay first, the card pays the rest. Every night must have enough rooms left. A "
            "booking holds at most 2 rooms for member and silver tiers, 3 for gold, 4 for platinum. Returns the "
            "new booking.",
            {
                "traveler_id": traveler_id,
                "room_type_id": (ROOM_TYPE_ID, kit.param("room_type", False)),
                "check_in": ({**DATE, "description": "Check-in date, YYYY-MM-DD."}, kit.param(None, True)),
                "nights": NIGHTS,
                "rooms": (
                    {"type": "integer", "minimum": 1, "maximum": 5, "description": "Rooms to book."},
                    kit.param(None, True),
                ),
                "rate_type": (
                    kit.enum(RATE_TYPES, "Rate: 'refundable' or the cheaper 'non_refundable'."),
                    kit.param(None, True),
                ),
                "payment_method_id": payment_method_id,
                "voucher_id": voucher_id,
            },
            BOOKING_OUT,
            effect="write",
            reads=[*BOOKING_READS, "car_rentals", "payment_methods", "room_nights", "travelers", "vouchers"],
            writes=["hotel_bookings", "payments", "room_nights", "vouchers"],
            outputs=BOOKING_OUTPUTS,
            claims=["booking_id", "total"],
            required=[
                "traveler_id",
                "room_type_id",
                "check_in",
                "nights",
                "rooms",
                "rate_type",
                "payment_method_id",
            ],
        ),
        kit.tool(
            "change_hotel_dates",
            "change the dates of my hotel booking",
            "Move a confirmed refundable booking to a new check-in date (after today) and number of nights, "
            "before its current check-in day; the same rooms must be free every new night. The total is "
            "recomputed at the booked nightly rate: a higher total is charged to the card that paid the booking, a "
            "lower one refunded. Non-refundable bookings cannot change dates. Returns the amounts charged and "
            "refunded and the booking.",
            {
                "booking_id": booking_id,
                "check_in": (
                    {**DATE, "description": "New check-in date, YYYY-MM-DD."},
                    kit.param(None, True),
                ),
                "nights": NIGHTS,
            },
            kit.obj({"charged": MONEY, "refunded": MONEY, "booking": BOOKING_OUT}),
            effect="write",
            reads=[*BOOKING_READS, "car_rentals", "payment_methods", "room_nights", "travelers", "vouchers"],
            writes=["hotel_bookings", "payments", "refunds", "room_nights", "trips", "vouchers"],
            outputs=_nested("booking", BOOKING_OUTPUTS),
            claims=["booking.check_out", "booking.total"],
        ),
        kit.tool(
            "cancel_hotel_booking",
            "cancel my hotel booking",
            "Cancel a confirmed refundable booking that is not the stay of a planned trip (cancel the trip "
            "instead). Free until the booking's free-cancellation day; after it, one night per room is kept as a "
            "fee (waived for platinum members). The rest is refunded to what paid it. Non-refundable bookings "
            "cannot be cancelled. Returns the fee, the refund and the booking.",
            {"booking_id": booking_id},
            kit.obj({"fee": MONEY, "refunded": MONEY, "booking": BOOKING_OUT}),
            effect="write",
            reads=[*BOOKING_READS, "room_nights", "travelers", "vouchers"],
            writes=["hotel_bookings", "refunds", "room_nights", "vouchers"],
            outputs=_nested("booking", BOOKING_OUTPUTS),
            claims=["fee", "refunded"],
        ),
        kit.tool(
            "list_rental_locations",
            "see where I can rent a car",
            "List the car rental locations (code, counter name, city) and the car classes with seats, daily rate "
            "and minimum driver age.",
            {},
            kit.obj(
                {
                    "locations": kit.array(
                        kit.obj({"location_id": TEXT, "name": TEXT, "city": TEXT, "state": TEXT})
                    ),
                    "car_classes": kit.array(
                        kit.obj(
                            {
                                "class_id": TEXT,
                                "name": TEXT,
                                "seats": INT,
                                "daily_rate": MONEY,
                                "min_age": INT,
                            }
                        )
                    ),
                }
            ),
            reads=["car_classes", "rental_locations"],
            outputs={"locations[].location_id": "rental_location", "car_classes[].class_id": "car_class"},
            claims=["car_classes[].daily_rate"],
        ),
        kit.tool(
            "check_car_availability",
            "check if a car is free for my dates",
            "Check how many cars of a class are free at a pick-up location on every day of a rental (pickup_date "
            "and a number of days), the fewest over the rental, and the base price (daily rate x days, before any "
            "young-driver or one-way fee).",
            {
                "location_id": (LOCATION_ID, kit.param("rental_location", False)),
                "class_id": (CLASS_ID, kit.param("car_class", False)),
                "pickup_date": ({**DATE, "description": "Pick-up date, YYYY-MM-DD."}, kit.param(None, True)),
                "days": DAYS,
            },
            kit.obj(
                {
                    "location_id": TEXT,
                    "location_name": TEXT,
                    "class_id": TEXT,
                    "class_name": TEXT,
                    "pickup_date": TEXT,
                    "return_date": TEXT,
                    "days": INT,
                    "cars_available": INT,
                    "base_price": MONEY,
                }
            ),
            reads=["car_availability", "car_classes", "rental_locations"],
            outputs={"location_id": "rental_location", "class_id": "car_class"},
            claims=["cars_available"],
        ),
        kit.tool(
            "get_car_rental_details",
            "check on my car rental",
            "Get a car rental: class, pick-up and drop-off locations, dates, days, driver age, daily rate, "
            "young-driver and one-way fees, total, status (reserved, picked_up, returned, cancelled), the trip it "
            "belongs to, and its payments and refunds.",
            {"rental_id": rental_id},
            RENTAL_OUT,
            reads=RENTAL_READS,
            outputs=RENTAL_OUTPUTS,
            claims=["status", "total"],
        ),
        kit.tool(
            "book_car_rental",
            "rent a car",
            "Reserve a car of a class for the traveler (the driver), picked up after today at a location for 1 to 21 "
            "days and dropped off at the same or another location, paid in full now with one of their unexpired "
            "cards (a travel voucher of theirs can pay first). The driver must be at least 21 on the pick-up date "
            "(or the class's minimum age); under 25 adds $25.00 a day. Returning elsewhere adds a $95.00 one-way "
            "fee, waived for gold and platinum members. A car must be free every day. Returns the new rental.",
            {
                "traveler_id": traveler_id,
                "class_id": (CLASS_ID, kit.param("car_class", False)),
                "pickup_location_id": (LOCATION_ID, kit.param("rental_location", False)),
                "dropoff_location_id": (LOCATION_ID, kit.param("rental_location", False)),
                "pickup_date": ({**DATE, "description": "Pick-up date, YYYY-MM-DD."}, kit.param(None, True)),
                "days": DAYS,
                "payment_method_id": payment_method_id,
                "voucher_id": voucher_id,
            },
            RENTAL_OUT,
            effect="write",
            reads=[
                *RENTAL_READS,
                "car_availability",
                "hotel_bookings",
                "payment_methods",
                "travelers",
                "vouchers",
            ],
            writes=["car_availability", "car_rentals", "payments", "vouchers"],
            outputs=RENTAL_OUTPUTS,
            claims=["rental_id", "total"],
            required=[
                "traveler_id",
                "class_id",
                "pickup_location_id",
                "dropoff_location_id",
                "pickup_date",
                "days",
                "payment_method_id",
            ],
        ),
        kit.tool(
            "cancel_car_rental",
            "cancel my car rental",
            "Cancel a reserved rental before its pick-up day, with a full refund to what paid it. A rental that "
            "is part of a trip is taken off the trip and the trip's total goes down. Returns the refund and the "
            "rental.",
            {"rental_id": rental_id},
            kit.obj({"refunded": MONEY, "rental": RENTAL_OUT}),
            effect="write",
            reads=[*RENTAL_READS, "car_availability", "hotel_bookings", "travelers", "vouchers"],
            writes=["car_availability", "car_rentals", "refunds", "trips", "vouchers"],
            outputs=_nested("rental", RENTAL_OUTPUTS),
            claims=["refunded"],
        ),
        kit.tool(
            "get_trip_details",
            "check on my trip",
            "Get a trip (itinerary): name, status (planned, in_progress, completed, cancelled), city, its hotel "
            "booking with dates and status, its car rental and status, the flight record locator, and the total "
            "its bookings cost.",
            {"trip_id": trip_id},
            TRIP_OUT,
            reads=TRIP_READS,
            outputs=TRIP_OUTPUTS,
            claims=["status", "total"],
        ),
        kit.tool(
            "add_car_rental_to_trip",
            "add my rental car to my trip",
            "Add a reserved car rental of the same traveler to a planned trip without a car; it must be picked up "
            "in the trip's city between check-in and check-out and not be on another trip. The trip's total "
            "grows by the rental's total. Returns the trip.",
            {"trip_id": trip_id, "rental_id": rental_id},
            TRIP_OUT,
            effect="write",
            reads=[*TRIP_READS, "rental_locations", "travelers"],
            writes=["trips"],
            outputs=TRIP_OUTPUTS,
            claims=["total"],
        ),
        kit.tool(
            "set_flight_locator",
            "add my flight booking reference to my trip",
            "Record the airline record locator (six letters or digits) of the traveler's flights on a planned "
            "trip, replacing any earlier one. Returns the trip.",
            {
                "trip_id": trip_id,
                "flight_locator": (
                    {
                        **kit.string(
                            6, "Airline record locator, e.g. 'K7XQ2M'.", pattern=r"^[A-Za-z0-9]{6}$"
                        ),
                        "examples": ["K7XQ2M", "ZP4TRA", "H9W2LC"],
                    },
                    kit.param(None, True),
                ),
            },
            TRIP_OUT,
            effect="write",
            reads=[*TRIP_READS, "travelers"],
            writes=["trips"],
            outputs=TRIP_OUTPUTS,
            claims=["flight_locator"],
        ),
        kit.tool(
            "cancel_trip",
            "cancel my trip",
            "Cancel a planned trip: its hotel booking is cancelled under the hotel rules (refundable rates only; a "
            "late cancellation keeps one night per room unless platinum) and its reserved car rental with a full "
            "refund. A trip whose hotel booking is non-refundable cannot be cancelled. Returns the fee, the total "
            "refunded and the trip.",
            {"trip_id": trip_id},
            kit.obj({"fee": MONEY, "refunded": MONEY, "trip": TRIP_OUT}),
            effect="write",
            reads=[
                *TRIP_READS,
                "car_availability",
                "car_classes",
                "payments",
                "refunds",
                "rental_locations",
                "room_nights",
                "travelers",
                "vouchers",
            ],
            writes=[
                "car_availability",
                "car_rentals",
                "hotel_bookings",
                "refunds",
                "room_nights",
                "trips",
                "vouchers",
            ],
            outputs=_nested("trip", TRIP_OUTPUTS),
            claims=["fee", "refunded"],
        ),
        kit.tool(
            "get_voucher_details",
            "check my travel voucher",
            "Get a travel voucher: why it was issued, face value, balance left, status (active, redeemed, "
            "expired), issue date and last day of use.",
            {"voucher_id": (VOUCHER_ID, kit.param("voucher", True))},
            kit.obj(
                {
                    "voucher_id": TEXT,
                    "traveler_id": TEXT,
                    "reason": kit.enum(VOUCHER_REASONS),
                    "amount": MONEY,
                    "balance": MONEY,
                    "status": kit.enum(VOUCHER_STATUSES),
                    "issued_on": TEXT,
                    "expires_on": TEXT,
                }
            ),
            reads=["vouchers"],
            outputs={"voucher_id": "voucher", "traveler_id": "traveler"},
            claims=["status", "balance"],
        ),
        kit.tool(
            "calculate",
            "work out an amount",
            "Evaluate an arithmetic expression with numbers, + - * /, and parentheses, e.g. '189 * 3 - 50'. "
            "The result is rounded to 2 decimals. Anything else is rejected.",
            {
                "expression": (
                    {**kit.string(200, "Arithmetic expression."), "examples": ["189 * 3 - 50", "412.5 + 96"]},
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"expression": TEXT, "result": {"type": "number"}}),
            claims=["result"],
        ),
        kit.tool(
            "transfer_to_human_agents",
            "talk to a human",
            "Transfer the traveler to a human agent, with a summary of the issue. Use only when the traveler "
            "explicitly asks for a human or the request cannot be handled with the other tools under the policy.",
            {
                "summary": (
                    kit.string(2000, "Summary of the traveler's issue for the human agent."),
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"transferred": BOOL, "message": TEXT, "summary": TEXT}),
        ),
    ]
