"""How people say the logistics environment's values, and its free text (scoring reads
answers and state by meaning).

Every text enum column is labelled (``kit.worded``): its values in words, and here the other
words an agent would use for one value and no other of its column. A parcel both
``in_transit`` and ``out_for_delivery`` is "on its way", so neither gets those words; pickup
windows are said as times of day. A claim's description is what happened in the customer's
words as the agent writes it up (``file_claim``): compared by the facts it carries. What a
parcel holds (``shipments.contents``) is the customer's declaration, kept exact."""

from __future__ import annotations

WORDS: dict[str, dict[str, list[str]]] = {
    "customers.account_status": {
        "active": ["in good standing"],
        "credit_hold": ["on credit hold", "on hold"],
    },
    "shipments.kind": {"outbound": ["outgoing"]},
    "shipments.status": {
        "label_created": ["awaiting pickup", "label printed"],
        "picked_up": ["collected by the courier"],
        "delivered": ["arrived"],
        "held_at_depot": ["held at the depot", "waiting at the depot", "ready for collection"],
        "lost": ["missing"],
        "returned_to_sender": ["returned to the sender", "sent back to the sender"],
        "cancelled": ["voided", "label voided"],
    },
    "delivery_changes.kind": {"redirect": ["rerouted"]},
    "pickups.window": {"08:00-12:00": ["morning"], "12:00-16:00": ["afternoon"], "16:00-19:00": ["evening"]},
    "pickups.status": {"scheduled": ["booked", "upcoming"], "cancelled": ["called off"]},
    "claims.kind": {"lost": ["missing"], "damaged": ["broken"]},
    "claims.status": {
        "submitted": ["filed", "received"],
        "under_review": ["being reviewed", "in review"],
        "approved": ["accepted"],
        "denied": ["rejected", "declined"],
        "paid": ["paid out"],
    },
    "invoices.status": {
        "issued": ["billed"],
        "overdue": ["past due", "late"],
        "paid": ["paid in full", "settled"],
    },
}

DISPLAY: dict[str, dict[str, str]] = {
    "pickups.window": {
        "08:00-12:00": "8 AM to noon",
        "12:00-16:00": "noon to 4 PM",
        "16:00-19:00": "4 PM to 7 PM",
    },
}

TEXT = ["claims.description"]
