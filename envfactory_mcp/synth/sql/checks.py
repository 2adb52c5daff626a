"""CHECK constraints -> enums and bounds on their columns (``IN``, ``= ANY (ARRAY[...])``,
``BETWEEN``, comparisons with constants, ``IS NOT NULL``); the rest listed as not enforced.
Also used for a domain's checks (``VALUE`` standing for the column)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlglot import exp

from envfactory_mcp.synth.sql.columns import converted, literal
from envfactory_mcp.synth.sql.drafts import Schema, TableDraft
from envfactory_mcp.synth.sql.parsing import clip


def apply_checks(schema: Schema, draft: TableDraft) -> None:
    """CHECK constraints -> enums and bounds on their columns; the rest listed as not enforced."""
    for expression, line in draft.checks:
        if not check_constraint(draft, expression):
            schema.skip(
                line,
                f"CHECK ({clip(expression.sql(dialect=schema.dialect), 100)}) on {draft.original} is not enforced",
                "field",
            )


def _strip(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren | exp.Cast):
        node = node.this
    return node


def check_constraint(draft: TableDraft, node: exp.Expression, column: str | None = None) -> bool:
    """Apply one CHECK to ``draft``; False when (part of) it cannot be expressed.

    ``column`` stands for ``VALUE`` in a domain's check."""
    node = _strip(node)
    if isinstance(node, exp.And):
        left = check_constraint(draft, node.this, column)
        right = check_constraint(draft, node.expression, column)
        return left and right
    target = _target(draft, node.this if hasattr(node, "this") else None, column)
    if isinstance(node, exp.Not) and isinstance(_strip(node.this), exp.Is):  # col IS NOT NULL
        inner = _strip(node.this)
        target = _target(draft, inner.this, column)
        if target and isinstance(inner.expression, exp.Null):
            draft.fields[target] = replace(draft.fields[target], nullable=False)
            return True
        return False
    if target is None:
        return False
    f = draft.fields[target]
    if isinstance(node, exp.In) and node.expressions:
        return _enum(draft, target, node.expressions)
    if isinstance(node, exp.EQ) and isinstance(_strip(node.expression), exp.Any):  # = ANY (ARRAY[...])
        array = _strip(_strip(node.expression).this)
        if isinstance(array, exp.Array):
            return _enum(draft, target, array.expressions)
        return False
    if isinstance(node, exp.Between) and f.kind in ("integer", "number"):
        ok_low, low = literal(node.args["low"])
        ok_high, high = literal(node.args["high"])
        if ok_low and ok_high and isinstance(low, int | float) and isinstance(high, int | float):
            _bound(draft, target, "minimum", low)
            _bound(draft, target, "maximum", high)
            return True
        return False
    if isinstance(node, exp.GT | exp.GTE | exp.LT | exp.LTE) and f.kind in ("integer", "number"):
        ok, limit = literal(node.expression)
        if not ok or not isinstance(limit, int | float) or isinstance(limit, bool):
            return False
        strict = isinstance(node, exp.GT | exp.LT)
        if strict and f.kind == "number":
            return False  # exclusive bounds on reals are not expressible here
        if isinstance(node, exp.GT | exp.GTE):
            _bound(draft, target, "minimum", limit + (1 if strict else 0))
        else:
            _bound(draft, target, "maximum", limit - (1 if strict else 0))
        return True
    return False


def _target(draft: TableDraft, node: Any, column: str | None) -> str | None:
    if not isinstance(node, exp.Expression):
        return None
    node = _strip(node)
    if isinstance(node, exp.Column | exp.Identifier):
        if column is not None and node.name.upper() == "VALUE":
            return column
        return draft.column(node.name)
    return None


def _enum(draft: TableDraft, target: str, nodes: list[exp.Expression]) -> bool:
    f = draft.fields[target]
    if f.kind not in ("string", "integer"):
        return False
    allowed = []
    for node in nodes:
        ok, value = literal(node)
        ok, value = converted(value, f.kind) if ok else (False, None)
        if not ok or value is None:
            return False
        allowed.append(value)
    if f.enum is not None:
        allowed = [v for v in allowed if v in f.enum]
    draft.fields[target] = replace(f, enum=tuple(dict.fromkeys(allowed)))
    return True


def _bound(draft: TableDraft, target: str, which: str, value: float) -> None:
    f = draft.fields[target]
    current = getattr(f, which)
    if current is not None:
        value = max(current, value) if which == "minimum" else min(current, value)
    draft.fields[target] = replace(f, minimum=value) if which == "minimum" else replace(f, maximum=value)
