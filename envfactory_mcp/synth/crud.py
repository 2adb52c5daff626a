"""The shared core of the resource importers: resources and CRUD operations -> an environment.

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

import keyword
import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.spec import ColumnSpec, EnvSpec, ParamSpec, SeedSpec, TableSpec, ToolSpec

Kind = Literal["string", "integer", "number", "boolean", "array"]
OpKind = Literal["get", "list", "create", "update", "delete"]
Schema = dict[str, Any]
Rows = dict[str, list[dict[str, Any]]]

_TEMPLATE = Path(__file__).parent / "templates" / "crud_tools.py.tmpl"
_SQL_TYPES: dict[str, Literal["TEXT", "INTEGER", "REAL"]] = {
    "string": "TEXT",
    "integer": "INTEGER",
    "number": "REAL",
    "boolean": "INTEGER",
    "array": "TEXT",
}
_PY_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list[Any]"}
UUID_PREFIX = "00000000-0000-4000-8000-"


class ResourceImportError(EnvFactoryError):
    """A resource (OpenAPI document, SQL DDL) uses something the importers cannot represent.

    ``where`` names the place: a JSON pointer (``#/paths/~1pets/get``) or ``line 12``.
    """

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Field:
    """One column of a resource, with what its JSON Schema and seed values need."""

    name: str
    kind: Kind
    description: str = ""
    nullable: bool = False
    enum: tuple[str | int, ...] | None = None
    format: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    unique: bool = False
    references: str | None = None  # name of the resource this column points at
    default: Any = None  # used on create when the argument is left out
    auto: Literal["now", "today"] | None = None  # set from the clock on create
    read_only: bool = False  # never an argument (server-set keys, timestamps)
    item_kind: Kind = "string"  # for arrays

    def schema(self, *, for_input: bool = False) -> Schema:
        """The JSON Schema of this column's value, as output (nullable) or input."""
        node: Schema = {"type": self.kind}
        if self.kind == "array":
            node["items"] = {"type": self.item_kind}
        if self.enum is not None:
            node["enum"] = list(self.enum)
        if for_input:
            if self.format:
                node["format"] = self.format
            if self.minimum is not None:
                node["minimum"] = self.minimum
            if self.maximum is not None:
                node["maximum"] = self.maximum
            if self.max_length is not None:
                node["maxLength"] = self.max_length
        if self.nullable:
            node["type"] = [self.kind, "null"]
            if self.enum is not None:
                node["enum"] = [*self.enum, None]
        if self.description:
            node["description"] = self.description
        return node

    @property
    def required_on_create(self) -> bool:
        return not (self.nullable or self.read_only or self.auto or self.default is not None)


@dataclass(frozen=True)
class Resource:
    """A table of records: its columns, key, and how new keys are made."""

    name: str  # table name, plural snake_case
    entity: str  # singular, the entity type of its key
    fields: tuple[Field, ...]  # every column, keys included
    keys: tuple[str, ...]
    id_style: Literal["integer", "prefix", "uuid", "client"] = "integer"
    parent: str | None = None  # the column that nests it under another resource's path
    description: str = ""

    @property
    def label(self) -> str:
        return self.entity.replace("_", " ").capitalize()

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)

    def key_param(self, key: str) -> str:
        """Argument name of a key column: ``pet_id`` for a column called ``id``."""
        return f"{self.entity}_id" if key == "id" else key

    @property
    def writable(self) -> tuple[Field, ...]:
        """Columns a create or update takes as arguments (the parent link is a path argument)."""
        return tuple(
            f
            for f in self.fields
            if not f.read_only and not f.auto and f.name not in self.keys and f.name != self.parent
        )


@dataclass(frozen=True)
class Operation:
    """One tool: a CRUD operation on one resource."""

    kind: OpKind
    resource: str
    name: str
    description: str
    scoped: bool = False  # the parent key is an argument (nested path)
    partial: bool = False  # PATCH: every field optional
    filters: tuple[str, ...] = ()
    search: str | None = None  # argument name of a free-text search over text columns
    pagination: Literal["none", "offset", "page"] = "none"


