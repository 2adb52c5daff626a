"""How people say the banking environment's values (scoring reads answers by meaning).

Every text enum column is labelled (``kit.worded``): its values in words, and here the other
words an agent would use for one value and no other of its column. A card that is ``lost``
or ``stolen`` is blocked for good and a ``closed`` one is shut, so none of them gets
"cancelled" or "blocked", which an agent says of all three. No column holds free text an
agent words itself (dispute reasons are one of five the customer picks)."""

from __future__ import annotations

WORDS: dict[str, dict[str, list[str]]] = {
    "accounts.status": {"open": ["active"], "frozen": ["locked"]},
    "cards.status": {
        "inactive": ["not activated", "not yet activated", "awaiting activation"],
        "frozen": ["locked", "temporarily locked"],
        "lost": ["reported lost"],
        "stolen": ["reported stolen"],
    },
    "payees.status": {"pending_verification": ["awaiting verification", "unverified", "being verified"]},
    "transactions.dispute_state": {
        "without dispute": ["not disputed", "no dispute", "undisputed"],
        "open": ["under dispute", "being disputed", "dispute open"],
        "resolved": ["dispute resolved", "settled"],
    },
    "disputes.status": {
        "open": ["under review", "being reviewed"],
        "resolved_in_favor": ["approved", "won"],
        "resolved_denied": ["rejected", "declined", "resolved against you"],
    },
    "scheduled_payments.status": {
        "pending": ["scheduled", "upcoming"],
        "paid": ["sent", "completed"],
        "cancelled": ["called off"],
        "failed": ["did not go through", "unsuccessful"],
    },
}

DISPLAY: dict[str, dict[str, str]] = {
    "accounts.kind": {
        "checking": "checking account",
        "savings": "savings account",
        "credit": "credit account",
    },
    "cards.kind": {"debit": "debit card", "credit": "credit card"},
    "transactions.kind": {"atm_withdrawal": "ATM withdrawal"},
    "disputes.status": {"resolved_in_favor": "resolved in your favor", "resolved_denied": "denied"},
}

TEXT: list[str] = []
