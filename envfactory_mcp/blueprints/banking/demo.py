"""A short scripted customer session for the quick-start demo, chosen from the seed state.

The customer verifies by email and zip code, the agent looks up the profile and an
active debit card, freezes it (the customer misplaced it) and reads the card back.
"""

from __future__ import annotations

from typing import Any

State = dict[str, list[dict[str, Any]]]


def demo_calls(state: State) -> list[tuple[str, dict[str, Any]]]:
    card = next(c for c in state["cards"] if c["status"] == "active" and c["kind"] == "debit")
    customer = next(c for c in state["customers"] if c["customer_id"] == card["customer_id"])
    return [
        ("find_customer_by_email", {"email": customer["email"], "zip": customer["zip"]}),
        ("get_customer_details", {"customer_id": customer["customer_id"]}),
        ("get_card_details", {"card_id": card["card_id"]}),
        ("freeze_card", {"card_id": card["card_id"]}),
        ("get_account_details", {"account_id": card["account_id"]}),
    ]
