"""The travel environment's spec: tables, tools and the policy text next to this file."""

from __future__ import annotations

from pathlib import Path

from envfactory_mcp.blueprints import kit
from envfactory_mcp.spec import Authentication, EnvSpec, PolicyRules, RefusalRule, SeedSpec, Transfer
from envfactory_mcp.spec.policy import AmountRule, EligibilityRule

from .spec_tables import build_tables
from .spec_tools import build_tools
from .spec_words import DISPLAY, TEXT, WORDS

POLICY_PATH = Path(__file__).with_name("policy.md")
CLOCK = "2026-06-18T15:00:00Z"


def load_policy() -> str:
    return POLICY_PATH.read_text(encoding="utf-8")


def _rule(
    tool: str, entity: str, allowed: list[str | int], reason: str, column: str = "status"
) -> RefusalRule:
    """``tool`` is allowed only while the ``entity``'s ``column`` is in ``allowed``; the entity's
    own read tool shows it."""
    return RefusalRule(
        tool=tool,
        entity=entity,
        column=column,
        allowed=allowed,
        shown_by=f"get_{entity}_details",
        path=column,
        reason=reason,
    )


_REFUSALS = [
    _rule(
        "change_hotel_dates",
        "hotel_booking",
        ["confirmed"],
        "only confirmed bookings can change dates; a stay that has started, ended or was cancelled cannot",
    ),
    _rule(
        "cancel_hotel_booking",
        "hotel_booking",
        ["confirmed"],
        "only confirmed bookings can be cancelled; a stay that has started, ended or was cancelled cannot",
    ),
    _rule(
        "cancel_car_rental",
        "car_rental",
        ["reserved"],
        "only reserved rentals can be cancelled; a car already picked up, returned or cancelled cannot",
    ),
    _rule(
        "add_car_rental_to_trip",
        "trip",
        ["planned"],
        "a car can only be added to a planned trip, not one under way, completed or cancelled",
    ),
    _rule(
        "set_flight_locator",
        "trip",
        ["planned"],
        "flights can only be recorded on a planned trip, not one under way, completed or cancelled",
    ),
    _rule("cancel_trip", "trip", ["planned"], "only planned trips can be cancelled"),
    _rule(
        "change_hotel_dates",
        "hotel_booking",
        ["refundable"],
        "non-refundable bookings cannot change dates",
        column="rate_type",
    ),
    _rule(
        "cancel_hotel_booking",
        "hotel_booking",
        ["refundable"],
        "non-refundable bookings cannot be cancelled for a refund",
        column="rate_type",
    ),
]


# The coded rules beyond status, declared as data (issue 31): the runtime checks them before
# the tool runs, never stricter than the tool's own check (a bound covering every tier).
BUSINESS_RULES = [
    AmountRule(
        tool="book_hotel",
        argument="rooms",
        at_most=4,
        reason="no booking can have more than 4 rooms (platinum members; gold 3, others 2)",
    ),
    EligibilityRule(
        tool="change_hotel_dates",
        other="hotel_bookings",
        via="booking_id",
        column="rate_type",
        allowed=["refundable"],
        reason="the dates of a non-refundable booking cannot be changed",
    ),
]


def build_policy_rules() -> PolicyRules:
    """What ``policy.md`` says, as data."""
    writes = [t.name for t in build_tools() if t.effect == "write"]
    return PolicyRules(
        rules=list(BUSINESS_RULES),
        authentication=Authentication(
            tools=["find_traveler_id_by_email", "find_traveler_id_by_name_dob"],
            entity="traveler",
            exempt=[
                "search_hotels",
                "get_hotel_details",
                "check_room_availability",
                "list_rental_locations",
                "check_car_availability",
                "calculate",
                "transfer_to_human_agents",
            ],
        ),
        confirm=writes,
        refusals=list(_REFUSALS),
        transfer=Transfer(
            tool="transfer_to_human_agents",
            out_of_scope=[
                "a flight booked for me to Denver",
                "the late-cancellation fee on my hotel booking waived",
                "a refund for my non-refundable room because I got sick",
                "a new travel voucher as compensation for a dirty room",
                "my loyalty tier upgraded to gold",
                "travel insurance added to my trip",
                "my car rental extended while I already have the car",
            ],
        ),
        utilities=["calculate"],
        calculator="calculate",
    )


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="travel",
        title="Travel agency trip desk",
        domain="travel",
        description=(
            "The trip desk of a travel agency. The agent authenticates a traveler, then looks up their profile, "
            "hotel bookings, car rentals, trips and travel vouchers, searches hotels and checks room and car "
            "availability, and can book hotel rooms (nightly capacity, refundable or non-refundable rates, rooms "
            "per booking by loyalty tier), change a stay's dates before check-in, cancel refundable bookings (free "
            "until a deadline, then one night kept), rent cars (driver age rules, young-driver surcharge, one-way "
            "fees), cancel rentals, add a car or a flight record locator to a trip and cancel trips, paying with "
            "saved cards and travel vouchers."
        ),
        clock=CLOCK,
        tables=kit.worded(build_tables(), WORDS, DISPLAY, text=TEXT),
        tools=build_tools(),
        policy=load_policy(),
        policy_rules=build_policy_rules(),
        seed=SeedSpec(generator="blueprint:travel", seed=seed),
    )
