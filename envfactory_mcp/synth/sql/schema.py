"""Statements of an SQL script -> table drafts: columns, keys, foreign keys, checks.

Each statement is parsed on its own with sqlglot in the script's dialect, so one the
parser cannot read costs only itself (it is listed in ``ignored`` with its line). A
``CREATE TABLE`` sqlglot refuses is retried without its table options, then column by
column, keeping every column that parses. ``ALTER TABLE`` adds keys, foreign keys,
uniques, checks, columns and ``nextval`` defaults to tables read earlier;
``CREATE TYPE ... AS ENUM`` and ``CREATE DOMAIN`` define types later columns use;
``CREATE [UNIQUE] INDEX`` marks list filters and unique columns; ``COMMENT ON`` becomes
descriptions. Every other statement is listed with a reason.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from envfactory_mcp.crud.model import Field, Ignored, snake
from envfactory_mcp.synth.sql.script import Dialect, Statement
from envfactory_mcp.synth.sql.types import ColumnType, Domain, Unsupported, column_type

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


@dataclass
class ForeignDraft:
    """A foreign key as written: columns of this table -> a table and its columns."""

    columns: tuple[str, ...]
    target: str
    target_columns: tuple[str, ...]  # empty: the target's primary key
    line: int
    actions: str = ""


@dataclass
class TableDraft:
    """One table as the statements describe it, before it becomes a ``Resource``."""

    name: str
    original: str
    line: int
    fields: dict[str, Field] = field(default_factory=dict)
    types: dict[str, ColumnType] = field(default_factory=dict)
    originals: dict[str, str] = field(default_factory=dict)  # column as written (lower) -> name
    written: list[str] = field(default_factory=list)  # every column as written (lower), in order
    keys: list[str] = field(default_factory=list)
    auto: set[str] = field(default_factory=set)  # numbered by the database
    foreign: list[ForeignDraft] = field(default_factory=list)
    uniques: list[tuple[str, ...]] = field(default_factory=list)  # multi-column, or unique indexes
    indexed: set[str] = field(default_factory=set)
    description: str = ""
    checks: list[tuple[exp.Expression, int]] = field(default_factory=list)

    def column(self, written: str) -> str | None:
        """The column's name here, for a name as the script writes it."""
        return self.originals.get(written.lower())


@dataclass
class Schema:
    """What the statements of one script define, and what they leave out."""

    dialect: Dialect
    tables: dict[str, TableDraft] = field(default_factory=dict)
    by_original: dict[str, str] = field(default_factory=dict)  # table as written (lower) -> name
    enums: dict[str, tuple[str, ...]] = field(default_factory=dict)
    domains: dict[str, Domain] = field(default_factory=dict)
    ignored: list[Ignored] = field(default_factory=list)
    create_tables: int = 0  # CREATE TABLE statements seen
    columns_seen: int = 0
    data: list[Statement] = field(default_factory=list)  # INSERT and COPY statements
    partitions: dict[str, tuple[str, int]] = field(default_factory=dict)  # table (lower) -> (parent, line)

    def table(self, node: exp.Expression | None) -> TableDraft | None:
        """The draft of a table a statement names (``public.film``, ``"Film"``)."""
        if node is None:
            return None
        name = node.name if isinstance(node, exp.Table | exp.Identifier) else node.sql()
        found = self.by_original.get(name.lower())
        return self.tables.get(found) if found else None

    def skip(self, line: int, reason: str, kind: str = "statement") -> None:
        self.ignored.append(Ignored(f"line {line}", kind, reason))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- statements

