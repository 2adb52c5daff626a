"""``CREATE TABLE`` -> a ``TableDraft``. A statement sqlglot refuses is retried without its
table options, then column by column, keeping every column that parses (an odd SQLite type
read by its affinity); partitions and inherited tables are noted for the importer, and
``CREATE TABLE ... AS SELECT`` or ``... LIKE`` are listed as left out."""

from __future__ import annotations

import re

from sqlglot import exp

from envfactory_mcp.crud.model import Field, snake
from envfactory_mcp.synth.sql.columns import column_definition
from envfactory_mcp.synth.sql.constraints import table_constraint, table_properties
from envfactory_mcp.synth.sql.drafts import Schema, TableDraft
from envfactory_mcp.synth.sql.parsing import bare_name, clip, node_line, parse, parse_error, unique_name
from envfactory_mcp.synth.sql.script import Statement
from envfactory_mcp.synth.sql.types import ColumnType

_PARTITION_OF = re.compile(
    r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.\"`]+)\s+PARTITION\s+OF\s+([\w.\"`]+)", re.IGNORECASE
)
_INHERITS = re.compile(r"\)\s*INHERITS\s*\(\s*([\w.\"`]+)\s*\)", re.IGNORECASE)


def create_table(schema: Schema, st: Statement) -> None:
    if (m := _PARTITION_OF.match(st.text)) is not None:
        schema.partitions[bare_name(m.group(1))] = (bare_name(m.group(2)), st.line)
    elif (m := _INHERITS.search(st.text)) is not None:
        table = re.match(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.\"`]+)", st.text, re.IGNORECASE)
        if table is not None:
            schema.partitions[bare_name(table.group(1))] = (bare_name(m.group(1)), st.line)
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
    name = unique_name(snake(original)[:50].rstrip("_") or "t", schema.tables)
    if original.lower() in schema.by_original:
        schema.skip(st.line, f"CREATE TABLE {original}: a table of that name is already defined")
        return
    draft = TableDraft(name=name, original=original, line=st.line)
    for item in tree.this.expressions:
        table_item(schema, draft, item, st.line)
    properties = tree.args.get("properties")
    if isinstance(properties, exp.Properties):
        table_properties(schema, draft, properties, st.line)
    if options and not re.fullmatch(r"(?:WITHOUT\s+ROWID|STRICT|\s|,)*", options, re.IGNORECASE):
        schema.skip(
            st.line, f"table options of {original} ({clip(options)}): storage settings, not state", "schema"
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
                f"{clip(part.strip(), 40)}: a generated column, computed by the database from other columns",
                "field",
            )
            continue
        if tree is None or not isinstance(tree.this, exp.Schema):
            schema.skip(
                line,
                f"{clip(part.strip())}: cannot be read ({parse_error(f'{head}({part})', schema.dialect)})",
                "field",
            )
            continue
        table = tree.this.this
        kept.extend(tree.this.expressions)
    if table is None:
        return None
    return exp.Create(this=exp.Schema(this=table, expressions=kept), kind="TABLE")


def table_item(schema: Schema, draft: TableDraft, item: exp.Expression, base: int) -> None:
    line = node_line(item, base)
    if isinstance(item, exp.ColumnDef):
        column_definition(schema, draft, item, line)
    elif isinstance(item, exp.Identifier):  # SQLite: a column with no type
        schema.columns_seen += 1
        draft.written.append(item.name.lower())
        name = unique_name(snake(item.name), draft.fields)
        draft.fields[name] = Field(name=name, kind="string", nullable=True)
        draft.types[name] = ColumnType("string")
        draft.originals[item.name.lower()] = name
        schema.skip(line, f"column {item.name} of {draft.original} has no type: kept as text", "field")
    else:
        table_constraint(schema, draft, item, line)
