"""The airline environment's spec: tables, tools and the policy text next to this file."""

from __future__ import annotations

from pathlib import Path

from envfactory_mcp.blueprints import kit
from envfactory_mcp.spec import Authentication, EnvSpec, PolicyRules, RefusalRule, SeedSpec, Transfer
from envfactory_mcp.spec.policy import EligibilityRule, WindowRule

from .spec_tables import build_tables
from .spec_tools import build_tools
from .spec_words import DISPLAY, TEXT, WORDS

POLICY_PATH = Path(__file__).with_name("policy.md")


def load_policy() -> str:
    return POLICY_PATH.read_text(encoding="utf-8")


_ACTIVE_ONLY = {
    "cancel_reservation": "only active reservations can be cancelled",
    "update_reservation_cabin": "only active reservations can change cabin",
    "update_reservation_bags": "only active reservations can have bags added",
    "add_travel_insurance": "only active reservations can have insurance added",
    "change_reservation_flight": "only active reservations can have flights changed",
}


# The coded rules beyond status, declared as data (issue 31): the runtime checks them before
# the tool runs, never stricter than the tool's own check (a bound covering every tier).
BUSINESS_RULES = [
    WindowRule(
        tool="add_travel_insurance",
        table="reservations",
        key="reservation_id",
        column="created_at",
        side="after",
        hours=24,
        reason="travel insurance can only be added within 24 hours of booking",
    ),
    EligibilityRule(
        tool="issue_compensation_certificate",
        other="users",
        via="user_id",
        column="membership",
        allowed=["silver", "gold"],
        reason="compensation certificates are only for silver and gold members",
    ),
]


def build_policy_rules() -> PolicyRules:
    """What ``policy.md`` says, as data."""
    state = "get_reservation_details"
    # Rules on the reservation's lifecycle status come first for their tool: the task
    # generator draws refusal and contingent goals ("if it is still active, ...") from the
    # first rule of a tool only. The basic-economy rule is declared for the policy check and
    # the state read before a flight change; compensation's membership rule (a state of the
    # user, not of the reservation the request names) is enforced by the tool and the policy
    # text only, because a contingent goal on it reads "if reservation X is still silver".
    refusals = [
        *[
            RefusalRule(
                tool=tool,
                entity="reservation",
                column="status",
                allowed=["active"],
                shown_by=state,
                path="status",
                reason=reason,
            )
            for tool, reason in _ACTIVE_ONLY.items()
        ],
        RefusalRule(
            tool="change_reservation_flight",
            entity="reservation",
            column="cabin",
            allowed=["economy", "business"],
            shown_by=state,
            path="cabin",
            reason="basic economy flights cannot be changed",
        ),
    ]
    return PolicyRules(
        rules=list(BUSINESS_RULES),
        authentication=Authentication(
            tools=["find_user_id_by_email", "find_user_id_by_name_dob"],
            entity="user",
            exempt=[
                "list_all_airports",
                "search_direct_flights",
                "get_flight_status",
                "calculate",
                "transfer_to_human_agents",
            ],
        ),
        confirm=[
            "book_reservation",
            "cancel_reservation",
            "update_reservation_cabin",
            "change_reservation_flight",
            "update_reservation_bags",
            "add_travel_insurance",
            "issue_compensation_certificate",
        ],
        refusals=refusals,
        transfer=Transfer(
            tool="transfer_to_human_agents",
            out_of_scope=[
                "a special meal on my flight",
                "a wheelchair waiting at the gate",
                "my pet dog booked in the cabin with me",
                "a window seat assigned on my flight",
                "my new travel companion saved on my profile",
                "my frequent flyer miles moved to my husband's account",
                "a refund for the upgrade I bought at the airport kiosk",
            ],
        ),
        utilities=["calculate"],
        calculator="calculate",
    )


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="airline",
        title="Airline customer service",
        domain="airline",
        description=(
            "Customer service for an airline. The agent authenticates a user, then looks up their profile, "
            "reservations and flights, and can book one-way or round trips, cancel reservations under the fare "
            "rules, change cabins and flights, add checked bags and travel insurance, and issue compensation "
            "certificates for delayed or cancelled flights, keeping seats, payments, refunds and balances consistent."
        ),
        tables=kit.worded(build_tables(), WORDS, DISPLAY, text=TEXT),
        tools=build_tools(),
        policy=load_policy(),
        policy_rules=build_policy_rules(),
        seed=SeedSpec(generator="blueprint:airline", seed=seed),
    )
