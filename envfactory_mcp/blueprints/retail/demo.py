"""A short scripted customer session for the quick-start demo, chosen from the seed state.

The customer identifies by email, the agent looks up the account and a pending order,
then cancels it (a gift-card-paid order when there is one, so the refund visibly restores
a balance) and reads the order back.
"""

from __future__ import annotations

from typing import Any

State = dict[str, list[dict[str, Any]]]


def demo_calls(state: State) -> list[tuple[str, dict[str, Any]]]:
    gift_cards = {m["payment_method_id"] for m in state["payment_methods"] if m["kind"] == "gift_card"}
    paid_by_gift_card = {p["order_id"] for p in state["payments"] if p["payment_method_id"] in gift_cards}
    pending = [o for o in state["orders"] if o["status"] == "pending"]
    order = next((o for o in pending if o["order_id"] in paid_by_gift_card), pending[0])
    user = next(u for u in state["users"] if u["user_id"] == order["user_id"])
    return [
        ("find_user_id_by_email", {"email": user["email"]}),
        ("get_user_details", {"user_id": user["user_id"]}),
        ("get_order_details", {"order_id": order["order_id"]}),
        ("cancel_pending_order", {"order_id": order["order_id"], "reason": "no longer needed"}),
        ("get_order_details", {"order_id": order["order_id"]}),
    ]