IgnoredKind = Literal[
    "operation", "parameter", "field", "schema", "content", "security", "statement", "document"
]


@dataclass(frozen=True, order=True)
class Ignored:
    """One part of a resource that is not (or not fully) in the environment, and why.

    ``where`` is a JSON pointer (``#/paths/~1pets/get``) or ``line 12``; ``kind`` says
    what sort of part it is, so a fidelity report can count operations, parameters,
    fields and statements apart."""

    where: str
    kind: IgnoredKind
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True)
class Coverage:
    """How much of a resource became the environment: the fidelity report's figures.

    ``operations``: the document's operations (OpenAPI: one per path and method) or
    state-defining statements (SQL: ``CREATE TABLE``); ``served``: of those, the ones
    the environment serves (a tool, or a table); ``fields`` / ``fields_kept``: the
    properties or columns seen, and those kept as columns."""

    operations: int = 0
    served: int = 0
    fields: int = 0
    fields_kept: int = 0


@dataclass(frozen=True)
class ImportedEnv:
    """What an importer produces: the parts ``assemble_env`` takes, and what it left out, with why."""

    spec: EnvSpec
    tools_source: str
    rows: Rows
    ignored: list[Ignored] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)

    def notes(self) -> list[str]:
        """``ignored`` as one line each: ``<where>: <reason>``."""
        return [str(item) for item in self.ignored]


