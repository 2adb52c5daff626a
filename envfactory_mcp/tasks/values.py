"""Values as a person says them: an enum value in the spec's display words, else with its
underscores turned to words; a yes/no as "yes"/"no"; a whole number without ".0".

A user never writes a generator word (``broken_binding``, ``first_timer``): every value a
fact carries, and so every ``Fact.must`` string, is in words before any message is made.
"""

from __future__ import annotations

import re
from typing import Any

from envfactory_mcp.spec import EnvSpec, ToolSpec

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")


def in_words(text: str) -> str:
    """``broken_binding`` -> ``broken binding``; any other text as it is."""
    return text.replace("_", " ") if _SNAKE.match(text) else text


def display_of(spec: EnvSpec | None, column: str, value: str) -> str | None:
    """The display words a column named ``column`` declares for ``value`` (any table)."""
    if spec is None:
        return None
    for table in spec.tables:
        for col in table.columns:
            if col.name == column and col.enum_labels and value in col.enum_labels:
                return col.enum_labels[value].display
    return None


def spoken_value(spec: EnvSpec | None, tool: ToolSpec | None, param: str, value: Any) -> str:
    """``value`` of ``tool``'s parameter ``param`` as the user says it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if not isinstance(value, str):
        return str(value)
    schema = tool.input_schema.get("properties", {}).get(param, {}) if tool is not None else {}
    if isinstance(schema, dict) and value in (schema.get("enum") or ()):
        shown = display_of(spec, param, value)
        if shown:
            return shown
    return in_words(value)
