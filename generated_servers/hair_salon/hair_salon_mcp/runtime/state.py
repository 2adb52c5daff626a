# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Canonical state: dump, hash, diff and restore of a SQLite database.

The canonical state is every table, rows sorted by primary key, serialised as JSON with
sorted keys and no whitespace (``canonical_json``; ``control.state`` answers with it).

Its hash (definition version ``STATE_HASH_VERSION``) does not serialise the whole state,
so that it can be kept up to date from the rows a write touched: each row's canonical
JSON (``row_json``) is digested with SHA-512, a table's digest is the sum of its rows'
digests modulo 2**512 (order-independent, so a changed row is one subtraction and one
addition), and the state hash is the SHA-256 of a versioned header and every table's
name and digest in name order. Two states are equal exactly when their hashes are
equal (up to collisions of SHA-512 sums, which no tool call can search for). A diff
lists inserted, deleted and updated rows per table, keyed by primary key.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
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
    """User tables in name order, with columns in declaration order and primary-key columns
    (not the runtime's change logs, ``_ef_*``: see ``database.py``)."""
    names = [
        r[0]
        for r in db.execute(
            "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name NOT LIKE '\\_ef\\_%' ESCAPE '\\' ORDER BY name"
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


STATE_HASH_VERSION = 2
"""Version of the state hash definition. 1: SHA-256 of ``canonical_json`` of the whole
state. 2: SHA-256 over per-table sums of per-row SHA-512 digests (this module). Hashes
of different versions never compare equal; stored hashes (tasks' initial and gold
states, trajectories) must be recomputed when it changes."""

DIGEST_MODULUS = 1 << 512
_HEADER = f"envfactory-mcp state hash v{STATE_HASH_VERSION}\n"


_ROW_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_json(row: Row) -> str:
    """One row's canonical JSON: its columns with sorted keys, no whitespace (what
    ``json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` gives)."""
    return _ROW_ENCODER.encode(row)


def row_digest(row: Row) -> int:
    """The SHA-512 of a row's canonical JSON, as an integer."""
    return int.from_bytes(hashlib.sha512(_ROW_ENCODER.encode(row).encode("utf-8")).digest(), "big")


# ``values_digest``'s kept digests: rows a session's hash meets again (the seed's rows a
# write replaced, and the rows a task's trials write as its gold replay wrote them).
_VALUE_DIGESTS: dict[Any, int] = {}
VALUE_DIGESTS_KEPT = 4096
_KEPT_JSON_CHARS = 2048  # a longer row is digested every time, never kept


def values_digest(columns: tuple[str, ...], values: tuple[Any, ...]) -> int:
    """``row_digest(dict(zip(columns, values)))``, kept for a row seen before: the key is
    the columns, the values and their types (SQLite gives ``1`` and ``1.0`` apart, which
    Python's equality does not), a float by its exact bits (``-0.0`` is not ``0.0``)."""
    types = tuple(map(type, values))
    if float in types:
        key: tuple[Any, ...] = (
            columns,
            tuple(v.hex() if t is float else v for v, t in zip(values, types, strict=True)),
            types,
        )
    else:
        key = (columns, values, types)
    digest = _VALUE_DIGESTS.get(key)
    if digest is None:
        text = _ROW_ENCODER.encode(dict(zip(columns, values, strict=True)))
        digest = int.from_bytes(hashlib.sha512(text.encode("utf-8")).digest(), "big")
        if len(text) <= _KEPT_JSON_CHARS:
            if len(_VALUE_DIGESTS) >= VALUE_DIGESTS_KEPT:
                _VALUE_DIGESTS.clear()
            _VALUE_DIGESTS[key] = digest
    return digest


def table_digest(rows: Iterable[Row]) -> int:
    """A table's digest: the sum of its rows' digests modulo 2**512 (so any row order)."""
    return sum(map(row_digest, rows)) % DIGEST_MODULUS


def hash_digests(digests: dict[str, int]) -> str:
    """The state hash from every table's digest (``hash_state`` = this over its tables)."""
    text = _HEADER + "".join(
        f"{_name_json(name)}:{digests[name] % DIGEST_MODULUS:0128x}\n" for name in sorted(digests)
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=1024, typed=True)
def _name_json(name: Any) -> str:
    """``json.dumps(name, ensure_ascii=False)``, kept: a session's hash writes the same few
    table names every time."""
    return json.dumps(name, ensure_ascii=False)


def hash_state(state: State) -> str:
    return hash_digests({name: table_digest(rows) for name, rows in state.items()})


def state_hash(db: sqlite3.Connection) -> str:
    """The state hash of the database, from a full scan."""
    return hash_digests(table_digests(db))


def table_digests(db: sqlite3.Connection) -> dict[str, int]:
    """Every table's digest, from a full scan."""
    return {info.name: table_digest(iter_rows(db, info)) for info in table_infos(db)}


def iter_rows(db: sqlite3.Connection, info: TableInfo, where: str = "") -> Iterator[Row]:
    """A table's rows as dicts (unordered), optionally filtered by a WHERE clause."""
    columns = info.columns
    cursor = db.execute(
        f'SELECT {", ".join(chr(34) + c + chr(34) for c in columns)} FROM main."{info.name}" {where}'
    )
    return (dict(zip(columns, row, strict=True)) for row in cursor)


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
