"""What kind of value a field or parameter holds: the one shape function of ``eval/``.

``value_kind`` says, from a name and its JSON schema, whether a value is a ``date``, a
``time``, ``money``, an ``address``, a ``city``, a count (``count:<unit>``) or a measure
(``measure:<unit>``), or nothing that could flow between servers (an id, who the user is,
a status, free text, a choice from a list). Value-flow chains pair a read value with a
parameter of the same kind (``eval.valueflow``), and the flow's sentence names which of a
tool's values it fills only when the tool takes another value of that kind
(``eval.compose``).
"""

from __future__ import annotations

from typing import Any

MONEY_WORDS = (
    "amount",
    "price",
    "total",
    "balance",
    "fee",
    "cost",
    "fare",
    "charge",
    "budget",
    "deposit",
    "limit",
)
ADDRESS_WORDS = ("address", "street", "location", "destination", "place")
NOT_VALUES = (
    "status",
    "type",
    "kind",
    "category",
    "label",
    "note",
    "notes",
    "reason",
    "description",
    "summary",
)
# A property of one thing, not an amount of something another thing needs.
_PROPERTIES = ("age", "year", "rating", "score", "percent", "rate", "level", "priority")
_IDENTITY_KEYS = (
    "email",
    "first_name",
    "last_name",
    "zip",
    "phone",
    "date_of_birth",
    "dob",
    "username",
    "name",
)


def identity_key(key: str) -> bool:
    """Whether a typed value says who the user is (an email, a name, a zip code)."""
    return key in _IDENTITY_KEYS or key.endswith(("_email", "_phone"))


def words_of(name: str) -> list[str]:
    """A field's words: the last part of a dotted path, split at underscores, lower case."""
    return [w for w in name.rsplit(".", 1)[-1].lower().split("_") if w]


def unit_of(word: str) -> str:
    """A count's unit in the singular ("guests" -> "guest")."""
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def value_kind(name: str, schema: Any) -> str | None:
    """The kind of value ``name`` (a field, a parameter or an output path) holds, from its
    name and JSON schema, or None when it is no value that could flow."""
    if not isinstance(schema, dict):
        return None
    words = words_of(name)
    if not words or words[-1] in ("id", "ids") or identity_key(name.rsplit(".", 1)[-1]):
        return None
    if schema.get("enum") or any(w in NOT_VALUES for w in words):
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    fmt = schema.get("format")
    if kind == "string":
        if fmt == "date" or words[-1] in ("date", "day", "on"):
            return "date"
        if fmt == "time" or words[-1] == "time":
            return "time"
        if any(w in ADDRESS_WORDS for w in words):
            return "address"
        if words[-1] == "city":
            return "city"
        return None
    if kind in ("integer", "number"):
        # "late_cancellation_fee", "amount_due", a price as a number: money; "total_bags" is a count.
        if words[-1] in MONEY_WORDS or (kind == "number" and any(w in MONEY_WORDS for w in words)):
            return "money"
        unit = unit_of(words[-1])
        if unit in _PROPERTIES:
            return None
        return f"{'count' if kind == 'integer' else 'measure'}:{unit}"
    return None
