"""JSON Schemas of an OpenAPI document reduced to the shape a table needs.

``Shapes.of(loc)`` follows ``$ref``s and merges ``allOf`` (every part), ``oneOf`` /
``anyOf`` (object variants: properties united, required only where every variant requires
it; a ``null`` variant makes the value nullable; scalar variants of one type collapse to
it; anything else is a JSON value) into one ``Shape``: its kind, nullability,
properties (still unresolved, each with the file it is written in), constraints, and the
name of the component it came from (``Pet`` for ``#/components/schemas/Pet``). Schemas
that contain themselves are cut where they recur (the recurring part is a JSON value).
Nothing here raises on a strange schema: what has no clear form is a JSON value.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from envfactory_mcp.synth.openapi.documents import Loc, RefError, Refs

SCALARS = ("string", "integer", "number", "boolean")
MAX_SHAPES = 200_000  # work budget of one import: a hostile document cannot make it endless


@dataclass
class Shape:
    """A schema, flattened."""

    where: str
    kind: str  # object, array, string, integer, number, boolean, json (any value)
    nullable: bool = False
    props: dict[str, Loc] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    items: Loc | None = None
    mapping: bool = False  # additionalProperties: a map of free keys
    enum: list[Any] | None = None
    format: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    default: Any = None
    read_only: bool = False
    write_only: bool = False
    description: str = ""
    name: str | None = None  # the component schema (or file) it is
    error: str | None = None  # why it is a JSON value: an unresolvable $ref, a loop

    @property
    def is_object(self) -> bool:
        return self.kind == "object" and bool(self.props)


def component_name(where: str) -> str | None:
    """``Pet`` for ``#/components/schemas/Pet`` or ``models/pet.yaml#/Pet``; ``pet`` for ``pet.yaml``."""
    file, _, fragment = where.partition("#")
    if fragment:
        parts = fragment.strip("/").split("/")
        if fragment.startswith("/components/schemas/") and len(parts) == 3:
            return parts[2].replace("~1", "/").replace("~0", "~")
        if file and len(parts) == 1 and parts[0]:
            return parts[0]
        if fragment.startswith("/definitions/") and len(parts) == 2:
            return parts[1]
        return None
    if file:
        return file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return None


class Shapes:
    """Shapes of the document's schemas, remembered per named schema."""

    def __init__(self, refs: Refs) -> None:
        self.refs = refs
        self._shapes: dict[str, Shape] = {}
        self._active: set[str] = set()
        self.work = 0
        self.used: set[str] = set()  # places of component schemas that were read

    def follow(self, loc: Loc) -> Loc:
        """``loc`` with its ``$ref`` chain followed; an unresolvable one raises ``RefError``."""
        return self.refs.follow(loc)

    def of(self, loc: Loc) -> Shape:
        self.work += 1
        if self.work > MAX_SHAPES:
            raise RefError(f"{loc.where}: the schemas are too large or too deeply combined to read")
        try:
            target = self.refs.follow(loc)
        except RefError as exc:
            return Shape(where=loc.where, kind="json", nullable=True, error=str(exc))
        cached = self._shapes.get(target.where)
        if cached is not None:
            return cached
        name = component_name(target.where)
        if target.where in self._active:  # a schema inside itself: the inner one is a JSON value
            return Shape(where=target.where, kind="json", nullable=True, name=name, error="recursive schema")
        self._active.add(target.where)
        try:
            shape = self._shape(target)
        finally:
            self._active.discard(target.where)
        if name is not None:
            shape = replace(shape, name=name)
            self.used.add(target.where)
        self._shapes[target.where] = shape
        return shape

    def _shape(self, loc: Loc) -> Shape:
        node = loc.node
        if node is True or node == {}:
            return Shape(where=loc.where, kind="json")
        if not isinstance(node, dict):
            return Shape(where=loc.where, kind="json", error="not a schema object")
        if "allOf" in node and isinstance(node["allOf"], list):
            rest = {k: v for k, v in node.items() if k != "allOf"}
            shape = self._plain(Loc(rest, loc.base, loc.where)) if _has_own(rest) else None
            for i, _ in enumerate(node["allOf"]):
                part = self.of(loc.at("allOf", i))
                shape = part if shape is None else merge(shape, part, every=True)
            return replace(shape or Shape(where=loc.where, kind="json"), where=loc.where)
        for key in ("oneOf", "anyOf"):
            if isinstance(node.get(key), list) and node[key]:
                rest = {k: v for k, v in node.items() if k != key}
                variants = [self.of(loc.at(key, i)) for i, _ in enumerate(node[key])]
                shape = union(variants, loc.where)
                if _has_own(rest):
                    shape = merge(shape, self._plain(Loc(rest, loc.base, loc.where)), every=True)
                return shape
        return self._plain(loc)

    def _plain(self, loc: Loc) -> Shape:
        node: dict[str, Any] = loc.node
        kind, nullable = _kind(node)
        props = node.get("properties")
        additional = node.get("additionalProperties")
        shape = Shape(
            where=loc.where,
            kind=kind,
            nullable=nullable,
            props={str(k): loc.at("properties", k) for k in props} if isinstance(props, dict) else {},
            required={str(r) for r in node.get("required", []) if isinstance(r, str | int)}
            if isinstance(node.get("required"), list)
            else set(),
            items=loc.at("items") if isinstance(node.get("items"), dict) else None,
            mapping=bool(additional) and not props,
            enum=[v for v in node["enum"] if v is not None] if isinstance(node.get("enum"), list) else None,
            format=str(node["format"]) if isinstance(node.get("format"), str) else None,
            minimum=_number(node.get("minimum")),
            maximum=_number(node.get("maximum")),
            max_length=node["maxLength"] if type(node.get("maxLength")) is int else None,
            default=node.get("default") if _scalar(node.get("default")) else None,
            read_only=node.get("readOnly") is True,
            write_only=node.get("writeOnly") is True,
            description=str(node.get("description") or node.get("title") or "")[:300],
        )
        if "const" in node and _scalar(node["const"]):
            shape.enum = [node["const"]]
        if isinstance(node.get("enum"), list) and None in node["enum"]:
            shape.nullable = True
        return shape


