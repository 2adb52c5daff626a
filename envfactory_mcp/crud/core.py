"""The CRUD core: resources and CRUD operations -> an environment (importers and library).

An OpenAPI document and a set of CREATE TABLE statements describe the same thing: tables
of records and the usual operations on them. Both importers translate their input into
this small model (``Resource``, ``Field``, ``Operation``) and this module alone turns it
into the three parts of an environment: ``ToolSpec`` declarations with exact JSON Schemas
and entity annotations, the tool module source (rendered from
``templates/crud_tools.py.tmpl``), and deterministic seed rows. Keeping one back end means
one set of conventions, checked once by the verifier:

* list tools return ``{"items": [...], "total": n}`` plus their pagination fields;
* create and update return the stored row; delete returns the key and ``deleted: true``;
* new single-column keys come from the state (``MAX + 1``, or ``ctx.next_id``), never
  from the client, so the same call on the same state gives the same row;
* rows that others point at cannot be deleted (foreign keys are enforced by SQLite, and
  the tools check first so the agent gets a clear message).
"""

from __future__ import annotations

import builtins
import json
import string
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from envfactory_mcp.crud.document import (
    HELPERS,
    Paths,
    document_schema,
    output_name,
    output_paths,
    portable_name,
    python_name,
)
from envfactory_mcp.crud.model import (
    JSON_KINDS,
    NOW,
    UUID_PREFIX,
    Coverage,
    Field,
    Ignored,
    ImportedEnv,
    Operation,
    Resource,
    Rows,
    Schema,
    snake,
)
from envfactory_mcp.crud.seed_rows import generate_rows, key_shape
from envfactory_mcp.spec import ColumnSpec, EnvSpec, ParamSpec, SeedSpec, TableSpec, ToolSpec
from envfactory_mcp.spec.models import EnumLabel

_TEMPLATE = Path(__file__).parent / "templates" / "crud_tools.py.tmpl"
_SQL_TYPES: dict[str, Literal["TEXT", "INTEGER", "REAL"]] = {
    "string": "TEXT",
    "integer": "INTEGER",
    "number": "REAL",
    "boolean": "INTEGER",
    "array": "TEXT",
    "object": "TEXT",
    "json": "TEXT",
}
_PY_TYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list[Any]",
    "object": "dict[str, Any]",
    "json": "Any",
}

# --------------------------------------------------------------------------- the environment


def build_imported(
    *,
    name: str,
    title: str,
    description: str,
    source: str,
    generator: str,
    seed: int,
    resources: list[Resource],
    operations: list[Operation],
    ignored: list[Ignored],
    coverage: Coverage | None = None,
    given: Rows | None = None,
) -> ImportedEnv:
    """The spec, tool source and seed rows of ``resources`` served by ``operations``."""
    by_name = Tables(resources)
    tools = [tool_spec(op, by_name) for op in operations]
    spec = EnvSpec(
        name=name,
        title=title,
        domain=title,
        description=description or title,
        tables=[_table(r, by_name) for r in resources],
        tools=tools,
        policy="Act only on records the user asks about; confirm before deleting anything.",
        seed=SeedSpec(generator=generator, seed=seed),
    )
    source_text = render_tools(title, source, resources, operations)
    rows = agree_with_inputs(tools, resources, fit_rows(resources, generate_rows(resources, seed, given)))
    return ImportedEnv(spec, source_text, rows, sorted(set(ignored)), coverage or Coverage())


def agree_with_inputs(tools: list[ToolSpec], resources: list[Resource], rows: Rows) -> Rows:
    """Seed values of a free column made to agree with the values a tool accepts for an
    argument of the same name, where that tool's arguments are mostly that table's columns
    (a volume's ``type`` among the ``type`` values of its action's request). Generated text
    like 'Amber type' says less than the document's own values, and a call built from a
    row of the table (as the verifier's probes build them) then fits the tool."""
    columns = {r.name: {f.name: f for f in r.fields} for r in resources}
    wanted: dict[tuple[str, str], list[Any]] = {}
    for tool in tools:
        props = tool.input_schema.get("properties", {})
        # by column name: an argument may carry its document's name (``userStatus``)
        named = {snake(n): n for n in props if tool.params.get(n) is None or tool.params[n].entity is None}
        plain = set(named)
        scores = {name: len(plain & cols.keys()) for name, cols in columns.items()}
        best = max(scores.values(), default=0)
        if best < 2:
            continue
        for table in (name for name, score in scores.items() if score == best):
            keys = set(next(r.keys for r in resources if r.name == table))
            for name in plain & columns[table].keys():
                enum, f = props[named[name]].get("enum"), columns[table][name]
                kind = {"string": str, "integer": int}.get(f.kind)
                if not enum or f.enum is not None or f.unique or f.references or name in keys or kind is None:
                    continue
                values = wanted.setdefault((table, name), [])
                values += [
                    v for v in enum if isinstance(v, kind) and not isinstance(v, bool) and v not in values
                ]
    for (table, name), values in wanted.items():
        for i, row in enumerate(rows.get(table, [])):
            if values and row.get(name) is not None and row[name] not in values:
                row[name] = values[i % len(values)]
    return rows


SEED_ROWS = 800  # rows of all tables together, beyond which each top-level table keeps fewer (at least 4)


