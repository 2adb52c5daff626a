"""How people say the telecom environment's values, and its free text (scoring reads
answers and state by meaning).

Every text enum column is labelled (``kit.worded``): its values in words, and here the other
words an agent would use for one value and no other of its column. A ticket's description
is the problem in the customer's words as the agent writes it up, and its title is made
from it (``create_ticket``): both are compared by the facts they carry."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit

WORDS: dict[str, dict[str, list[str]]] = {
    "lines.status": {"active": ["live", "in service"], "suspended": ["paused", "on hold"]},
    "devices.status": {"replaced": ["swapped out", "upgraded"]},
    "bills.status": {
        "issued": ["billed"],
        "overdue": ["past due", "late"],
        "paid": ["paid in full", "settled"],
    },
    "outages.status": {"active": ["ongoing"], "resolved": ["fixed", "restored"]},
    "tickets.status": {
        "in_progress": ["being worked on", "underway"],
        "resolved": ["fixed", "solved"],
    },
    "tickets.category": {"no service": ["no signal"]},
    "bill_items.kind": {"device_installment": ["phone installment"], "device_payoff": ["phone payoff"]},
}

DISPLAY: dict[str, dict[str, str]] = {
    "payment_methods.brand": kit.CARD_BRAND_NAMES,
    "bill_items.kind": {
        "plan": "plan charge",
        "data_topup": "data top-up",
        "taxes_fees": "taxes and fees",
    },
    "outages.service": {"voice_and_data": "voice and data"},
}

TEXT = ["tickets.title", "tickets.description"]