def _has_own(node: dict[str, Any]) -> bool:
    return any(k in node for k in ("type", "properties", "items", "enum", "required", "additionalProperties"))


def _number(value: Any) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def _kind(node: dict[str, Any]) -> tuple[str, bool]:
    """The kind of a plain schema and whether it allows null (3.0 ``nullable``, 3.1 type lists)."""
    declared = node.get("type")
    nullable = node.get("nullable") is True
    if isinstance(declared, list):
        kinds = [str(k) for k in declared if k != "null"]
        nullable = nullable or "null" in declared
        declared = kinds[0] if len(kinds) == 1 else "json"
    if declared is None:
        if "properties" in node or "additionalProperties" in node:
            return "object", nullable
        if "items" in node:
            return "array", nullable
        values = (
            [v for v in node.get("enum", []) or [] if v is not None]
            if isinstance(node.get("enum"), list)
            else []
        )
        if values and all(isinstance(v, str) for v in values):
            return "string", nullable
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "integer", nullable
        if "const" in node and isinstance(node["const"], str):
            return "string", nullable
        return "json", nullable
    if declared == "null":
        return "json", True
    if declared not in (*SCALARS, "object", "array"):
        return "json", nullable
    return str(declared), nullable


def merge(a: Shape, b: Shape, *, every: bool) -> Shape:
    """Two shapes as one: ``every`` (allOf) unites required, else (oneOf / anyOf) keeps only
    what both require and unites enums."""
    if a.kind != b.kind and "json" in (a.kind, b.kind):
        kind = b.kind if a.kind == "json" else a.kind
        if not every:
            kind = "json"
    elif a.kind != b.kind:
        kind = "json"
    else:
        kind = a.kind
    props = {**b.props, **a.props}
    for name in a.props.keys() & b.props.keys():
        props[name] = _both(a.props[name], b.props[name], "allOf" if every else "anyOf")
    required = (a.required | b.required) if every else (a.required & b.required)
    enum = a.enum if b.enum is None else b.enum if a.enum is None else None
    if a.enum is not None and b.enum is not None:
        enum = (
            [*a.enum, *(v for v in b.enum if v not in a.enum)]
            if not every
            else [v for v in a.enum if v in b.enum]
        )
    return Shape(
        where=a.where,
        kind=kind,
        nullable=(a.nullable and b.nullable) if every else (a.nullable or b.nullable),
        props=props,
        required=required,
        items=a.items or b.items,
        mapping=(a.mapping or b.mapping) and not props,
        enum=enum or None,
        format=a.format or b.format,
        minimum=a.minimum if a.minimum is not None else b.minimum,
        maximum=a.maximum if a.maximum is not None else b.maximum,
        max_length=a.max_length if a.max_length is not None else b.max_length,
        default=a.default if a.default is not None else b.default,
        read_only=a.read_only or b.read_only,
        write_only=a.write_only or b.write_only,
        description=a.description or b.description,
        name=a.name or b.name if every else None,
    )


def _both(a: Loc, b: Loc, key: str) -> Loc:
    """One property defined by two schemas: their allOf (both hold) or anyOf (either does)."""
    if a.base != b.base or a.node is b.node or a.where == b.where:
        return a
    return Loc(
        {key: [a.node, b.node]}, a.base, f"{a.where}&{b.where}" if key == "allOf" else f"{a.where}|{b.where}"
    )


def union(variants: list[Shape], where: str) -> Shape:
    """oneOf / anyOf: the shape every variant fits."""
    nullable = any(v.kind == "json" and v.nullable and not v.props and v.error is None for v in variants)
    real = [v for v in variants if not (v.kind == "json" and v.nullable and v.error is None and not v.props)]
    if not real:
        return Shape(where=where, kind="json", nullable=True)
    kinds = {v.kind for v in real}
    if len(kinds) > 1:
        if kinds == {"integer", "number"}:
            return Shape(where=where, kind="number", nullable=nullable)
        return Shape(where=where, kind="json", nullable=True, description=real[0].description)
    shape = real[0]
    for variant in real[1:]:
        shape = merge(shape, variant, every=False)
    named = real[0].name if len(real) == 1 else None
    return replace(shape, where=where, nullable=nullable or shape.nullable, name=named)