def fit_rows(resources: list[Resource], rows: Rows, budget: int | None = None) -> Rows:
    """Generated rows made to fit what the shared generator does not know: one row per
    singleton key, no rows in a log table, JSON columns holding JSON of their kind, and
    no more than about ``budget`` rows in all: an API of hundreds of tables gets a few rows
    per table (verifying it probes every tool, and each probe costs time per row)."""
    fitted: Rows = {}
    by_name = {r.name: r for r in resources}
    budget = SEED_ROWS if budget is None else budget
    total = sum(len(rows.get(r.name, [])) for r in resources)
    cap = max(4, budget // max(1, len(resources))) if total > budget else None
    for r in resources:
        table = [dict(row) for row in rows.get(r.name, [])]
        if r.parent is None:  # nested rows follow their parents (1-3 each), so they shrink too
            table = table[:cap]
        if r.log:
            table = []
        elif r.singleton and r.keys == ("id",):
            table = [{**table[0], "id": 1}] if table else []
        unique: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in table:
            for f in r.fields:
                if f.kind in ("object", "json") or (f.kind == "array" and f.item_kind in ("object", "json")):
                    row[f.name] = _json_value(f, row.get(f.name))
                target = by_name.get(f.references or "")
                if target is not None and target.singleton and target.keys == ("id",):
                    row[f.name] = 1  # everything points at the one row
            unique.setdefault(tuple(row.get(k) for k in r.keys), row)
        fitted[r.name] = list(unique.values())
    return _consistent(resources, fitted)


def _consistent(resources: list[Resource], rows: Rows) -> Rows:
    """Rows whose foreign keys point at rows that are gone (a trimmed singleton, a dropped
    duplicate) lose the reference, or point at another row when the column cannot be empty
    (the row goes only when no row is left to point at)."""
    by_name = {r.name: r for r in resources}
    changed = True
    while changed:
        changed = False
        present = {r.name: {row.get(r.keys[0]) for row in rows.get(r.name, [])} for r in resources}
        for r in resources:
            kept = []
            for row in rows.get(r.name, []):
                ok = True
                for f in r.fields:
                    target = by_name.get(f.references or "")
                    value = row.get(f.name)
                    if target is None or value is None or value in present[target.name]:
                        continue
                    others = rows.get(target.name, [])
                    if f.nullable:
                        row[f.name] = None
                    elif others and f.name not in r.keys:
                        row[f.name] = others[-1].get(target.keys[0])
                    else:
                        ok, changed = False, True
                kept.append(row) if ok else None
            rows[r.name] = kept
    return rows


def _json_value(f: Field, value: Any) -> Any:
    """A stored JSON value of the column's kind. Nullable ones are left empty: the verifier's
    probes copy seed values as stored (JSON text), which no object or array argument accepts."""
    if f.nullable:
        return None
    try:
        decoded = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        decoded = value
    if f.kind == "object":
        return json.dumps(decoded if isinstance(decoded, dict) else {}, sort_keys=True)
    if f.kind == "json":
        return json.dumps(decoded, sort_keys=True)
    items = decoded if isinstance(decoded, list) else []
    made = [v if isinstance(v, dict) else {} for v in items] if f.item_kind == "object" else items
    return json.dumps(made, sort_keys=True)


def _entity(f: Field, resource: Resource, by_name: dict[str, Resource]) -> str | None:
    """The entity whose key a column holds: its target's, or its own table's for a single key
    (or, for a key of another service, the entity it declares)."""
    if f.entity:
        return f.entity
    if f.references:
        return by_name[f.references].entity
    return resource.entity if resource.keys == (f.name,) else None


# --------------------------------------------------------------------------- how values are said

# Last words of the names of free-text columns an agent words itself (a ticket's description, a
# pet's care notes, why a booking was cancelled): scoring compares them by meaning, not bytes.
PROSE_NAMES = frozenset(
    {"description", "details", "notes", "note", "comment", "comments", "message", "summary", "reason"}
    | {"justification", "explanation"}
)


def phrase(text: object) -> str:
    """A value or a word for one as they are told apart: lower case, ``_`` and ``-`` as spaces."""
    return " ".join(str(text).replace("_", " ").replace("-", " ").lower().split())


def is_prose(f: Field) -> bool:
    """Free text an agent writes in its own words, told by the column's name (its last word is
    in :data:`PROSE_NAMES`): a writable string column with no vocabulary of its own (no enum,
    format, reference or key of another service)."""
    plain = f.enum is None and f.format is None and f.references is None and f.entity is None
    return f.kind == "string" and plain and not f.read_only and f.name.split("_")[-1] in PROSE_NAMES


def is_state(f: Field) -> bool:
    """An enum column saying where a row stands (``status``, ``state``, ``card_status``)."""
    return f.enum is not None and (f.name in ("status", "state") or f.name.endswith(("_status", "_state")))


def enum_labels(
    values: Iterable[object],
    display: Mapping[str, str] | None = None,
    words: Mapping[str, Iterable[str]] | None = None,
    *,
    drop_shared: bool = False,
) -> dict[str, EnumLabel]:
    """Per enum value (as a string): how a person says it (``display``, by default the value
    with spaces for underscores) and other ``words`` that mean it. No two values of a column
    may share a way of being said: a word (or display) that another value has or is, is an
    error (ValueError), or with ``drop_shared`` left out (a value whose display clashes gets
    no label). Words that only respell the value itself are left out."""
    names = [str(v) for v in values]
    shown = {v: (display or {}).get(v, v.replace("_", " ").strip()) for v in names}
    listed = {v: list((words or {}).get(v, ())) for v in names}
    unknown = sorted({*(display or {}), *(words or {})} - set(names))
    if unknown:
        raise ValueError(f"{', '.join(map(repr, unknown))} not among the values {names}")
    own = {v: {phrase(v), phrase(shown[v])} for v in names}

    def clash(value: str, said: str, *, words_too: bool = True) -> bool:
        others = [u for u in names if u != value]
        return any(said in own[u] or (words_too and said in map(phrase, listed[u])) for u in others)

    out: dict[str, EnumLabel] = {}
    for value in names:
        if not phrase(shown[value]) or clash(value, phrase(shown[value]), words_too=False):
            if drop_shared:
                continue
            raise ValueError(f"{value!r} is said {shown[value]!r}, as another value is")
        kept: list[str] = []
        for word in listed[value]:
            if clash(value, phrase(word)):
                if drop_shared:
                    continue
                raise ValueError(f"{word!r} would say {value!r} and another value too")
            if phrase(word) and phrase(word) not in own[value] | {phrase(k) for k in kept}:
                kept.append(word)
        out[value] = EnumLabel(display=shown[value], words=kept)
    return out


def column_labels(f: Field) -> dict[str, EnumLabel]:
    """The labels ``f`` declares, else for a state column each text value in words."""
    if f.labels is not None:
        return f.labels
    if not is_state(f):
        return {}
    return enum_labels([v for v in f.enum or () if isinstance(v, str)], drop_shared=True)


def _table(resource: Resource, by_name: dict[str, Resource]) -> TableSpec:
    columns = []
    for f in resource.fields:
        target = by_name[f.references] if f.references else None
        columns.append(
            ColumnSpec(
                name=f.name,
                type=_SQL_TYPES[f.kind],
                description=f.description,
                nullable=f.nullable,
                unique=f.unique,
                enum=list(f.enum) if f.enum is not None else None,
                check=f'"{f.name}" IN (0, 1)' if f.kind == "boolean" else None,
                references=f"{target.name}.{target.keys[0]}" if target else None,
                entity=_entity(f, resource, by_name),
                indexed=f.references is not None,
                compare=f.compare or ("text" if is_prose(f) else "exact"),
                enum_labels=column_labels(f),
            )
        )
    return TableSpec(
        name=resource.name,
        description=" ".join(resource.description.split()),  # one line: it becomes an SQL comment
        columns=columns,
        primary_key=list(resource.keys),
        entity=resource.entity,
    )


# --------------------------------------------------------------------------- tool declarations

Inputs = dict[str, tuple[Schema, ParamSpec, bool]]  # name -> (schema, param, required)


class Tables(dict[str, Resource]):
    """Resources by name, with who points at whom worked out once (large documents have hundreds)."""

    def __init__(self, resources: Any) -> None:
        super().__init__((r.name, r) for r in resources)
        self.owned: dict[str, list[Resource]] = {}
        self.children: dict[str, set[str]] = {}
        for r in self.values():
            if r.owned_by:
                self.owned.setdefault(r.owned_by[0], []).append(r)
            for f in r.fields:
                if f.references:
                    self.children.setdefault(f.references, set()).add(r.name)


def tables(by_name: dict[str, Resource]) -> Tables:
    return by_name if isinstance(by_name, Tables) else Tables(by_name.values())


def owned(resource: Resource, by_name: dict[str, Resource]) -> list[Resource]:
    """Tables holding an array property of ``resource`` (``owned_by``), in declaration order."""
    return tables(by_name).owned.get(resource.name, [])


def scope_of(op: Operation, resource: Resource) -> tuple[str, ...]:
    """The columns ``op``'s path binds (parent links), outermost first."""
    if op.scope is not None:
        return op.scope
    return (resource.parent,) if op.scoped and resource.parent else ()


def key_args(op: Operation, resource: Resource) -> dict[str, str]:
    """Key column -> argument name, for the keys ``op`` takes as arguments."""
    if resource.singleton and resource.keys == ("id",):
        return {}
    if op.kind in ("list", "find") or (op.kind in ("action", "record") and not op.keyed):
        return {}
    if op.kind == "create" and resource.id_style != "client":
        return {}
    scope = scope_of(op, resource)
    out = {}
    for key in resource.keys:
        if key in scope:
            continue  # a per-parent singleton: its key is its parent link
        name = resource.key_param(key) if len(resource.keys) == 1 else key  # parts of a key keep their names
        out[key] = key if name in scope else name
    return out


def _plain(f: Field, description: str | None = None) -> Schema:
    schema = {**f.schema(for_input=True), "type": f.kind}
    if f.kind == "json":
        del schema["type"]
    if description:
        schema["description"] = description
    return schema


def _ref_inputs(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> Inputs:
    """Scope and key arguments: ids that come from other tools."""
    inputs: Inputs = {}
    for column in scope_of(op, resource):
        f = resource.field(column)
        param = ParamSpec(entity=_entity(f, resource, by_name), user_provided=False)
        inputs[column] = (_plain(f), param, True)
    composite = len(resource.keys) > 1
    new = op.kind == "create"  # a key the client chooses for a new row: not one that exists
    for key, arg in key_args(op, resource).items():
        f = resource.field(key)
        entity = (
            by_name[f.references].entity if f.references else None if composite or new else resource.entity
        )
        schema = _plain(f, f"{resource.label} {key}.")
        if new and f.kind == "string" and "enum" not in schema:
            # A new key: any text will do. (The verifier reaches a create only with a key no
            # row has; it makes those from plain text bounds, not from formats or patterns.)
            schema["minLength"] = max(1, int(schema.get("minLength", 1)))
            if schema.pop("format", None) is not None:
                schema["description"] = f"{resource.label} {key} ({f.format}, new)."
        elif new and f.kind == "integer" and "maximum" not in schema and not f.references:
            schema["maximum"] = 2**31 - 1
        inputs[arg] = (schema, ParamSpec(entity=entity, user_provided=entity is None), True)
    return inputs


def _field_input(
    f: Field, by_name: dict[str, Resource], required: bool, *, changes: bool = False
) -> tuple[Schema, ParamSpec, bool]:
    """A column as an argument. ``changes``: of an update or action, where an optional field
    left out stays as it is (so it has no default: that would overwrite the stored value)."""
    entity = f.entity or (by_name[f.references].entity if f.references else None)
    schema = f.schema(for_input=True)
    if f.default is not None and not (changes and not required):
        schema["default"] = f.default
    return schema, ParamSpec(entity=entity, user_provided=entity is None), required


def _item_schema(child: Resource, *, for_input: bool) -> Schema:
    """One element of an owned array: the child's columns but its own key and owner link,
    each where the document writes it."""
    shown = [f for f in child.fields if f.name not in child.keys and f.name != child.parent]
    props = {f.name: f.schema(for_input=for_input) for f in shown}
    required = [f.name for f in shown if (f.required_on_create if for_input else True)]
    paths = output_paths(child, [])
    if paths:
        return document_schema(props, required, paths)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def paths_of(resource: Resource, by_name: dict[str, Resource]) -> Paths:
    """Where a row's columns and owned arrays sit in its output (``crud.document``)."""
    return output_paths(resource, owned(resource, by_name))


def shaped(resource: Resource, by_name: dict[str, Resource]) -> bool:
    """Whether a row of ``resource`` is shown in another shape than its columns."""
    return bool(paths_of(resource, by_name)) or any(output_paths(c, []) for c in owned(resource, by_name))


def field_names(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> list[str]:
    """The columns and owned arrays ``op`` takes as arguments (create, update, action)."""
    taken = set(scope_of(op, resource)) | set(key_args(op, resource))
    arrays = {c.owned_by[1] for c in owned(resource, by_name) if c.owned_by}
    if op.fields is None:
        names = [f.name for f in resource.writable]
    else:
        names = [n for n in op.fields if resource.has(n) or n in arrays]
    return [n for n in dict.fromkeys(names) if n not in taken and n not in resource.keys]


def _required(op: Operation, name: str, f: Field | None) -> bool:
    if op.required is not None:
        return name in op.required
    if f is None or op.partial:
        return False
    return f.required_on_create if op.kind == "create" or (op.kind == "update" and not op.upsert) else False


def _inputs(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> Inputs:
    inputs = _ref_inputs(op, resource, by_name)
    if op.kind == "list":
        for name in (*op.filters, *op.array_filters):
            f = resource.field(name)
            schema, param, _ = _field_input(f, by_name, False)
            schema = {k: v for k, v in schema.items() if k not in ("default", "description")}
            schema["type"] = f.item_kind if f.kind == "array" else f.kind
            schema.pop("items", None)
            if f.enum is not None:
                schema["enum"] = list(f.enum)
            if name in op.array_filters:
                schema = {"type": "array", "items": schema, "minItems": 1}
                text = f"Only {resource.name} with one of these {name.replace('_', ' ')} values."
            else:
                text = f"Only {resource.name} with this {name.replace('_', ' ')}."
            inputs[name] = ({**schema, "description": text}, param, False)
        if op.search:
            words: Schema = {
                "type": "string",
                "minLength": 1,
                "description": f"Text to look for in {resource.name}.",
            }
            inputs[op.search] = (words, ParamSpec(user_provided=True), False)
        for name in {"offset": ("limit", "offset"), "page": ("page", "per_page")}.get(op.pagination, ()):
            low, default = (0, 0) if name == "offset" else (1, 1) if name == "page" else (1, 20)
            number: Schema = {"type": "integer", "minimum": low, "default": default}
            if name in ("limit", "per_page"):
                number["maximum"] = 100
            inputs[name] = (number, ParamSpec(user_provided=True), False)
        return inputs
    if op.kind == "create" and resource.parent and op.scope is None and not op.scoped:
        inputs[resource.parent] = _field_input(resource.field(resource.parent), by_name, True)
    if op.kind == "record":
        for f in op.params:
            inputs[f.name] = _field_input(f, by_name, _required(op, f.name, f))
        return inputs
    if op.kind == "find":  # the values a person knows about themselves
        for name in op.fields or ():
            schema = {
                **resource.field(name).schema(for_input=True),
                "description": f"The {name.replace('_', ' ')}.",
            }
            inputs[name] = (schema, ParamSpec(user_provided=True), True)
        return inputs
    if op.kind in ("create", "update", "action"):
        children = {c.owned_by[1]: c for c in owned(resource, by_name) if c.owned_by}
        for name in field_names(op, resource, by_name):
            if name in children:
                items = _item_schema(children[name], for_input=True)
                schema = {"type": "array", "items": items, "description": f"The {name.replace('_', ' ')}."}
                inputs[name] = (schema, ParamSpec(user_provided=True), _required(op, name, None))
            else:
                f = resource.field(name)
                inputs[name] = _field_input(f, by_name, _required(op, name, f), changes=op.kind != "create")
    return inputs


def _interface(
    op: Operation, resource: Resource, by_name: dict[str, Resource], inputs: Inputs
) -> tuple[Inputs, list[str], set[str]]:
    """The arguments as the document writes them, the lines that take the columns out of
    them, and the arguments taken by keyword only (``_named``): a column found inside an
    object (``Field.path``) is a property of that object's argument (``detail:
    {"invoice_number": ...}``, not ``detail_invoice_number``); a batch create takes its rows
    as one array. Without either, ``inputs`` as they are. Arguments take the document's
    names (``_document_names``)."""
    columns = {f.name: f for f in op.params} if op.kind == "record" else {f.name: f for f in resource.fields}
    if op.kind == "find" or not inputs:  # a person's own values: named as their columns
        return inputs, [], set()
    if op.kind not in ("create", "update", "action", "record"):
        return _renamed(inputs, *_document_names(op, resource, by_name, inputs, inputs, columns, {}))
    taken = set(key_args(op, resource).values()) | set(scope_of(op, resource))
    raw_groups: dict[str, str] = {}
    nested: dict[str, dict[str, Any]] = {}  # group argument -> tree of {property: column | subtree}
    for name in inputs:
        f = columns.get(name) if name not in taken else None
        if f is None or len(f.path) < 2 or f.references:
            continue
        group = snake(f.path[0])
        if group in inputs or group in taken:
            continue  # a column of that name already: keep the flat form
        tree = nested.setdefault(group, {})
        raw_groups.setdefault(group, f.path[0])
        for part in f.path[1:-1]:
            tree = tree.setdefault(part, {})
            if not isinstance(tree, dict):
                break
        else:
            if f.path[-1] not in tree:
                tree[f.path[-1]] = name
    grouped = {c for tree in nested.values() for c in _leaves(tree)}
    shown: Inputs = {}
    lines: list[str] = []
    for name, entry in inputs.items():
        f = columns.get(name)
        if name not in grouped:
            shown[name] = entry
            continue
        group = snake(f.path[0]) if f is not None else name
        if group in shown:
            continue
        schema, required = _group_schema(nested[group], inputs)
        text = f"The {group.replace('_', ' ')}, as the document writes it."
        shown[group] = ({**schema, "description": text}, ParamSpec(user_provided=True), required)
        lines += _unpack(group, nested[group], inputs)
    outside, named = _document_names(op, resource, by_name, inputs, shown, columns, raw_groups)
    if not op.batch:
        shown, aliases, named = _renamed(shown, outside, named)
        return shown, aliases + lines, named
    rows = {k: v for k, v in shown.items() if k not in taken}
    lines = [
        f"{group} = _item.get({outside.get(group, group)!r})" for group in nested if group in rows
    ] + lines
    item: Schema = {
        "type": "object",
        "properties": {outside.get(k, k): schema for k, (schema, _, _) in rows.items()},
        "required": [outside.get(k, k) for k, (_, _, req) in rows.items() if req],
        "additionalProperties": False,
    }
    batch: Schema = {
        "type": "array",
        "items": item,
        "minItems": 1,
        "maxItems": 100,
        "description": f"The {resource.name.replace('_', ' ')} to create, one object each.",
    }
    out, aliases, named = _renamed({k: v for k, v in shown.items() if k in taken}, outside, named)
    out[op.batch] = (batch, ParamSpec(user_provided=True), True)
    flat = [
        f"{n} = _item.get({outside.get(n, n)!r}, {inputs[n][0].get('default')!r})"
        for n in rows
        if n in inputs
    ]
    return out, aliases + flat + lines, named


def _document_names(
    op: Operation,
    resource: Resource,
    by_name: dict[str, Resource],
    inputs: Inputs,
    shown: Inputs,
    columns: dict[str, Field],
    groups: dict[str, str],
) -> tuple[dict[str, str], set[str]]:
    """Argument -> the name the document gives it, where that differs and no other argument
    has it (``photo_urls`` -> ``photoUrls``, ``pet_id`` -> ``id``, ``timers_inactive`` ->
    ``Timers.Inactive``); and of those names, the ones the function takes by keyword only
    (``**_named``): names that are no Python parameter, or would be a builtin's, a column's
    or a generated local's."""
    raw: dict[str, str] = dict(op.names)
    for name in shown:
        f = columns.get(name)
        if name in groups:
            raw.setdefault(name, groups[name])
        elif f is not None and len(f.path) == 1:
            raw.setdefault(name, f.path[0])
    for child in owned(resource, by_name):
        if child.owned_by and child.document_name:
            raw.setdefault(child.owned_by[1], child.document_name)
    for key, arg in key_args(op, resource).items():  # a key the body holds (``PUT /pet``: ``id``)
        f = resource.field(key) if resource.has(key) else None
        if f is not None and len(f.path) == 1:
            raw.setdefault(arg, f.path[0])
    used = set(inputs) | set(shown) | set(columns) | {f.name for f in resource.fields} | {"ctx"}
    final = set(shown) | {"ctx"}  # the names the tool's arguments end up with
    out: dict[str, str] = {}
    named: set[str] = set()
    for name in shown:
        name_raw = raw.get(name)
        if not name_raw or name_raw == name or name_raw in final or not portable_name(name_raw):
            continue
        out[name] = name_raw
        final.add(name_raw)
        if not python_name(name_raw) or name_raw in used or name_raw in _BUILTINS:
            named.add(name_raw)
        used.add(name_raw)
    return out, named


_BUILTINS = frozenset(dir(builtins))


def _renamed(inputs: Inputs, outside: dict[str, str], named: set[str]) -> tuple[Inputs, list[str], set[str]]:
    """``inputs`` under their document names, the lines that give the body its own names
    back, and the names taken by keyword only (``_named['Timers.Inactive']``)."""
    if not outside:
        return inputs, [], set()
    renamed = {outside.get(k, k): v for k, v in inputs.items()}
    lines: list[str] = []
    for k, v in outside.items():
        if k not in inputs:
            continue
        if v not in named:
            lines.append(f"{k} = {v}")
        elif inputs[k][2]:
            lines.append(f"{k} = _named[{v!r}]")
        else:
            lines.append(f"{k} = _named.get({v!r}, {inputs[k][0].get('default')!r})")
    return renamed, lines, {v for k, v in outside.items() if k in inputs and v in named}


def _leaves(tree: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for value in tree.values():
        out += _leaves(value) if isinstance(value, dict) else [value]
    return out


def _group_schema(tree: dict[str, Any], inputs: Inputs) -> tuple[Schema, bool]:
    props: dict[str, Schema] = {}
    required: list[str] = []
    for prop, value in tree.items():
        if isinstance(value, dict):
            props[prop], needed = _group_schema(value, inputs)
        else:
            schema, _, needed = inputs[value]
            props[prop] = {k: v for k, v in schema.items() if k != "default"}
        if needed:
            required.append(prop)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}, bool(
        required
    )


def _unpack(source: str, tree: dict[str, Any], inputs: Inputs) -> list[str]:
    """``column = (group or {}).get('prop', default)`` for each column inside an object argument."""
    lines: list[str] = []
    holder = f"({source} or {{}})"
    for prop, value in tree.items():
        if isinstance(value, dict):
            lines += _unpack(f"{holder}.get({prop!r})", value, inputs)
        else:
            lines.append(f"{value} = {holder}.get({prop!r}, {inputs[value][0].get('default')!r})")
    return lines


def _row_schema(resource: Resource, by_name: dict[str, Resource]) -> Schema:
    props = {f.name: f.schema() for f in resource.fields}
    for child in owned(resource, by_name):
        assert child.owned_by is not None
        props[child.owned_by[1]] = {"type": "array", "items": _item_schema(child, for_input=False)}
    paths = paths_of(resource, by_name)
    if paths:
        return document_schema(props, list(props), paths)
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def _output(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> tuple[Schema, dict[str, str]]:
    paths = paths_of(resource, by_name)
    entities = {
        output_name(f.name, paths): entity
        for f in resource.fields
        if (entity := _entity(f, resource, by_name)) is not None
    }
    if op.kind == "record":
        log = by_name[op.log or ""]
        return _row_schema(log, by_name), {"id": log.entity}
    if op.kind == "find":
        key = resource.keys[0]
        found = {resource.key_param(key): {"type": resource.field(key).kind}}
        schema = {
            "type": "object",
            "properties": found,
            "required": list(found),
            "additionalProperties": False,
        }
        return schema, {resource.key_param(key): resource.entity}
    if op.kind == "delete":
        keys = {k: {"type": resource.field(k).kind} for k in resource.keys}
        schema = {
            "type": "object",
            "properties": {**keys, "deleted": {"type": "boolean", "const": True}},
            "required": [*resource.keys, "deleted"],
            "additionalProperties": False,
        }
        keyed = {output_name(k, paths): k for k in resource.keys}
        return schema, {keyed[k]: v for k, v in entities.items() if k in keyed}
    if op.kind != "list" and not op.batch:
        return _row_schema(resource, by_name), entities
    props: dict[str, Schema] = {
        "items": {"type": "array", "items": _row_schema(resource, by_name)},
        "total": {"type": "integer"},
    }
    for name in {"offset": ("limit", "offset"), "page": ("page", "per_page")}.get(op.pagination, ()):
        props[name] = {"type": "integer"}
    schema = {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}
    return schema, {f"items[].{k}": v for k, v in entities.items()}


def _intent(op: Operation, resource: Resource) -> str:
    if op.intent:
        return op.intent
    if op.kind == "list":
        return f"list {resource.name.replace('_', ' ')}"
    if op.kind in ("action", "record", "find"):
        return op.name.replace("_", " ")
    article = "an" if resource.label[0] in "AEIOU" else "a"
    return f"{op.kind} {article} {resource.entity.replace('_', ' ')}"


def tool_spec(op: Operation, by_name: dict[str, Resource]) -> ToolSpec:
    """The declaration of one operation: schemas, entities, tables read and written, claims."""
    by_name = tables(by_name)
    resource = by_name[op.resource]
    inputs, _, _ = _interface(op, resource, by_name, _inputs(op, resource, by_name))
    output, outputs = _output(op, resource, by_name)
    parents = {by_name[f.references].name for f in resource.fields if f.references}
    children = by_name.children.get(resource.name, set())
    mine = {c.name for c in owned(resource, by_name)}
    reads = {resource.name} | mine
    writes = {resource.name} | mine
    scoped_list = op.kind == "list" and any(resource.field(c).references for c in scope_of(op, resource))
    if scoped_list or op.kind in ("create", "update", "action"):
        reads |= parents
    elif op.kind == "delete":  # SQLite reads the parents while it checks the foreign keys
        reads |= children | parents
    elif op.kind == "record":
        reads |= parents | {op.log or ""}
        writes = {op.log or ""}
    status = [f.name for f in resource.fields if f.enum is not None and f.name in ("status", "state")]
    claims = {
        "create": [] if op.batch else [*resource.keys, *status],
        "update": status,
        "delete": ["deleted"],
        "action": [c for c, _ in op.sets if resource.has(c)],
    }.get(op.kind, [])
    if op.kind in ("create", "update", "action"):
        paths = paths_of(resource, by_name)
        claims = [output_name(c, paths) for c in claims]
    read = op.kind in ("get", "list", "find")
    return ToolSpec(
        name=op.name,
        description=op.description,
        intent=_intent(op, resource),
        effect="read" if read else "write",
        reads=sorted(reads),
        writes=[] if read else sorted(writes),
        input_schema={
            "type": "object",
            "properties": {k: schema for k, (schema, _, _) in inputs.items()},
            "required": [k for k, (_, _, required) in inputs.items() if required],
            "additionalProperties": False,
        },
        output_schema=output,
        params={k: param for k, (_, param, _) in inputs.items()},
        outputs=outputs,
        claims=claims,
        idempotent=True if (op.kind == "update" and not op.partial) or op.kind == "action" else None,
    )


# --------------------------------------------------------------------------- tool code


def render_tools(title: str, source: str, resources: list[Resource], operations: list[Operation]) -> str:
    """The tool module: fixed helpers from the template plus one small function per operation."""
    by_name = Tables(resources)

    def per_table(pick: Any) -> str:
        found = {r.name: value for r in resources if (value := pick(r))}
        return repr(found)

    children: dict[str, list[tuple[str, str, str]]] = {}
    for r in resources:
        for f in r.fields:
            if f.references and not (r.owned_by and f.name == r.parent):
                children.setdefault(f.references, []).append((r.name, f.name, r.name.replace("_", " ")))
    owned_arrays = {
        r.name: tuple(
            (c.owned_by[1], c.name, c.parent, r.keys[0], c.keys[0], _defaults(c))
            for c in owned(r, by_name)
            if c.owned_by
        )
        for r in resources
        if owned(r, by_name)
    }
    return string.Template(_TEMPLATE.read_text()).substitute(
        title=title,
        source=source,
        booleans=per_table(lambda r: tuple(f.name for f in r.fields if f.kind == "boolean")),
        json_columns=per_table(lambda r: tuple(f.name for f in r.fields if f.kind in JSON_KINDS)),
        references=per_table(
            lambda r: tuple(
                (f.name, f.references, by_name[f.references].keys[0], by_name[f.references].label)
                for f in r.fields
                if f.references
            )
        ),
        children=repr({k: tuple(v) for k, v in sorted(children.items())}),
        owned=repr(owned_arrays),
        unique=per_table(lambda r: tuple(f.name for f in r.fields if f.unique and f.name not in r.keys)),
        tools=_document_helpers(resources, by_name) + "".join(_function(op, by_name) for op in operations),
    )


def _document_helpers(resources: list[Resource], by_name: Tables) -> str:
    """``DOCUMENT``, ``_doc`` and ``_flat`` (``crud.document``), only where a table is shown in
    its document's shape: other modules stay as they were."""
    document = {r.name: paths for r in resources if (paths := paths_of(r, by_name))}
    if not any(shaped(r, by_name) for r in resources):
        return ""
    return string.Template(HELPERS).substitute(document=repr(document))


def _shown(resource: Resource, by_name: dict[str, Resource], row: str) -> str:
    """The expression that shows ``row`` of ``resource``: in its document's shape when it has one."""
    table = repr(resource.name)
    shown = f"_show(ctx, {table}, {row})"
    return f"_doc({table}, {shown})" if shaped(resource, by_name) else shown


def _defaults(resource: Resource) -> dict[str, Any]:
    return {
        f.name: f.default for f in resource.fields if f.default is not None and f.name not in resource.keys
    }


def _annotation(schema: Schema, required: bool) -> str:
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    text = _PY_TYPES.get(str(kind), "Any")
    return text + (" | None" if not required and "default" not in schema and text != "Any" else "")


def _function(op: Operation, by_name: dict[str, Resource]) -> str:
    resource = by_name[op.resource]
    inputs = _inputs(op, resource, by_name)
    shown, unpack, named = _interface(op, resource, by_name, inputs)
    table, label = repr(resource.name), repr(resource.label)
    args = key_args(op, resource)
    scope = scope_of(op, resource)
    if resource.singleton and resource.keys == ("id",):
        keys = "{'id': 1}"
    else:
        keys = "{" + ", ".join(f"{k!r}: {args.get(k, k)}" for k in resource.keys) + "}"
    where = "{" + ", ".join(f"{c!r}: {c}" for c in scope if c not in resource.keys) + "}" if scope else "None"
    required = [n for n, (_, _, req) in shown.items() if req and n not in named]
    optional = [n for n, (_, _, req) in shown.items() if not req and n not in named]
    params = [f"{n}: {_annotation(shown[n][0], True)}" for n in required]
    params += [f"{n}: {_annotation(shown[n][0], False)} = {shown[n][0].get('default')!r}" for n in optional]
    if named:  # arguments the document names otherwise than Python can (``Timers.Inactive``, ``from``)
        params.append("**_named: Any")
    body: list[str]
    if op.kind == "get":
        body = [f"return {_shown(resource, by_name, f'_one(ctx, {table}, {label}, {keys}, {where})')}"]
    elif op.kind == "find":
        body = _find_body(op, resource)
    elif op.kind == "delete":
        body = [
            f"_keys = {keys}",
            f"_row = _one(ctx, {table}, {label}, _keys, {where})",
            *_guard(op, resource),
            f"_delete(ctx, {table}, {label}, _keys)",
            'return {**_keys, "deleted": True}',
        ]
    elif op.kind == "list":
        body = _list_body(op, resource, by_name)
    elif op.kind == "create" and op.batch:
        one = _create_body(op, resource, by_name, inputs)
        body = ["_made = []", f"for _item in {op.batch}:"]
        body += [f"    {line}" for line in unpack]
        body += [f"    {line}" for line in one[:-1]]
        body += [f"    _made.append({one[-1].removeprefix('return ')})"]
        body += ['return {"items": _made, "total": len(_made)}']
        unpack = []
    elif op.kind == "create":
        body = _create_body(op, resource, by_name, inputs)
    elif op.kind == "record":
        body = _record_body(op, resource, by_name, keys, where, inputs)
    else:
        body = _change_body(op, resource, by_name, inputs, keys, where)
    doc = op.description.replace("\\", "\\\\").replace('"""', "'''").strip()
    lines = [f"def {op.name}(ctx: ToolContext, {', '.join(params)}) -> dict[str, Any]:".replace(", )", ")")]
    lines.append(f'    """{doc}"""' if "\n" not in doc else f'    """{doc}\n    """')
    lines += [f"    {line}" for line in [*unpack, *body]]
    return "\n\n" + "\n".join(lines) + "\n"


def _parent_checks(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> list[str]:
    """For each scope column pointing at another table: that row must exist."""
    body = []
    for column in scope_of(op, resource):
        target = resource.field(column).references
        if target and target != resource.name:
            parent = by_name[target]
            body.append(f"_one(ctx, {parent.name!r}, {parent.label!r}, {{{parent.keys[0]!r}: {column}}})")
    return body


def _list_body(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> list[str]:
    table = repr(resource.name)
    body = _parent_checks(op, resource, by_name)
    filters = {name: name for name in (*op.filters, *op.array_filters)}
    for column in scope_of(op, resource):
        filters[column] = column
    texts = tuple(
        f.name for f in resource.fields if f.kind == "string" and f.enum is None and f.format is None
    )
    search = f"({op.search}, {texts!r})" if op.search and texts else "(None, ())"
    limit, offset = {"offset": ("limit", "offset"), "page": ("per_page", "(page - 1) * per_page")}.get(
        op.pagination, ("-1", "0")
    )
    mapping = "{" + ", ".join(f"{k!r}: {v}" for k, v in filters.items()) + "}"
    body.append(
        f"_items, _total = _page(ctx, {table}, {mapping}, {search}, {resource.keys!r}, {limit}, {offset})"
    )
    extra = {"offset": ("limit", "offset"), "page": ("page", "per_page")}.get(op.pagination, ())
    shown = f'"items": [{_shown(resource, by_name, "_r")} for _r in _items]'
    body.append("return {" + ", ".join([shown, '"total": _total', *(f"{n!r}: {n}" for n in extra)]) + "}")
    return body


def _arrays(resource: Resource, by_name: dict[str, Resource], names: list[str]) -> str:
    """The owned arrays given, as rows of their tables (taken in the document's shape)."""
    given = []
    for c in owned(resource, by_name):
        if c.owned_by and c.owned_by[1] in names:
            p = c.owned_by[1]
            given.append(f"{p!r}: _flat({c.name!r}, {p})" if output_paths(c, []) else f"{p!r}: {p}")
    return "{" + ", ".join(given) + "}" if given else ""


def _create_body(
    op: Operation, resource: Resource, by_name: dict[str, Resource], inputs: Inputs
) -> list[str]:
    table, label = repr(resource.name), repr(resource.label)
    names = [n for n in inputs if resource.has(n) and n not in resource.keys]
    if op.fields is None:  # the legacy form: every writable column (and the parent link)
        names = [f.name for f in resource.writable] + ([resource.parent] if resource.parent else [])
    values = [f"{n!r}: {n}" for n in dict.fromkeys([*names, *scope_of(op, resource)]) if n in inputs]
    values += _server_values(resource, inputs)
    args = key_args(op, resource)
    values += [f"{k!r}: {a}" for k, a in args.items()]
    body = ["_row = {" + ", ".join(values) + "}", f"_check(ctx, {table}, _row, None)"]
    key = resource.keys[0]
    if resource.id_style == "client" or args:
        body.append(f"_absent(ctx, {table}, {label}, {{k: _row[k] for k in {resource.keys!r}}})")
    elif resource.id_style == "integer":
        body.append(
            f'_row[{key!r}] = ctx.scalar(\'SELECT COALESCE(MAX("{key}"), 0) + 1 FROM "{resource.name}"\')'
        )
    else:
        prefix, width = (UUID_PREFIX, 12) if resource.id_style == "uuid" else _key_shape(resource)
        body.append(f"_row[{key!r}] = ctx.next_id({table}, {key!r}, {prefix!r}, {width})")
    body.append(f"_row = _insert(ctx, {table}, {label}, _row, {resource.keys!r})")
    if arrays := _arrays(resource, by_name, list(inputs)):
        body.append(f"_put_owned(ctx, {table}, _row, {arrays})")
    body.append(f"return {_shown(resource, by_name, '_row')}")
    return body


def _server_values(resource: Resource, inputs: Inputs) -> list[str]:
    """``column: value`` of what a new row gets without an argument: the clock, or a default."""
    values = []
    for f in resource.fields:
        if f.name in inputs or f.name in resource.keys:
            continue
        if f.auto:
            values.append(f"{f.name!r}: ctx.now" + ("[:10]" if f.auto == "today" else ""))
        elif f.default is not None:
            values.append(f"{f.name!r}: {f.default!r}")
    return values


def _key_shape(resource: Resource) -> tuple[str, int]:
    """Prefix and digits of new text keys, as the seed rows number them."""
    return key_shape(resource)


def _change_body(
    op: Operation, resource: Resource, by_name: dict[str, Resource], inputs: Inputs, keys: str, where: str
) -> list[str]:
    """update and action: the row must exist (unless an upsert), then the given columns change."""
    table, label = repr(resource.name), repr(resource.label)
    names = [n for n in field_names(op, resource, by_name) if n in inputs and resource.has(n)]
    given = [n for n in names if inputs[n][2]]
    maybe = [n for n in names if not inputs[n][2]]
    arrays = _arrays(resource, by_name, list(inputs))
    body = [f"_keys = {keys}"]
    changes = [f"{n!r}: {n}" for n in given]
    for column, value in op.sets:
        changes.append(f"{column!r}: ctx.now" if value == NOW else f"{column!r}: {value!r}")
    body.append("_changes = {" + ", ".join(changes) + "}")
    if maybe:
        optional = "{" + ", ".join(f"{n!r}: {n}" for n in maybe) + "}"
        body.append(f"_changes.update({{k: v for k, v in {optional}.items() if v is not None}})")
    if op.upsert:
        scoped = [c for c in scope_of(op, resource) if c not in resource.keys]
        fixed = "".join(f"{v}, " for v in _server_values(resource, inputs))
        fixed += "".join(  # a new row takes the defaults of what was left out
            f"{n!r}: {resource.field(n).default!r}, " for n in maybe if resource.field(n).default is not None
        )
        row = "{" + fixed + "**_keys, " + "".join(f"{c!r}: {c}, " for c in scoped) + "**_changes}"
        body += [
            f"if ctx.one('SELECT 1 FROM \"{resource.name}\" WHERE ' + _where(_keys), tuple(_keys.values())) is None:",
            f"    _row = {row}",
            f"    _check(ctx, {table}, _row, None)",
            f"    _row = _insert(ctx, {table}, {label}, _row, {resource.keys!r})",
        ]
        if arrays:
            body.append(f"    _put_owned(ctx, {table}, _row, {arrays})")
        body.append(f"    return {_shown(resource, by_name, '_row')}")
    body.append(f"_row = _one(ctx, {table}, {label}, _keys, {where})")
    body += _guard(op, resource)
    status = [c for c, v in op.sets if v != NOW and resource.field(c).enum is not None]
    for column in status:
        value = dict(op.sets)[column]
        if op.guard is not None and op.guard.column == column and value not in op.guard.allowed:
            continue  # the guard already refuses a row in that state
        body += [
            f"if _row[{column!r}] == {value!r}:",
            f"    ctx.fail({resource.label + ' '!r} + str(_row[{resource.keys[0]!r}]) + {' is already ' + str(value) + '.'!r})",
        ]
    if op.kind == "update" and op.partial and maybe and not given:
        shown = ", ".join(maybe)
        test = "not _changes" + (f" and all(v is None for v in {arrays}.values())" if arrays else "")
        body += [f"if {test}:", f'    ctx.fail("Nothing to update: give at least one of {shown}.")']
    body.append(f"_row = _update(ctx, {table}, {label}, _keys, _changes)")
    if arrays:
        body.append(f"_put_owned(ctx, {table}, _row, {arrays})")
    body.append(f"return {_shown(resource, by_name, '_row')}")
    return body


def _guard(op: Operation, resource: Resource) -> list[str]:
    """The business rule on the target row: refused, with the rule's reason, in any other state."""
    if op.guard is None:
        return []
    column, allowed = op.guard.column, tuple(op.guard.allowed)
    said = f"{resource.label} " + "{} is " + "{}" + f": {op.guard.reason}."
    return [
        f"if _row[{column!r}] not in {allowed!r}:",
        f"    ctx.fail({said!r}.format(_row[{resource.keys[0]!r}], _row[{column!r}]))",
    ]


def _find_body(op: Operation, resource: Resource) -> list[str]:
    """A key looked up by columns the row is unique by; a clear failure when none matches."""
    names = list(op.fields or ())
    key = resource.keys[0]
    said = " and ".join(n.replace("_", " ") for n in names)
    return [
        "_match = {" + ", ".join(f"{n!r}: {n}" for n in names) + "}",
        f'_row = ctx.one(\'SELECT "{key}" FROM "{resource.name}" WHERE \' + _where(_match), tuple(_match.values()))',
        "if _row is None:",
        f"    ctx.fail({f'No {resource.label.lower()} with that {said}.'!r})",
        f"return {{{resource.key_param(key)!r}: _row[{key!r}]}}",
    ]


def _record_body(
    op: Operation, resource: Resource, by_name: dict[str, Resource], keys: str, where: str, inputs: Inputs
) -> list[str]:
    table, label = repr(resource.name), repr(resource.label)
    body = []
    target = "None"
    if not resource.log:
        if op.keyed:
            body.append(f"_one(ctx, {table}, {label}, {keys}, {where})")
            target = keys
        elif where != "None":
            body += _parent_checks(op, resource, by_name)
            target = where
    details = "{" + ", ".join(f"{f.name!r}: {f.name}" for f in op.params if f.name in inputs) + "}"
    on = "None" if resource.log else table
    body.append(f"return _record(ctx, {op.log!r}, {op.name!r}, {on}, {target}, {details})")
    return body
