"""A script's own data (``INSERT``, ``REPLACE``, ``COPY ... FROM stdin``) -> seed rows.

Values are converted to what the environment stores (booleans from ``'t'``/``b'1'``,
binary as base64, Postgres arrays and MySQL SETs as JSON lists). A row with a value that
does not fit its column (or whose key repeats) is left out; at most ``max_rows`` rows
of a table are kept; rows whose foreign keys point at rows that were left out are left
out too (nullable references are cleared instead), until what remains is consistent.
"""

from __future__ import annotations

import base64
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlglot import exp

from envfactory_mcp.crud.model import Field, Ignored, Resource, Rows
from envfactory_mcp.synth.sql.schema import Schema, TableDraft, converted, literal, parse
from envfactory_mcp.synth.sql.script import Statement


@dataclass
class TableData:
    """What the script's data holds for one table, and what was left out."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    statements: int = 0
    first_line: int = 0
    rows_seen: int = 0
    unfit: int = 0  # rows with a value that does not fit its column
    duplicates: int = 0
    example: str = ""  # one unfit value, for the note


def data_tables(schema: Schema) -> dict[str, list[Statement]]:
    """The data statements of each table (by the importer's table name), read cheaply from their heads."""
    out: dict[str, list[Statement]] = defaultdict(list)
    head = re.compile(
        r"^\s*(?:INSERT|REPLACE|COPY)\s+(?:(?:IGNORE|LOW_PRIORITY|DELAYED|HIGH_PRIORITY|OR\s+\w+)\s+)*(?:INTO\s+)?"
        r"((?:[`\"\[]?[\w$]+[`\"\]]?\s*\.\s*)?[`\"\[]?[^\s(`\"\]]+[`\"\]]?)",
        re.IGNORECASE,
    )
    for st in schema.data:
        match = head.match(st.text)
        if match is None:
            continue
        written = re.split(r"\s*\.\s*", match.group(1))[-1].strip('`"[]')
        name = schema.by_original.get(written.lower())
        if name is not None:
            out[name].append(st)
    return out


def read_data(
    schema: Schema, resources: list[Resource], statements: dict[str, list[Statement]], max_rows: int
) -> tuple[Rows, list[Ignored]]:
    """Seed rows from the data statements of the imported tables: at most ``max_rows`` rows
    a table, chosen parents first so that the rows kept point at rows that are kept."""
    notes: list[Ignored] = []
    by_name = {r.name: r for r in resources}
    found: dict[str, TableData] = {}
    for name, sts in statements.items():
        resource = by_name.get(name)
        if resource is None:
            continue
        draft = schema.tables[name]
        data = found[name] = TableData(statements=len(sts), first_line=sts[0].line)
        seen: set[tuple[Any, ...]] = set()
        for st in sts:
            for written_row in _rows(schema, draft, st, notes):
                data.rows_seen += 1
                row = _convert(resource, draft, written_row, data)
                if row is None:
                    continue
                key = tuple(row[k] for k in resource.keys)
                if key in seen and None not in key:
                    data.duplicates += 1
                    continue
                seen.add(key)
                if len(data.rows) < max_rows * _READ_FACTOR:
                    data.rows.append(row)
    for name, data in found.items():
        first = by_name[name].keys[0]
        numbers = [row[first] for row in data.rows if isinstance(row[first], int)]
        following = max(numbers, default=0) + 1
        for row in data.rows:
            if row[first] is None:
                row[first], following = following, following + 1
    rows, left_out = _subset(resources, {n: d.rows for n, d in found.items() if d.rows}, max_rows)
    for name, data in sorted(found.items()):
        where = f"line {data.first_line}"
        left = []
        if data.unfit:
            left.append(f"{data.unfit} rows have a value that does not fit its column ({data.example})")
        if data.duplicates:
            left.append(f"{data.duplicates} rows repeat a key")
        if left_out.get(name):
            left.append(left_out[name])
        if left:
            notes.append(
                Ignored(where, "statement", f"data of {name} ({data.rows_seen} rows): {'; '.join(left)}")
            )
    return rows, notes


_READ_FACTOR = 20  # rows read per table, in multiples of the rows kept


def _rows(schema: Schema, draft: TableDraft, st: Statement, notes: list[Ignored]) -> list[dict[str, Any]]:
    """The rows of one statement, as {column as written (lower): constant}."""
    if st.data or re.match(r"^\s*COPY\b", st.text, re.IGNORECASE):
        return _copy_rows(draft, st, notes)
    tree = parse(st.text, schema.dialect)
    if not isinstance(tree, exp.Insert) or not isinstance(tree.expression, exp.Values):
        notes.append(
            Ignored(f"line {st.line}", "statement", f"data of {draft.name}: only INSERT ... VALUES is read")
        )
        return []
    target = tree.this
    if isinstance(target, exp.Schema):
        columns = [c.name.lower() for c in target.expressions]
    else:
        columns = list(draft.written)
    out = []
    for values in tree.expression.expressions:
        items = values.expressions if isinstance(values, exp.Tuple) else [values]
        if len(items) != len(columns):
            continue
        out.append({c: _constant(v) for c, v in zip(columns, items, strict=True)})
    return out


_UNKNOWN = object()


def _constant(node: exp.Expression) -> Any:
    """A value as written: a Python constant, bytes for hex/binary literals, a list for
    ARRAY[...], or ``_UNKNOWN`` for an expression that would need evaluating."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.HexString):
        try:
            return bytes.fromhex(str(node.this))
        except ValueError:
            return _UNKNOWN
    if isinstance(node, exp.BitString):
        return str(int(str(node.this), 2)) if node.this else "0"
    if isinstance(node, exp.Introducer):  # MySQL _binary '...', _utf8mb4 '...'
        inner = _constant(node.expression)
        return (
            inner.encode("latin-1", "replace")
            if "binary" in str(node.this).lower() and isinstance(inner, str)
            else inner
        )
    if isinstance(node, exp.National):  # N'...'
        return str(node.this)
    if isinstance(node, exp.Array):
        items = [_constant(e) for e in node.expressions]
        return _UNKNOWN if any(i is _UNKNOWN for i in items) else items
    if isinstance(node, exp.Cast):
        return _constant(node.this)
    if isinstance(node, exp.DPipe):  # 'a' || chr(10) || 'b'
        parts = [_constant(node.this), _constant(node.expression)]
        return "".join(parts) if all(isinstance(p, str) for p in parts) else _UNKNOWN
    if isinstance(node, exp.Chr) and len(node.expressions) == 1:
        code = _constant(node.expressions[0])
        return chr(code) if isinstance(code, int) and 0 <= code < 0x110000 else _UNKNOWN
    if isinstance(node, exp.StrToDate | exp.StrToTime):  # Oracle TO_DATE('17-06-2003', 'dd-MM-yyyy')
        return _to_date(_constant(node.this), node.args.get("format"))
    ok, value = literal(node)
    return value if ok else _UNKNOWN


_DATE_PARTS = (
    ("yyyy", "%Y"),
    ("hh24", "%H"),
    ("hh", "%I"),
    ("mi", "%M"),
    ("ss", "%S"),
    ("mon", "%b"),
    ("mm", "%m"),
    ("dd", "%d"),
    ("yy", "%y"),
)


def _to_date(value: Any, fmt: Any) -> Any:
    """A date written with a format (``TO_DATE``) as ISO text, or ``_UNKNOWN``."""
    written = fmt.this if isinstance(fmt, exp.Literal) else None
    if not isinstance(value, str) or not isinstance(written, str):
        return _UNKNOWN
    pattern = re.sub(r'"([^"]*)"', r"\1", re.sub(r"(?<!%)FF\d?", "%f", written, flags=re.IGNORECASE))
    for word, code in _DATE_PARTS:  # what sqlglot left in Oracle's words
        pattern = re.sub(rf"(?<!%){word}", code, pattern, flags=re.IGNORECASE)
    text = re.sub(r"(\.\d{6})\d+", r"\1", value.strip())  # Python reads microseconds at most
    try:
        moment = datetime.strptime(text, pattern)
    except ValueError:
        return _UNKNOWN
    if re.search("%[HIMS]", pattern):
        return moment.strftime("%Y-%m-%d %H:%M:%S")
    return moment.date().isoformat()


_COPY_HEAD = re.compile(r"^\s*COPY\s+[^()]+?(?:\(([^)]*)\))?\s+FROM\s+stdin", re.IGNORECASE | re.DOTALL)
_COPY_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\", "b": "\b", "f": "\f", "v": "\v"}


def _copy_rows(draft: TableDraft, st: Statement, notes: list[Ignored]) -> list[dict[str, Any]]:
    match = _COPY_HEAD.match(st.text)
    if match is None:
        notes.append(
            Ignored(f"line {st.line}", "statement", f"data of {draft.name}: only COPY ... FROM stdin is read")
        )
        return []
    columns = (
        [c.strip().strip('"').lower() for c in match.group(1).split(",")]
        if match.group(1)
        else list(draft.written)
    )
    out = []
    for line in st.data:
        cells = line.split("\t")
        if len(cells) != len(columns):
            continue
        out.append(
            {
                c: None
                if v == "\\N"
                else re.sub(r"\\(.)", lambda m: _COPY_ESCAPES.get(m.group(1), m.group(1)), v)
                for c, v in zip(columns, cells, strict=True)
            }
        )
    return out


def _convert(
    resource: Resource, draft: TableDraft, written: dict[str, Any], data: TableData
) -> dict[str, Any] | None:
    row: dict[str, Any] = {}
    by_column = {draft.originals[w]: v for w, v in written.items() if w in draft.originals}
    for f in resource.fields:
        value = by_column.get(f.name, _MISSING)
        if value is _MISSING:  # left out of the INSERT: its default, or NULL
            value = f.default if f.default is not None else None
            if value is None and not f.nullable:
                value = _auto_value(f)
        ok, stored = _stored(f, draft, value)
        numbered = resource.keys == (f.name,) and f.kind == "integer" and value is None
        if numbered:  # an auto-numbered key left out: numbered after reading
            row[f.name] = None
            continue
        if not ok or (stored is None and not f.nullable):
            data.unfit += 1
            if not data.example:
                shown = "an expression it does not evaluate" if value is _UNKNOWN else repr(str(value)[:40])
                data.example = f"{f.name} = {shown}"
            return None
        row[f.name] = stored
    return row


_MISSING = object()


def _auto_value(f: Field) -> Any:
    """A value for a NOT NULL column an INSERT leaves out that the database fills itself."""
    if f.auto == "now":
        return "2026-01-01T00:00:00Z"
    if f.auto == "today":
        return "2026-01-01"
    return None


def _stored(f: Field, draft: TableDraft, value: Any) -> tuple[bool, Any]:
    """The value as the environment stores it (base64 for binary, JSON text for lists)."""
    if value is _UNKNOWN:
        return False, None
    if value is None:
        return True, None
    ctype = draft.types.get(f.name)
    if ctype is not None and ctype.binary:
        raw = value if isinstance(value, bytes) else _pg_bytes(str(value))
        return True, base64.b64encode(raw).decode()
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if f.kind in ("json", "object"):
        try:
            loaded = json.loads(value) if isinstance(value, str) else value
        except ValueError:
            return False, None
        if f.kind == "object" and not isinstance(loaded, dict):
            return False, None
        return True, json.dumps(loaded, sort_keys=True)
    if f.kind == "array":
        items = value if isinstance(value, list) else _array_items(str(value))
        if items is None:
            return False, None
        converted_items = []
        for item in items:
            ok, item_value = converted(item, f.item_kind)
            if not ok:
                return False, None
            converted_items.append(item_value)
        return True, json.dumps(converted_items, sort_keys=True)
    ok, stored = converted(value, f.kind, f.enum)
    if ok and f.kind == "boolean":
        stored = int(stored)
    return ok, stored


def _pg_bytes(text: str) -> bytes:
    r"""A ``bytea`` value as written: ``\x4142`` (hex) or plain text."""
    if text.startswith("\\x"):
        try:
            return bytes.fromhex(text[2:])
        except ValueError:
            pass
    return text.encode("utf-8")


def _array_items(text: str) -> list[Any] | None:
    """``{a,"b c",NULL}`` (Postgres) or ``a,b`` (a MySQL SET) -> the items."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        inner = text[1:-1]
        if not inner:
            return []
        items: list[Any] = []
        for match in re.finditer(r'"((?:[^"\\]|\\.)*)"|([^,]+)', inner):
            if match.group(1) is not None:
                items.append(re.sub(r"\\(.)", r"\1", match.group(1)))
            else:
                raw = match.group(2).strip()
                items.append(None if raw.upper() == "NULL" else raw)
        return None if any(i is None for i in items) else items
    if text.startswith("["):
        try:
            loaded = json.loads(text)
        except ValueError:
            return None
        return loaded if isinstance(loaded, list) else None
    return [item for item in text.split(",") if item] if text else []


def _subset(resources: list[Resource], found: Rows, max_rows: int) -> tuple[Rows, dict[str, str]]:
    """At most ``max_rows`` rows a table whose references hold: tables are taken parents
    first, and a row pointing at a row not kept is skipped (a nullable reference is
    cleared instead). References that close a cycle, or point into their own table, are
    checked once every table is chosen, until nothing changes."""
    by_name = {r.name: r for r in resources}
    order = [r for r in _parents_first(resources) if r.name in found]
    kept: Rows = {}
    keys: dict[str, set[Any]] = {}
    skipped: dict[str, int] = defaultdict(int)
    cleared: dict[str, int] = defaultdict(int)
    capped: dict[str, int] = {}
    for resource in order:
        table: list[dict[str, Any]] = []
        links = [f for f in resource.fields if f.references and f.references in keys]
        for row in found[resource.name]:
            if len(table) >= max_rows:
                capped[resource.name] = len(found[resource.name])
                break
            if not _holds(row, links, keys, resource.name, skipped, cleared):
                continue
            table.append(row)
        kept[resource.name] = table
        if len(resource.keys) == 1:
            keys[resource.name] = {row[resource.keys[0]] for row in table}
    changed = True
    while changed:  # references checked late: cycles, self-references, tables with no data
        changed = False
        keys = {
            n: {row[by_name[n].keys[0]] for row in t} for n, t in kept.items() if len(by_name[n].keys) == 1
        }
        for name, table in kept.items():
            links = [f for f in by_name[name].fields if f.references]
            before = len(table)
            table[:] = [row for row in table if _holds(row, links, keys, name, skipped, cleared)]
            changed = changed or len(table) != before
    out = {}
    for name in set(skipped) | set(cleared) | set(capped):
        parts = []
        if capped.get(name):
            parts.append(f"only the first {max_rows} usable rows are kept")
        if skipped.get(name):
            parts.append(f"{skipped[name]} rows point at rows that are not kept")
        if cleared.get(name):
            parts.append(f"{cleared[name]} references to rows that are not kept were cleared")
        out[name] = ", ".join(parts)
    return {n: t for n, t in kept.items() if t}, out


def _holds(
    row: dict[str, Any],
    links: list[Field],
    keys: dict[str, set[Any]],
    name: str,
    skipped: dict[str, int],
    cleared: dict[str, int],
) -> bool:
    """Whether ``row``'s references point at kept rows (clearing nullable ones that do not)."""
    for f in links:
        value = row.get(f.name)
        if value is None or value in keys.get(f.references or "", ()):
            continue
        if f.nullable:
            row[f.name] = None
            cleared[name] += 1
        else:
            skipped[name] += 1
            return False
    return True


def _parents_first(resources: list[Resource]) -> list[Resource]:
    """Tables after the tables they point at (a cycle is entered at its first table)."""
    pending = {r.name: r for r in resources}
    order: list[Resource] = []
    while pending:
        done = {r.name for r in order}
        ready = [
            r
            for r in pending.values()
            if all(
                f.references in done or f.references == r.name or f.references not in pending
                for f in r.fields
                if f.references
            )
        ]
        for resource in ready or [next(iter(pending.values()))]:
            order.append(resource)
            del pending[resource.name]
    return order


def enum_references(
    resources: list[Resource], rows: Rows, fixed: set[str], lines: dict[str, int]
) -> tuple[Rows, list[Ignored]]:
    """Rows in which a column that is both an enum (a CHECK ... IN) and a foreign key holds a
    value its CHECK allows *and* a row it points at.

    Generated parent rows (tables not in ``fixed``, whose rows came from the script's data)
    whose keys nothing of the enum names are re-keyed to the enum's values (every reference
    to them following), so each allowed value has a row; then every child value outside
    the allowed values that have a row is drawn again among them (a nullable column with
    none left is cleared). Values changed in the script's own rows are listed (at the
    table's line in ``lines``)."""
    by_name = {r.name: r for r in resources}
    pairs = [
        (r, f, by_name[f.references])
        for r in resources
        for f in r.fields
        if f.enum is not None and f.references in by_name and len(by_name[f.references].keys) == 1
    ]
    if not pairs:
        return rows, []
    out = {name: [dict(row) for row in table] for name, table in rows.items()}
    notes: list[Ignored] = []
    wanted: dict[str, list[Any]] = defaultdict(list)  # parent -> values some enum allows
    for _, f, parent in pairs:
        key_field = parent.field(parent.keys[0])
        for value in f.enum or ():
            if _fits_key(key_field, value) and value not in wanted[parent.name]:
                wanted[parent.name].append(value)
    for parent_name, values in wanted.items():
        if parent_name in fixed:
            continue
        parent = by_name[parent_name]
        key = parent.keys[0]
        table = out.get(parent_name, [])
        present = {row[key] for row in table}
        spare = [row for row in table if row[key] not in values]
        renamed: dict[Any, Any] = {}
        for value in [v for v in values if v not in present]:
            if not spare:
                break
            row = spare.pop(0)
            renamed[row[key]] = value
            row[key] = value
        if renamed:
            for other in resources:
                for f in other.fields:
                    if f.references == parent_name:
                        for row in out.get(other.name, []):
                            if row.get(f.name) in renamed:
                                row[f.name] = renamed[row[f.name]]
    for child, f, parent in pairs:
        key = parent.keys[0]
        allowed = [v for v in f.enum or () if v in {row[key] for row in out.get(parent.name, [])}]
        changed = 0
        for i, row in enumerate(out.get(child.name, [])):
            current = row.get(f.name)
            if current is None or current in allowed:
                continue
            if child.name in fixed and current in (f.enum or ()):
                continue
            row[f.name] = allowed[i % len(allowed)] if allowed else None
            changed += 1
        if changed and child.name in fixed:
            notes.append(
                Ignored(
                    f"line {lines.get(child.name, 1)}",
                    "field",
                    f"{changed} seed value(s) of {child.name}.{f.name} drawn again among the values its CHECK allows that {parent.name} has",
                )
            )
    return out, notes


def _fits_key(key: Field, value: Any) -> bool:
    if key.enum is not None and value not in key.enum:
        return False
    if key.kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if key.kind == "string":
        return isinstance(value, str) and (key.max_length is None or len(value) <= key.max_length)
    return False
