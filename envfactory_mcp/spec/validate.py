"""Consistency checks a spec must pass beyond its field types.

Each failure raises ``SpecError`` whose ``where`` names the exact place, e.g.
``tools[cancel_order].writes[1]`` or ``tables[orders].columns[user_id].references``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema_rs

from envfactory_mcp.errors import SpecError
from envfactory_mcp.spec.models import EnvSpec, TableSpec, ToolSpec

_ENUM_TYPES = {"TEXT": str, "INTEGER": int}


def validate_spec(spec: EnvSpec) -> EnvSpec:
    """Check cross-references and schemas; return the spec unchanged or raise ``SpecError``."""
    _check_unique([t.name for t in spec.tables], "tables", "table")
    tables = {t.name: t for t in spec.tables}
    for table in spec.tables:
        _check_table(table, tables)
    _check_unique([t.name for t in spec.tools], "tools", "tool")
    for tool in spec.tools:
        _check_tool(tool, tables)
    _check_policy_rules(spec)
    _check_shared_entities(spec)
    return spec


def _check_shared_entities(spec: EnvSpec) -> None:
    known = {t.entity for t in spec.tables if t.entity} | {
        p.entity for t in spec.tools for p in t.params.values() if p.entity
    }
    for i, entity in enumerate(spec.shared_entities):
        if entity not in known:
            raise SpecError(
                f"shared_entities[{i}]",
                f"{entity!r} is not an entity of any table or tool parameter of this spec",
            )


def _check_policy_rules(spec: EnvSpec) -> None:
    """Every tool, table, column and output path the policy rules name exists, and has the
    role the rule gives it (an authentication tool returns the user, a confirmed tool writes)."""
    rules = spec.policy_rules
    tools = {t.name: t for t in spec.tools}
    here = "policy_rules"

    def tool(name: str, where: str) -> ToolSpec:
        if name not in tools:
            raise SpecError(where, f"unknown tool {name!r}")
        return tools[name]

    if rules.authentication is not None:
        auth = rules.authentication
        for i, name in enumerate(auth.tools):
            found = tool(name, f"{here}.authentication.tools[{i}]")
            if auth.entity not in found.outputs.values():
                raise SpecError(
                    f"{here}.authentication.tools[{i}]", f"{name} does not return a {auth.entity!r} id"
                )
        for i, name in enumerate(auth.exempt):
            tool(name, f"{here}.authentication.exempt[{i}]")
    for i, name in enumerate(rules.confirm):
        if tool(name, f"{here}.confirm[{i}]").effect != "write":
            raise SpecError(f"{here}.confirm[{i}]", f"{name} is a read tool; only writes need confirmation")
    owners = {t.entity: t for t in spec.tables if t.entity}
    for i, rule in enumerate(rules.refusals):
        where = f"{here}.refusals[{i}]"
        if tool(rule.tool, f"{where}.tool").effect != "write":
            raise SpecError(f"{where}.tool", f"{rule.tool} is a read tool; refusal rules restrict writes")
        shown = tool(rule.shown_by, f"{where}.shown_by")
        if "[]" in rule.path or not _path_exists(shown.output_schema, rule.path, leaf=True):
            raise SpecError(f"{where}.path", f"{rule.path!r} is not one value of {rule.shown_by}'s output")
        table = owners.get(rule.entity)
        if table is None:
            raise SpecError(f"{where}.entity", f"no table holds the entity {rule.entity!r}")
        if table.column(rule.column) is None:
            raise SpecError(f"{where}.column", f"table {table.name!r} has no column {rule.column!r}")
    if rules.transfer is not None:
        tool(rules.transfer.tool, f"{here}.transfer.tool")
    for i, name in enumerate(rules.utilities):
        tool(name, f"{here}.utilities[{i}]")
    if rules.calculator is not None:
        calc = tool(rules.calculator, f"{here}.calculator")
        if list(calc.input_schema.get("properties", {})) != ["expression"]:
            raise SpecError(f"{here}.calculator", f"{calc.name} must take exactly one 'expression' argument")


def _check_unique(names: list[str], where: str, what: str) -> None:
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise SpecError(f"{where}[{i}]", f"duplicate {what} {name!r}")
        seen.add(name)


def _check_table(table: TableSpec, tables: dict[str, TableSpec]) -> None:
    here = f"tables[{table.name}]"
    _check_unique([c.name for c in table.columns], f"{here}.columns", "column")
    for i, key in enumerate(table.primary_key):
        if table.column(key) is None:
            raise SpecError(f"{here}.primary_key[{i}]", f"unknown column {key!r}")
    for column in table.columns:
        col_here = f"{here}.columns[{column.name}]"
        if column.enum is not None:
            expected = _ENUM_TYPES.get(column.type)
            if expected is None:
                raise SpecError(
                    f"{col_here}.enum", f"enum is only allowed on TEXT or INTEGER, not {column.type}"
                )
            for j, value in enumerate(column.enum):
                if not isinstance(value, expected) or isinstance(value, bool):
                    raise SpecError(f"{col_here}.enum[{j}]", f"{value!r} is not a {column.type} value")
        if column.enum_labels:
            values = {str(v) for v in column.enum or []}
            for value in column.enum_labels:
                if value not in values:
                    raise SpecError(
                        f"{col_here}.enum_labels[{value}]",
                        f"{value!r} is not one of the column's enum values",
                    )
        if column.compare == "text" and (column.type != "TEXT" or column.enum is not None):
            raise SpecError(
                f"{col_here}.compare", "only a TEXT column without an enum holds free text ('text')"
            )
        if column.references is not None:
            ref_table, ref_column = column.references.split(".")
            target = tables.get(ref_table)
            if target is None:
                raise SpecError(f"{col_here}.references", f"dangling foreign key: no table {ref_table!r}")
            target_col = target.column(ref_column)
            if target_col is None:
                raise SpecError(
                    f"{col_here}.references",
                    f"dangling foreign key: table {ref_table!r} has no column {ref_column!r}",
                )
            if target.primary_key != [ref_column] and not target_col.unique:
                raise SpecError(
                    f"{col_here}.references",
                    f"{column.references} is neither the primary key of {ref_table!r} nor unique",
                )
            if target_col.type != column.type:
                raise SpecError(
                    f"{col_here}.references",
                    f"type {column.type} does not match {column.references} ({target_col.type})",
                )


def _check_tool(tool: ToolSpec, tables: dict[str, TableSpec]) -> None:
    here = f"tools[{tool.name}]"
    for field in ("reads", "writes"):
        names: list[str] = getattr(tool, field)
        for i, name in enumerate(names):
            if name not in tables:
                raise SpecError(f"{here}.{field}[{i}]", f"unknown table {name!r}")
    if tool.effect == "read" and tool.writes:
        raise SpecError(f"{here}.writes", "a read tool cannot declare written tables")
    if tool.effect == "write" and not tool.writes:
        raise SpecError(f"{here}.writes", "a write tool must declare at least one written table")
    for field in ("input_schema", "output_schema"):
        schema = getattr(tool, field)
        _check_json_schema(schema, f"{here}.{field}")
        if schema.get("type") != "object":
            raise SpecError(f"{here}.{field}.type", "must be 'object' (MCP tools take and return objects)")
    properties: dict[str, Any] = tool.input_schema.get("properties", {})
    for name in properties:
        if name not in tool.params:
            raise SpecError(
                f"{here}.params", f"input property {name!r} has no ParamSpec (is it user-provided?)"
            )
    for name in tool.params:
        if name not in properties:
            raise SpecError(f"{here}.params[{name}]", "not a property of the input schema")
    for path in tool.outputs:
        if not _path_exists(tool.output_schema, path):
            raise SpecError(f"{here}.outputs[{path}]", "path does not exist in the output schema")
    for i, path in enumerate(tool.claims):
        if path.count("[]") > 1 or not _path_exists(tool.output_schema, path):
            raise SpecError(
                f"{here}.claims[{i}]", f"{path!r} is not a path to one value of the output schema"
            )
        if "[]" in path and not any(p.startswith(path.split("[]")[0] + "[].") for p in tool.outputs):
            # A claim about one element of a list: the user names the element by its entity.
            raise SpecError(
                f"{here}.claims[{i}]", f"{path!r}: the list's elements carry no entity the user could name"
            )


def _check_json_schema(schema: dict[str, Any], where: str) -> None:
    found = _schema_error_remembered(schema)
    if found is not None:
        inner, message = found
        raise SpecError(f"{where}{'/' + inner if inner else ''}", f"invalid JSON Schema: {message}")


_CHECKED: dict[str, tuple[str, str] | None] = {}  # a schema's JSON -> its ``_schema_error``
_CHECKED_MAX = 4096


def _schema_error_remembered(schema: dict[str, Any]) -> tuple[str, str] | None:
    """``_schema_error``, remembered by the schema's JSON: checking a schema against the
    metaschema costs ~14 ms, and a spec is validated several times (a build validates it
    three times) with the same few schemas."""
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):
        return _schema_error(schema)
    if key not in _CHECKED:
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = _schema_error(schema)
    return _CHECKED[key]


def _schema_error(schema: dict[str, Any]) -> tuple[str, str] | None:
    """(path inside the schema, message) of its first metaschema error, or None.

    The ``jsonschema`` package is the judge, but importing it costs ~0.1 s of every command
    that loads a spec (a rollout's host, ``tasks``) and its check ~14 ms a schema, so a
    schema jsonschema-rs finds valid against the metaschema, whose regular expressions
    Python compiles, and that names no other schema or URI, is valid without asking it: in
    that case the two agree (``tests/spec/test_schema_check.py``). Anything else, valid or
    not, is judged by ``jsonschema`` as before (its message and path)."""
    if _plainly_valid(schema):
        return None
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return "/".join(str(p) for p in exc.absolute_path), exc.message
    return None


# Keywords whose values ``jsonschema`` may check as URIs (where an URI checker is
# installed) or that make it load another metaschema: such a schema is always its to judge.
_REFERENCING = frozenset(
    {"$schema", "$id", "$ref", "$dynamicRef", "$dynamicAnchor", "$anchor", "$vocabulary"}
)


def _plainly_valid(schema: Any) -> bool:
    try:
        if not jsonschema_rs.meta.is_valid(schema):
            return False
    except Exception:  # noqa: BLE001 - whatever jsonschema-rs cannot judge, jsonschema does
        return False
    try:
        return _regexes_compile(schema)
    except RecursionError:
        return False


def _regexes_compile(node: Any) -> bool:
    """Whether every ``pattern`` string and ``patternProperties`` key under ``node``
    compiles as a Python regular expression (the ``regex`` format ``jsonschema`` checks)
    and no ``_REFERENCING`` keyword appears (values such as ``const`` included: a false
    alarm only sends the schema to ``jsonschema``)."""
    if isinstance(node, list):
        return all(_regexes_compile(item) for item in node)
    if not isinstance(node, dict):
        return True
    if not _REFERENCING.isdisjoint(node):
        return False
    patterns = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
    if isinstance(node.get("patternProperties"), dict):
        patterns += [key for key in node["patternProperties"] if isinstance(key, str)]
    for pattern in patterns:
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError):
            return False
    return all(_regexes_compile(value) for value in node.values())


def _path_exists(schema: dict[str, Any], path: str, leaf: bool = False) -> bool:
    """Follow 'a.b[].c' through object properties and array items; with ``leaf``, the
    path must end at one value (not an object or a list)."""
    node: dict[str, Any] | None = schema
    for part in path.split("."):
        is_array = part.endswith("[]")
        key = part[:-2] if is_array else part
        if node is None:
            return False
        node = node.get("properties", {}).get(key)
        if node is None:
            return False
        if is_array:
            if node.get("type") != "array":
                return False
            node = node.get("items")
    if node is not None and leaf and node.get("type") in ("object", "array"):
        return False
    return node is not None