_NOT_STATE: tuple[tuple[tuple[str, ...], str], ...] = (
    (("DROP",), "DROP: the environment is built from an empty database"),
    (("SET",), "SET: a session setting, not state"),
    (("SELECT",), "SELECT: a query (such as setval or a progress message), not state"),
    (("USE",), "USE: selects a database; tables keep only their own names"),
    (("CREATE", "DATABASE"), "CREATE DATABASE: a namespace; tables keep only their own names"),
    (("CREATE", "SCHEMA"), "CREATE SCHEMA: a namespace; tables keep only their own names"),
    (("LOCK",), "LOCK: table locks are not state"),
    (("UNLOCK",), "UNLOCK: table locks are not state"),
    (("BEGIN",), "BEGIN: transaction control"),
    (("START",), "START TRANSACTION: transaction control"),
    (("COMMIT",), "COMMIT: transaction control"),
    (("ROLLBACK",), "ROLLBACK: transaction control"),
    (("END",), "END: transaction control"),
    (("SAVEPOINT",), "SAVEPOINT: transaction control"),
    (("GRANT",), "GRANT: privileges are not state"),
    (("REVOKE",), "REVOKE: privileges are not state"),
    (("PRAGMA",), "PRAGMA: an SQLite setting"),
    (("ANALYZE",), "ANALYZE: planner statistics"),
    (("VACUUM",), "VACUUM: storage maintenance"),
    (("FLUSH",), "FLUSH: server maintenance"),
    (("SOURCE",), "SOURCE: a client command reading another file, not part of this one"),
    (("UPDATE",), "UPDATE: a change to data, not a definition"),
    (("DELETE",), "DELETE: a change to data, not a definition"),
    (("TRUNCATE",), "TRUNCATE: a change to data, not a definition"),
    (("CALL",), "CALL: runs a procedure"),
    (("EXEC",), "EXEC: runs a procedure"),
    (("CREATE", "VIEW"), "view: a stored query over tables, not state of its own"),
    (("CREATE", "MATERIALIZED"), "materialized view: a stored query over tables, not state of its own"),
    (("CREATE", "TRIGGER"), "trigger: the tools write rows themselves; trigger logic is not run"),
    (("CREATE", "FUNCTION"), "function: stored code is not run"),
    (("CREATE", "PROCEDURE"), "procedure: stored code is not run"),
    (("CREATE", "AGGREGATE"), "aggregate: stored code is not run"),
    (("CREATE", "RULE"), "rule: query rewriting is not run"),
    (("CREATE", "EVENT"), "event: scheduled code is not run"),
    (("CREATE", "EXTENSION"), "extension: database add-ons are not state"),
    (("CREATE", "POLICY"), "row security policy: not modelled"),
    (("CREATE", "PUBLICATION"), "publication: replication setting"),
    (("CREATE", "SUBSCRIPTION"), "subscription: replication setting"),
    (("CREATE", "SEQUENCE"), "sequence: new keys are numbered from the table itself (MAX + 1)"),
    (("ALTER", "SEQUENCE"), "sequence: new keys are numbered from the table itself (MAX + 1)"),
    (("ALTER", "FUNCTION"), "function: stored code is not run"),
    (("ALTER", "DOMAIN"), "ALTER DOMAIN: ownership or renaming, not state"),
    (("ALTER", "TYPE"), "ALTER TYPE: ownership or renaming, not state"),
    (("ALTER", "SCHEMA"), "ALTER SCHEMA: a namespace setting"),
    (("ALTER", "DATABASE"), "ALTER DATABASE: a database setting"),
    (("ALTER", "DEFAULT"), "ALTER DEFAULT PRIVILEGES: privileges are not state"),
    (("ALTER", "VIEW"), "view: a stored query over tables, not state of its own"),
    (("ALTER", "MATERIALIZED"), "materialized view: a stored query over tables, not state of its own"),
    (("ALTER", "EXTENSION"), "extension: database add-ons are not state"),
    (("REFRESH",), "REFRESH: recomputes a materialized view"),
    (("ALTER", "SESSION"), "ALTER SESSION: a session setting, not state"),
    (("CREATE", "SYNONYM"), "synonym: another name for a table"),
    (("CREATE", "PUBLIC"), "public synonym: another name for a table"),
    (("CREATE", "PACKAGE"), "package: stored code is not run"),
    (("CREATE", "ROLE"), "role: privileges are not state"),
    (("CREATE", "USER"), "user: database accounts are not state"),
    (("DECLARE",), "PL/SQL block: stored code is not run"),
)


def read_statement(schema: Schema, st: Statement) -> None:
    """Fold one statement into ``schema`` (or list it in ``schema.ignored``)."""
    words = st.words(8)
    head = [
        w for w in words if w not in ("OR", "REPLACE", "TEMP", "TEMPORARY", "UNLOGGED", "GLOBAL", "LOCAL")
    ]
    if not words:
        schema.skip(st.line, "not an SQL statement")
        return
    first, second = head[0], head[1] if len(head) > 1 else ""
    if first == "CREATE" and second == "TABLE":
        schema.create_tables += 1
        if any(w in ("TEMP", "TEMPORARY") for w in words[:3]):
            schema.skip(st.line, "CREATE TEMPORARY TABLE: a temporary table is not state")
            return
        _create_table(schema, st)
    elif first in ("INSERT", "REPLACE", "COPY"):
        schema.data.append(st)
    elif first == "ALTER" and re.search(r"\bOWNER\s+TO\b", st.text, re.IGNORECASE):
        schema.skip(st.line, f"ALTER {second} ... OWNER TO: ownership is not state")
    elif first == "ALTER" and second == "TABLE":
        _alter_table(schema, st)
    elif first == "CREATE" and second in ("INDEX", "UNIQUE"):
        _create_index(schema, st)
    elif first == "CREATE" and second == "TYPE":
        _create_type(schema, st)
    elif first == "CREATE" and second == "DOMAIN":
        _create_domain(schema, st)
    elif first == "COMMENT":
        _comment(schema, st)
    else:
        for prefix, reason in _NOT_STATE:
            if tuple(head[: len(prefix)]) == prefix:
                schema.skip(st.line, reason)
                return
        if first == "CREATE" and "DEFINER" in words[:4]:  # CREATE DEFINER=... TRIGGER / PROCEDURE
            schema.skip(st.line, "stored code (trigger, procedure, function or view): not run")
            return
        schema.skip(st.line, f"{' '.join(head[:2])}: not a table definition")


# --------------------------------------------------------------------------- CREATE TABLE

_OPTIONS_AFTER_BODY = re.compile(r"\)\s*([^()]*(?:\([^()]*\)[^()]*)*)$", re.DOTALL)


