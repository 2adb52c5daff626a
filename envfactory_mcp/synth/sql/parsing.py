"""sqlglot as the importer uses it: one statement parsed on its own (quietly: the importer
reports what sqlglot reads only as an opaque command), why one cannot be read, and small
helpers on parsed nodes and names (a node's file line, key column lists, names made unique,
clipped text for reasons)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from envfactory_mcp.synth.sql.script import Dialect

_LOG = logging.getLogger("sqlglot")


@contextmanager
def _quiet() -> Iterator[None]:
    """sqlglot logs a warning whenever it falls back to an opaque ``Command``; the importer
    reports those statements itself."""
    level = _LOG.level
    _LOG.setLevel(logging.ERROR)
    try:
        yield
    finally:
        _LOG.setLevel(level)


def parse(sql: str, dialect: Dialect) -> exp.Expression | None:
    """One statement as sqlglot reads it, or None when it cannot (or only as a ``Command``)."""
    with _quiet():
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
        except (SqlglotError, ValueError, RecursionError):
            return None
    if tree is None or isinstance(tree, exp.Command) or not isinstance(tree, exp.Expression):
        return None
    return tree


def parse_error(sql: str, dialect: Dialect) -> str:
    """Why sqlglot cannot read ``sql``: its first error message, on one line."""
    with _quiet():
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
        except (SqlglotError, ValueError, RecursionError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return re.sub(r"\x1b\[[0-9;]*m", "", first)[:160]
    return f"sqlglot reads it only as an opaque command ({type(tree).__name__})"


def bare_name(name: str) -> str:
    """``public."Film"`` -> ``film``: a table name as the lookups key it."""
    return re.split(r"\.(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", name)[-1].strip('"`[]').lower()


def unique_name(name: str, taken: dict[str, Any] | set[str]) -> str:
    if name not in taken:
        return name
    n = 2
    while f"{name}_{n}" in taken:
        n += 1
    return f"{name}_{n}"


def clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def node_line(node: exp.Expression, base: int) -> int:
    """The file line of a node: the statement's line plus the node's line inside it."""
    for candidate in (
        node,
        node.this if isinstance(node.this, exp.Expression) else None,
        *node.find_all(exp.Identifier),
    ):
        if isinstance(candidate, exp.Expression) and candidate.meta.get("line"):
            return base + int(candidate.meta["line"]) - 1
    return base


def key_names(nodes: list[exp.Expression]) -> list[str]:
    """Column names in a key or index list (identifiers, columns, ``col(10)`` prefixes, ``col DESC``)."""
    out = []
    for node in nodes:
        while isinstance(node, exp.Ordered | exp.ColumnPrefix):
            node = node.this
        if isinstance(node, exp.Anonymous) and not node.expressions[1:]:  # MySQL KEY (name(10))
            out.append(str(node.this))
        elif isinstance(node, exp.Identifier | exp.Column):
            out.append(node.name)
        else:
            out.append("")  # an expression: not a plain column
    return out
