"""Tables of the travel environment. Money is INTEGER cents, dates YYYY-MM-DD; statuses are enums."""

from __future__ import annotations

from typing import Any

from envfactory_mcp.blueprints.kit import col
from envfactory_mcp.spec import ColumnSpec, TableSpec

TIERS = ["member", "silver", "gold", "platinum"]
CARD_KINDS = ["credit_card", "debit_card"]
CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]
RATE_TYPES = ["refundable", "non_refundable"]
HOTEL_BOOKING_STATUSES = ["confirmed", "checked_in", "completed", "cancelled"]
CAR_RENTAL_STATUSES = ["reserved", "picked_up", "returned", "cancelled"]
TRIP_STATUSES = ["planned", "in_progress", "completed", "cancelled"]
VOUCHER_STATUSES = ["active", "redeemed", "expired"]
VOUCHER_REASONS = ["goodwill", "service recovery", "loyalty reward", "cancellation credit"]

DATE_CHECK = "GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9]'"


def _ref(name: str, target: str, entity: str, description: str, **kw: Any) -> ColumnSpec:
    return col(name, description=description, references=target, entity=entity, **kw)


def _date(name: str, description: str, **kw: Any) -> ColumnSpec:
    check = f"{name} {DATE_CHECK}"
    return col(name, description=description, check=check, **kw)


