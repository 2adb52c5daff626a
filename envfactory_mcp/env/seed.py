"""Seed rows -> deterministic SQL, and loading them to prove they satisfy the schema."""

from __future__ import annotations

from typing import Any

from envfactory_mcp.env.ddl import needs_deferred_keys, quote_ident, sql_literal, table_order
from envfactory_mcp.errors import SeedError
from envfactory_mcp.spec.models import EnvSpec

SeedRows = dict[str, list[dict[str, Any]]]


def seed_sql(spec: EnvSpec, rows: SeedRows) -> str:
    """One INSERT per row, parents before children, rows sorted by primary key.

    The same rows always give the same bytes, which makes the seed diffable and lets a
    test compare a committed package with a fresh render.
    """
    unknown = sorted(set(rows) - {t.name for t in spec.tables})
    if unknown:
        raise SeedError(f"seed rows for unknown tables: {', '.join(unknown)}")
    lines = [
        f"-- Seed state of the '{spec.name}' environment ({spec.seed.generator}, seed {spec.seed.seed})."
    ]
    if needs_deferred_keys(spec):  # rows point at rows inserted after them: check at COMMIT
        lines.append("PRAGMA defer_foreign_keys = ON;")
    for table in table_order(spec):
        table_rows = rows.get(table.name, [])
        if not table_rows:
            continue
        columns = [c.name for c in table.columns]
        known = set(columns)
        for i, row in enumerate(table_rows):
            extra = set(row) - known
            if extra:
                raise SeedError(f"{table.name} row {i}: unknown columns {sorted(extra)}")
        pk = table.primary_key
        ordered = sorted(table_rows, key=lambda r: tuple(_sortable(r.get(k)) for k in pk))
        head = f"INSERT INTO {quote_ident(table.name)} ({', '.join(quote_ident(c) for c in columns)}) VALUES "
        lines.append(f"-- {table.name}: {len(ordered)} rows")
        for row in ordered:
            try:
                values = ", ".join(sql_literal(row.get(c)) for c in columns)
            except TypeError as exc:
                raise SeedError(f"{table.name} row {row}: {exc}") from None
            lines.append(f"{head}({values});")
    return "\n".join(lines) + "\n"


def _sortable(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int | float) else (1, str(value))
