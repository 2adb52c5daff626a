"""The telecom environment's spec: tables, tools and the policy text next to this file."""

from __future__ import annotations

from pathlib import Path

from envfactory_mcp.blueprints import kit
from envfactory_mcp.spec import Authentication, EnvSpec, PolicyRules, RefusalRule, SeedSpec, Transfer
from envfactory_mcp.spec.policy import EligibilityRule, WindowRule

from .spec_tables import build_tables
from .spec_tools import build_tools
from .spec_words import DISPLAY, TEXT, WORDS

POLICY_PATH = Path(__file__).with_name("policy.md")
CLOCK = "2026-06-18T15:00:00Z"


def load_policy() -> str:
    return POLICY_PATH.read_text(encoding="utf-8")


def _rule(tool: str, entity: str, allowed: list[str | int], reason: str) -> RefusalRule:
    """``tool`` is allowed only while the ``entity``'s status is in ``allowed``; the entity's
    own read tool shows the status."""
    return RefusalRule(
        tool=tool,
        entity=entity,
        column="status",
        allowed=allowed,
        shown_by=f"get_{entity}_details",
        path="status",
        reason=reason,
    )


_PAY = (
    "only issued or overdue bills can be paid; an open bill is not issued yet and a paid bill has nothing due"
)
_REFUSALS = [
    _rule("pay_bill", "bill", ["issued", "overdue"], _PAY),
    _rule("change_plan", "line", ["active"], "suspended lines cannot change plans"),
    _rule("purchase_data_topup", "line", ["active"], "only active lines can buy extra data"),
    _rule("enable_roaming", "line", ["active"], "roaming can only be enabled on an active line"),
    _rule("suspend_line", "line", ["active"], "only active lines can be suspended"),
    _rule("resume_line", "line", ["suspended"], "only suspended lines can be resumed"),
    _rule("upgrade_device", "line", ["active"], "devices can only be upgraded on an active line"),
    _rule("close_ticket", "ticket", ["open", "in_progress", "resolved"], "the ticket is already closed"),
    _rule(
        "reopen_ticket",
        "ticket",
        ["resolved"],
        "only resolved tickets can be reopened; a closed one needs a new ticket",
    ),
]


# The coded rules beyond status, declared as data (issue 31): the runtime checks them before
# the tool runs, never stricter than the tool's own check (a bound covering every tier).
BUSINESS_RULES = [
    WindowRule(
        tool="reopen_ticket",
        table="tickets",
        key="ticket_id",
        column="resolved_at",
        side="after",
        hours=8 * 24,
        reason="a ticket can only be reopened within 7 days of being resolved; after that a new ticket is needed",
    ),
    EligibilityRule(
        tool="change_plan",
        other="plans",
        via="plan_id",
        column="available",
        allowed=[1],
        reason="retired plans are not open to new subscriptions",
    ),
]


def build_policy_rules() -> PolicyRules:
    """What ``policy.md`` says, as data."""
    writes = [t.name for t in build_tools() if t.effect == "write"]
    return PolicyRules(
        rules=list(BUSINESS_RULES),
        authentication=Authentication(
            tools=["find_customer_id_by_email", "find_customer_id_by_name_dob"],
            entity="customer",
            exempt=[
                "list_plans",
                "list_device_models",
                "get_outages",
                "calculate",
                "transfer_to_human_agents",
            ],
        ),
        confirm=writes,
        refusals=list(_REFUSALS),
        transfer=Transfer(
            tool="transfer_to_human_agents",
            out_of_scope=[
                "a credit on my bill for the outage last week",
                "my number ported out to another carrier",
                "a new line added to my account",
                "the late fee on my bill waived",
                "a different phone number for my line",
                "an international calling add-on",
            ],
        ),
        utilities=["calculate"],
        calculator="calculate",
    )


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="telecom",
        title="Telecom customer support",
        domain="telecom",
        description=(
            "Technical and billing support for a mobile carrier. The agent authenticates a customer, then looks "
            "up their lines, plans, devices, bills, tickets and outages in their area, and can pay bills (in full "
            "or in part), change plans, buy data top-ups, switch roaming on or off, suspend and resume lines, "
            "upgrade phones once eligible, and open, close or reopen support tickets."
        ),
        clock=CLOCK,
        tables=kit.worded(build_tables(), WORDS, DISPLAY, text=TEXT),
        tools=build_tools(),
        policy=load_policy(),
        policy_rules=build_policy_rules(),
        seed=SeedSpec(generator="blueprint:telecom", seed=seed),
    )
