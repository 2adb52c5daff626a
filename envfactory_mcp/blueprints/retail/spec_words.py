"""How people say the retail environment's values (scoring reads answers by meaning).

Every text enum column is labelled (``kit.worded``): its values in words, and here the other
words an agent would use for one value and no other of its column. The policy never says a
``processed`` order has shipped, so it gets only words for being made ready to ship. No column holds free text an
agent words itself: addresses, names and cancellation reasons are the user's own."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit

WORDS: dict[str, dict[str, list[str]]] = {
    "orders.status": {
        "pending": ["not yet processed", "not processed yet", "awaiting processing"],
        # Processed: made ready to leave the warehouse (not yet said to have shipped).
        "processed": ["ready to ship", "ready for shipment", "being prepared for shipment", "packed"],
        "delivered": ["arrived"],
        "cancelled": ["called off", "voided"],
        "return_requested": ["return in progress", "return started", "being returned"],
        "exchange_requested": ["exchange in progress", "exchange started", "being exchanged"],
    },
    "order_items.state": {
        "return_requested": ["return in progress", "return started", "being returned"],
        "exchange_requested": ["exchange in progress", "exchange started", "being exchanged"],
    },
    "payments.kind": {"payment": ["charge"], "refund": ["money back"]},
}

DISPLAY: dict[str, dict[str, str]] = {
    "payment_methods.kind": {"paypal": "PayPal"},
    "payment_methods.brand": kit.CARD_BRAND_NAMES,
}

TEXT: list[str] = []
