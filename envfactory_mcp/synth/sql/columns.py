"""One column definition -> a ``Field``: its type (``types.py``), nullability, key, unique,
numbering, default (a constant converted to the column's kind, a clock or a database-made
UUID), inline checks and references, and the constraints that are not modelled."""

from __future__ import annotations

import json
import re
from typing import Any

from sqlglot import exp

from envfactory_mcp.crud.model import Field, snake
from envfactory_mcp.synth.sql.constraints import foreign_key
from envfactory_mcp.synth.sql.drafts import Schema, TableDraft
from envfactory_mcp.synth.sql.parsing import clip, unique_name
from envfactory_mcp.synth.sql.types import ColumnType, Unsupported, column_type


def column_definition(schema: Schema, draft: TableDraft, node: exp.ColumnDef, line: int) -> None:
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
    name = unique_name(snake(written), draft.fields)
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
            column_default(schema, draft, values, constraint.this, line, where)
        elif isinstance(constraint, exp.CheckColumnConstraint):
            draft.checks.append((constraint.this, line))
        elif isinstance(constraint, exp.Reference):
            foreign_key(schema, draft, [written], constraint, line)
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
                line, f"{where}: {clip(constraint.sql(dialect=schema.dialect))} not modelled", "field"
            )
    if values.pop("server_filled", False):
        values["nullable"] = True
    draft.fields[name] = Field(**values)


def literal(node: exp.Expression) -> tuple[bool, Any]:
    """(True, value) for a constant: a literal, maybe cast (``'G'::mpaa_rating``), negated or collated."""
    while isinstance(node, exp.Cast | exp.Paren | exp.Collate):
        node = node.this
    if isinstance(node, exp.Neg):
        ok, value = literal(node.this)
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


def column_default(
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
            f"{where}: DEFAULT {clip(node.sql(dialect=schema.dialect), 40)} is not evaluated; new rows leave it empty",
            "field",
        )
        return
    ok, value = literal(inner)
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
        line, f"{where}: DEFAULT {clip(node.sql(dialect=schema.dialect), 60)} (not evaluated)", "field"
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
