# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Canonical state: dump, hash, diff and restore of a SQLite database.

The canonical state is every table, rows sorted by primary key, serialised as JSON with
sorted keys and no whitespace; its hash is the sha256 of that text. Two states are equal
exactly when their hashes are equal. A diff lists inserted, deleted and updated rows per
table, keyed by primary key.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from typing import Any

Row = dict[str, Any]
State = dict[str, list[Row]]


@dataclass(frozen=True, slots=True)
class TableInfo:
    name: str
    columns: tuple[str, ...]
    primary_key: tuple[str, ...]


def table_infos(db: sqlite3.Connection) -> list[TableInfo]:
    """User tables in name order, with columns in declaration order and primary-key columns."""
    names = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    infos = []
    for name in names:
        cols = db.execute(f'PRAGMA table_info("{name}")').fetchall()
        columns = tuple(c[1] for c in cols)
        pk = tuple(c[1] for c in sorted((c for c in cols if c[5] > 0), key=lambda c: c[5]))
        infos.append(TableInfo(name, columns, pk or ("rowid",)))
    return infos


def dump_state(db: sqlite3.Connection) -> State:
    """Every table's rows, sorted by primary key."""
    return {info.name: dump_table(db, info) for info in table_infos(db)}


def dump_table(db: sqlite3.Connection, info: TableInfo) -> list[Row]:
    order = ", ".join(f'"{c}"' for c in info.primary_key)
    cursor = db.execute(
        f'SELECT {", ".join(chr(34) + c + chr(34) for c in info.columns)} FROM "{info.name}" ORDER BY {order}'
    )
    return [dict(zip(info.columns, row, strict=True)) for row in cursor]


def canonical_json(state: State) -> str:
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def table_fragment(rows: list[Row]) -> str:
    """One table's part of the canonical JSON: ``canonical_json`` of a state is
    ``{"<table>":<fragment>,...}`` over the tables in name order."""
    return json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def hash_fragments(fragments: dict[str, str]) -> str:
    """``hash_state`` assembled from per-table fragments (equal, byte for byte)."""
    text = (
        "{"
        + ",".join(f"{json.dumps(name, ensure_ascii=False)}:{fragments[name]}" for name in sorted(fragments))
        + "}"
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def hash_state(state: State) -> str:
    return hashlib.sha256(canonical_json(state).encode("utf-8")).hexdigest()


def state_hash(db: sqlite3.Connection) -> str:
    """sha256 of the canonical JSON of the database."""
    return hash_state(dump_state(db))


def diff_states(before: State, after: State, primary_keys: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """Per-table inserted / deleted / updated rows; tables without changes are left out.

    An updated row is ``{"key": {...pk...}, "before": {changed cols}, "after": {changed cols}}``.
    """
    diff: dict[str, Any] = {}
    for table in sorted(set(before) | set(after)):
        if before.get(table) == after.get(table):  # the common case, and cheap to rule out
            continue
        pk = primary_keys.get(table) or ()
        old = {_key(r, pk): r for r in before.get(table, [])}
        new = {_key(r, pk): r for r in after.get(table, [])}
        inserted = [new[k] for k in sorted(new.keys() - old.keys(), key=_sort_key)]
        deleted = [old[k] for k in sorted(old.keys() - new.keys(), key=_sort_key)]
        updated = []
        for k in sorted(old.keys() & new.keys(), key=_sort_key):
            a, b = old[k], new[k]
            if a != b:
                changed = sorted(c for c in set(a) | set(b) if a.get(c) != b.get(c))
                updated.append(
                    {
                        "key": dict(zip(pk, k, strict=True)) if pk else {"row": list(k)},
                        "before": {c: a.get(c) for c in changed},
                        "after": {c: b.get(c) for c in changed},
                    }
                )
        if inserted or deleted or updated:
            diff[table] = {"inserted": inserted, "deleted": deleted, "updated": updated}
    return diff


def primary_keys_of(db: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    return {info.name: info.primary_key for info in table_infos(db)}


def restore_state(db: sqlite3.Connection, state: State) -> None:
    """Replace every row of every table with ``state`` in one transaction.

    Foreign keys are checked once at commit, so tables can be filled in any order. Raises
    ``ValueError`` naming the table when the state does not fit the schema; the database
    is then unchanged.
    """
    infos = {info.name: info for info in table_infos(db)}
    unknown = sorted(set(state) - set(infos))
    if unknown:
        raise ValueError(f"unknown tables in state: {', '.join(unknown)}")
    db.execute("BEGIN")
    try:
        db.execute("PRAGMA defer_foreign_keys = ON")
        for name in infos:
            db.execute(f'DELETE FROM "{name}"')
        for name, rows in state.items():
            columns = infos[name].columns
            for row in rows:
                extra = set(row) - set(columns)
                if extra:
                    raise ValueError(f"table {name}: unknown columns {sorted(extra)}")
                cols = [c for c in columns if c in row]
                db.execute(
                    f'INSERT INTO "{name}" ({", ".join(chr(34) + c + chr(34) for c in cols)}) '
                    f"VALUES ({', '.join('?' for _ in cols)})",
                    [row[c] for c in cols],
                )
        db.execute("COMMIT")
    except BaseException as exc:
        db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise ValueError(f"state does not fit the schema: {exc}") from None
        raise


def _key(row: Row, pk: tuple[str, ...]) -> tuple[Any, ...]:
    if not pk:
        return tuple(sorted(row.items()))
    return tuple(row.get(c) for c in pk)


def _sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    # Mixed None / int / str keys must still sort deterministically.
    return tuple((v is None, type(v).__name__, v if v is not None else 0) for v in key)
