"""Tool declarations of the airline environment: schemas, effects, tables and entities."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit
from envfactory_mcp.blueprints.kit import Schema
from envfactory_mcp.spec import ParamSpec, ToolSpec

from .spec_tables import (
    CABINS,
    CANCEL_REASONS,
    FLIGHT_STATUSES,
    MEMBERSHIPS,
    PAYMENT_KINDS,
    PAYMENT_METHOD_KINDS,
    PAYMENT_REASONS,
    RESERVATION_STATUSES,
    TRIP_TYPES,
)

MONEY: Schema = {"type": "number", "description": "Dollars, two decimals."}
TEXT: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"

USER_ID = kit.string(
    11, "Internal user id from a find_user_id_* tool, e.g. 'user_000042'.", pattern=r"^user_[0-9]{6}$"
)
RESERVATION_ID = kit.string(6, "Six-character reservation code, e.g. 'Q4XK7M'.", pattern=r"^[A-Z0-9]{6}$")
FLIGHT_NUMBER = kit.string(6, "Flight number, e.g. 'HAT123'.", pattern=r"^HAT[0-9]{3}$")
AIRPORT = kit.string(3, "Three-letter IATA airport code, e.g. 'JFK'.", pattern=r"^[A-Z]{3}$")
DATE = {
    **kit.string(10, "Date, 'YYYY-MM-DD'.", pattern=DATE_PATTERN),
    "examples": ["2026-06-03", "2026-06-05"],
}
PASSENGER_ID = kit.string(
    10, "Saved passenger id from get_user_details, e.g. 'pax_000123'.", pattern=r"^pax_[0-9]{6}$"
)
PAYMENT_METHOD_ID = kit.string(
    18,
    "Payment method id from get_user_details, e.g. 'credit_card_000123'.",
    pattern=r"^(credit_card|gift_card|certificate)_[0-9]{6}$",
)


SEGMENT_OUT = kit.obj(
    {
        "segment": INT,
        "flight_number": TEXT,
        "date": TEXT,
        "origin": TEXT,
        "destination": TEXT,
        "departure_time": TEXT,
        "arrival_time": TEXT,
        "status": kit.enum(FLIGHT_STATUSES),
        "price": MONEY,
    }
)
RESERVATION_OUT = kit.obj(
    {
        "reservation_id": TEXT,
        "user_id": TEXT,
        "origin": TEXT,
        "destination": TEXT,
        "trip_type": kit.enum(TRIP_TYPES),
        "cabin": kit.enum(CABINS),
        "status": kit.enum(RESERVATION_STATUSES),
        "created_at": TEXT,
        "insurance": {"type": "boolean"},
        "total_bags": INT,
        "nonfree_bags": INT,
        "compensated": {"type": "boolean"},
        "cancel_reason": {"type": ["string", "null"], "enum": [*CANCEL_REASONS, None]},
        "flights": kit.array(SEGMENT_OUT),
        "passengers": kit.array(kit.obj({"first_name": TEXT, "last_name": TEXT, "date_of_birth": TEXT})),
        "payments": kit.array(
            kit.obj(
                {
                    "payment_id": TEXT,
                    "kind": kit.enum(PAYMENT_KINDS),
                    "payment_method_id": TEXT,
                    "amount": MONEY,
                    "reason": kit.enum(PAYMENT_REASONS),
                    "created_at": TEXT,
                }
            )
        ),
        "totals": kit.obj({"paid": MONEY, "refunded": MONEY, "net_paid": MONEY}),
    }
)
RESERVATION_OUTPUTS = {
    "reservation_id": "reservation",
    "user_id": "user",
    "origin": "airport",
    "destination": "airport",
    "payments[].payment_id": "payment",
    "payments[].payment_method_id": "payment_method",
}
VIEW_READS = [
    "airports",
    "flight_dates",
    "flights",
    "payments",
    "reservation_flights",
    "reservation_passengers",
    "reservations",
]
CHANGE_READS = sorted([*VIEW_READS, "payment_methods", "saved_passengers", "users"])


def build_tools() -> list[ToolSpec]:
    user_id = (USER_ID, kit.param("user", False))
    reservation_id = (RESERVATION_ID, kit.param("reservation", True))
    payment_method_id = (PAYMENT_METHOD_ID, kit.param("payment_method", False))
    flight_number = (FLIGHT_NUMBER, kit.param("flight", True))
    date = (DATE, kit.param(None, True))
    cabin = (kit.enum(CABINS, "Cabin class."), kit.param(None, True))
    return [
        kit.tool(
            "find_user_id_by_email",
            "look up my account by email",
            "Find a user's id from their email address (case-insensitive). Use this to authenticate the user before "
            "anything else. Fails if no user has that email.",
            {
                "email": (
                    kit.string(254, "Email address of the user.", pattern=r"^[^@\s]+@[^@\s]+$"),
                    kit.param(None, True),
                )
            },
            kit.obj({"user_id": TEXT}),
            reads=["users"],
            outputs={"user_id": "user"},
        ),
        kit.tool(
            "find_user_id_by_name_dob",
            "look up my account by name and date of birth",
            "Find a user's id from first name, last name and date of birth ('YYYY-MM-DD'). Use this to authenticate a "
            "user who cannot give their email. Fails if no user, or more than one, matches.",
            {
                "first_name": (kit.string(60, "First name."), kit.param(None, True)),
                "last_name": (kit.string(60, "Last name."), kit.param(None, True)),
                "date_of_birth": (
                    kit.string(10, "Date of birth, 'YYYY-MM-DD'.", pattern=DATE_PATTERN),
                    kit.param(None, True),
                ),
            },
            kit.obj({"user_id": TEXT}),
            reads=["users"],
            outputs={"user_id": "user"},
        ),
        kit.tool(
            "get_user_details",
            "see my account",
            "Get a user's profile: name, email, date of birth, membership tier (regular, silver or gold), saved "
            "payment methods (gift cards and travel certificates with their balance in dollars), saved passengers "
            "and the codes of all their reservations.",
            {"user_id": user_id},
            kit.obj(
                {
                    "user_id": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "email": TEXT,
                    "date_of_birth": TEXT,
                    "membership": kit.enum(MEMBERSHIPS),
                    "payment_methods": kit.array(
                        kit.obj(
                            {
                                "payment_method_id": TEXT,
                                "kind": kit.enum(PAYMENT_METHOD_KINDS),
                                "brand": TEXT,
                                "last_four": TEXT,
                                "balance": MONEY,
                            },
                            required=["payment_method_id", "kind"],
                        )
                    ),
                    "saved_passengers": kit.array(
                        kit.obj(
                            {
                                "passenger_id": TEXT,
                                "first_name": TEXT,
                                "last_name": TEXT,
                                "date_of_birth": TEXT,
                            }
                        )
                    ),
                    "reservations": kit.array(TEXT),
                }
            ),
            reads=["payment_methods", "reservations", "saved_passengers", "users"],
            outputs={
                "user_id": "user",
                "payment_methods[].payment_method_id": "payment_method",
                "saved_passengers[].passenger_id": "passenger",
                "reservations[]": "reservation",
            },
        ),
        kit.tool(
            "get_reservation_details",
            "check on my reservation",
            "Get a reservation: status (active, cancelled or completed), trip type, cabin, flight segments with each "
            "flight's status and the fare paid per passenger, passengers, checked bags (total and paid), insurance, "
            "the full payment and refund history, and totals in dollars.",
            {"reservation_id": reservation_id},
            RESERVATION_OUT,
            reads=VIEW_READS,
            outputs=RESERVATION_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "list_all_airports",
            "see which airports the airline flies to",
            "List every airport the airline serves, with its code, name and city.",
            {},
            kit.obj({"airports": kit.array(kit.obj({"code": TEXT, "name": TEXT, "city": TEXT}))}),
            reads=["airports"],
            outputs={"airports[].code": "airport"},
        ),
        kit.tool(
            "search_direct_flights",
            "find flights between two airports",
            "Search the direct flights between two airports on a date: each flight's number, times, status, seats "
            "left and current one-passenger fare in dollars per cabin (basic_economy, economy, business).",
            {
                "origin": (AIRPORT, kit.param("airport", True)),
                "destination": (AIRPORT, kit.param("airport", True)),
                "date": date,
            },
            kit.obj(
                {
                    "origin": TEXT,
                    "destination": TEXT,
                    "date": TEXT,
                    "flights": kit.array(
                        kit.obj(
                            {
                                "flight_number": TEXT,
                                "departure_time": TEXT,
                                "arrival_time": TEXT,
                                "status": kit.enum(FLIGHT_STATUSES),
                                "seats": kit.obj({c: INT for c in CABINS}),
                                "prices": kit.obj({c: MONEY for c in CABINS}),
                            }
                        )
                    ),
                }
            ),
            reads=["airports", "flight_dates", "flights"],
            outputs={"origin": "airport", "destination": "airport", "flights[].flight_number": "flight"},
            claims=["flights[].prices.economy"],
        ),
        kit.tool(
            "get_flight_status",
            "check the status of a flight",
            "Get the status of a flight on a date: scheduled, delayed, cancelled, departed or landed, with its route "
            "and scheduled times.",
            {"flight_number": flight_number, "date": date},
            kit.obj(
                {
                    "flight_number": TEXT,
                    "date": TEXT,
                    "origin": TEXT,
                    "destination": TEXT,
                    "departure_time": TEXT,
                    "arrival_time": TEXT,
                    "status": kit.enum(FLIGHT_STATUSES),
                }
            ),
            reads=["flight_dates", "flights"],
            outputs={"flight_number": "flight", "origin": "airport", "destination": "airport"},
            claims=["status"],
        ),
        kit.tool(
            "book_reservation",
            "book a flight",
            "Book a one-way trip (flight_number on date) or a round trip (also return_flight_number on return_date, "
            "flying back the same route) for one to five of the user's saved passengers in one cabin, paid in full with one saved payment "
            "method of the user, who becomes the reservation's owner (a gift card or certificate must cover the whole "
            "amount). Every flight must be "
            "scheduled or delayed, not in the past, with enough seats in the cabin. The total is the fares of every "
            "flight for every passenger, $50 per checked bag beyond the free allowance (per passenger, by membership "
            "and cabin), and $30 per passenger for travel insurance. Returns the new reservation.",
            {
                "flight_number": flight_number,
                "date": date,
                "cabin": cabin,
                "passenger_ids": (
                    kit.array(
                        PASSENGER_ID,
                        "Saved passengers to book, from get_user_details.",
                        minItems=1,
                        uniqueItems=True,
                    ),
                    kit.param("passenger", False),
                ),
                "payment_method_id": payment_method_id,
                "total_bags": (
                    {"type": "integer", "minimum": 0, "maximum": 20, "description": "Checked bags in all."},
                    kit.param(None, True),
                ),
                "insurance": (
                    kit.enum(["yes", "no"], "Buy travel insurance: 'yes' or 'no'."),
                    kit.param(None, True),
                ),
                "return_flight_number": (
                    {**FLIGHT_NUMBER, "description": "Return flight of a round trip."},
                    kit.param("flight", True),
                ),
                "return_date": (
                    {
                        **DATE,
                        "description": "Date of the return flight.",
                        "examples": ["2026-06-05", "2026-06-07"],
                    },
                    kit.param(None, True),
                ),
            },
            RESERVATION_OUT,
            effect="write",
            reads=CHANGE_READS,
            writes=[
                "flight_dates",
                "payment_methods",
                "payments",
                "reservation_flights",
                "reservation_passengers",
                "reservations",
            ],
            outputs=RESERVATION_OUTPUTS,
            claims=["reservation_id", "totals.paid"],
            required=[
                "flight_number",
                "date",
                "cabin",
                "passenger_ids",
                "payment_method_id",
                "total_bags",
                "insurance",
            ],
        ),
        kit.tool(
            "cancel_reservation",
            "cancel a reservation",
            "Cancel an active reservation none of whose flights has departed. Allowed only when it was booked within "
            "the last 24 hours, or it is in business, or the airline cancelled one of its flights, or it has travel "
            "insurance and the reason is health or weather. Everything paid is refunded to the payment method that "
            "paid it (gift card and certificate balances at once, cards in 5-7 business days). Returns the cancelled "
            "reservation.",
            {
                "reservation_id": reservation_id,
                "reason": (kit.enum(list(CANCEL_REASONS), "Why the user cancels."), kit.param(None, True)),
            },
            RESERVATION_OUT,
            effect="write",
            reads=CHANGE_READS,
            writes=["flight_dates", "payment_methods", "payments", "reservations"],
            outputs=RESERVATION_OUTPUTS,
            claims=["status", "totals.refunded"],
        ),
        kit.tool(
            "update_reservation_cabin",
            "change the cabin of my reservation",
            "Move every segment of an active reservation (no flight departed) to another cabin. Every flight must be "
            "scheduled or delayed, with enough seats in the new cabin. The fare difference for all passengers (current fares of the new cabin "
            "against the fares paid) is charged to payment_method_id, or refunded to it if it paid at least that much "
            "for this reservation; bags the new cabin's allowance no longer covers are charged at $50 each. Returns "
            "the updated reservation.",
            {"reservation_id": reservation_id, "cabin": cabin, "payment_method_id": payment_method_id},
            RESERVATION_OUT,
            effect="write",
            reads=CHANGE_READS,
            writes=["flight_dates", "payment_methods", "payments", "reservation_flights", "reservations"],
            outputs=RESERVATION_OUTPUTS,
            claims=["totals.net_paid"],
        ),
        kit.tool(
            "change_reservation_flight",
            "change a flight of my reservation",
            "Put an active reservation on flight_number on date in place of its segment on the same route (origin "
            "and destination): a later or earlier flight that day, or the same or another flight on another date. The "
            "segment must not have departed; the new flight must be scheduled or delayed, not in the past, with enough "
            "seats in the reservation's cabin, and the segments must stay in travel order. Basic economy reservations "
            "cannot change flights. The fare difference for all passengers is charged to payment_method_id, or "
            "refunded to it if it paid at least that much for this reservation. Returns the updated reservation.",
            {
                "reservation_id": reservation_id,
                "flight_number": (
                    {**FLIGHT_NUMBER, "description": "Flight to take instead, e.g. 'HAT123'."},
                    kit.param("flight", True),
                ),
                "date": (
                    {**DATE, "description": "Date of the new flight, 'YYYY-MM-DD'."},
                    kit.param(None, True),
                ),
                "payment_method_id": payment_method_id,
            },
            RESERVATION_OUT,
            effect="write",
            reads=CHANGE_READS,
            writes=["flight_dates", "payment_methods", "payments", "reservation_flights"],
            outputs=RESERVATION_OUTPUTS,
            claims=["totals.net_paid"],
        ),
        kit.tool(
            "update_reservation_bags",
            "add checked bags to my reservation",
            "Raise the number of checked bags of an active reservation (no flight departed) to total_bags; bags "
            "cannot be removed, and at most 4 per passenger. Free bags per passenger: regular 0/1/2, silver 1/2/3, gold "
            "2/3/4 in basic economy/economy/business; each bag beyond that costs $50, charged to payment_method_id. "
            "Returns the updated reservation.",
            {
                "reservation_id": reservation_id,
                "total_bags": (
                    {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": 20,
                        "description": "New total of checked bags.",
                    },
                    kit.param(None, True),
                ),
                "payment_method_id": payment_method_id,
            },
            RESERVATION_OUT,
            effect="write",
            reads=CHANGE_READS,
            writes=["payment_methods", "payments", "reservations"],
            outputs=RESERVATION_OUTPUTS,
            claims=["nonfree_bags"],
        ),
        kit.tool(
            "add_travel_insurance",
            "buy travel insurance for my reservation",
            "Add travel insurance ($30 per passenger) to an active reservation without it, booked within the last 24 "
            "hours, with no flight departed; charged to payment_method_id. Returns the updated reservation.",
            {"reservation_id": reservation_id, "payment_method_id": payment_method_id},
            RESERVATION_OUT,
            effect="write",
            reads=CHANGE_READS,
            writes=["payment_methods", "payments", "reservations"],
            outputs=RESERVATION_OUTPUTS,
            claims=["totals.net_paid"],
        ),
        kit.tool(
            "issue_compensation_certificate",
            "get compensation for a delayed or cancelled flight",
            "Issue a travel certificate to a silver or gold member whose reservation has a flight the airline "
            "cancelled ($100 per passenger) or delayed ($50 per passenger); once per reservation. The certificate is "
            "saved as a payment method of the user.",
            {"user_id": user_id, "reservation_id": reservation_id},
            kit.obj(
                {
                    "certificate_id": TEXT,
                    "user_id": TEXT,
                    "reservation_id": TEXT,
                    "cause": kit.enum(["cancelled", "delayed"]),
                    "amount": MONEY,
                }
            ),
            effect="write",
            reads=CHANGE_READS,
            writes=["payment_methods", "reservations"],
            outputs={"certificate_id": "payment_method", "user_id": "user", "reservation_id": "reservation"},
            claims=["amount"],
        ),
        kit.tool(
            "calculate",
            "work out an amount",
            "Evaluate an arithmetic expression with numbers, + - * /, and parentheses, e.g. '(389.99 - 212.5) * 2'. "
            "The result is rounded to 2 decimals. Anything else is rejected.",
            {
                "expression": (
                    {
                        **kit.string(200, "Arithmetic expression."),
                        "examples": ["(389.99 - 212.5) * 2", "154.04 + 50"],
                    },
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"expression": TEXT, "result": {"type": "number"}}),
            claims=["result"],
        ),
        kit.tool(
            "transfer_to_human_agents",
            "talk to a human",
            "Transfer the user to a human agent, with a summary of the issue. Use only when the user explicitly asks "
            "for a human or the request cannot be handled with the other tools under the policy.",
            {
                "summary": (
                    kit.string(2000, "Summary of the user's issue for the human agent."),
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"transferred": {"type": "boolean"}, "message": TEXT, "summary": TEXT}),
        ),
    ]
