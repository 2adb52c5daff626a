"""Table-level constraints (in ``CREATE TABLE`` or added by ``ALTER TABLE``): primary keys,
foreign keys, uniques, indexes kept as list filters, checks (kept for ``checks.py``), and
table options, which are storage settings and listed as left out."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlglot import exp

from envfactory_mcp.synth.sql.drafts import ForeignDraft, Schema, TableDraft
from envfactory_mcp.synth.sql.parsing import clip, key_names


def table_constraint(schema: Schema, draft: TableDraft, item: exp.Expression, line: int) -> None:
    """A table-level constraint (also from ALTER TABLE ... ADD)."""
    if isinstance(item, exp.Constraint):
        for inner in item.expressions:
            table_constraint(schema, draft, inner, line)
        return
    if isinstance(item, exp.PrimaryKey):
        columns = known_columns(schema, draft, key_names(item.expressions), line, "PRIMARY KEY")
        if columns:
            draft.keys = columns
    elif isinstance(item, exp.ForeignKey):
        foreign_key(schema, draft, key_names(item.expressions), item.args.get("reference"), line)
    elif isinstance(item, exp.UniqueColumnConstraint):
        target = item.this
        nodes = target.expressions if isinstance(target, exp.Schema) else []
        columns = known_columns(schema, draft, key_names(nodes), line, "UNIQUE")
        unique_columns(draft, columns)
    elif isinstance(item, exp.IndexColumnConstraint):
        columns = [c for c in (draft.column(n) for n in key_names(item.expressions)) if c]
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
        schema.skip(line, f"{clip(item.sql())} of {draft.original}: not modelled", "schema")
    else:
        schema.skip(
            line, f"{clip(item.sql(dialect=schema.dialect))} of {draft.original}: not modelled", "schema"
        )


def known_columns(schema: Schema, draft: TableDraft, names: list[str], line: int, what: str) -> list[str]:
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


def unique_columns(draft: TableDraft, columns: list[str]) -> None:
    if len(columns) == 1:
        draft.fields[columns[0]] = replace(draft.fields[columns[0]], unique=True)
    if columns and tuple(columns) not in draft.uniques:
        draft.uniques.append(tuple(columns))


def foreign_key(schema: Schema, draft: TableDraft, names: list[str], reference: Any, line: int) -> None:
    if not isinstance(reference, exp.Reference):
        schema.skip(line, f"FOREIGN KEY of {draft.original} without REFERENCES", "schema")
        return
    columns = known_columns(schema, draft, names, line, "FOREIGN KEY")
    if not columns:
        return
    target = reference.this
    if isinstance(target, exp.Schema):
        table, target_columns = target.this, key_names(target.expressions)
    else:
        table, target_columns = target, []
    target_name = table.name if isinstance(table, exp.Table | exp.Identifier) else table.sql()
    actions = " ".join(str(o) for o in reference.args.get("options") or [])
    draft.foreign.append(ForeignDraft(tuple(columns), target_name, tuple(target_columns), line, actions))


def table_properties(schema: Schema, draft: TableDraft, properties: exp.Properties, line: int) -> None:
    storage = []
    for prop in properties.expressions:
        if isinstance(prop, exp.SchemaCommentProperty):
            draft.description = str(prop.this.this if isinstance(prop.this, exp.Literal) else prop.this)
        elif isinstance(prop, exp.AutoIncrementProperty):
            continue  # the next number: MAX + 1 gives the same on the imported rows
        else:
            storage.append(clip(prop.sql(dialect=schema.dialect), 40))
    if storage:
        schema.skip(
            line,
            f"table options of {draft.original} ({', '.join(storage)}): storage settings, not state",
            "schema",
        )
