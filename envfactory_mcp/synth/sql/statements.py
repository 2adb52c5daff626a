"""Statements of an SQL script -> table drafts (see ``schema.py``): which statement is
what, ``ALTER TABLE`` (keys, foreign keys, uniques, checks, columns and ``nextval``
defaults added to tables read earlier), ``CREATE [UNIQUE] INDEX`` (list filters and unique
columns), ``CREATE TYPE ... AS ENUM`` and ``CREATE DOMAIN`` (types later columns use) and
``COMMENT ON`` (descriptions); every other statement listed with a reason."""

from __future__ import annotations

import re
from dataclasses import replace

from sqlglot import exp
from sqlglot.errors import SqlglotError

from envfactory_mcp.crud.model import Field
from envfactory_mcp.synth.sql.checks import check_constraint
from envfactory_mcp.synth.sql.columns import column_default, column_definition
from envfactory_mcp.synth.sql.constraints import table_constraint, unique_columns
from envfactory_mcp.synth.sql.drafts import Schema, TableDraft
from envfactory_mcp.synth.sql.parsing import bare_name, clip, key_names, node_line, parse, parse_error
from envfactory_mcp.synth.sql.script import Statement
from envfactory_mcp.synth.sql.tables import create_table
from envfactory_mcp.synth.sql.types import Domain, Unsupported, column_type

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
        create_table(schema, st)
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


_ATTACH = re.compile(
    r"^\s*ALTER\s+TABLE\s+(?:ONLY\s+)?([\w.\"`]+)\s+ATTACH\s+PARTITION\s+([\w.\"`]+)", re.IGNORECASE
)


def _alter_table(schema: Schema, st: Statement) -> None:
    if (m := _ATTACH.match(st.text)) is not None:
        schema.partitions[bare_name(m.group(2))] = (bare_name(m.group(1)), st.line)
        schema.skip(
            st.line,
            f"ATTACH PARTITION: {bare_name(m.group(2))} holds rows of {bare_name(m.group(1))}, which is imported as one table",
        )
        return
    tree = parse(st.text, schema.dialect)
    if not isinstance(tree, exp.Alter):
        schema.skip(st.line, f"ALTER TABLE: not modelled ({clip(st.text, 70)})")
        return
    draft = schema.table(tree.this)
    if draft is None:
        schema.skip(st.line, f"ALTER TABLE {tree.this.name}: no such table is imported")
        return
    for action in tree.args.get("actions") or []:
        line = node_line(action, st.line)
        if isinstance(action, exp.AddConstraint):
            for item in action.expressions:
                table_constraint(schema, draft, item, line)
        elif isinstance(action, exp.Schema):  # Oracle: ADD ( CONSTRAINT ..., CONSTRAINT ... | column, ... )
            for item in action.expressions:
                if isinstance(item, exp.ColumnDef):
                    column_definition(schema, draft, item, node_line(item, line))
                else:
                    table_constraint(schema, draft, item, node_line(item, line))
        elif isinstance(action, exp.ColumnDef):  # ADD COLUMN
            column_definition(schema, draft, action, line)
        elif isinstance(action, exp.ModifyColumn) and isinstance(action.this, exp.ColumnDef):  # MySQL MODIFY
            known = draft.column(action.this.name)
            if known is not None:
                keys, foreign = list(draft.keys), list(draft.foreign)
                del draft.fields[known]
                draft.originals.pop(action.this.name.lower(), None)
                schema.columns_seen -= 1
                column_definition(schema, draft, action.this, line)
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
                column_default(
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
                f"ALTER TABLE {draft.original}: {clip(action.sql(dialect=schema.dialect), 70)} not modelled",
            )


def _create_index(schema: Schema, st: Statement) -> None:
    tree = parse(st.text, schema.dialect)
    index = tree.this if isinstance(tree, exp.Create) else None
    if not isinstance(index, exp.Index):
        schema.skip(st.line, f"CREATE INDEX: cannot be read ({parse_error(st.text, schema.dialect)})")
        return
    draft = schema.table(index.args.get("table"))
    params = index.args.get("params")
    names = key_names(params.args.get("columns") or []) if params is not None else []
    columns = [draft.column(n) for n in names] if draft else []
    if draft is None or not columns or None in columns or (params is not None and params.args.get("where")):
        what = "partial " if params is not None and params.args.get("where") else ""
        schema.skip(
            st.line, f"{what}index {index.name}: not modelled (an expression, or a table not imported)"
        )
        return
    plain = [c for c in columns if c]
    if tree is not None and tree.args.get("unique"):
        unique_columns(draft, plain)
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
        if expression is None or not check_constraint(probe, expression, column="value"):
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
