"""The clinic environment's spec: tables, tools and the policy text next to this file."""

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
    "only due or overdue bills can be paid; a bill pending insurance is not payable yet and a paid bill has "
    "nothing left to pay"
)
_REFUSALS = [
    _rule(
        "cancel_appointment",
        "appointment",
        ["scheduled"],
        "only scheduled appointments can be cancelled; a completed, missed or already cancelled one cannot",
    ),
    _rule(
        "reschedule_appointment",
        "appointment",
        ["scheduled"],
        "only scheduled appointments can be moved; a new visit must be booked instead",
    ),
    _rule(
        "request_refill",
        "prescription",
        ["active"],
        "only active prescriptions can be refilled; one without refills or expired needs a renewal from the "
        "prescriber",
    ),
    _rule(
        "request_renewal",
        "prescription",
        ["needs_renewal"],
        "only prescriptions that need renewal can be sent for renewal; an active one still has refills and a "
        "requested or discontinued one cannot be renewed again",
    ),
    _rule(
        "transfer_prescription",
        "prescription",
        ["active", "needs_renewal", "renewal_requested"],
        "a discontinued prescription cannot be moved to another pharmacy",
    ),
    _rule("pay_bill", "bill", ["due", "overdue"], _PAY),
]


# The coded rules beyond status, declared as data (issue 31): the runtime checks them before
# the tool runs, never stricter than the tool's own check (a bound covering every tier).
BUSINESS_RULES = [
    WindowRule(
        tool="request_refill",
        table="prescriptions",
        key="rx_number",
        column="expires_on",
        side="after",
        hours=24,
        reason="an expired prescription cannot be refilled; a renewal is needed instead",
    ),
    EligibilityRule(
        tool="update_insurance_plan",
        other="insurance_plans",
        via="plan_id",
        column="accepted",
        allowed=[1],
        reason="the clinic only takes insurance plans it accepts",
    ),
]


def build_policy_rules() -> PolicyRules:
    """What ``policy.md`` says, as data."""
    writes = [t.name for t in build_tools() if t.effect == "write"]
    return PolicyRules(
        rules=list(BUSINESS_RULES),
        authentication=Authentication(
            tools=["find_patient_id_by_email", "find_patient_id_by_name_dob"],
            entity="patient",
            exempt=[
                "list_insurance_plans",
                "get_plan_details",
                "list_providers",
                "get_provider_schedule",
                "list_pharmacies",
                "calculate",
                "transfer_to_human_agents",
            ],
        ),
        confirm=writes,
        refusals=list(_REFUSALS),
        transfer=Transfer(
            tool="transfer_to_human_agents",
            out_of_scope=[
                "a copy of my lab results",
                "a new referral to a cardiologist",
                "the no-show fee on my bill waived",
                "a doctor's note for my employer",
                "my medical records sent to another hospital",
                "a prior authorization for an MRI",
                "a higher dose on my prescription",
            ],
        ),
        utilities=["calculate"],
        calculator="calculate",
    )


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="clinic",
        title="Medical clinic patient services",
        domain="healthcare",
        description=(
            "The patient services desk of a multi-site medical clinic. The agent authenticates a patient, then "
            "looks up their record, appointments, referrals, prescriptions and bills, the providers and their open "
            "slots, the insurance plans and pharmacies, and can book, reschedule and cancel appointments (visit "
            "rules, referrals, capacity, a late-cancellation fee), request prescription refills and renewals, move "
            "prescriptions to another pharmacy, update the insurance on file and pay bills."
        ),
        clock=CLOCK,
        tables=kit.worded(build_tables(), WORDS, DISPLAY, text=TEXT),
        tools=build_tools(),
        policy=load_policy(),
        policy_rules=build_policy_rules(),
        seed=SeedSpec(generator="blueprint:clinic", seed=seed),
    )
