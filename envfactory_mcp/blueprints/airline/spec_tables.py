"""Tables of the airline environment. Money is INTEGER cents; statuses, cabins and kinds are enums."""

from __future__ import annotations

from envfactory_mcp.blueprints.kit import col
from envfactory_mcp.spec import TableSpec

MEMBERSHIPS = ["regular", "silver", "gold"]
CABINS = ["basic_economy", "economy", "business"]
FLIGHT_STATUSES = ["scheduled", "delayed", "cancelled", "departed", "landed"]
RESERVATION_STATUSES = ["active", "cancelled", "completed"]
TRIP_TYPES = ["one_way", "round_trip"]
PAYMENT_METHOD_KINDS = ["credit_card", "gift_card", "certificate"]
CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]
PAYMENT_KINDS = ["payment", "refund"]
PAYMENT_REASONS = ["booking", "cancellation", "cabin_change", "flight_change", "baggage", "insurance"]
CANCEL_REASONS = ["change of plans", "airline cancelled flight", "health", "weather", "other"]


_DATE = "GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'"
_TIME = "GLOB '[0-2][0-9]:[0-5][0-9]'"


def build_tables() -> list[TableSpec]:
    airports = TableSpec(
        name="airports",
        entity="airport",
        description="Airports the airline serves, by IATA code.",
        primary_key=["code"],
        columns=[
            col(
                "code",
                description="Three-letter IATA code, e.g. 'JFK'.",
                entity="airport",
                check="code GLOB '[A-Z][A-Z][A-Z]'",
            ),
            col("airport_name", description="Full airport name.", unique=True),
            col("city", description="City served.", check="length(city) > 0"),
        ],
    )
    flights = TableSpec(
        name="flights",
        entity="flight",
        description="Scheduled direct flights: one flight number flies one route at the same local time every day.",
        primary_key=["flight_number"],
        columns=[
            col(
                "flight_number",
                description="Flight number, e.g. 'HAT123'.",
                entity="flight",
                check="flight_number GLOB 'HAT[0-9][0-9][0-9]'",
            ),
            col("origin", description="Departure airport.", references="airports.code", entity="airport"),
            col(
                "destination",
                description="Arrival airport.",
                references="airports.code",
                entity="airport",
                check="destination <> origin",
            ),
            col(
                "departure_time",
                description="Scheduled departure, 'HH:MM' (UTC).",
                check=f"departure_time {_TIME}",
            ),
            col(
                "arrival_time",
                description="Scheduled arrival, 'HH:MM' (UTC), possibly the next day.",
                check=f"arrival_time {_TIME}",
            ),
        ],
    )
    flight_dates = TableSpec(
        name="flight_dates",
        description="One flight on one date: its status, seats left and current fare per cabin.",
        primary_key=["flight_number", "date"],
        columns=[
            col("flight_number", description="Flight.", references="flights.flight_number", entity="flight"),
            col("date", description="Date of departure, 'YYYY-MM-DD'.", check=f"date {_DATE}"),
            col("status", description="Status of the flight on that date.", enum=list(FLIGHT_STATUSES)),
            *[
                col(
                    f"seats_{cabin}",
                    "INTEGER",
                    description=f"Seats left in {cabin.replace('_', ' ')}.",
                    check=f"seats_{cabin} >= 0",
                )
                for cabin in CABINS
            ],
            *[
                col(
                    f"price_{cabin}_cents",
                    "INTEGER",
                    description=f"Current one-passenger fare in {cabin.replace('_', ' ')}, in cents.",
                    check=f"price_{cabin}_cents > 0",
                )
                for cabin in CABINS
            ],
        ],
    )
    users = TableSpec(
        name="users",
        entity="user",
        description="Customers of the airline with their membership tier.",
        primary_key=["user_id"],
        columns=[
            col("user_id", description="Internal user id, e.g. 'user_000042'.", entity="user"),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col(
                "email",
                description="Lower-case email address; unique.",
                unique=True,
                check="email LIKE '%_@_%'",
            ),
            col("date_of_birth", description="Date of birth, 'YYYY-MM-DD'.", check=f"date_of_birth {_DATE}"),
            col("membership", description="Membership tier.", enum=list(MEMBERSHIPS)),
        ],
    )
    saved_passengers = TableSpec(
        name="saved_passengers",
        entity="passenger",
        description="Passengers saved on a user's profile (the user and travel companions); bookings are made "
        "for saved passengers only.",
        primary_key=["passenger_id"],
        columns=[
            col("passenger_id", description="Id such as 'pax_000123'.", entity="passenger"),
            col(
                "user_id",
                description="Profile the passenger is saved on.",
                references="users.user_id",
                entity="user",
            ),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col("date_of_birth", description="Date of birth, 'YYYY-MM-DD'.", check=f"date_of_birth {_DATE}"),
        ],
    )
    payment_methods = TableSpec(
        name="payment_methods",
        entity="payment_method",
        description="Payment methods saved on a user account: credit cards (brand, last four digits), gift cards "
        "and travel certificates (both with a balance in cents).",
        primary_key=["payment_method_id"],
        columns=[
            col("payment_method_id", description="Id such as 'credit_card_000123'.", entity="payment_method"),
            col("user_id", description="Owner.", references="users.user_id", entity="user"),
            col(
                "kind",
                description="Kind of payment method.",
                enum=list(PAYMENT_METHOD_KINDS),
                check="(kind = 'credit_card') = (balance_cents IS NULL) "
                "AND (kind = 'credit_card') = (brand IS NOT NULL AND last_four IS NOT NULL)",
            ),
            col(
                "brand", description="Card brand (credit cards only).", nullable=True, enum=list(CARD_BRANDS)
            ),
            col(
                "last_four",
                description="Last four digits (credit cards only).",
                nullable=True,
                check="last_four GLOB '[0-9][0-9][0-9][0-9]'",
            ),
            col(
                "balance_cents",
                "INTEGER",
                description="Remaining balance in cents (gift cards and certificates only).",
                nullable=True,
                check="balance_cents >= 0",
            ),
        ],
    )
    reservations = TableSpec(
        name="reservations",
        entity="reservation",
        description="Bookings: one or more passengers on one or more flight segments, in one cabin.",
        primary_key=["reservation_id"],
        columns=[
            col(
                "reservation_id",
                description="Six-character confirmation code, e.g. 'Q4XK7M'.",
                entity="reservation",
                check="length(reservation_id) = 6 AND reservation_id NOT GLOB '*[^A-Z0-9]*'",
            ),
            col("user_id", description="Customer who booked.", references="users.user_id", entity="user"),
            # Codes, not foreign keys: a reservation is told apart by its route ("JFK", "LAX").
            col(
                "origin",
                description="Airport code where the trip starts.",
                check="origin GLOB '[A-Z][A-Z][A-Z]'",
            ),
            col(
                "destination",
                description="Airport code where the trip goes.",
                check="destination GLOB '[A-Z][A-Z][A-Z]' AND destination <> origin",
            ),
            col("trip_type", description="One way or round trip.", enum=list(TRIP_TYPES)),
            col("cabin", description="Cabin of every segment.", enum=list(CABINS)),
            col("status", description="Reservation status.", enum=list(RESERVATION_STATUSES)),
            col("insurance", "INTEGER", description="1 when travel insurance was bought.", enum=[0, 1]),
            col(
                "total_bags",
                "INTEGER",
                description="Checked bags for the whole reservation.",
                check="total_bags >= 0",
            ),
            col(
                "nonfree_bags",
                "INTEGER",
                description="Bags beyond the free allowance, paid for.",
                check="nonfree_bags >= 0 AND nonfree_bags <= total_bags",
            ),
            col(
                "compensated",
                "INTEGER",
                description="1 once a compensation certificate was issued, else 0.",
                check="compensated IN (0, 1)",
            ),
            col("created_at", description="When it was booked (ISO 8601, UTC)."),
            col(
                "cancel_reason",
                description="Why it was cancelled; set exactly when status is 'cancelled'.",
                nullable=True,
                check="(status = 'cancelled') = (cancel_reason IS NOT NULL) AND coalesce(cancel_reason, 'other') IN ("
                + ", ".join(f"'{r}'" for r in CANCEL_REASONS)
                + ")",
            ),
        ],
    )
    reservation_flights = TableSpec(
        name="reservation_flights",
        description="Segments of a reservation, in travel order, with the fare paid per passenger.",
        primary_key=["reservation_id", "segment_no"],
        columns=[
            col(
                "reservation_id",
                description="Reservation.",
                references="reservations.reservation_id",
                entity="reservation",
            ),
            col("segment_no", "INTEGER", description="Segment number, from 1.", check="segment_no >= 1"),
            col(
                "flight_number",
                description="Flight flown.",
                references="flights.flight_number",
                entity="flight",
            ),
            col("date", description="Date of the flight, 'YYYY-MM-DD'.", check=f"date {_DATE}"),
            col(
                "price_cents",
                "INTEGER",
                description="Fare paid per passenger, in cents.",
                check="price_cents > 0",
            ),
        ],
    )
    passengers = TableSpec(
        name="reservation_passengers",
        description="Passengers of a reservation (at most five).",
        primary_key=["reservation_id", "passenger_no"],
        columns=[
            col(
                "reservation_id",
                description="Reservation.",
                references="reservations.reservation_id",
                entity="reservation",
            ),
            col(
                "passenger_no",
                "INTEGER",
                description="Passenger number, 1 to 5.",
                check="passenger_no BETWEEN 1 AND 5",
            ),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col("date_of_birth", description="Date of birth, 'YYYY-MM-DD'.", check=f"date_of_birth {_DATE}"),
        ],
    )
    payments = TableSpec(
        name="payments",
        entity="payment",
        description="Payments and refunds of reservations. A gift card's or certificate's balance moves with every "
        "row recorded on it.",
        primary_key=["payment_id"],
        columns=[
            col("payment_id", description="Id such as 'pay_0000123'.", entity="payment"),
            col(
                "reservation_id",
                description="Reservation.",
                references="reservations.reservation_id",
                entity="reservation",
            ),
            col(
                "payment_method_id",
                description="Payment method charged or refunded.",
                references="payment_methods.payment_method_id",
                entity="payment_method",
            ),
            col("kind", description="'payment' or 'refund'.", enum=list(PAYMENT_KINDS)),
            col("amount_cents", "INTEGER", description="Amount in cents.", check="amount_cents > 0"),
            col("reason", description="What caused the movement.", enum=list(PAYMENT_REASONS)),
            col("created_at", description="When it was recorded (ISO 8601, UTC)."),
        ],
    )
    return [
        airports,
        flights,
        flight_dates,
        users,
        saved_passengers,
        payment_methods,
        reservations,
        reservation_flights,
        passengers,
        payments,
    ]
