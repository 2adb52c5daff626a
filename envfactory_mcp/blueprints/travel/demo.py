"""A short scripted traveler session for the quick-start demo, chosen from the seed state.

The traveler identifies by email, the agent looks up the profile and a confirmed
refundable hotel booking that is not part of a trip, reads it, cancels it and reads it
back.
"""

from __future__ import annotations

from typing import Any

State = dict[str, list[dict[str, Any]]]


def demo_calls(state: State) -> list[tuple[str, dict[str, Any]]]:
    in_trips = {t["hotel_booking_id"] for t in state["trips"]}
    booking = next(
        b
        for b in state["hotel_bookings"]
        if b["status"] == "confirmed"
        and b["rate_type"] == "refundable"
        and b["booking_id"] not in in_trips
        and b["check_in"] > "2026-06-25"
    )
    traveler = next(t for t in state["travelers"] if t["traveler_id"] == booking["traveler_id"])
    return [
        ("find_traveler_id_by_email", {"email": traveler["email"]}),
        ("get_traveler_details", {"traveler_id": traveler["traveler_id"]}),
        ("get_hotel_booking_details", {"booking_id": booking["booking_id"]}),
        ("cancel_hotel_booking", {"booking_id": booking["booking_id"]}),
        ("get_hotel_booking_details", {"booking_id": booking["booking_id"]}),
    ]
