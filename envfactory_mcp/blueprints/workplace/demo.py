"""A short scripted employee session for the quick-start demo, chosen from the seed state.

The employee identifies by work email, the agent looks up their profile and an inbox
message, files it in the archive and reads it back.
"""

from __future__ import annotations

from typing import Any

State = dict[str, list[dict[str, Any]]]


def demo_calls(state: State) -> list[tuple[str, dict[str, Any]]]:
    message = next(m for m in state["messages"] if m["folder"] == "inbox")
    employee = next(e for e in state["employees"] if e["employee_id"] == message["owner_id"])
    return [
        ("find_employee_id_by_email", {"email": employee["email"]}),
        ("get_employee_details", {"employee_id": employee["employee_id"]}),
        ("get_message_details", {"message_id": message["message_id"]}),
        (
            "move_message",
            {
                "employee_id": employee["employee_id"],
                "message_id": message["message_id"],
                "folder": "archive",
            },
        ),
        ("get_message_details", {"message_id": message["message_id"]}),
    ]
