"""A tool's arguments: the scope and key columns an operation binds, each column or owned
array it takes (schema, entity, required), list filters and pagination, and the interface as
the document writes it (columns nested in an object argument, a batch's array, the
document's own names, those taken by keyword only)."""

from __future__ import annotations

import builtins
from typing import Any

from envfactory_mcp.crud.document import portable_name, python_name
from envfactory_mcp.crud.model import Field, Operation, Resource, Schema, snake
from envfactory_mcp.crud.tables import entity_of, item_schema, owned
from envfactory_mcp.spec import ParamSpec

Inputs = dict[str, tuple[Schema, ParamSpec, bool]]  # name -> (schema, param, required)


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
        param = ParamSpec(entity=entity_of(f, resource, by_name), user_provided=False)
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


def inputs_of(op: Operation, resource: Resource, by_name: dict[str, Resource]) -> Inputs:
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
                items = item_schema(children[name], for_input=True)
                schema = {"type": "array", "items": items, "description": f"The {name.replace('_', ' ')}."}
                inputs[name] = (schema, ParamSpec(user_provided=True), _required(op, name, None))
            else:
                f = resource.field(name)
                inputs[name] = _field_input(f, by_name, _required(op, name, f), changes=op.kind != "create")
    return inputs


def interface(
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
