"""Seed rows -> deterministic SQL, and loading them to prove they satisfy the schema."""

from __future__ import annotations

import re
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


def scale_seed(spec: EnvSpec, rows: SeedRows, factor: int) -> SeedRows:
    """The seed with every row present ``factor`` times: copy 0 is the seed itself, copy
    ``k`` a clone whose keys are fresh and consistent, so the scaled seed satisfies the
    same schema (benchmarks measure how costs grow with the state).

    Key columns get new values: a table's primary-key columns when one of them is
    single or referenced, every ``unique`` column, and every foreign key (mapped exactly
    as the key it references, so copy ``k`` of an order points at copy ``k`` of its user).
    Text keys keep their shape: the last run of digits is renumbered in place (same
    width, so ``GLOB '#W[0-9]...'`` checks still hold), widened only when the width has
    no room; text without digits gets a ``c<k>.`` prefix. Integer keys are offset by
    ``k * (max + 1)``. Other columns are copied as they are.
    """
    if factor < 1:
        raise SeedError(f"scale factor must be >= 1, not {factor}")
    if factor == 1:
        return {name: [dict(r) for r in table_rows] for name, table_rows in rows.items()}
    tables = {t.name: t for t in spec.tables}
    domain_of: dict[tuple[str, str], tuple[str, str]] = {}  # (table, column) -> key domain
    for table in spec.tables:
        for column in table.columns:
            if column.references:
                parent, parent_col = column.references.split(".")
                domain_of[(table.name, column.name)] = (parent, parent_col)
        key_cols = [c for c in table.primary_key if (table.name, c) not in domain_of]
        for name in key_cols:
            domain_of.setdefault((table.name, name), (table.name, name))
        for column in table.columns:
            if column.unique:
                domain_of.setdefault((table.name, column.name), (table.name, column.name))
    # The values every domain already holds (in every table that uses it), so renumbered
    # keys never collide with a seed key or with each other.
    used: dict[tuple[str, str], set[Any]] = {}
    for (table_name, column_name), domain in domain_of.items():
        values = used.setdefault(domain, set())
        values.update(r.get(column_name) for r in rows.get(table_name, []) if r.get(column_name) is not None)
    int_stride = {d: max((v for v in vs if isinstance(v, int)), default=0) + 1 for d, vs in used.items()}
    mapping: dict[tuple[tuple[str, str], int, Any], Any] = {}

    def fresh(domain: tuple[str, str], k: int, value: Any) -> Any:
        if value is None or isinstance(value, bool) or not isinstance(value, int | str):
            return value
        memo = (domain, k, value)
        if memo in mapping:
            return mapping[memo]
        taken = used[domain]
        if isinstance(value, int):
            new: Any = value + k * int_stride[domain]
        else:
            new = _renumbered(value, k, taken)
        taken.add(new)
        mapping[memo] = new
        return new

    scaled: SeedRows = {}
    for name in sorted(rows):
        spec_table = tables.get(name)
        originals = rows[name]
        out = [dict(r) for r in originals]
        if spec_table is not None:
            keys = spec_table.primary_key
            columns = [c.name for c in spec_table.columns if (name, c.name) in domain_of]
            for k in range(1, factor):
                for row in sorted(originals, key=lambda r: tuple(_sortable(r.get(c)) for c in keys)):
                    clone = dict(row)
                    for column_name in columns:
                        clone[column_name] = fresh(domain_of[(name, column_name)], k, row.get(column_name))
                    out.append(clone)
        scaled[name] = out
    return scaled


def _renumbered(value: str, k: int, taken: set[Any]) -> str:
    """A text key like ``value`` that is not taken: its last digit run renumbered."""
    match = None
    for match in _DIGITS.finditer(value):  # noqa: B007 - the last match is the one wanted
        pass
    if match is None:
        candidate = f"c{k}.{value}"
        n = 0
        while candidate in taken:
            n += 1
            candidate = f"c{k}_{n}.{value}"
        return candidate
    head, digits, tail = value[: match.start()], match.group(), value[match.end() :]
    width = len(digits)
    while True:
        space = 10**width
        start = (int(digits) + k * 7919) % space
        for i in range(min(space, 100_000)):  # linear probing from a spread-out start
            candidate = f"{head}{(start + i) % space:0{width}d}{tail}"
            if candidate not in taken:
                return candidate
        width += 1  # crowded: one more digit


_DIGITS = re.compile(r"[0-9]+")