_PARTITION_OF = re.compile(
    r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.\"`]+)\s+PARTITION\s+OF\s+([\w.\"`]+)", re.IGNORECASE
)
_INHERITS = re.compile(r"\)\s*INHERITS\s*\(\s*([\w.\"`]+)\s*\)", re.IGNORECASE)
_ATTACH = re.compile(
    r"^\s*ALTER\s+TABLE\s+(?:ONLY\s+)?([\w.\"`]+)\s+ATTACH\s+PARTITION\s+([\w.\"`]+)", re.IGNORECASE
)


def _bare(name: str) -> str:
    """``public."Film"`` -> ``film``: a table name as the lookups key it."""
    return re.split(r"\.(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", name)[-1].strip('"`[]').lower()


def _create_table(schema: Schema, st: Statement) -> None:
    if (m := _PARTITION_OF.match(st.text)) is not None:
        schema.partitions[_bare(m.group(1))] = (_bare(m.group(2)), st.line)
    elif (m := _INHERITS.search(st.text)) is not None:
        table = re.match(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.\"`]+)", st.text, re.IGNORECASE)
        if table is not None:
            schema.partitions[_bare(table.group(1))] = (_bare(m.group(1)), st.line)
    if re.search(
        r"\)\s*AS\s*\(?\s*SELECT\b|^\s*CREATE\s+TABLE\s+\S+\s+AS\b", st.text, re.IGNORECASE | re.DOTALL
    ):
        schema.skip(st.line, "CREATE TABLE ... AS SELECT: its columns come from a query")
        return
    tree = parse(st.text, schema.dialect)
    options = ""
    if tree is None:  # retry without what follows the column list (WITHOUT ROWID, PARTITION BY, ...)
        body_end = _body_end(st.text)
        if body_end is not None:
            options = st.text[body_end + 1 :].strip()
            tree = parse(st.text[: body_end + 1], schema.dialect)
    if tree is not None and not isinstance(tree.this, exp.Schema):
        if isinstance(tree.this, exp.Table) and re.search(r"\bLIKE\b", st.text, re.IGNORECASE):
            schema.skip(st.line, "CREATE TABLE ... LIKE: its columns are copied from another table")
        else:
            schema.skip(st.line, "CREATE TABLE without a column list")
        return
    if tree is None:
        tree = _column_by_column(schema, st)
        if tree is None:
            schema.skip(st.line, f"CREATE TABLE: cannot be read ({parse_error(st.text, schema.dialect)})")
            return
    table_node = tree.this.this
    original = table_node.name if isinstance(table_node, exp.Table) else table_node.sql()
    name = _unique(snake(original)[:50].rstrip("_") or "t", schema.tables)
    if original.lower() in schema.by_original:
        schema.skip(st.line, f"CREATE TABLE {original}: a table of that name is already defined")
        return
    draft = TableDraft(name=name, original=original, line=st.line)
    for item in tree.this.expressions:
        _table_item(schema, draft, item, st.line)
    properties = tree.args.get("properties")
    if isinstance(properties, exp.Properties):
        _table_properties(schema, draft, properties, st.line)
    if options and not re.fullmatch(r"(?:WITHOUT\s+ROWID|STRICT|\s|,)*", options, re.IGNORECASE):
        schema.skip(
            st.line, f"table options of {original} ({_clip(options)}): storage settings, not state", "schema"
        )
    schema.tables[name] = draft
    schema.by_original[original.lower()] = name


def _body_end(text: str) -> int | None:
    """The index of the parenthesis closing a CREATE TABLE's column list."""
    start = text.find("(")
    if start < 0:
        return None
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c in "'\"`":
            j = text.find(c, i + 1)
            while j > 0 and j + 1 < n and text[j + 1] == c:
                j = text.find(c, j + 2)
            i = n if j < 0 else j + 1
            continue
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return i
        i += 1
    return None


def _split_parts(body: str) -> list[tuple[str, int]]:
    """Top-level comma-separated parts of a column list, with their offsets."""
    parts, depth, start, i, n = [], 0, 0, 0, len(body)
    while i < n:
        c = body[i]
        if c in "'\"`":
            j = body.find(c, i + 1)
            i = n if j < 0 else j + 1
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append((body[start:i], start))
            start = i + 1
        i += 1
    parts.append((body[start:], start))
    return [(p, off) for p, off in parts if p.strip()]


_AFFINITY_TYPE = re.compile(
    r"^(\s*(?:\"[^\"]+\"|`[^`]+`|\[[^\]]+\]|[\w$]+)\s+)"
    r"((?:(?!(?:NOT|NULL|PRIMARY|UNIQUE|DEFAULT|CHECK|REFERENCES|CONSTRAINT|COLLATE|GENERATED|AS)\b)[A-Za-z_]\w*\s*)+"
    r"(?:\(\s*\d+\s*(?:,\s*\d+\s*)?\))?)",
    re.IGNORECASE,
)


