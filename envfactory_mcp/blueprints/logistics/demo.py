"""A short scripted customer session for the quick-start demo, chosen from the seed state.

The customer identifies by phone, the agent looks up the account and a parcel still in
transit to a domestic address, redirects it to another domestic address in the address book
and tracks it again.
"""

from __future__ import annotations

from typing import Any

State = dict[str, list[dict[str, Any]]]


def demo_calls(state: State) -> list[tuple[str, dict[str, Any]]]:
    addresses = {a["address_id"]: a for a in state["addresses"]}
    changed = {c["tracking_number"] for c in state["delivery_changes"]}

    def domestic(address_id: str) -> bool:
        country: str = addresses[address_id]["country"]
        return country == "US"

    def other_address(s: dict[str, Any]) -> str | None:
        return next(
            (
                a["address_id"]
                for a in state["addresses"]
                if a["customer_id"] == s["customer_id"]
                and a["country"] == "US"
                and a["address_id"] not in (s["to_address_id"], s["from_address_id"])
            ),
            None,
        )

    shipment = next(
        s
        for s in state["shipments"]
        if s["status"] == "in_transit"
        and s["tracking_number"] not in changed
        and domestic(s["to_address_id"])
        and domestic(s["from_address_id"])
        and other_address(s) is not None
    )
    customer = next(c for c in state["customers"] if c["customer_id"] == shipment["customer_id"])
    target = other_address(shipment)
    return [
        ("find_customer_id_by_phone", {"phone": customer["phone"]}),
        ("get_customer_details", {"customer_id": customer["customer_id"]}),
        ("get_shipment_details", {"tracking_number": shipment["tracking_number"]}),
        ("redirect_shipment", {"tracking_number": shipment["tracking_number"], "address_id": target}),
        ("get_shipment_details", {"tracking_number": shipment["tracking_number"]}),
    ]
