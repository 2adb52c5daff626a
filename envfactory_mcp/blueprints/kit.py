"""What a hand-crafted blueprint declares its tables and tools with: the column builder,
JSON Schema pieces and the tool builder, one home for all of them (each blueprint's
``spec_tables.py`` and ``spec_tools.py`` import these).

``tool(..., inputs={"order_id": (string(...), param("order", True))}, ...)`` pairs each
argument's schema with its :class:`~envfactory_mcp.spec.ParamSpec` (the entity it names,
whether the user provides it), so the two never drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from envfactory_mcp.crud.words import enum_labels
from envfactory_mcp.spec import ColumnSpec, ParamSpec, TableSpec, ToolSpec

Schema = dict[str, Any]
Inputs = dict[str, tuple[Schema, ParamSpec]]


def col(name: str, type_: str = "TEXT", description: str = "", **kw: object) -> ColumnSpec:
    """One column of a table (``kw``: the other ``ColumnSpec`` fields)."""
    return ColumnSpec(name=name, type=type_, description=description, **kw)


# How the card brands the blueprints' payment methods share are written.
CARD_BRAND_NAMES = {
    "visa": "Visa",
    "mastercard": "Mastercard",
    "amex": "American Express",
    "discover": "Discover",
}


def worded(
    tables: list[TableSpec],
    words: Mapping[str, Mapping[str, Iterable[str]]],
    display: Mapping[str, Mapping[str, str]] | None = None,
    *,
    text: Iterable[str] = (),
) -> list[TableSpec]:
    """``tables`` with how people say their values, for scoring to read answers and state by
    meaning. Every text enum column gets a label per value: its ``display`` name (by default
    the value with spaces for underscores) and the other ``words`` a customer-service agent
    would use for it and for no other value of the column (checked), both keyed
    ``'table.column'``. The ``text`` columns hold free text an agent words itself (a
    ticket's description): compared by the facts they carry, not byte for byte."""
    display = display or {}
    named = {f"{t.name}.{c.name}" for t in tables for c in t.columns}
    unknown = sorted({*words, *display, *text} - named)
    if unknown:
        raise ValueError(f"no such columns: {', '.join(unknown)}")
    out = []
    for table in tables:
        columns = []
        for column in table.columns:
            here = f"{table.name}.{column.name}"
            update: dict[str, Any] = {"compare": "text"} if here in text else {}
            if column.enum is not None and all(isinstance(v, str) for v in column.enum):
                try:
                    update["enum_labels"] = enum_labels(column.enum, display.get(here), words.get(here))
                except ValueError as error:
                    raise ValueError(f"{here}: {error}") from None
            elif here in words or here in display:
                raise ValueError(f"{here} holds no text enum to say")
            columns.append(column.model_copy(update=update))
        out.append(table.model_copy(update={"columns": columns}))
    return out


def string(max_length: int, description: str, *, pattern: str | None = None, min_length: int = 1) -> Schema:
    schema: Schema = {
        "type": "string",
        "description": description,
        "minLength": min_length,
        "maxLength": max_length,
    }
    if pattern is not None:
        schema["pattern"] = pattern
    return schema


def obj(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    """A closed object; every property is required unless ``required`` says otherwise."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def array(items: Schema, description: str = "", **keywords: Any) -> Schema:
    schema: Schema = {"type": "array", "items": items, **keywords}
    if description:
        schema["description"] = description
    return schema


def enum(values: list[Any], description: str = "", *, nullable: bool = False) -> Schema:
    """A string from ``values`` (or null, with ``nullable``)."""
    schema: Schema = (
        {"type": ["string", "null"], "enum": [*values, None]}
        if nullable
        else {"type": "string", "enum": list(values)}
    )
    if description:
        schema["description"] = description
    return schema


def nullable(type_: str) -> Schema:
    return {"type": [type_, "null"]}


def param(entity: str | None, user_provided: bool) -> ParamSpec:
    return ParamSpec(entity=entity, user_provided=user_provided)


def tool(
    name: str,
    intent: str,
    description: str,
    inputs: Inputs,
    output_schema: Schema,
    *,
    effect: str = "read",
    reads: list[str] | None = None,
    writes: list[str] | None = None,
    outputs: dict[str, str] | None = None,
    claims: list[str] | None = None,
    required: list[str] | None = None,
    **hints: bool,
) -> ToolSpec:
    """One tool: its arguments' schemas and roles from ``inputs`` (all required unless
    ``required`` names them), the tables it reads and writes, the outputs that name
    entities, and the claims an answer must repeat."""
    return ToolSpec(
        name=name,
        intent=intent,
        description=description,
        effect=effect,
        reads=sorted(set(reads or [])),
        writes=sorted(writes or []),
        input_schema=obj({k: schema for k, (schema, _) in inputs.items()}, required),
        output_schema=output_schema,
        params={k: spec for k, (_, spec) in inputs.items()},
        outputs=outputs or {},
        claims=claims or [],
        **hints,
    )
