"""A short scripted customer session for the quick-start demo, chosen from the seed state.

The customer identifies by email, the agent looks up the account and an issued bill with
a balance, pays it in full with a valid payment method and reads the bill back.
"""

from __future__ import annotations

from typing import Any

State = dict[str, list[dict[str, Any]]]


def demo_calls(state: State) -> list[tuple[str, dict[str, Any]]]:
    usable = [m for m in state["payment_methods"] if m["expires"] is None or m["expires"] >= "2026-06"]
    has_method = {m["customer_id"] for m in usable}
    bill = next(b for b in state["bills"] if b["status"] == "issued" and b["customer_id"] in has_method)
    customer = next(c for c in state["customers"] if c["customer_id"] == bill["customer_id"])
    method = next(m for m in usable if m["customer_id"] == customer["customer_id"])
    line = next(x for x in state["lines"] if x["customer_id"] == customer["customer_id"])
    return [
        ("find_customer_id_by_email", {"email": customer["email"]}),
        ("get_customer_details", {"customer_id": customer["customer_id"]}),
        ("get_line_details", {"phone_number": line["phone_number"]}),
        ("get_bill_details", {"bill_id": bill["bill_id"]}),
        ("pay_bill", {"bill_id": bill["bill_id"], "payment_method_id": method["payment_method_id"]}),
        ("get_bill_details", {"bill_id": bill["bill_id"]}),
    ]
