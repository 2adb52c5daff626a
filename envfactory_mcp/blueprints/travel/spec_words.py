"""How people say the travel environment's values (scoring reads answers by meaning).

Every text enum column is labelled (``kit.worded``): its values in words, and here the other
words an agent would use for one value and no other of its column. No column holds free
text an agent words itself: refund reasons are written by the tools, trip names and
record locators are the traveler's own."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit

WORDS: dict[str, dict[str, list[str]]] = {
    "hotel_bookings.status": {
        "confirmed": ["booked", "upcoming"],
        "checked_in": ["currently staying"],
        "completed": ["checked out"],
        "cancelled": ["called off"],
    },
    "car_rentals.status": {
        "reserved": ["booked", "confirmed"],
        "picked_up": ["collected"],
        "returned": ["dropped off", "brought back"],
        "cancelled": ["called off"],
    },
    "trips.status": {
        "planned": ["upcoming"],
        "in_progress": ["underway", "ongoing"],
        "completed": ["finished"],
        "cancelled": ["called off"],
    },
    "vouchers.status": {
        "active": ["valid", "usable"],
        "redeemed": ["used up", "fully used"],
        "expired": ["lapsed"],
    },
}

DISPLAY: dict[str, dict[str, str]] = {
    "payment_methods.brand": kit.CARD_BRAND_NAMES,
    "hotel_bookings.rate_type": {"non_refundable": "non-refundable"},
    "hotel_bookings.status": {"checked_in": "checked in"},
}

TEXT: list[str] = []
