"""The failure taxonomy on hand-made trajectories: one (at least) for every class."""

from __future__ import annotations

import json
from typing import Any

import pytest

from envfactory_mcp.eval.taxonomy import FAILURE_CLASSES, EpisodeFacts, classify, unseen_values

NEEDED = ["crm__find_customer_by_email", "billing__list_invoices"]
USER = {"role": "user", "content": "Hi, my email is ada0@example.com; list my invoices."}


def call(i: int, name: str, arguments: Any) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": raw}}],
    }


def result(i: int, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c{i}", "content": content}


def say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


FIND = [
    call(0, NEEDED[0], {"email": "ada0@example.com"}),
    result(0, '{"customer_id": "C100", "name": "Ada"}'),
]
LIST = [
    call(1, NEEDED[1], {"customer_id": "C100"}),
    result(1, '{"invoices": [{"invoice_id": "INV-2000", "amount": 120.5}]}'),
]

CASES: dict[str, EpisodeFacts] = {
    "collateral_change": EpisodeFacts(
        [
            USER,
            *FIND,
            *LIST,
            call(2, "notes_1__delete_note", {"note_id": "N0001"}),
            result(2, "{}"),
            say("Done."),
        ],
        NEEDED,
        state_ok=False,
        collateral=["notes_1"],
    ),
    "constraint_violation": EpisodeFacts(
        [USER, *FIND, *LIST, say("Paid.")],
        NEEDED,
        policy_violations=["billing: call 2 pay_invoice: no confirmation"],
    ),
    "no_tool_use": EpisodeFacts([USER, say("Sorry, I cannot help with that.")], NEEDED, coverage=0.0),
    "malformed_call": EpisodeFacts(
        [
            USER,
            call(0, NEEDED[0], '{"email": "ada0@exa'),
            result(0, "Error: malformed arguments"),
            say("Sorry."),
        ],
        NEEDED,
        coverage=0.0,
    ),
    "malformed_call (schema refused)": EpisodeFacts(
        [
            USER,
            call(0, NEEDED[0], {"mail": "x"}),
            result(0, "Error: Invalid arguments for find_customer_by_email"),
        ],
        NEEDED,
        coverage=0.0,
    ),
    "wrong_tool": EpisodeFacts(
        [
            USER,
            *FIND,
            call(1, "crm__get_customer", {"customer_id": "C100"}),
            result(1, '{"tier": "gold"}'),
            say("Done."),
        ],
        NEEDED,
        coverage=0.0,
    ),
    "error_not_recovered": EpisodeFacts(
        [
            USER,
            *FIND,
            call(1, NEEDED[1], {"customer_id": "C999"}),
            result(1, "Error: No invoices for customer C999."),
            say("Sorry."),
        ],
        NEEDED,
        coverage=0.0,
    ),
    "error_not_recovered (too many)": EpisodeFacts(
        [USER, *FIND, *LIST], NEEDED, termination="too_many_errors", coverage=0.0
    ),
    "hallucinated_fact": EpisodeFacts(
        [USER, *FIND, *LIST, say("Your invoice INV-2000 is for $345.10, due 2026-03-01.")],
        NEEDED,
        coverage=0.0,
    ),
    "early_termination": EpisodeFacts(
        [USER, *FIND, say("I found you, Ada. Anything else?")], NEEDED, coverage=0.0
    ),
    "early_termination (steps)": EpisodeFacts(
        [USER, *FIND, *LIST], NEEDED, termination="max_steps", coverage=0.0
    ),
    "task_misunderstanding": EpisodeFacts(
        [USER, *FIND, *LIST, say("You have an invoice INV-2000.")], NEEDED, coverage=0.5, state_ok=False
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_class_from_its_trajectory(case: str) -> None:
    expected = case.split(" ", 1)[0]
    found, detail = classify(CASES[case])
    assert found == expected, detail
    assert detail


def test_every_class_has_a_case() -> None:
    assert {c.split(" ", 1)[0] for c in CASES} == set(FAILURE_CLASSES)


def test_an_error_recovered_later_is_not_a_failure_class() -> None:
    retried = [
        USER,
        *FIND,
        call(5, NEEDED[1], {"customer_id": "C10"}),
        result(5, "Error: No invoices for customer C10."),
        *LIST,
        say("Invoice INV-2000 for $120.50."),
    ]
    found, _ = classify(EpisodeFacts(retried, NEEDED, coverage=0.5, state_ok=True))
    assert found == "task_misunderstanding"


def test_unseen_values_ignores_what_tools_and_user_said() -> None:
    messages = [
        USER,
        *LIST,
        say("INV-2000 costs $120.50 (that is 1 invoice), due January 5, 2026; INV-9 too"),
    ]
    assert unseen_values(messages) == ["2026-01-05", "INV-9"]
