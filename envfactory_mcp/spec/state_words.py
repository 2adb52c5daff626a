"""Other words people use for common states: one list, read where a spec's enum values get
their words (the library's state columns, ``library/kit.py``) and by scoring for a column
that declares none (``scoring/meaning.py``).

A word goes to a value only where no other value of the same column is said the same way
(a column with both ``paused`` and ``on_hold`` keeps each to its own name). Spelling
variants and inflections need none: scoring matches those.
"""

from __future__ import annotations

from typing import Final

STATE_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "active": ("live", "in service", "in effect", "up and running", "reactivated", "resumed", "restored"),
    "inactive": ("not active",),
    "pending": ("not yet processed", "not processed yet", "awaiting processing", "waiting to be processed"),
    "open": ("opened", "still open", "reopened"),
    "cancelled": ("called off", "voided"),
    "in_progress": ("underway", "under way", "being worked on", "being handled", "being looked at"),
    "under_review": ("being reviewed",),
    "in_review": ("being reviewed",),
    "on_hold": ("paused",),
    "paused": ("on hold",),
    "suspended": ("on hold", "paused"),
    "past_due": ("overdue",),
    "overdue": ("past due", "late", "behind on payment"),
    "unpaid": ("outstanding",),
    "outstanding": ("unpaid",),
    "paid": ("settled", "paid off", "paid in full", "fully paid"),
    "refunded": ("money back",),
    "shipped": ("dispatched", "sent out"),
    "dispatched": ("shipped", "sent out"),
    "delivered": ("arrived", "been received", "was received", "dropped off"),
    "completed": ("finished", "complete", "all done", "taken place"),
    "scheduled": ("planned", "on schedule", "on time"),
    "landed": ("on the ground", "touched down"),
    "issued": ("been sent", "sent out", "sent to you"),
    "frozen": ("on hold", "locked", "blocked", "temporarily blocked"),
    "discontinued": ("stopped",),
    "closed": ("no longer open", "shut", "wrapped up"),
    "resolved": ("fixed", "sorted out"),
    "confirmed": ("booked",),
    "approved": ("granted", "accepted"),
    "granted": ("approved",),
    "rejected": ("denied", "declined", "turned down"),
    "denied": ("rejected", "declined", "turned down"),
    "declined": ("rejected", "denied", "turned down"),
    "refused": ("rejected", "denied"),
    "expired": ("lapsed", "no longer valid"),
    "lapsed": ("expired",),
    "no_show": ("did not show up", "didn't show up"),
    "waitlisted": ("on the waiting list", "on the waitlist"),
}