def snake(name: str) -> str:
    """``petId`` / ``Pet-ID`` / ``class`` -> ``pet_id`` / ``pet_id`` / ``class_``: a valid column and argument name."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    if not text or not text[0].isalpha():
        text = f"x_{text}"
    text = text[:60]
    return f"{text}_" if keyword.iskeyword(text) or text in ("ctx", "changes") else text


def singular(name: str) -> str:
    for plural, one in (("ies", "y"), ("sses", "ss"), ("ses", "s"), ("xes", "x")):
        if name.endswith(plural):
            return name[: -len(plural)] + one
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


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
) -> ImportedEnv:
    """The spec, tool source and seed rows of ``resources`` served by ``operations``."""
    by_name = {r.name: r for r in resources}
    tables = [_table(r, by_name) for r in resources]
    tools = [tool_spec(op, by_name) for op in operations]
    spec = EnvSpec(
        name=name,
        title=title,
        domain=title,
        description=description or title,
        tables=tables,
        tools=tools,
        policy="Act only on records the user asks about; confirm before deleting anything.",
        seed=SeedSpec(generator=generator, seed=seed),
    )
    source_text = render_tools(title, source, resources, operations)
    from envfactory_mcp.synth.seed_rows import generate_rows  # it builds on this module's types

    return ImportedEnv(
        spec, source_text, generate_rows(resources, seed), sorted(set(ignored)), coverage or Coverage()
    )


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
                entity=target.entity if target else (resource.entity if resource.keys == (f.name,) else None),
                indexed=f.references is not None,
            )
        )
    return TableSpec(
        name=resource.name,
        description=resource.description,
        columns=columns,
        primary_key=list(resource.keys),
        entity=resource.entity,
    )


# --------------------------------------------------------------------------- tool declarations

Inputs = dict[str, tuple[Schema, ParamSpec, bool]]  # name -> (schema, param, required)


def _key_inputs(resource: Resource, by_name: dict[str, Resource], scoped: bool) -> Inputs:
    inputs: Inputs = {}
    if scoped and resource.parent:
        link = resource.field(resource.parent)
        parent = by_name[link.references or ""]
        inputs[link.name] = (
            {**link.schema(for_input=True), "type": link.kind},
            ParamSpec(entity=parent.entity, user_provided=False),
            True,
        )
    for key in resource.keys:
        f = resource.field(key)
        # A part of a composite key that is no foreign key (a line number, a date) names no entity.
        entity = by_name[f.references].entity if f.references else (resource.entity if len(resource.keys) == 1 else None)
        schema = {**f.schema(for_input=True), "type": f.kind, "description": f"{resource.label} {key}."}
        inputs[resource.key_param(key)] = (schema, ParamSpec(entity=entity, user_provided=False), True)
    return inputs


def _field_input(f: Field, by_name: dict[str, Resource], required: bool) -> tuple[Schema, ParamSpec, bool]:
    entity = by_name[f.references].entity if f.references else None
    schema = f.schema(for_input=True)
    if f.default is not None:
        schema["default"] = f.default
    return schema, ParamSpec(entity=entity, user_provided=entity is None), required


def _inputs(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> Inputs:
    if op.kind == "list":
        inputs = _key_inputs(resource, by_name, op.scoped)
        inputs = {
            k: v for k, v in inputs.items() if k not in [resource.key_param(key) for key in resource.keys]
        }
        for name in op.filters:
            f = resource.field(name)
            schema, param, _ = _field_input(f, by_name, False)
            schema = {k: v for k, v in schema.items() if k != "default"}
            schema.update(
                type=f.kind, description=f"Only {resource.name} with this {name.replace('_', ' ')}."
            )
            if f.enum is not None:
                schema["enum"] = list(f.enum)
            inputs[name] = (schema, param, False)
        if op.search:
            text = {"type": "string", "minLength": 1, "description": f"Text to look for in {resource.name}."}
            inputs[op.search] = (text, ParamSpec(user_provided=True), False)
        numbers = {"offset": ("limit", "offset"), "page": ("page", "per_page")}.get(op.pagination, ())
        for name in numbers:
            low, default = (0, 0) if name == "offset" else (1, 1) if name == "page" else (1, 20)
            schema = {"type": "integer", "minimum": low, "default": default}
            if name in ("limit", "per_page"):
                schema["maximum"] = 100
            inputs[name] = (schema, ParamSpec(user_provided=True), False)
        return inputs
    inputs = _key_inputs(resource, by_name, op.scoped)
    if op.kind == "create" and resource.id_style != "client":
        inputs = {
            k: v for k, v in inputs.items() if k not in [resource.key_param(key) for key in resource.keys]
        }
    if op.kind == "create" and resource.parent and not op.scoped:  # a nested resource created at the top
        inputs[resource.parent] = _field_input(resource.field(resource.parent), by_name, True)
    if op.kind in ("create", "update"):
        for f in resource.writable:
            inputs[f.name] = _field_input(f, by_name, f.required_on_create and not op.partial)
    return inputs


def _row_schema(resource: Resource) -> Schema:
    return {
        "type": "object",
        "properties": {f.name: f.schema() for f in resource.fields},
        "required": [f.name for f in resource.fields],
        "additionalProperties": False,
    }


def _output(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> tuple[Schema, dict[str, str]]:
    entities = {
        f.name: (by_name[f.references].entity if f.references else resource.entity)
        for f in resource.fields
        if f.references or resource.keys == (f.name,)
    }
    if op.kind == "delete":
        keys = {k: {"type": resource.field(k).kind} for k in resource.keys}
        schema = {
            "type": "object",
            "properties": {**keys, "deleted": {"type": "boolean", "const": True}},
            "required": [*resource.keys, "deleted"],
            "additionalProperties": False,
        }
        return schema, {k: v for k, v in entities.items() if k in resource.keys}
    if op.kind != "list":
        return _row_schema(resource), entities
    props: dict[str, Schema] = {
        "items": {"type": "array", "items": _row_schema(resource)},
        "total": {"type": "integer"},
    }
    for name in {"offset": ("limit", "offset"), "page": ("page", "per_page")}.get(op.pagination, ()):
        props[name] = {"type": "integer"}
    schema = {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}
    return schema, {f"items[].{k}": v for k, v in entities.items()}


def tool_spec(op: Operation, by_name: dict[str, Resource]) -> ToolSpec:
    """The declaration of one operation: schemas, entities, tables read and written, claims."""
    resource = by_name[op.resource]
    inputs = _inputs(op, resource, by_name)
    output, outputs = _output(op, resource, by_name)
    parents = {by_name[f.references].name for f in resource.fields if f.references}
    children = {r.name for r in by_name.values() for f in r.fields if f.references == resource.name}
    reads = {resource.name}
    if (op.kind == "list" and op.scoped) or op.kind in ("create", "update"):
        reads |= parents
    elif op.kind == "delete":  # SQLite reads the parents while it checks the foreign keys
        reads |= children | parents
    status = [f.name for f in resource.fields if f.enum is not None and f.name in ("status", "state")]
    claims = {
        "create": [*resource.keys, *status],
        "update": status,
        "delete": ["deleted"],
    }.get(op.kind, [])
    article = "an" if resource.label[0] in "AEIOU" else "a"
    return ToolSpec(
        name=op.name,
        description=op.description,
        intent=f"list {resource.name}" if op.kind == "list" else f"{op.kind} {article} {resource.entity}",
        effect="read" if op.kind in ("get", "list") else "write",
        reads=sorted(reads),
        writes=[] if op.kind in ("get", "list") else [resource.name],
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
        idempotent=True if op.kind == "update" and not op.partial else None,
    )


# --------------------------------------------------------------------------- tool code


def render_tools(title: str, source: str, resources: list[Resource], operations: list[Operation]) -> str:
    """The tool module: fixed helpers from the template plus one small function per operation."""
    by_name = {r.name: r for r in resources}

    def per_table(pick: Any) -> str:
        found = {r.name: value for r in resources if (value := pick(r))}
        return repr(found)

    children: dict[str, list[tuple[str, str, str]]] = {}
    for r in resources:
        for f in r.fields:
            if f.references:
                children.setdefault(f.references, []).append((r.name, f.name, r.name.replace("_", " ")))
    return string.Template(_TEMPLATE.read_text()).substitute(
        title=title,
        source=source,
        booleans=per_table(lambda r: tuple(f.name for f in r.fields if f.kind == "boolean")),
        json_columns=per_table(lambda r: tuple(f.name for f in r.fields if f.kind == "array")),
        references=per_table(
            lambda r: tuple(
                (f.name, f.references, by_name[f.references].keys[0], by_name[f.references].label)
                for f in r.fields
                if f.references
            )
        ),
        children=repr({k: tuple(v) for k, v in sorted(children.items())}),
        unique=per_table(lambda r: tuple(f.name for f in r.fields if f.unique and f.name not in r.keys)),
        tools="".join(_function(op, by_name) for op in operations),
    )


def _function(op: Operation, by_name: dict[str, Resource]) -> str:
    resource = by_name[op.resource]
    inputs = _inputs(op, resource, by_name)
    table, label = repr(resource.name), repr(resource.label)
    keys = "{" + ", ".join(f"{k!r}: {resource.key_param(k)}" for k in resource.keys) + "}"
    scope = f"{{{resource.parent!r}: {resource.parent}}}" if op.scoped and resource.parent else "None"
    required = [n for n, (_, _, req) in inputs.items() if req]
    optional = [n for n, (_, _, req) in inputs.items() if not req]
    fields = [f.name for f in resource.writable]

    def annotation(name: str) -> str:
        schema = inputs[name][0]
        kind = schema["type"][0] if isinstance(schema["type"], list) else schema["type"]
        return _PY_TYPES[kind] + (" | None" if not inputs[name][2] and "default" not in schema else "")

    params = [f"{n}: {annotation(n)}" for n in required]
    if op.kind == "update" and op.partial:
        params.append("**changes: Any")
    else:
        params += [f"{n}: {annotation(n)} = {inputs[n][0].get('default')!r}" for n in optional]
    body: list[str]
    if op.kind == "get":
        body = [f"return _out({table}, _one(ctx, {table}, {label}, {keys}, {scope}))"]
    elif op.kind == "delete":
        body = [
            f"keys = {keys}",
            f"_one(ctx, {table}, {label}, keys, {scope})",
            f"_delete(ctx, {table}, {label}, keys)",
            'return {**keys, "deleted": True}',
        ]
    elif op.kind == "list":
        body = _list_body(op, resource, by_name)
    elif op.kind == "create":
        body = _create_body(op, resource, fields)
    else:
        body = [f"keys = {keys}", f"_one(ctx, {table}, {label}, keys, {scope})"]
        if op.partial:
            names = ", ".join(fields)
            body += ["if not changes:", f'    ctx.fail("Nothing to update: give at least one of {names}.")']
        else:
            body.append("changes = {" + ", ".join(f"{n!r}: {n}" for n in fields) + "}")
        body.append(f"return _update(ctx, {table}, {label}, keys, changes)")
    doc = op.description.replace("\\", "\\\\").replace('"""', "'''").strip()
    lines = [f"def {op.name}(ctx: ToolContext, {', '.join(params)}) -> dict[str, Any]:".replace(", )", ")")]
    lines.append(f'    """{doc}"""' if "\n" not in doc else f'    """{doc}\n    """')
    lines += [f"    {line}" for line in body]
    return "\n\n" + "\n".join(lines) + "\n"


