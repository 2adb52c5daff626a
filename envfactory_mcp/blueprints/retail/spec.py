"""The retail environment's spec: tables, tools and the policy text next to this file."""

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


_ORDER_CHANGES = {
    "cancel_pending_order": "only pending orders can be cancelled",
    "modify_pending_order_address": "only pending orders can have their shipping address changed",
    "modify_pending_order_payment": "only pending orders can have their payment method changed",
    "modify_pending_order_items": "only pending orders can have their items changed",
    "return_delivered_order_items": "only delivered orders can have items returned",
    "exchange_delivered_order_items": "only delivered orders can have items exchanged",
}


RETURN_WINDOW_DAYS = 90

# The coded rules beyond status, declared as data (issue 31): the runtime checks them before
# the tool runs, never stricter than the tool's own check (a bound covering every tier).
BUSINESS_RULES = [
    EligibilityRule(
        tool="modify_pending_order_items",
        other="orders",
        via="order_id",
        column="items_modified",
        allowed=[0],
        reason="the items of an order can only be modified once",
    ),
    # The return window is a rule of the policy only (no tool code checks it): the runtime
    # enforces it as declared. Delivered orders were placed 10 to 120 days ago, so about
    # a quarter of them are past it.
    *(
        WindowRule(
            tool=tool,
            table="orders",
            key="order_id",
            column="created_at",
            side="after",
            hours=RETURN_WINDOW_DAYS * 24,
            reason=f"items can only be {done} within {RETURN_WINDOW_DAYS} days of the order being placed",
        )
        for tool, done in (
            ("return_delivered_order_items", "returned"),
            ("exchange_delivered_order_items", "exchanged"),
        )
    ),
]


def build_policy_rules() -> PolicyRules:
    """What ``policy.md`` says, as data: who must be authenticated, what needs a yes, what
    is refused in which order state, what goes to a human."""
    refusals = [
        RefusalRule(
            tool=tool,
            entity="order",
            column="status",
            allowed=["delivered"] if "delivered" in tool else ["pending"],
            shown_by="get_order_details",
            path="status",
            reason=reason,
        )
        for tool, reason in _ORDER_CHANGES.items()
    ]
    return PolicyRules(
        rules=list(BUSINESS_RULES),
        authentication=Authentication(
            tools=["find_user_id_by_email", "find_user_id_by_name_zip"],
            entity="user",
            exempt=["list_all_product_types", "get_product_details", "calculate", "transfer_to_human_agents"],
        ),
        confirm=[
            "modify_user_address",
            *_ORDER_CHANGES,
        ],
        refusals=refusals,
        transfer=Transfer(
            tool="transfer_to_human_agents",
            out_of_scope=[
                "a price match, because I saw the same thing cheaper elsewhere",
                "a discount code for my next order",
                "compensation for a package that arrived late",
                "a new credit card added to my account",
                "express shipping on my order instead",
                "a refund for the shipping fee",
            ],
        ),
        utilities=["calculate"],
        calculator="calculate",
    )


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="retail",
        title="Retail customer service",
        domain="retail",
        description=(
            "Customer service for an online store. The agent authenticates a user, then looks up their "
            "account, orders and the product catalog, and can change a user's default address, change the "
            "address, payment method or items of a pending order, cancel a pending order, and request returns "
            "or exchanges of delivered items, keeping payments, refunds and gift card balances consistent."
        ),
        tables=kit.worded(build_tables(), WORDS, DISPLAY, text=TEXT),
        tools=build_tools(),
        policy=load_policy(),
        policy_rules=build_policy_rules(),
        seed=SeedSpec(generator="blueprint:retail", seed=seed),
    )