def _affinity(type_text: str) -> str:
    """SQLite's type affinity rules (https://sqlite.org/datatype3.html, 3.1) as a type name."""
    upper = type_text.upper()
    length = re.search(r"\(\s*\d+\s*\)", type_text)
    if "INT" in upper:
        return "INTEGER"
    if any(w in upper for w in ("CHAR", "CLOB", "TEXT")):
        return "VARCHAR" + (length.group(0) if length else "") if "CHAR" in upper else "TEXT"
    if "BLOB" in upper or not upper.strip():
        return "BLOB"
    if any(w in upper for w in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def _column_by_column(schema: Schema, st: Statement) -> exp.Create | None:
    """A CREATE TABLE sqlglot refuses, read one column or constraint at a time: parts that
    still fail are listed with their line (an odd SQLite type is read by its affinity)."""
    body_end = _body_end(st.text)
    start = st.text.find("(")
    if body_end is None or start < 0:
        return None
    head = st.text[:start]
    kept: list[exp.Expression] = []
    table: exp.Expression | None = None
    for part, offset in _split_parts(st.text[start + 1 : body_end]):
        lead = len(part) - len(part.lstrip())
        line = st.line + st.text.count("\n", 0, start + 1 + offset + lead)
        tree = parse(f"{head}({part})", schema.dialect)
        if tree is None and (m := _AFFINITY_TYPE.match(part)):
            retyped = m.group(1) + _affinity(m.group(2)) + " " + part[m.end() :]
            tree = parse(f"{head}({retyped})", schema.dialect)
            if tree is not None:
                column = m.group(1).strip()
                schema.skip(
                    line,
                    f"type {m.group(2).strip()} of {column} read as {_affinity(m.group(2))} (SQLite's affinity rules)",
                    "field",
                )
        constraint = re.match(
            r"\s*(?:CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK|KEY|INDEX|FULLTEXT|SPATIAL|EXCLUDE)\b",
            part,
            re.IGNORECASE,
        )
        if tree is None and not constraint:
            schema.columns_seen += 1
        if tree is None and re.search(
            r"\bGENERATED\s+ALWAYS\s+AS\s*\(|\bAS\s*\(.*\)\s*(?:STORED|VIRTUAL)\b",
            part,
            re.IGNORECASE | re.DOTALL,
        ):
            schema.skip(
                line,
                f"{_clip(part.strip(), 40)}: a generated column, computed by the database from other columns",
                "field",
            )
            continue
        if tree is None or not isinstance(tree.this, exp.Schema):
            schema.skip(
                line,
                f"{_clip(part.strip())}: cannot be read ({parse_error(f'{head}({part})', schema.dialect)})",
                "field",
            )
            continue
        table = tree.this.this
        kept.extend(tree.this.expressions)
    if table is None:
        return None
    return exp.Create(this=exp.Schema(this=table, expressions=kept), kind="TABLE")


def _unique(name: str, taken: dict[str, Any] | set[str]) -> str:
    if name not in taken:
        return name
    n = 2
    while f"{name}_{n}" in taken:
        n += 1
    return f"{name}_{n}"


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _line(node: exp.Expression, base: int) -> int:
    """The file line of a node: the statement's line plus the node's line inside it."""
    for candidate in (
        node,
        node.this if isinstance(node.this, exp.Expression) else None,
        *node.find_all(exp.Identifier),
    ):
        if isinstance(candidate, exp.Expression) and candidate.meta.get("line"):
            return base + int(candidate.meta["line"]) - 1
    return base


def _names(nodes: list[exp.Expression]) -> list[str]:
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


def _table_item(schema: Schema, draft: TableDraft, item: exp.Expression, base: int) -> None:
    line = _line(item, base)
    if isinstance(item, exp.ColumnDef):
        _column(schema, draft, item, line)
    elif isinstance(item, exp.Identifier):  # SQLite: a column with no type
        schema.columns_seen += 1
        draft.written.append(item.name.lower())
        name = _unique(snake(item.name), draft.fields)
        draft.fields[name] = Field(name=name, kind="string", nullable=True)
        draft.types[name] = ColumnType("string")
        draft.originals[item.name.lower()] = name
        schema.skip(line, f"column {item.name} of {draft.original} has no type: kept as text", "field")
    else:
        _constraint(schema, draft, item, line)


def _constraint(schema: Schema, draft: TableDraft, item: exp.Expression, line: int) -> None:
    """A table-level constraint (also from ALTER TABLE ... ADD)."""
    if isinstance(item, exp.Constraint):
        for inner in item.expressions:
            _constraint(schema, draft, inner, line)
        return
    if isinstance(item, exp.PrimaryKey):
        columns = _known(schema, draft, _names(item.expressions), line, "PRIMARY KEY")
        if columns:
            draft.keys = columns
    elif isinstance(item, exp.ForeignKey):
        _foreign(schema, draft, _names(item.expressions), item.args.get("reference"), line)
    elif isinstance(item, exp.UniqueColumnConstraint):
        target = item.this
        nodes = target.expressions if isinstance(target, exp.Schema) else []
        columns = _known(schema, draft, _names(nodes), line, "UNIQUE")
        _unique_columns(draft, columns)
    elif isinstance(item, exp.IndexColumnConstraint):
        columns = [c for c in (draft.column(n) for n in _names(item.expressions)) if c]
        if str(item.args.get("kind") or "").upper() in ("FULLTEXT", "SPATIAL"):
            schema.skip(
                line,
                f"{item.args['kind']} index of {draft.original}: search indexes are not modelled",
                "schema",
            )
        elif columns:
            draft.indexed.add(columns[0])
    elif isinstance(item, exp.CheckColumnConstraint):
        draft.checks.append((item.this, line))
    elif isinstance(item, exp.PeriodForSystemTimeConstraint | exp.LikeProperty):
        schema.skip(line, f"{_clip(item.sql())} of {draft.original}: not modelled", "schema")
    else:
        schema.skip(
            line, f"{_clip(item.sql(dialect=schema.dialect))} of {draft.original}: not modelled", "schema"
        )


def _known(schema: Schema, draft: TableDraft, names: list[str], line: int, what: str) -> list[str]:
    columns = [draft.column(n) for n in names]
    if not names or any(c is None for c in columns):
        missing = [n or "(an expression)" for n, c in zip(names, columns, strict=True) if c is None]
        schema.skip(
            line,
            f"{what} of {draft.original} names {', '.join(missing) or 'no column'}, which it does not have",
            "schema",
        )
        return []
    return [c for c in columns if c]


def _unique_columns(draft: TableDraft, columns: list[str]) -> None:
    if len(columns) == 1:
        draft.fields[columns[0]] = replace(draft.fields[columns[0]], unique=True)
    if columns and tuple(columns) not in draft.uniques:
        draft.uniques.append(tuple(columns))


def _foreign(schema: Schema, draft: TableDraft, names: list[str], reference: Any, line: int) -> None:
    if not isinstance(reference, exp.Reference):
        schema.skip(line, f"FOREIGN KEY of {draft.original} without REFERENCES", "schema")
        return
    columns = _known(schema, draft, names, line, "FOREIGN KEY")
    if not columns:
        return
    target = reference.this
    if isinstance(target, exp.Schema):
        table, target_columns = target.this, _names(target.expressions)
    else:
        table, target_columns = target, []
    target_name = table.name if isinstance(table, exp.Table | exp.Identifier) else table.sql()
    actions = " ".join(str(o) for o in reference.args.get("options") or [])
    draft.foreign.append(ForeignDraft(tuple(columns), target_name, tuple(target_columns), line, actions))


def _table_properties(schema: Schema, draft: TableDraft, properties: exp.Properties, line: int) -> None:
    storage = []
    for prop in properties.expressions:
        if isinstance(prop, exp.SchemaCommentProperty):
            draft.description = str(prop.this.this if isinstance(prop.this, exp.Literal) else prop.this)
        elif isinstance(prop, exp.AutoIncrementProperty):
            continue  # the next number: MAX + 1 gives the same on the imported rows
        else:
            storage.append(_clip(prop.sql(dialect=schema.dialect), 40))
    if storage:
        schema.skip(
            line,
            f"table options of {draft.original} ({', '.join(storage)}): storage settings, not state",
            "schema",
        )


# --------------------------------------------------------------------------- columns


def _column(schema: Schema, draft: TableDraft, node: exp.ColumnDef, line: int) -> None:
    schema.columns_seen += 1
    written = node.name
    if written.lower() not in draft.written:
        draft.written.append(written.lower())
    where = f"column {written} of {draft.original}"
    constraints = [c.args.get("kind") for c in node.args.get("constraints") or []]
    if any(isinstance(c, exp.ComputedColumnConstraint) for c in constraints) or any(
        isinstance(c, exp.GeneratedAsIdentityColumnConstraint) and c.args.get("expression") is not None
        for c in constraints
    ):
        schema.skip(
            line, f"{where}: a generated column, computed by the database from other columns", "field"
        )
        return
    kind_node = node.args.get("kind")
    try:
        ctype = (
            column_type(kind_node, schema.dialect, schema.enums, schema.domains)
            if kind_node
            else ColumnType("string")
        )
    except Unsupported as exc:
        schema.skip(line, f"{where}: {exc}", "field")
        return
    if kind_node is None:
        schema.skip(line, f"{where} has no type: kept as text", "field")
    if ctype.note:
        schema.skip(line, f"{where}: {ctype.note}", "field")
    name = _unique(snake(written), draft.fields)
    values: dict[str, Any] = {
        "name": name,
        "kind": ctype.kind,
        "format": ctype.format,
        "nullable": True,
        "enum": ctype.enum,
        "minimum": ctype.minimum,
        "maximum": ctype.maximum,
        "max_length": ctype.max_length,
        "item_kind": ctype.item_kind,
        "description": ctype.description,
    }
    draft.originals[written.lower()] = name
    draft.types[name] = ctype
    if ctype.auto:
        draft.auto.add(name)
    rowid_alias = (
        schema.dialect == "sqlite"
        and isinstance(kind_node, exp.DataType)
        and kind_node.sql(dialect="sqlite").upper() == "INTEGER"
    )
    for constraint in constraints:
        if isinstance(constraint, exp.NotNullColumnConstraint):
            values["nullable"] = bool(constraint.args.get("allow_null"))
        elif isinstance(constraint, exp.PrimaryKeyColumnConstraint):
            draft.keys = [name]
            if rowid_alias:  # INTEGER PRIMARY KEY is SQLite's rowid: numbered when left out
                draft.auto.add(name)
        elif isinstance(constraint, exp.UniqueColumnConstraint):
            values["unique"] = True
            draft.uniques.append((name,))
        elif isinstance(
            constraint, exp.AutoIncrementColumnConstraint | exp.GeneratedAsIdentityColumnConstraint
        ):
            draft.auto.add(name)
        elif isinstance(constraint, exp.DefaultColumnConstraint):
            _default(schema, draft, values, constraint.this, line, where)
        elif isinstance(constraint, exp.CheckColumnConstraint):
            draft.checks.append((constraint.this, line))
        elif isinstance(constraint, exp.Reference):
            _foreign(schema, draft, [written], constraint, line)
        elif isinstance(constraint, exp.CommentColumnConstraint):
            values["description"] = str(
                constraint.this.this if isinstance(constraint.this, exp.Literal) else constraint.this
            )
        elif isinstance(constraint, exp.OnUpdateColumnConstraint):
            schema.skip(
                line,
                f"{where}: ON UPDATE {constraint.this.sql()} (updates change only the fields they are given)",
                "field",
            )
        elif isinstance(constraint, exp.CollateColumnConstraint):
            schema.skip(
                line, f"{where}: COLLATE {constraint.this.sql()} (SQLite compares text byte by byte)", "field"
            )
        elif isinstance(constraint, exp.CharacterSetColumnConstraint | exp.CompressColumnConstraint):
            continue  # an encoding or storage detail
        elif constraint is not None:
            schema.skip(
                line, f"{where}: {_clip(constraint.sql(dialect=schema.dialect))} not modelled", "field"
            )
    if values.pop("server_filled", False):
        values["nullable"] = True
    draft.fields[name] = Field(**values)


def _literal(node: exp.Expression) -> tuple[bool, Any]:
    """(True, value) for a constant: a literal, maybe cast (``'G'::mpaa_rating``), negated or collated."""
    while isinstance(node, exp.Cast | exp.Paren | exp.Collate):
        node = node.this
    if isinstance(node, exp.Neg):
        ok, value = _literal(node.this)
        return (ok, -value) if ok and isinstance(value, int | float) else (False, None)
    if isinstance(node, exp.Null):
        return True, None
    if isinstance(node, exp.Boolean):
        return True, bool(node.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return True, str(node.this)
        text = str(node.this)
        try:
            return True, int(text)
        except ValueError:
            try:
                return True, float(text)
            except ValueError:
                return False, None
    return False, None


def converted(value: Any, kind: str, enum: tuple[Any, ...] | None = None) -> tuple[bool, Any]:
    """A constant as a value of ``kind`` (``'0'`` for a boolean is False), or (False, None)."""
    if value is None:
        return True, None
    try:
        if kind == "boolean":
            text = str(value).strip().lower()
            if text in ("1", "true", "t", "y", "yes", "on", "b'1'"):
                return True, True
            if text in ("0", "false", "f", "n", "no", "off", "b'0'"):
                return True, False
            return False, None
        if kind == "integer":
            number = float(value) if not isinstance(value, bool) else int(value)
            return (True, int(number)) if float(number).is_integer() else (False, None)
        if kind == "number":
            return True, float(value)
    except (TypeError, ValueError, OverflowError):
        return False, None
    if kind == "string":
        text = value if isinstance(value, str) else str(value)
        if enum is not None and text not in enum:
            return False, None
        return True, text
    return False, None


_NOW = re.compile(
    r"^(?:now|current_timestamp|localtimestamp|sysdate|getdate|statement_timestamp|transaction_timestamp|clock_timestamp|utc_timestamp)$",
    re.IGNORECASE,
)


def _default(
    schema: Schema, draft: TableDraft, values: dict[str, Any], node: exp.Expression, line: int, where: str
) -> None:
    inner = node
    while isinstance(inner, exp.Paren | exp.Collate):
        inner = inner.this
    if _is_nextval(inner):
        draft.auto.add(values["name"])
        return
    if isinstance(inner, exp.CurrentTimestamp | exp.CurrentDatetime) or _now_call(inner):
        values["auto"] = "today" if values.get("format") == "date" else "now"
        return
    if isinstance(inner, exp.CurrentDate):
        values["auto"] = "today"
        return
    if _uuid_call(inner):  # made by the database on insert: the server leaves it empty
        values.update(read_only=True, server_filled=True)
        schema.skip(
            line,
            f"{where}: DEFAULT {_clip(node.sql(dialect=schema.dialect), 40)} is not evaluated; new rows leave it empty",
            "field",
        )
        return
    ok, value = _literal(inner)
    if ok and value is None:
        return
    if ok and values["kind"] in ("json", "object") and isinstance(value, str):
        try:
            values["default"] = json.loads(value)
            return
        except ValueError:
            ok = False
    if ok and values["kind"] in ("array", "json", "object"):
        ok = False
    if ok:
        ok, value = converted(value, values["kind"], values.get("enum"))
    if ok:
        values["default"] = value
        return
    schema.skip(
        line, f"{where}: DEFAULT {_clip(node.sql(dialect=schema.dialect), 60)} (not evaluated)", "field"
    )


def _uuid_call(node: exp.Expression) -> bool:
    name = (
        str(node.this)
        if isinstance(node, exp.Anonymous)
        else node.sql_name()
        if isinstance(node, exp.Func)
        else ""
    )
    return name.lower().replace("_", "") in (
        "genrandomuuid",
        "uuidgeneratev4",
        "uuidgeneratev1",
        "uuidv4",
        "uuidv7",
        "uuid",
        "newid",
    )


def _is_nextval(node: exp.Expression) -> bool:
    return isinstance(node, exp.Anonymous) and str(node.this).lower() == "nextval"


def _now_call(node: exp.Expression) -> bool:
    """``now()``, ``timezone('utc', now())``, ``CURRENT_TIMESTAMP(6)``, ``datetime('now')``..."""
    if isinstance(node, exp.Anonymous | exp.Func):
        name = node.sql_name() if not isinstance(node, exp.Anonymous) else str(node.this)
        if _NOW.match(name):
            return True
        if name.lower() in ("timezone", "datetime", "date", "strftime") and (
            any(isinstance(n, exp.CurrentTimestamp) or _now_call(n) for n in node.iter_expressions())
            or "'now'" in node.sql().lower()
        ):
            return True
    return False


# --------------------------------------------------------------------------- checks


def apply_checks(schema: Schema, draft: TableDraft) -> None:
    """CHECK constraints -> enums and bounds on their columns; the rest listed as not enforced."""
    for expression, line in draft.checks:
        if not _check(draft, expression):
            schema.skip(
                line,
                f"CHECK ({_clip(expression.sql(dialect=schema.dialect), 100)}) on {draft.original} is not enforced",
                "field",
            )


def _strip(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren | exp.Cast):
        node = node.this
    return node


def _check(draft: TableDraft, node: exp.Expression, column: str | None = None) -> bool:
    """Apply one CHECK to ``draft``; False when (part of) it cannot be expressed.

    ``column`` stands for ``VALUE`` in a domain's check."""
    node = _strip(node)
    if isinstance(node, exp.And):
        left = _check(draft, node.this, column)
        right = _check(draft, node.expression, column)
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
        ok_low, low = _literal(node.args["low"])
        ok_high, high = _literal(node.args["high"])
        if ok_low and ok_high and isinstance(low, int | float) and isinstance(high, int | float):
            _bound(draft, target, "minimum", low)
            _bound(draft, target, "maximum", high)
            return True
        return False
    if isinstance(node, exp.GT | exp.GTE | exp.LT | exp.LTE) and f.kind in ("integer", "number"):
        ok, limit = _literal(node.expression)
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
        ok, value = _literal(node)
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


# --------------------------------------------------------------------------- other statements


def _alter_table(schema: Schema, st: Statement) -> None:
    if (m := _ATTACH.match(st.text)) is not None:
        schema.partitions[_bare(m.group(2))] = (_bare(m.group(1)), st.line)
        schema.skip(
            st.line,
            f"ATTACH PARTITION: {_bare(m.group(2))} holds rows of {_bare(m.group(1))}, which is imported as one table",
        )
        return
    tree = parse(st.text, schema.dialect)
    if not isinstance(tree, exp.Alter):
        schema.skip(st.line, f"ALTER TABLE: not modelled ({_clip(st.text, 70)})")
        return
    draft = schema.table(tree.this)
    if draft is None:
        schema.skip(st.line, f"ALTER TABLE {tree.this.name}: no such table is imported")
        return
    for action in tree.args.get("actions") or []:
        line = _line(action, st.line)
        if isinstance(action, exp.AddConstraint):
            for item in action.expressions:
                _constraint(schema, draft, item, line)
        elif isinstance(action, exp.Schema):  # Oracle: ADD ( CONSTRAINT ..., CONSTRAINT ... | column, ... )
            for item in action.expressions:
                if isinstance(item, exp.ColumnDef):
                    _column(schema, draft, item, _line(item, line))
                else:
                    _constraint(schema, draft, item, _line(item, line))
        elif isinstance(action, exp.ColumnDef):  # ADD COLUMN
            _column(schema, draft, action, line)
        elif isinstance(action, exp.ModifyColumn) and isinstance(action.this, exp.ColumnDef):  # MySQL MODIFY
            known = draft.column(action.this.name)
            if known is not None:
                keys, foreign = list(draft.keys), list(draft.foreign)
                del draft.fields[known]
                draft.originals.pop(action.this.name.lower(), None)
                schema.columns_seen -= 1
                _column(schema, draft, action.this, line)
                if keys and not draft.keys:
                    draft.keys = keys
                draft.foreign = foreign + [f for f in draft.foreign if f not in foreign]
            else:
                schema.skip(
                    line, f"ALTER TABLE {draft.original} MODIFY: no column {action.this.name}", "schema"
                )
        elif isinstance(action, exp.AlterColumn) and action.args.get("default") is not None:
            column = draft.column(action.this.name)
            if column is not None:
                values = dict(draft.fields[column].__dict__)
                _default(
                    schema,
                    draft,
                    values,
                    action.args["default"],
                    line,
                    f"column {action.this.name} of {draft.original}",
                )
                draft.fields[column] = Field(**values)
        elif isinstance(action, exp.AlterColumn) and action.args.get("allow_null") is False:
            column = draft.column(action.this.name)
            if column is not None:
                draft.fields[column] = replace(draft.fields[column], nullable=False)
        else:
            schema.skip(
                line,
                f"ALTER TABLE {draft.original}: {_clip(action.sql(dialect=schema.dialect), 70)} not modelled",
            )


def _create_index(schema: Schema, st: Statement) -> None:
    tree = parse(st.text, schema.dialect)
    index = tree.this if isinstance(tree, exp.Create) else None
    if not isinstance(index, exp.Index):
        schema.skip(st.line, f"CREATE INDEX: cannot be read ({parse_error(st.text, schema.dialect)})")
        return
    draft = schema.table(index.args.get("table"))
    params = index.args.get("params")
    names = _names(params.args.get("columns") or []) if params is not None else []
    columns = [draft.column(n) for n in names] if draft else []
    if draft is None or not columns or None in columns or (params is not None and params.args.get("where")):
        what = "partial " if params is not None and params.args.get("where") else ""
        schema.skip(
            st.line, f"{what}index {index.name}: not modelled (an expression, or a table not imported)"
        )
        return
    plain = [c for c in columns if c]
    if tree is not None and tree.args.get("unique"):
        _unique_columns(draft, plain)
        return  # a unique index is a constraint, and it is kept
    draft.indexed.add(plain[0])
    schema.skip(
        st.line,
        f"index {index.name} on {draft.original}: kept as a list filter on {plain[0]} (SQLite scans seed-sized tables)",
    )


def _create_type(schema: Schema, st: Statement) -> None:
    tree = parse(st.text, schema.dialect)
    if (
        isinstance(tree, exp.Create)
        and isinstance(tree.expression, exp.DataType)
        and tree.expression.this == exp.DataType.Type.ENUM
    ):
        values = tuple(e.this for e in tree.expression.expressions if isinstance(e, exp.Literal))
        schema.enums[tree.this.name.lower()] = values
        return
    schema.skip(
        st.line, "CREATE TYPE: only enums (AS ENUM) are modelled; columns of this type are kept as text"
    )


_DOMAIN = re.compile(
    r"^\s*CREATE\s+DOMAIN\s+(?:[\w\"]+\.)?\"?(\w+)\"?\s+(?:AS\s+)?(.+?)\s*((?:CONSTRAINT|CHECK|NOT\s+NULL|NULL|DEFAULT|COLLATE)\b.*)?$",
    re.IGNORECASE | re.DOTALL,
)


def _create_domain(schema: Schema, st: Statement) -> None:
    """``CREATE DOMAIN year AS integer CHECK (VALUE >= 1901 AND VALUE <= 2155)``: a base type
    whose CHECK becomes bounds or an enum on every column of the domain."""
    match = _DOMAIN.match(st.text)
    if match is None:
        schema.skip(st.line, "CREATE DOMAIN: cannot be read")
        return
    name, base, rest = match.group(1).lower(), match.group(2), match.group(3) or ""
    try:
        dtype = exp.DataType.build(base, dialect=schema.dialect)
        ctype = column_type(dtype, schema.dialect, schema.enums, schema.domains)
    except (SqlglotError, ValueError, Unsupported) as exc:
        schema.skip(
            st.line,
            f"CREATE DOMAIN {name}: base type {base} not modelled ({exc}); columns of it are kept as text",
        )
        return
    probe = TableDraft(name="domain", original="domain", line=st.line)
    probe.fields["value"] = Field(
        name="value", kind=ctype.kind, enum=ctype.enum, minimum=ctype.minimum, maximum=ctype.maximum
    )
    probe.originals["value"] = "value"
    note = ""
    for check in re.finditer(r"\bCHECK\s*(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))", rest, re.IGNORECASE):
        tree = parse(f"SELECT {check.group(1)}", schema.dialect)
        expression = tree.expressions[0] if isinstance(tree, exp.Select) and tree.expressions else None
        if expression is None or not _check(probe, expression, column="value"):
            note = f"CHECK {check.group(1)} of domain {name} is not enforced"
    f = probe.fields["value"]
    schema.domains[name] = Domain(
        replace(ctype, enum=f.enum, minimum=f.minimum, maximum=f.maximum, note=note or ctype.note)
    )


def _comment(schema: Schema, st: Statement) -> None:
    """``COMMENT ON TABLE / COLUMN ... IS '...'``: the table's or column's description."""
    tree = parse(st.text, schema.dialect)
    if isinstance(tree, exp.Comment) and isinstance(tree.expression, exp.Literal):
        text = str(tree.expression.this)
        kind = str(tree.args.get("kind") or "").upper()
        target = tree.this
        if kind == "TABLE" and (draft := schema.table(target)) is not None:
            draft.description = text
            return
        if kind == "COLUMN" and isinstance(target, exp.Column):
            found = schema.by_original.get(target.table.lower())
            table = schema.tables.get(found) if found else None
            column = table.column(target.name) if table else None
            if table is not None and column is not None:
                table.fields[column] = replace(table.fields[column], description=text)
                return
    schema.skip(st.line, "COMMENT ON: describes something that is not an imported table or column")