def _list_body(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> list[str]:
    table = repr(resource.name)
    body = []
    filters = {name: name for name in op.filters}
    if op.scoped and resource.parent:
        parent = by_name[resource.field(resource.parent).references or ""]
        body.append(
            f"_one(ctx, {parent.name!r}, {parent.label!r}, {{{parent.keys[0]!r}: {resource.parent}}})"
        )
        filters[resource.parent] = resource.parent
    texts = tuple(
        f.name for f in resource.fields if f.kind == "string" and f.enum is None and f.format is None
    )
    search = f"({op.search}, {texts!r})" if op.search else "(None, ())"
    limit, offset = {"offset": ("limit", "offset"), "page": ("per_page", "(page - 1) * per_page")}.get(
        op.pagination, ("-1", "0")
    )
    mapping = "{" + ", ".join(f"{k!r}: {v}" for k, v in filters.items()) + "}"
    body.append(
        f"items, total = _page(ctx, {table}, {mapping}, {search}, {resource.keys!r}, {limit}, {offset})"
    )
    extra = {"offset": ("limit", "offset"), "page": ("page", "per_page")}.get(op.pagination, ())
    body.append(
        "return {" + ", ".join(['"items": items', '"total": total', *(f"{n!r}: {n}" for n in extra)]) + "}"
    )
    return body


def _create_body(op: Operation, resource: Resource, fields: list[str]) -> list[str]:
    table, label = repr(resource.name), repr(resource.label)
    values = [f"{n!r}: {n}" for n in fields]
    if resource.parent:
        values.append(f"{resource.parent!r}: {resource.parent}")
    for f in resource.fields:
        if f.auto:
            values.append(f"{f.name!r}: ctx.now" + ("[:10]" if f.auto == "today" else ""))
        elif f.read_only and f.default is not None and f.name not in resource.keys:
            values.append(f"{f.name!r}: {f.default!r}")
    key = resource.keys[0]
    if resource.id_style == "client":
        values += [f"{k!r}: {resource.key_param(k)}" for k in resource.keys]
    body = ["row = {" + ", ".join(values) + "}", f"_check(ctx, {table}, row, None)"]
    if resource.id_style == "client":
        body.append(f"_absent(ctx, {table}, {label}, {{k: row[k] for k in {resource.keys!r}}})")
    elif resource.id_style == "integer":
        body.append(
            f'row[{key!r}] = ctx.scalar(\'SELECT COALESCE(MAX("{key}"), 0) + 1 FROM "{resource.name}"\')'
        )
    else:
        from envfactory_mcp.synth.seed_rows import key_shape  # new text keys fit the key's length

        prefix, width = (UUID_PREFIX, 12) if resource.id_style == "uuid" else key_shape(resource)
        body.append(f"row[{key!r}] = ctx.next_id({table}, {key!r}, {prefix!r}, {width})")
    body.append(f"return _insert(ctx, {table}, {label}, row, {resource.keys!r})")
    return body


# --------------------------------------------------------------------------- seed rows
