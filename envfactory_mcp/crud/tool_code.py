"""The tool module's source: the fixed helpers of ``templates/crud_tools.py.tmpl`` filled in
with each table's facts, then one small function per operation (get, find, list, create,
update, action, delete, record), each body generated from the operation."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from envfactory_mcp.crud.arguments import Inputs, field_names, inputs_of, interface, key_args, scope_of
from envfactory_mcp.crud.document import HELPERS, output_paths
from envfactory_mcp.crud.model import JSON_KINDS, NOW, UUID_PREFIX, Operation, Resource, Schema
from envfactory_mcp.crud.seed_rows import key_shape
from envfactory_mcp.crud.tables import Tables, owned, paths_of, shaped

_TEMPLATE = Path(__file__).parent / "templates" / "crud_tools.py.tmpl"


_PY_TYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list[Any]",
    "object": "dict[str, Any]",
    "json": "Any",
}


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
    inputs = inputs_of(op, resource, by_name)
    shown, unpack, named = interface(op, resource, by_name, inputs)
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
        prefix, width = (
            (UUID_PREFIX, 12) if resource.id_style == "uuid" else key_shape(resource)
        )  # as the seed rows number them
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
