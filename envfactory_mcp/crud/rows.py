"""Seed rows made to fit the environment: the shared generator's rows (``seed_rows``) given
one row per singleton, none in a log table, JSON of their kind in JSON columns, a total
budget, consistent foreign keys, and the values the tools accept for free columns."""

from __future__ import annotations

import json
from typing import Any

from envfactory_mcp.crud.model import Field, Resource, Rows, snake
from envfactory_mcp.spec import ToolSpec


def agree_with_inputs(tools: list[ToolSpec], resources: list[Resource], rows: Rows) -> Rows:
    """Seed values of a free column made to agree with the values a tool accepts for an
    argument of the same name, where that tool's arguments are mostly that table's columns
    (a volume's ``type`` among the ``type`` values of its action's request). Generated text
    like 'Amber type' says less than the document's own values, and a call built from a
    row of the table (as the verifier's probes build them) then fits the tool."""
    columns = {r.name: {f.name: f for f in r.fields} for r in resources}
    wanted: dict[tuple[str, str], list[Any]] = {}
    for tool in tools:
        props = tool.input_schema.get("properties", {})
        # by column name: an argument may carry its document's name (``userStatus``)
        named = {snake(n): n for n in props if tool.params.get(n) is None or tool.params[n].entity is None}
        plain = set(named)
        scores = {name: len(plain & cols.keys()) for name, cols in columns.items()}
        best = max(scores.values(), default=0)
        if best < 2:
            continue
        for table in (name for name, score in scores.items() if score == best):
            keys = set(next(r.keys for r in resources if r.name == table))
            for name in plain & columns[table].keys():
                enum, f = props[named[name]].get("enum"), columns[table][name]
                kind = {"string": str, "integer": int}.get(f.kind)
                if not enum or f.enum is not None or f.unique or f.references or name in keys or kind is None:
                    continue
                values = wanted.setdefault((table, name), [])
                values += [
                    v for v in enum if isinstance(v, kind) and not isinstance(v, bool) and v not in values
                ]
    for (table, name), values in wanted.items():
        for i, row in enumerate(rows.get(table, [])):
            if values and row.get(name) is not None and row[name] not in values:
                row[name] = values[i % len(values)]
    return rows


SEED_ROWS = 800  # rows of all tables together, beyond which each top-level table keeps fewer (at least 4)


def fit_rows(resources: list[Resource], rows: Rows, budget: int | None = None) -> Rows:
    """Generated rows made to fit what the shared generator does not know: one row per
    singleton key, no rows in a log table, JSON columns holding JSON of their kind, and
    no more than about ``budget`` rows in all: an API of hundreds of tables gets a few rows
    per table (verifying it probes every tool, and each probe costs time per row)."""
    fitted: Rows = {}
    by_name = {r.name: r for r in resources}
    budget = SEED_ROWS if budget is None else budget
    total = sum(len(rows.get(r.name, [])) for r in resources)
    cap = max(4, budget // max(1, len(resources))) if total > budget else None
    for r in resources:
        table = [dict(row) for row in rows.get(r.name, [])]
        if r.parent is None:  # nested rows follow their parents (1-3 each), so they shrink too
            table = table[:cap]
        if r.log:
            table = []
        elif r.singleton and r.keys == ("id",):
            table = [{**table[0], "id": 1}] if table else []
        unique: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in table:
            for f in r.fields:
                if f.kind in ("object", "json") or (f.kind == "array" and f.item_kind in ("object", "json")):
                    row[f.name] = _json_value(f, row.get(f.name))
                target = by_name.get(f.references or "")
                if target is not None and target.singleton and target.keys == ("id",):
                    row[f.name] = 1  # everything points at the one row
            unique.setdefault(tuple(row.get(k) for k in r.keys), row)
        fitted[r.name] = list(unique.values())
    return _consistent(resources, fitted)


def _consistent(resources: list[Resource], rows: Rows) -> Rows:
    """Rows whose foreign keys point at rows that are gone (a trimmed singleton, a dropped
    duplicate) lose the reference, or point at another row when the column cannot be empty
    (the row goes only when no row is left to point at)."""
    by_name = {r.name: r for r in resources}
    changed = True
    while changed:
        changed = False
        present = {r.name: {row.get(r.keys[0]) for row in rows.get(r.name, [])} for r in resources}
        for r in resources:
            kept = []
            for row in rows.get(r.name, []):
                ok = True
                for f in r.fields:
                    target = by_name.get(f.references or "")
                    value = row.get(f.name)
                    if target is None or value is None or value in present[target.name]:
                        continue
                    others = rows.get(target.name, [])
                    if f.nullable:
                        row[f.name] = None
                    elif others and f.name not in r.keys:
                        row[f.name] = others[-1].get(target.keys[0])
                    else:
                        ok, changed = False, True
                kept.append(row) if ok else None
            rows[r.name] = kept
    return rows


def _json_value(f: Field, value: Any) -> Any:
    """A stored JSON value of the column's kind. Nullable ones are left empty: the verifier's
    probes copy seed values as stored (JSON text), which no object or array argument accepts."""
    if f.nullable:
        return None
    try:
        decoded = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        decoded = value
    if f.kind == "object":
        return json.dumps(decoded if isinstance(decoded, dict) else {}, sort_keys=True)
    if f.kind == "json":
        return json.dumps(decoded, sort_keys=True)
    items = decoded if isinstance(decoded, list) else []
    made = [v if isinstance(v, dict) else {} for v in items] if f.item_kind == "object" else items
    return json.dumps(made, sort_keys=True)
