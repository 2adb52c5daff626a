"""The workplace environment's spec: tables, tools and the policy text next to this file."""

from __future__ import annotations

from pathlib import Path

from envfactory_mcp.blueprints import kit
from envfactory_mcp.spec import Authentication, EnvSpec, PolicyRules, RefusalRule, SeedSpec, Transfer
from envfactory_mcp.spec.policy import EligibilityRule, QuotaRule

from .spec_tables import build_tables
from .spec_tools import build_tools
from .spec_words import DISPLAY, TEXT, WORDS

POLICY_PATH = Path(__file__).with_name("policy.md")
CLOCK = "2026-06-17T14:00:00Z"


def load_policy() -> str:
    return POLICY_PATH.read_text(encoding="utf-8")


def _rule(tool: str, entity: str, column: str, allowed: list[str | int], reason: str) -> RefusalRule:
    """``tool`` is allowed only while the ``entity``'s ``column`` is in ``allowed``; the entity's
    own read tool shows it at the same path."""
    return RefusalRule(
        tool=tool,
        entity=entity,
        column=column,
        allowed=allowed,
        shown_by=f"get_{entity}_details",
        path=column,
        reason=reason,
    )


_OPEN_TASK: list[str | int] = ["todo", "in_progress", "blocked"]
_REFUSALS = [
    _rule(
        "reschedule_event",
        "event",
        "status",
        ["scheduled"],
        "only scheduled events can be moved; a completed or cancelled one needs a new event",
    ),
    _rule("cancel_event", "event", "status", ["scheduled"], "only scheduled events can be cancelled"),
    _rule(
        "respond_to_event",
        "event",
        "status",
        ["scheduled"],
        "only invitations to scheduled events can be answered",
    ),
    _rule("book_room", "event", "status", ["scheduled"], "rooms can be booked only for scheduled events"),
    _rule(
        "reply_to_message",
        "message",
        "folder",
        ["inbox", "archive"],
        "only messages in the inbox or archive can be answered; sent and trashed messages cannot",
    ),
    _rule(
        "move_message",
        "message",
        "folder",
        ["inbox", "archive", "trash"],
        "sent messages stay in the sent folder and cannot be moved",
    ),
    _rule("create_task", "project", "status", ["active"], "tasks can be added only to active projects"),
    _rule("reassign_task", "task", "status", _OPEN_TASK, "done and cancelled tasks cannot be reassigned"),
    _rule(
        "update_task_status",
        "task",
        "status",
        _OPEN_TASK,
        "done and cancelled are final; such a task needs a new task",
    ),
    _rule("share_document", "document", "status", ["active"], "archived documents cannot be shared"),
]


# The coded rules beyond status, declared as data (issue 31): the runtime checks them before
# the tool runs, never stricter than the tool's own check (a bound covering every tier).
BUSINESS_RULES = [
    QuotaRule(
        tool="request_external_approval",
        table="external_approvals",
        owner="employee_id",
        at_most=3,
        column="status",
        states=["pending"],
        reason="an employee can have at most 3 requests waiting for their manager at a time",
    ),
    EligibilityRule(
        tool="book_room",
        other="rooms",
        via="room_id",
        column="status",
        allowed=["available"],
        reason="rooms under maintenance cannot be booked",
    ),
]


def build_policy_rules() -> PolicyRules:
    """What ``policy.md`` says, as data."""
    writes = [t.name for t in build_tools() if t.effect == "write"]
    return PolicyRules(
        rules=list(BUSINESS_RULES),
        authentication=Authentication(
            tools=["find_employee_id_by_email", "find_employee_id_by_number"],
            entity="employee",
            exempt=["list_rooms", "calculate", "transfer_to_human_agents"],
        ),
        confirm=writes,
        refusals=list(_REFUSALS),
        transfer=Transfer(
            tool="transfer_to_human_agents",
            out_of_scope=[
                "a reset of my network password",
                "a new laptop ordered for me",
                "my vacation days approved",
                "a new shared mailbox for my team",
                "access to the payroll system",
                "a parking permit for the office garage",
                "a video call set up with an outside client",
            ],
        ),
        utilities=["calculate"],
        calculator="calculate",
    )


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="workplace",
        title="Workplace productivity assistant",
        domain="workplace",
        description=(
            "An internal help desk over a company's calendar, mail, tasks and documents. The agent "
            "authenticates an employee by work email or employee number, then looks up their profile, "
            "meetings, rooms, mailbox, projects, tasks and shared documents, and can set up, move and cancel "
            "meetings (attendee clashes, working hours and room capacity checked), answer invitations, book "
            "rooms, send, answer and file email (external domains only with a manager's approval), request "
            "such approvals, add, reassign and move tasks along their workflow within the project's members, "
            "and share documents (owners only, confidential ones within their department)."
        ),
        clock=CLOCK,
        tables=kit.worded(build_tables(), WORDS, DISPLAY, text=TEXT),
        tools=build_tools(),
        policy=load_policy(),
        policy_rules=build_policy_rules(),
        seed=SeedSpec(generator="blueprint:workplace", seed=seed),
    )
