"""The banking environment's spec: tables, tools and the policy text next to this file."""

from __future__ import annotations

from pathlib import Path

from envfactory_mcp.blueprints import kit
from envfactory_mcp.spec import Authentication, EnvSpec, PolicyRules, RefusalRule, SeedSpec, Transfer
from envfactory_mcp.spec.policy import AmountRule, EligibilityRule, WindowRule

from .spec_tables import build_tables
from .spec_tools import build_tools
from .spec_words import DISPLAY, TEXT, WORDS

POLICY_PATH = Path(__file__).with_name("policy.md")


def load_policy() -> str:
    return POLICY_PATH.read_text(encoding="utf-8")


# (tool, entity, column, allowed states, read tool showing them, output path, reason)
_REFUSALS: list[tuple[str, str, str, list[str | int], str, str, str]] = [
    (
        "activate_card",
        "card",
        "status",
        ["inactive"],
        "get_card_details",
        "status",
        "only inactive cards can be activated",
    ),
    (
        "freeze_card",
        "card",
        "status",
        ["active"],
        "get_card_details",
        "status",
        "only active cards can be frozen",
    ),
    (
        "unfreeze_card",
        "card",
        "status",
        ["frozen"],
        "get_card_details",
        "status",
        "only frozen cards can be unfrozen",
    ),
    (
        "report_card_lost",
        "card",
        "status",
        ["inactive", "active", "frozen"],
        "get_card_details",
        "status",
        "a card already reported lost or stolen, or closed, cannot be reported again",
    ),
    (
        "update_card_limit",
        "card",
        "status",
        ["active", "frozen"],
        "get_card_details",
        "status",
        "only active or frozen cards can have their daily limit changed",
    ),
    (
        "transfer_between_accounts",
        "account",
        "status",
        ["open"],
        "get_account_details",
        "status",
        "money can only be moved from an open account",
    ),
    (
        "send_to_payee",
        "account",
        "status",
        ["open"],
        "get_account_details",
        "status",
        "payments can only be made from an open account",
    ),
    (
        "set_overdraft_protection",
        "account",
        "status",
        ["open"],
        "get_account_details",
        "status",
        "overdraft protection can only be changed on an open account",
    ),
    (
        "file_dispute",
        "transaction",
        "dispute_state",
        ["without dispute"],
        "get_transaction_details",
        "dispute_state",
        "a transaction can be disputed only once",
    ),
    (
        "cancel_scheduled_payment",
        "scheduled_payment",
        "status",
        ["pending"],
        "get_scheduled_payment",
        "status",
        "only scheduled payments that are still pending can be cancelled",
    ),
]


# The coded rules beyond status, declared as data (issue 31): the runtime checks them before
# the tool runs, never stricter than the tool's own check (a bound covering every tier).
BUSINESS_RULES = [
    WindowRule(
        tool="file_dispute",
        table="transactions",
        key="transaction_id",
        column="posted_at",
        side="after",
        hours=60 * 24,
        reason="a transaction can only be disputed within 60 days of when it posted",
    ),
    EligibilityRule(
        tool="send_to_payee",
        other="payees",
        via="payee_id",
        column="status",
        allowed=["active"],
        reason="only active payees can be paid",
    ),
    AmountRule(
        tool="update_card_limit",
        argument="daily_limit",
        at_most=5000,
        reason="no debit card's daily limit can be above $5,000 (the premier tier's most; lower tiers have less)",
    ),
]


def build_policy_rules() -> PolicyRules:
    """What ``policy.md`` says, as data: who must be verified, what needs a yes, what is
    refused in which state, what goes to a human."""
    refusals = [
        RefusalRule(
            tool=tool,
            entity=entity,
            column=column,
            allowed=allowed,
            shown_by=shown_by,
            path=path,
            reason=reason,
        )
        for tool, entity, column, allowed, shown_by, path, reason in _REFUSALS
    ]
    return PolicyRules(
        rules=list(BUSINESS_RULES),
        authentication=Authentication(
            tools=["find_customer_by_email", "find_customer_by_name"],
            entity="customer",
            exempt=["calculate", "transfer_to_human_agents"],
        ),
        confirm=[
            "activate_card",
            "freeze_card",
            "unfreeze_card",
            "report_card_lost",
            "update_card_limit",
            "transfer_between_accounts",
            "send_to_payee",
            "schedule_payment",
            "cancel_scheduled_payment",
            "file_dispute",
            "set_overdraft_protection",
            "waive_fee",
        ],
        refusals=refusals,
        transfer=Transfer(
            tool="transfer_to_human_agents",
            out_of_scope=[
                "a higher credit limit on my credit card",
                "a new savings account opened for me",
                "a wire transfer to an account overseas",
                "a mortgage rate quote",
                "a stop payment on a paper check I wrote",
                "my late payment removed from my credit report",
                "a cashier's check mailed to me",
            ],
        ),
        utilities=["calculate"],
        calculator="calculate",
    )


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="banking",
        title="Retail bank customer service",
        domain="banking",
        description=(
            "Customer service for a retail bank. The agent verifies a customer's identity, then looks up their "
            "accounts, balances and holds, transactions, cards, statements and scheduled payments, and can "
            "activate, freeze, unfreeze or replace cards and change debit limits, move money between the "
            "customer's accounts or to saved payees within tier limits, schedule and cancel payments, dispute card "
            "purchases with provisional credit, set overdraft protection and waive a fee once a year."
        ),
        tables=kit.worded(build_tables(), WORDS, DISPLAY, text=TEXT),
        tools=build_tools(),
        policy=load_policy(),
        policy_rules=build_policy_rules(),
        seed=SeedSpec(generator="blueprint:banking", seed=seed),
    )
