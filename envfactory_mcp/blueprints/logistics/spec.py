"""The logistics environment's spec: tables, tools and the policy text next to this file."""

from __future__ import annotations

from pathlib import Path

from envfactory_mcp.blueprints import kit
from envfactory_mcp.spec import Authentication, EnvSpec, PolicyRules, RefusalRule, SeedSpec, Transfer
from envfactory_mcp.spec.policy import AmountRule, WindowRule

from .spec_tables import build_tables
from .spec_tools import build_tools
from .spec_words import DISPLAY, TEXT, WORDS

POLICY_PATH = Path(__file__).with_name("policy.md")
CLOCK = "2026-09-16T15:00:00Z"


def load_policy() -> str:
    return POLICY_PATH.read_text(encoding="utf-8")


def _rule(tool: str, entity: str, column: str, allowed: list[str | int], reason: str) -> RefusalRule:
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


_CHANGEABLE: list[str | int] = ["label_created", "picked_up", "in_transit"]
_REFUSALS = [
    _rule(
        "create_shipment",
        "customer",
        "account_status",
        ["active"],
        "an account on credit hold cannot ship until its overdue invoice is paid",
    ),
    _rule(
        "schedule_pickup",
        "customer",
        "account_status",
        ["active"],
        "an account on credit hold cannot book pickups until its overdue invoice is paid",
    ),
    _rule(
        "cancel_shipment",
        "shipment",
        "status",
        ["label_created"],
        "only a label not yet picked up can be cancelled",
    ),
    _rule(
        "redirect_shipment",
        "shipment",
        "status",
        _CHANGEABLE,
        "a parcel can be redirected only before it is out for delivery",
    ),
    _rule(
        "hold_at_depot",
        "shipment",
        "status",
        _CHANGEABLE,
        "a parcel can be held at a depot only before it is out for delivery",
    ),
    _rule(
        "create_return_label",
        "shipment",
        "status",
        ["delivered"],
        "return labels are only for delivered parcels",
    ),
    _rule(
        "file_claim",
        "shipment",
        "status",
        ["delivered", "lost"],
        "claims are only for parcels delivered damaged or declared lost",
    ),
    _rule("cancel_pickup", "pickup", "status", ["scheduled"], "only scheduled pickups can be cancelled"),
    _rule(
        "withdraw_claim",
        "claim",
        "status",
        ["submitted", "under_review"],
        "only a claim still pending can be withdrawn; a decided claim stays as it is",
    ),
    _rule(
        "pay_invoice",
        "invoice",
        "status",
        ["issued", "overdue"],
        "only issued or overdue invoices can be paid; an open invoice is not issued yet and a paid one has nothing due",
    ),
]


# The coded rules beyond status, declared as data (issue 31): the runtime checks them before
# the tool runs, never stricter than the tool's own check (a bound covering every tier).
BUSINESS_RULES = [
    WindowRule(
        tool="create_return_label",
        table="shipments",
        key="tracking_number",
        column="delivered_at",
        side="after",
        hours=31 * 24,
        reason="a return label can only be made within 30 days of delivery",
    ),
    AmountRule(
        tool="create_shipment",
        argument="weight_kg",
        at_most=30,
        reason="no parcel can weigh more than 30 kilograms (some services take less)",
    ),
]


def build_policy_rules() -> PolicyRules:
    """What ``policy.md`` says, as data."""
    writes = [t.name for t in build_tools() if t.effect == "write"]
    return PolicyRules(
        rules=list(BUSINESS_RULES),
        authentication=Authentication(
            tools=["find_customer_id_by_email", "find_customer_id_by_phone"],
            entity="customer",
            exempt=["list_services", "list_depots", "calculate", "transfer_to_human_agents"],
        ),
        confirm=writes,
        refusals=list(_REFUSALS),
        transfer=Transfer(
            tool="transfer_to_human_agents",
            out_of_scope=[
                "a refund of the shipping price because my parcel arrived a day late",
                "a new business account opened for my shop",
                "the late fee on my invoice waived",
                "a pallet freight quote for a full truckload",
                "customs paperwork for a parcel held at the border",
                "the courier who was rude to me reported",
                "a new card saved on my account",
            ],
        ),
        utilities=["calculate"],
        calculator="calculate",
    )


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="logistics",
        title="Parcel carrier customer service",
        domain="logistics",
        description=(
            "Customer service for a parcel carrier. The agent authenticates a shipper, then tracks their "
            "parcels and looks up their addresses, pickups, claims and invoices, and can create shipping labels "
            "within each service's weight and size limits, cancel labels not yet picked up, redirect a parcel or "
            "hold it at a depot before it is out for delivery, book and cancel pickups on business days within "
            "depot capacity, create return labels, file and withdraw claims for lost or damaged parcels within "
            "the filing window and value limits, and pay invoices with the card on file."
        ),
        clock=CLOCK,
        tables=kit.worded(build_tables(), WORDS, DISPLAY, text=TEXT),
        tools=build_tools(),
        policy=load_policy(),
        policy_rules=build_policy_rules(),
        seed=SeedSpec(generator="blueprint:logistics", seed=seed),
    )
