"""SQL scripts (SQLite, MySQL and Postgres schema dumps) -> an environment.

The script is split into statements (``sql/script.py``: quotes, comments, ``DELIMITER``,
dollar quotes, ``COPY`` data), each statement is parsed with sqlglot in the script's
dialect (``sql/schema.py``, column types in ``sql/types.py``), and the tables become the
shared model's resources with get / list / create / update / delete tools. Keys and
foreign keys come from ``CREATE TABLE`` and ``ALTER TABLE`` alike; a table's key may be
composite (a join table). Nothing aborts the whole file: a statement, column, constraint
or foreign key that cannot be modelled is listed in ``ignored`` with its line and why, and
the import fails only when no table remains.

The script's own ``INSERT`` / ``COPY`` data can be the seed (``use_inserts``; by default
when it has rows for every imported table), capped per table and made consistent
(``sql/data.py``); otherwise rows are generated (``crud/seed_rows.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from envfactory_mcp.crud.core import build_imported
from envfactory_mcp.crud.model import (
    Coverage,
    Field,
    Ignored,
    ImportedEnv,
    Operation,
    Resource,
    ResourceImportError,
    Rows,
    singular,
)
from envfactory_mcp.crud.seed_rows import extra_rows, generate_rows
from envfactory_mcp.synth.policy import document_policy
from envfactory_mcp.synth.sql.data import _parents_first, data_tables, enum_references, read_data
from envfactory_mcp.synth.sql.schema import Schema, TableDraft, apply_checks, read_statement
from envfactory_mcp.synth.sql.script import DIALECTS, Dialect, Statement, detect_dialect, split_statements

MAX_SEED_ROWS = 1000  # per table, when the script's own data is the seed
_SQL_TYPE = {"integer": "INTEGER", "boolean": "INTEGER", "number": "REAL", "string": "TEXT", "array": "TEXT"}


def import_sql(
    ddl: str | Sequence[tuple[str, str]],
    name: str,
    seed: int = 0,
    *,
    dialect: str | None = None,
    use_inserts: bool = True,
    max_rows: int = MAX_SEED_ROWS,
) -> ImportedEnv:
    """An environment from an SQL script (``dialect`` detected from the text when not given).

    ``ddl`` is the script's text, or several files as ``(name, text)`` pairs that make one
    schema (tables in one, keys in another, data in a third: their statements are read
    types first, then tables, then the rest, each file in the order given; ``ignored``
    names the file of each line). ``use_inserts`` (the default): the script's INSERT/COPY
    data is the seed of the tables it has rows for (at most ``max_rows`` a table,
    consistent), and rows are generated for the others; ``False``: every table's rows are
    generated and the data is listed in ``ignored``. Raises ``ResourceImportError`` only
    when no table can be imported.
    """
    files = [("", ddl)] if isinstance(ddl, str) else [(label, text) for label, text in ddl]
    if not files:
        raise ResourceImportError("files", "no SQL file to import")
    if dialect is not None and dialect not in DIALECTS:
        raise ResourceImportError(
            "dialect", f"unknown SQL dialect {dialect!r}: use one of {', '.join(DIALECTS)}"
        )
    texts = [(label, text.lstrip("\ufeff")) for label, text in files]
    chosen: Dialect = dialect if dialect is not None else detect_dialect("\n".join(t for _, t in texts))
    statements: list[Statement] = []
    meta_lines: list[tuple[int, str]] = []
    spans: list[tuple[int, str]] = []  # (lines before the file, its name)
    offset = 0
    for label, text in texts:
        found, client = split_statements(text, chosen)
        for statement in found:
            statement.line += offset
        statements += found
        meta_lines += [(line + offset, why) for line, why in client]
        spans.append((offset, label))
        offset += text.count("\n") + 1
    if len(texts) > 1:  # keys and data files may come before the tables they are about
        statements.sort(key=_phase)
    schema = Schema(chosen)
    for line, why in meta_lines:
        schema.skip(line, why)
    for statement in statements:
        read_statement(schema, statement)
    try:
        imported = _imported(schema, name, seed, use_inserts, max_rows)
    except ResourceImportError as exc:
        if len(texts) == 1:
            raise
        raise ResourceImportError(f"{len(texts)} files", exc.message) from None
    if len(texts) == 1:
        return imported
    return replace(
        imported, ignored=sorted({replace(i, where=_in_file(i.where, spans)) for i in imported.ignored})
    )


def _phase(statement: Statement) -> int:
    """Types and domains, then tables, then everything else (keys, indexes, data)."""
    words = [w for w in statement.words(4) if w not in ("OR", "REPLACE", "TEMP", "TEMPORARY", "UNLOGGED")]
    if words[:2] in (["CREATE", "TYPE"], ["CREATE", "DOMAIN"]):
        return 0
    return 1 if words[:2] == ["CREATE", "TABLE"] else 2


def _in_file(where: str, spans: list[tuple[int, str]]) -> str:
    """``line 412`` of the files read as one -> ``keys.sql line 12``."""
    match = re.fullmatch(r"line (\d+)", where)
    if match is None:
        return where
    line = int(match.group(1))
    start, label = next((s for s in reversed(spans) if s[0] < line), spans[0])
    return f"{label} line {line - start}"


def _imported(schema: Schema, name: str, seed: int, use_inserts: bool, max_rows: int) -> ImportedEnv:
    chosen = schema.dialect
    resources = _resources(schema)
    if not resources:
        found = (
            f"{schema.create_tables} CREATE TABLE statement(s), none importable"
            if schema.create_tables
            else "no CREATE TABLE statement"
        )
        first = next(
            (i for i in sorted(schema.ignored) if "CREATE TABLE" in i.reason or "key" in i.reason), None
        )
        why = f" (first: {first})" if first else ""
        raise ResourceImportError("line 1", f"no table to import: {found}{why}")
    operations = [op for r in resources for op in _operations(r, schema.tables[r.name])]
    given, data_notes = _seed_data(schema, resources, use_inserts, max_rows)
    partitions = [d for d in schema.tables.values() if d.original.lower() in schema.partitions]
    coverage = Coverage(  # a partition's rows are its parent's: not a table of its own
        operations=schema.create_tables - len(partitions),
        served=len(resources),
        fields=schema.columns_seen - sum(len(d.written) for d in partitions),
        fields_kept=sum(len(r.fields) for r in resources),
    )
    title = name.replace("_", " ").title()
    imported = build_imported(
        name=name,
        title=title,
        description=f"Tables {', '.join(r.name for r in resources)} with create, read, update and delete tools.",
        source=f"an SQL schema ({chosen})",
        generator="importer:sql+inserts" if given else "importer:sql",
        seed=seed,
        resources=resources,
        operations=operations,
        ignored=schema.ignored + data_notes,
        coverage=coverage,
    )
    if given:
        rows = generate_rows(resources, seed, given=given)
        rows, notes = _deletable(schema, resources, rows, seed)
        imported = replace(imported, rows=rows, ignored=sorted(set(imported.ignored + notes)))
    lines = {name: draft.line for name, draft in schema.tables.items()}
    rows, notes = enum_references(resources, imported.rows, set(given), lines)
    if notes or rows != imported.rows:
        imported = replace(imported, rows=rows, ignored=sorted(set(imported.ignored + notes)))
    text, rules = document_policy(imported.spec, source="SQL schema")
    return replace(imported, spec=imported.spec.model_copy(update={"policy": text, "policy_rules": rules}))


# --------------------------------------------------------------------------- tables -> resources


def _whole_number_keys(schema: Schema) -> None:
    """Keys typed NUMERIC / NUMBER with no precision (Oracle's usual key type) are integer
    keys, and so are the same-typed columns that point at them: a key must be an integer
    or text, and a row is addressed by a whole number."""
    whole: set[tuple[str, str]] = set()
    for draft in schema.tables.values():
        for key in draft.keys or [c for u in draft.uniques[:1] for c in u]:
            if _unscaled(draft, key):
                draft.fields[key] = replace(draft.fields[key], kind="integer")
                whole.add((draft.name, key))
    for draft in schema.tables.values():
        for fk in draft.foreign:
            target = schema.tables.get(schema.by_original.get(fk.target.lower(), ""))
            if target is None or len(fk.columns) != 1:
                continue
            wanted = (
                target.column(fk.target_columns[0]) if fk.target_columns else next(iter(target.keys), None)
            )
            if (target.name, wanted) in whole and _unscaled(draft, fk.columns[0]):
                draft.fields[fk.columns[0]] = replace(draft.fields[fk.columns[0]], kind="integer")


def _unscaled(draft: TableDraft, column: str) -> bool:
    kind = draft.types.get(column)
    return (
        column in draft.fields
        and draft.fields[column].kind == "number"
        and kind is not None
        and kind.unscaled
    )


def _resources(schema: Schema) -> list[Resource]:
    _whole_number_keys(schema)
    resources: dict[str, Resource] = {}
    entities: set[str] = set()
    for draft in schema.tables.values():
        parent = schema.partitions.get(draft.original.lower())
        if parent is not None:
            schema.ignored.append(
                Ignored(
                    f"line {draft.line}",
                    "statement",
                    f"CREATE TABLE {draft.original}: a partition of {parent[0]}; its rows are rows of {parent[0]}",
                )
            )
            continue
        apply_checks(schema, draft)
        resource = _resource(schema, draft, entities)
        if resource is not None:
            resources[resource.name] = resource
            entities.add(resource.entity)
    return list(_link(schema, resources).values())


def _resource(schema: Schema, draft: TableDraft, entities: set[str]) -> Resource | None:
    where = f"line {draft.line}"
    keys = [k for k in draft.keys if k in draft.fields]
    if draft.keys and len(keys) != len(draft.keys):
        schema.ignored.append(
            Ignored(
                where,
                "statement",
                f"CREATE TABLE {draft.original}: its key uses a column that is not modelled",
            )
        )
        return None
    if not keys:
        candidates = [u for u in draft.uniques if all(not draft.fields[c].nullable for c in u)]
        if not candidates:
            schema.ignored.append(
                Ignored(
                    where,
                    "statement",
                    f"CREATE TABLE {draft.original}: no primary key or unique NOT NULL columns, so its rows cannot be addressed one by one",
                )
            )
            return None
        keys = list(min(candidates, key=lambda u: len(tuple(u))))
        schema.ignored.append(
            Ignored(
                where,
                "schema",
                f"{draft.original} has no primary key: its rows are addressed by its unique ({', '.join(keys)})",
            )
        )
    alone = [k for k in keys if (k,) in draft.uniques] if len(keys) > 1 else []  # key columns are NOT NULL
    if alone:  # a part of the key is unique by itself: it addresses the rows alone
        schema.ignored.append(
            Ignored(
                where,
                "schema",
                f"the key ({', '.join(keys)}) of {draft.original} is addressed by {alone[0]}, which is unique by itself",
            )
        )
        keys = [alone[0]]
    bad = [k for k in keys if draft.fields[k].kind not in ("integer", "string")]
    if bad:
        kind = draft.fields[bad[0]].kind
        schema.ignored.append(
            Ignored(
                where,
                "statement",
                f"CREATE TABLE {draft.original}: key column {bad[0]} is {kind}; keys must be integers or text",
            )
        )
        return None
    fields = dict(draft.fields)
    single = len(keys) == 1
    linked_key = single and any(fk.columns == (keys[0],) for fk in draft.foreign)
    if single and not linked_key:
        key = fields[keys[0]]
        style = "integer" if key.kind == "integer" else "uuid" if key.format == "uuid" else "prefix"
        fields[key.name] = replace(key, read_only=True, nullable=False, default=None, auto=None, unique=False)
        if key.name not in draft.auto:
            how = (
                "MAX + 1"
                if style == "integer"
                else "a new uuid"
                if style == "uuid"
                else "a new numbered text key"
            )
            schema.ignored.append(
                Ignored(
                    where,
                    "field",
                    f"{draft.original}.{key.name}: new rows get their key from the server ({how}); the schema has the client choose it",
                )
            )
    else:
        style = "client"
    for k in keys:
        fields[k] = replace(fields[k], nullable=False, auto=None)
    for columns in draft.uniques:
        if len(columns) > 1 and list(columns) != keys:
            schema.ignored.append(
                Ignored(
                    where,
                    "field",
                    f"UNIQUE ({', '.join(columns)}) of {draft.original}: uniqueness across columns is not enforced",
                )
            )
    entity = singular(draft.name) or draft.name
    if entity in entities:
        entity = draft.name
    if len(keys) > 1 and "id" in keys and f"{entity}_id" not in fields:
        # A composite key's "id" column is an argument called <entity>_id: the column is named
        # alike, so values of one row go together when probes and agents look them up by name.
        keys = [f"{entity}_id" if k == "id" else k for k in keys]
        _rename(draft, fields, "id", f"{entity}_id")
        schema.ignored.append(
            Ignored(
                where, "field", f"column id of {draft.original} is called {entity}_id, like the key argument"
            )
        )
    if keys == ["id"] and f"{entity}_id" in fields:  # the key's argument is called <entity>_id
        taken = f"{entity}_id"
        renamed = f"{taken}_"
        _rename(draft, fields, taken, renamed)
        schema.ignored.append(
            Ignored(
                where,
                "field",
                f"column {taken} of {draft.original} is called {renamed}: {taken} names the key argument",
            )
        )
    ordered = [fields[k] for k in keys] + [f for n, f in fields.items() if n not in keys]
    return Resource(
        name=draft.name,
        entity=entity,
        fields=tuple(ordered),
        keys=tuple(keys),
        id_style=style,  # type: ignore[arg-type]
        description=draft.description or f"Rows of the {draft.original} table.",
    )


def _rename(draft: TableDraft, fields: dict[str, Field], old: str, new: str) -> None:
    """Column ``old`` of ``draft`` is called ``new`` (its data and constraints follow)."""
    fields[new] = replace(fields.pop(old), name=new)
    draft.originals = {w: (new if n == old else n) for w, n in draft.originals.items()}
    draft.types[new] = draft.types.pop(old)
    draft.auto = {new if n == old else n for n in draft.auto}
    draft.indexed = {new if n == old else n for n in draft.indexed}
    draft.foreign = [
        replace(fk, columns=tuple(new if c == old else c for c in fk.columns)) for fk in draft.foreign
    ]


def _link(schema: Schema, resources: dict[str, Resource]) -> dict[str, Resource]:
    """Foreign keys -> ``Field.references``, for those the model can hold; the others listed."""
    out = dict(resources)
    for name, resource in resources.items():
        draft = schema.tables[name]
        fields = {f.name: f for f in resource.fields}
        for fk in draft.foreign:
            where = f"line {fk.line}"
            shown = f"FOREIGN KEY ({', '.join(fk.columns)}) of {draft.original} -> {fk.target}"
            target_name = schema.by_original.get(fk.target.lower())
            target = resources.get(target_name or "")
            if target is None:
                schema.ignored.append(
                    Ignored(
                        where,
                        "field",
                        f"{shown}: that table is not imported; the column is kept without the link",
                    )
                )
                continue
            if len(fk.columns) != 1 or len(target.keys) != 1:
                schema.ignored.append(
                    Ignored(
                        where,
                        "field",
                        f"{shown}: a foreign key over several columns cannot be modelled; the columns are kept without the link",
                    )
                )
                continue
            target_draft = schema.tables[target.name]
            wanted = target_draft.column(fk.target_columns[0]) if fk.target_columns else target.keys[0]
            column = fk.columns[0]
            if wanted != target.keys[0]:
                schema.ignored.append(
                    Ignored(
                        where,
                        "field",
                        f"{shown} ({fk.target_columns[0]}): it points at a column that is not the key; kept without the link",
                    )
                )
                continue
            if column not in fields or fields[column].references:
                continue
            key_kind = target.field(target.keys[0]).kind
            if _SQL_TYPE[fields[column].kind] != _SQL_TYPE[key_kind]:
                schema.ignored.append(
                    Ignored(
                        where,
                        "field",
                        f"{shown}: {column} is {fields[column].kind} but the key is {key_kind}; kept without the link",
                    )
                )
                continue
            fields[column] = replace(fields[column], references=target.name)
            actions = fk.actions.upper()
            for action in ("ON DELETE CASCADE", "ON DELETE SET NULL", "ON DELETE SET DEFAULT"):
                if action in actions:
                    schema.ignored.append(
                        Ignored(
                            where,
                            "field",
                            f"{action} on {column}: deletes are refused while rows point at a row",
                        )
                    )
        out[name] = replace(resource, fields=tuple(fields[f.name] for f in resource.fields))
    return out


def _plural(name: str) -> str:
    """``film_actor`` -> ``film_actors``, ``city`` -> ``cities``: for a list tool over a table named in the singular."""
    if name.endswith("y") and name[-2:-1] not in ("a", "e", "o", "u"):
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "ch", "sh")):
        return name + "es"
    return name + "s"


def _operations(table: Resource, draft: TableDraft) -> list[Operation]:
    composite = len(table.keys) > 1
    filters = tuple(
        f.name
        for f in table.fields
        if (f.name not in table.keys or (composite and f.references))
        and f.kind != "array"
        and f.format != "byte"
        and f.name not in ("limit", "offset")
        and (f.references or f.enum is not None or f.kind == "boolean" or f.name in draft.indexed)
    )
    label = table.entity.replace("_", " ")
    article = "an" if label[:1] in "aeiou" else "a"
    ops = [
        Operation("get", table.name, f"get_{table.entity}", f"Get one {label} by its key."),
        Operation(
            "list",
            table.name,
            f"list_{table.name}" if table.name != table.entity else f"list_{_plural(table.name)}",
            f"List {table.name.replace('_', ' ')}, filtered and paged.",
            filters=filters,
            pagination="offset",
        ),
        Operation("create", table.name, f"create_{table.entity}", f"Create {article} {label}."),
        Operation(
            "delete",
            table.name,
            f"delete_{table.entity}",
            f"Delete {article} {label} nothing else points at.",
        ),
    ]
    if table.writable:
        ops.insert(
            3,
            Operation(
                "update",
                table.name,
                f"update_{table.entity}",
                f"Change some fields of {article} {label}.",
                partial=True,
            ),
        )
    return ops


# --------------------------------------------------------------------------- the seed


def _seed_data(
    schema: Schema, resources: list[Resource], use_inserts: bool, max_rows: int
) -> tuple[Rows, list[Ignored]]:
    """The script's data as seed rows when it is to be used, and notes on what is not."""
    statements = data_tables(schema)
    imported = {r.name for r in resources}
    listed = {id(st) for sts in statements.values() for st in sts}
    notes = [
        Ignored(f"line {st.line}", "statement", "data for a table that is not imported")
        for st in schema.data
        if id(st) not in listed
    ]
    for n in statements:
        if n not in imported:
            notes.append(
                Ignored(
                    f"line {statements[n][0].line}", "statement", f"data of {n}: its table is not imported"
                )
            )
    covered = [n for n in statements if n in imported]
    if covered and not use_inserts:
        for n in covered:
            notes.append(
                Ignored(
                    f"line {statements[n][0].line}",
                    "statement",
                    f"data of {n} ({len(statements[n])} statements) is not the seed: use_inserts is off",
                )
            )
        return {}, notes
    if not covered:
        return {}, notes
    rows, data_notes = read_data(schema, resources, {n: statements[n] for n in covered}, max_rows)
    return rows, notes + data_notes


def _deletable(
    schema: Schema, resources: list[Resource], rows: Rows, seed: int
) -> tuple[Rows, list[Ignored]]:
    """A table whose rows are (nearly) all pointed at gets a few generated rows nothing
    points at, so its delete tool has something it may delete (listed in ignored).

    Children are handled before their parents, so rows added to a child are counted when
    its parents are looked at."""
    notes = []
    out = dict(rows)
    for r in reversed(_parents_first(resources)):
        table = out.get(r.name, [])
        if len(r.keys) != 1 or not table:
            continue
        referenced = {
            row[f.name]
            for other in resources
            for f in other.fields
            if f.references == r.name
            for row in out.get(other.name, [])
            if row[f.name] is not None
        }
        free = sum(1 for row in table if row[r.keys[0]] not in referenced)
        wanted = max(1, len(table) // 50)
        if not referenced or free >= wanted:
            continue
        added = extra_rows(resources, r.name, out, wanted - free, seed)
        if added:
            out[r.name] = table + added
            notes.append(
                Ignored(
                    f"line {schema.tables[r.name].line}",
                    "statement",
                    f"data of {r.name}: {len(added)} generated rows added that nothing points at, so a delete can succeed",
                )
            )
    return out, notes
