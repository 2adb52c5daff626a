"""The spec's declarations of an environment's tables and tools: ``TableSpec`` per resource
(SQL types, references, entities, how scoring compares a column, enum labels) and
``ToolSpec`` per operation (input and output schemas, entities, tables read and written,
intent, claims)."""

from __future__ import annotations

from typing import Literal

from envfactory_mcp.crud.arguments import inputs_of, interface, scope_of
from envfactory_mcp.crud.document import document_schema, output_name
from envfactory_mcp.crud.model import Operation, Resource, Schema
from envfactory_mcp.crud.tables import entity_of, item_schema, owned, paths_of, tables
from envfactory_mcp.crud.words import column_labels, is_prose
from envfactory_mcp.spec import ColumnSpec, TableSpec, ToolSpec

_SQL_TYPES: dict[str, Literal["TEXT", "INTEGER", "REAL"]] = {
    "string": "TEXT",
    "integer": "INTEGER",
    "number": "REAL",
    "boolean": "INTEGER",
    "array": "TEXT",
    "object": "TEXT",
    "json": "TEXT",
}


def table_spec(resource: Resource, by_name: dict[str, Resource]) -> TableSpec:
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
                entity=entity_of(f, resource, by_name),
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


def _row_schema(resource: Resource, by_name: dict[str, Resource]) -> Schema:
    props = {f.name: f.schema() for f in resource.fields}
    for child in owned(resource, by_name):
        assert child.owned_by is not None
        props[child.owned_by[1]] = {"type": "array", "items": item_schema(child, for_input=False)}
    paths = paths_of(resource, by_name)
    if paths:
        return document_schema(props, list(props), paths)
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def _output(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> tuple[Schema, dict[str, str]]:
    paths = paths_of(resource, by_name)
    entities = {
        output_name(f.name, paths): entity
        for f in resource.fields
        if (entity := entity_of(f, resource, by_name)) is not None
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


def intent_of(op: Operation, resource: Resource) -> str:
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
    inputs, _, _ = interface(op, resource, by_name, inputs_of(op, resource, by_name))
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
        intent=intent_of(op, resource),
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
