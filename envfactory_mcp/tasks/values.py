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


_SNAKE_IN_TEXT = re.compile(r"(?<![\w@.])(an?\s+)?([a-z][a-z]*(?:_[a-z]+)+)(?![\w@])")


def words_in(text: str, spec: EnvSpec | None = None) -> str:
    """Every generator word in a sentence of a spec (a policy's refusal reason: "a
    out_on_slopes or cancelled ski rental cannot be released") said in words, its article
    agreeing: "an out on slopes or cancelled ski rental ..."; display words where a column
    declares them."""

    def said(match: re.Match[str]) -> str:
        article, word = match.group(1) or "", match.group(2)
        columns = [c.name for t in spec.tables for c in t.columns] if spec is not None else []
        shown = next((d for c in columns if (d := display_of(spec, c, word))), None) or in_words(word)
        if article:
            article = ("an " if shown[:1] in "aeiou" else "a ") if article.strip() in ("a", "an") else article
        return article + shown

    return _SNAKE_IN_TEXT.sub(said, text)
