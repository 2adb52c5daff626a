"""How people say the airline environment's values (scoring reads answers by meaning).

Every text enum column is labelled (``kit.worded``): its values in words, and here the other
words an agent would use for one value and no other of its column. No column holds free
text an agent words itself (cancellation reasons are one of five the user picks)."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit

WORDS: dict[str, dict[str, list[str]]] = {
    "flight_dates.status": {
        "scheduled": ["on time", "on schedule"],
        "delayed": ["running late"],
        "cancelled": ["called off"],
        "departed": ["took off"],
        "landed": ["arrived", "touched down"],
    },
    "reservations.status": {
        "active": ["confirmed", "upcoming"],
        "cancelled": ["called off"],
        "completed": ["flown", "travelled"],
    },
    "reservations.trip_type": {"round_trip": ["return trip"]},
    "reservations.cabin": {"economy": ["main cabin"], "business": ["business class"]},
    "payments.kind": {"payment": ["charge"], "refund": ["money back"]},
}

DISPLAY: dict[str, dict[str, str]] = {
    "payment_methods.kind": {"certificate": "travel certificate"},
    "payment_methods.brand": kit.CARD_BRAND_NAMES,
    "reservations.trip_type": {"one_way": "one-way", "round_trip": "round trip"},
}

TEXT: list[str] = []
