"""A short scripted customer session for the quick-start demo, chosen from the seed state.

The customer identifies by email, the agent looks up the account and an active reservation
in economy or business whose flights have not departed, adds a checked bag and reads the
reservation back.
"""

from __future__ import annotations

from typing import Any

State = dict[str, list[dict[str, Any]]]


def demo_calls(state: State) -> list[tuple[str, dict[str, Any]]]:
    flown = {
        (f["flight_number"], f["date"])
        for f in state["flight_dates"]
        if f["status"] in ("departed", "landed")
    }
    touched = {
        s["reservation_id"] for s in state["reservation_flights"] if (s["flight_number"], s["date"]) in flown
    }
    reservation = next(
        r for r in state["reservations"] if r["status"] == "active" and r["reservation_id"] not in touched
    )
    user = next(u for u in state["users"] if u["user_id"] == reservation["user_id"])
    card = next(
        m for m in state["payment_methods"] if m["user_id"] == user["user_id"] and m["kind"] == "credit_card"
    )
    return [
        ("find_user_id_by_email", {"email": user["email"]}),
        ("get_user_details", {"user_id": user["user_id"]}),
        ("get_reservation_details", {"reservation_id": reservation["reservation_id"]}),
        (
            "update_reservation_bags",
            {
                "reservation_id": reservation["reservation_id"],
                "total_bags": reservation["total_bags"] + 1,
                "payment_method_id": card["payment_method_id"],
            },
        ),
        ("get_reservation_details", {"reservation_id": reservation["reservation_id"]}),
    ]