def build_tables() -> list[TableSpec]:
    travelers = TableSpec(
        name="travelers",
        entity="traveler",
        description="Customers of the agency's trip desk, with their loyalty tier and home city.",
        primary_key=["traveler_id"],
        columns=[
            col("traveler_id", description="Internal traveler id, e.g. 'trv_000042'.", entity="traveler"),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col(
                "date_of_birth",
                description="Date of birth, YYYY-MM-DD (sets the driver's age for car rentals).",
                check="date_of_birth GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'",
            ),
            col(
                "email",
                description="Lower-case email address; unique.",
                unique=True,
                check="email LIKE '%_@_%'",
            ),
            col(
                "tier",
                description="Loyalty tier: sets the rooms per booking, one-way fees and late-cancellation fees.",
                enum=list(TIERS),
            ),
            col("home_city", description="Home city.", check="length(home_city) > 0"),
            col("home_state", description="Home state, e.g. 'TX'.", check="length(home_state) = 2"),
            _date("member_since", "Date the traveler joined, YYYY-MM-DD."),
        ],
    )
    payment_methods = TableSpec(
        name="payment_methods",
        entity="payment_method",
        description="Cards saved on a traveler's profile (brand, last four, expiry month).",
        primary_key=["payment_method_id"],
        columns=[
            col("payment_method_id", description="Id such as 'card_000123'.", entity="payment_method"),
            _ref("traveler_id", "travelers.traveler_id", "traveler", "Owner of the card."),
            col("kind", description="Kind of card.", enum=list(CARD_KINDS)),
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
    hotels = TableSpec(
        name="hotels",
        entity="hotel",
        description="Partner hotels, with their star rating and free-cancellation window for refundable rates.",
        primary_key=["hotel_id"],
        columns=[
            col("hotel_id", description="Id such as 'htl_0003'.", entity="hotel"),
            col("name", description="Hotel name.", unique=True),
            col("city", description="City.", check="length(city) > 0"),
            col("state", description="State, e.g. 'CO'.", check="length(state) = 2"),
            col("stars", "INTEGER", description="Star rating, 2 to 5.", check="stars BETWEEN 2 AND 5"),
            col(
                "free_cancel_days",
                "INTEGER",
                description="Refundable rates cancel free until this many days before check-in (end of that day).",
                check="free_cancel_days BETWEEN 1 AND 7",
            ),
        ],
    )
    room_types = TableSpec(
        name="room_types",
        entity="room_type",
        description="Room types of a hotel with their nightly rates: refundable, and a cheaper non-refundable rate.",
        primary_key=["room_type_id"],
        columns=[
            col("room_type_id", description="Id such as 'rm_00012'.", entity="room_type"),
            _ref("hotel_id", "hotels.hotel_id", "hotel", "Hotel of the room type."),
            col("name", description="Room type as sold, e.g. 'Deluxe King'.", check="length(name) > 0"),
            col("max_guests", "INTEGER", description="Guests per room.", check="max_guests BETWEEN 1 AND 6"),
            col(
                "refundable_rate_cents",
                "INTEGER",
                description="Nightly refundable rate per room, cents.",
                check="refundable_rate_cents > 0",
            ),
            col(
                "non_refundable_rate_cents",
                "INTEGER",
                description="Nightly non-refundable rate per room, cents (below the refundable rate).",
                check="non_refundable_rate_cents > 0 AND non_refundable_rate_cents < refundable_rate_cents",
            ),
        ],
    )
    room_nights = TableSpec(
        name="room_nights",
        description="Nightly inventory of a room type: rooms in the allotment and rooms already sold.",
        primary_key=["room_type_id", "night"],
        columns=[
            _ref("room_type_id", "room_types.room_type_id", "room_type", "Room type."),
            _date("night", "The night (date of arrival for that night), YYYY-MM-DD."),
            col(
                "rooms_total",
                "INTEGER",
                description="Rooms in the allotment that night.",
                check="rooms_total >= 0",
            ),
            col(
                "rooms_booked",
                "INTEGER",
                description="Rooms sold that night (all channels).",
                check="rooms_booked >= 0 AND rooms_booked <= rooms_total",
            ),
        ],
    )
    hotel_bookings = TableSpec(
        name="hotel_bookings",
        entity="hotel_booking",
        description="Hotel bookings: confirmed -> checked_in -> completed, or cancelled; paid in full when booked.",
        primary_key=["booking_id"],
        columns=[
            col(
                "booking_id",
                description="Booking number as emailed, e.g. 'HB204518'.",
                entity="hotel_booking",
                check="booking_id GLOB 'HB[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("traveler_id", "travelers.traveler_id", "traveler", "Traveler who booked."),
            _ref("room_type_id", "room_types.room_type_id", "room_type", "Room type booked."),
            _date("check_in", "Check-in date, YYYY-MM-DD."),
            _date("check_out", "Check-out date, YYYY-MM-DD (after check-in)."),
            col(
                "nights",
                "INTEGER",
                description="Nights of the stay.",
                check="nights BETWEEN 1 AND 14 AND julianday(check_out) - julianday(check_in) = nights",
            ),
            col("rooms", "INTEGER", description="Rooms booked.", check="rooms BETWEEN 1 AND 5"),
            col("rate_type", description="Rate booked.", enum=list(RATE_TYPES)),
            col(
                "nightly_rate_cents",
                "INTEGER",
                description="Rate per room per night, cents.",
                check="nightly_rate_cents > 0",
            ),
            col(
                "total_cents",
                "INTEGER",
                description="Price of the stay, cents (rate x rooms x nights).",
                check="total_cents = nightly_rate_cents * rooms * nights",
            ),
            col(
                "cancellation_fee_cents",
                "INTEGER",
                description="Fee kept on a late cancellation, cents (0 otherwise).",
                check="cancellation_fee_cents >= 0",
            ),
            col("status", description="Booking status.", enum=list(HOTEL_BOOKING_STATUSES)),
            col("created_at", description="When it was booked (ISO 8601, UTC)."),
        ],
    )
    rental_locations = TableSpec(
        name="rental_locations",
        entity="rental_location",
        description="Car rental counters (airports and downtown offices).",
        primary_key=["location_id"],
        columns=[
            col(
                "location_id",
                description="Location code, e.g. 'DEN-APT'.",
                entity="rental_location",
                check="location_id GLOB '[A-Z][A-Z][A-Z]-[A-Z][A-Z][A-Z]'",
            ),
            col("name", description="Counter name.", unique=True),
            col("city", description="City.", check="length(city) > 0"),
            col("state", description="State.", check="length(state) = 2"),
        ],
    )
    car_classes = TableSpec(
        name="car_classes",
        entity="car_class",
        description="Car classes with their daily rate, seats and minimum driver age.",
        primary_key=["class_id"],
        columns=[
            col(
                "class_id",
                description="Class code (ACRISS), e.g. 'ICAR' for midsize.",
                entity="car_class",
                check="class_id GLOB '[A-Z][A-Z][A-Z][A-Z]'",
            ),
            col(
                "name",
                description="Class as marketed, e.g. 'Midsize (Toyota Camry or similar)'.",
                unique=True,
            ),
            col("seats", "INTEGER", description="Seats.", check="seats BETWEEN 2 AND 8"),
            col(
                "daily_rate_cents", "INTEGER", description="Daily rate, cents.", check="daily_rate_cents > 0"
            ),
            col("min_age", "INTEGER", description="Minimum driver age for the class.", check="min_age >= 21"),
        ],
    )
    car_availability = TableSpec(
        name="car_availability",
        description="Daily fleet of a class at a location: cars available and cars already reserved or out.",
        primary_key=["location_id", "class_id", "day"],
        columns=[
            _ref("location_id", "rental_locations.location_id", "rental_location", "Pick-up location."),
            _ref("class_id", "car_classes.class_id", "car_class", "Car class."),
            _date("day", "The day, YYYY-MM-DD."),
            col(
                "cars_total",
                "INTEGER",
                description="Cars of the class at the location that day.",
                check="cars_total >= 0",
            ),
            col(
                "cars_booked",
                "INTEGER",
                description="Cars reserved or out that day.",
                check="cars_booked >= 0 AND cars_booked <= cars_total",
            ),
        ],
    )
    car_rentals = TableSpec(
        name="car_rentals",
        entity="car_rental",
        description="Car rentals: reserved -> picked_up -> returned, or cancelled; paid in full when reserved.",
        primary_key=["rental_id"],
        columns=[
            col(
                "rental_id",
                description="Rental confirmation number, e.g. 'CR318204'.",
                entity="car_rental",
                check="rental_id GLOB 'CR[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("traveler_id", "travelers.traveler_id", "traveler", "Traveler renting (the driver)."),
            _ref("class_id", "car_classes.class_id", "car_class", "Car class."),
            _ref(
                "pickup_location_id", "rental_locations.location_id", "rental_location", "Pick-up location."
            ),
            _ref(
                "dropoff_location_id", "rental_locations.location_id", "rental_location", "Drop-off location."
            ),
            _date("pickup_date", "Pick-up date, YYYY-MM-DD."),
            _date("return_date", "Return date, YYYY-MM-DD."),
            col(
                "days",
                "INTEGER",
                description="Rental days.",
                check="days BETWEEN 1 AND 21 AND julianday(return_date) - julianday(pickup_date) = days",
            ),
            col(
                "driver_age",
                "INTEGER",
                description="Driver's age on the pick-up date.",
                check="driver_age >= 21",
            ),
            col(
                "daily_rate_cents", "INTEGER", description="Daily rate, cents.", check="daily_rate_cents > 0"
            ),
            col(
                "young_driver_fee_cents",
                "INTEGER",
                description="Under-25 surcharge for the whole rental, cents.",
                check="young_driver_fee_cents >= 0",
            ),
            col(
                "one_way_fee_cents",
                "INTEGER",
                description="One-way drop-off fee, cents.",
                check="one_way_fee_cents >= 0",
            ),
            col(
                "total_cents",
                "INTEGER",
                description="Price of the rental, cents.",
                check="total_cents = daily_rate_cents * days + young_driver_fee_cents + one_way_fee_cents",
            ),
            col("status", description="Rental status.", enum=list(CAR_RENTAL_STATUSES)),
            col("created_at", description="When it was reserved (ISO 8601, UTC)."),
        ],
    )
    trips = TableSpec(
        name="trips",
        entity="trip",
        description="Itineraries grouping a hotel booking, a car rental and a flight record locator; the total is "
        "what its bookings cost.",
        primary_key=["trip_id"],
        columns=[
            col(
                "trip_id",
                description="Itinerary number, e.g. 'TR104233'.",
                entity="trip",
                check="trip_id GLOB 'TR[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("traveler_id", "travelers.traveler_id", "traveler", "Traveler."),
            col("name", description="Name of the trip, e.g. 'Denver in June'.", check="length(name) > 0"),
            _ref(
                "hotel_booking_id",
                "hotel_bookings.booking_id",
                "hotel_booking",
                "Hotel booking of the trip.",
                unique=True,
            ),
            _ref(
                "car_rental_id",
                "car_rentals.rental_id",
                "car_rental",
                "Car rental of the trip, if any.",
                nullable=True,
                unique=True,
            ),
            col(
                "flight_locator",
                description="Airline record locator (six letters or digits) of the flights, if known.",
                nullable=True,
                check="flight_locator GLOB '[A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9]'",
            ),
            col("status", description="Trip status.", enum=list(TRIP_STATUSES)),
            col(
                "total_cents",
                "INTEGER",
                description="What the trip's bookings cost, cents.",
                check="total_cents >= 0",
            ),
            col("created_at", description="When the itinerary was created (ISO 8601, UTC)."),
        ],
    )
    vouchers = TableSpec(
        name="vouchers",
        entity="voucher",
        description="Travel vouchers of a traveler: a balance usable toward new bookings until they expire.",
        primary_key=["voucher_id"],
        columns=[
            col(
                "voucher_id",
                description="Voucher code, e.g. 'TV550123'.",
                entity="voucher",
                check="voucher_id GLOB 'TV[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("traveler_id", "travelers.traveler_id", "traveler", "Owner of the voucher."),
            col("reason", description="Why it was issued.", enum=list(VOUCHER_REASONS)),
            col("amount_cents", "INTEGER", description="Face value, cents.", check="amount_cents > 0"),
            col(
                "balance_cents",
                "INTEGER",
                description="Value left, cents.",
                check="balance_cents >= 0 AND balance_cents <= amount_cents",
            ),
            col("status", description="Voucher status.", enum=list(VOUCHER_STATUSES)),
            _date("issued_on", "Date issued, YYYY-MM-DD."),
            _date("expires_on", "Last day it can be used, YYYY-MM-DD."),
        ],
    )
    payments = TableSpec(
        name="payments",
        entity="payment",
        description="Charges for bookings and rentals: to a saved card or from a travel voucher.",
        primary_key=["payment_id"],
        columns=[
            col("payment_id", description="Id such as 'pay_0000123'.", entity="payment"),
            _ref("traveler_id", "travelers.traveler_id", "traveler", "Traveler charged."),
            _ref(
                "hotel_booking_id",
                "hotel_bookings.booking_id",
                "hotel_booking",
                "Hotel booking paid, if any.",
                nullable=True,
                check="(hotel_booking_id IS NULL) <> (car_rental_id IS NULL)",
            ),
            _ref(
                "car_rental_id",
                "car_rentals.rental_id",
                "car_rental",
                "Car rental paid, if any.",
                nullable=True,
            ),
            _ref(
                "payment_method_id",
                "payment_methods.payment_method_id",
                "payment_method",
                "Card charged, if any.",
                nullable=True,
                check="(payment_method_id IS NULL) <> (voucher_id IS NULL)",
            ),
            _ref("voucher_id", "vouchers.voucher_id", "voucher", "Voucher used, if any.", nullable=True),
            col("amount_cents", "INTEGER", description="Amount, cents.", check="amount_cents > 0"),
            col("created_at", description="When it was charged (ISO 8601, UTC)."),
        ],
    )
    refunds = TableSpec(
        name="refunds",
        entity="refund",
        description="Money given back against a payment (to the card, or back onto the voucher).",
        primary_key=["refund_id"],
        columns=[
            col("refund_id", description="Id such as 'rfd_0000123'.", entity="refund"),
            _ref("payment_id", "payments.payment_id", "payment", "Payment refunded."),
            col("amount_cents", "INTEGER", description="Amount, cents.", check="amount_cents > 0"),
            col("reason", description="Why, e.g. 'hotel booking cancelled'.", check="length(reason) > 0"),
            col("created_at", description="When it was refunded (ISO 8601, UTC)."),
        ],
    )
    return [
        travelers,
        payment_methods,
        hotels,
        room_types,
        room_nights,
        hotel_bookings,
        rental_locations,
        car_classes,
        car_availability,
        car_rentals,
        trips,
        vouchers,
        payments,
        refunds,
    ]
