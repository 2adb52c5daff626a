"""OpenAPI 3.0 / 3.1 documents -> an environment, with no model in the loop.

Resources are found from paths: ``/pets`` is a collection, ``/pets/{petId}`` one of its
items, ``/owners/{ownerId}/pets/{petId}`` a pet nested under an owner (a child table with
a foreign key). Each method maps to one CRUD operation (GET collection -> list, GET item
-> get, POST collection -> create, PUT / PATCH item -> update, DELETE item -> delete),
which ``crud`` turns into tools, tool code and seed rows.

Rules for schemas (after resolving local ``$ref`` and merging ``allOf``):

* scalar properties become columns; ``required`` becomes NOT NULL; ``nullable`` (3.0) or
  a ``"null"`` type (3.1) makes a column nullable; ``enum`` becomes a CHECK constraint;
* nested objects are flattened (``address.city`` -> ``address_city``);
* a ``$ref`` to another resource's schema, or a property ``<entity>Id`` naming another
  resource, becomes a foreign key; an array of another resource is a relation served by
  that resource's own paths and is listed in ``ignored``; arrays of scalars are stored
  as JSON; arrays of inline objects are rejected;
* ``oneOf`` / ``anyOf``: a ``null`` variant makes the value nullable; object variants are
  merged into one table whose columns are NOT NULL only when every variant requires
  them; scalar variants of one type collapse to that type; anything else is rejected.

Security schemes, header and cookie parameters, and anything else that is not state is
listed in ``ImportedEnv.ignored`` with the reason; what cannot be represented raises
``ResourceImportError`` naming its JSON pointer. Nothing is dropped silently.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from envfactory_mcp.synth.crud import (
    Field,
    Ignored,
    ImportedEnv,
    Operation,
    OpKind,
    Resource,
    ResourceImportError,
    build_imported,
    singular,
    snake,
)

Node = dict[str, Any]
METHODS = {"get", "post", "put", "patch", "delete"}
IGNORED_METHODS = {"head", "options", "trace"}
PAGINATION = {"limit": "offset", "offset": "offset", "page": "page", "per_page": "page", "page_size": "page"}
SEARCH = {"q", "query", "search"}
# Keywords that only describe or document a value; they carry no state.
ANNOTATIONS = {
    "title",
    "description",
    "example",
    "examples",
    "xml",
    "externalDocs",
    "deprecated",
    "discriminator",
}
UNSUPPORTED_VALIDATION = {"pattern", "minLength", "multipleOf", "exclusiveMinimum", "exclusiveMaximum"}


def import_openapi(
    document: dict[str, Any] | str | Path, name: str | None = None, seed: int = 0
) -> ImportedEnv:
    """An environment from an OpenAPI 3.0.x / 3.1.x document (a dict, a file path, or JSON/YAML text).

    Raises ``ResourceImportError`` for remote ``$ref``s and constructs with no faithful
    table form; everything else that is not turned into the spec is in ``ignored``.
    """
    doc = _load(document)
    version = str(doc.get("openapi", ""))
    if not version.startswith(("3.0", "3.1")):
        raise ResourceImportError("#/openapi", f"only OpenAPI 3.0.x and 3.1.x are supported, not {version!r}")
    info = doc.get("info", {})
    title = str(info.get("title") or "API")
    return _Importer(doc).run(
        name=name or snake(title), title=title, description=str(info.get("description") or title), seed=seed
    )


def _load(document: dict[str, Any] | str | Path) -> Node:
    if isinstance(document, dict):
        return document
    text = document.read_text() if isinstance(document, Path) else document
    if isinstance(document, str) and "\n" not in document and Path(document).is_file():
        text = Path(document).read_text()
    loaded = yaml.safe_load(text)  # YAML is a superset of JSON
    if not isinstance(loaded, dict):
        raise ResourceImportError("#", "the document is not a JSON or YAML object")
    return loaded


def _pointer(*parts: str) -> str:
    return "#/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


class _Importer:
    def __init__(self, doc: Node) -> None:
        self.doc = doc
        self.ignored: list[Ignored] = []
        self.resources: dict[str, Resource] = {}
        self.schema_names: dict[str, str] = {}  # component schema name -> resource name
        self.used_schemas: set[str] = set()
        self._pending: list[tuple[str, Node, str]] = []  # (collection, schema, where) found from paths

    # ------------------------------------------------------------------ references and schemas

    def resolve(self, node: Any, where: str) -> Any:
        """Follow local ``$ref``s (to any depth); remote ones are rejected."""
        return self.locate(node, where)[0]

    def locate(self, node: Any, where: str) -> tuple[Any, str]:
        """The node a chain of local ``$ref``s ends at, and its JSON pointer."""
        seen: set[str] = set()
        while isinstance(node, dict) and "$ref" in node:
            ref = str(node["$ref"])
            if not ref.startswith("#/"):
                raise ResourceImportError(
                    where, f"remote $ref {ref!r} is not supported; only local '#/...' refs"
                )
            if ref in seen:
                raise ResourceImportError(where, f"$ref cycle through {ref!r}")
            seen.add(ref)
            target: Any = self.doc
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, dict) or part not in target:
                    raise ResourceImportError(where, f"$ref {ref!r} points at nothing")
                target = target[part]
            if ref.startswith("#/components/schemas/"):
                self.used_schemas.add(ref.rsplit("/", 1)[1])
            node, where = target, ref
        return node, where

    def flat(self, node: Any, where: str) -> Node:
        """A schema with ``$ref`` resolved and ``allOf`` / ``oneOf`` / ``anyOf`` merged."""
        node, where = self.locate(node, where)
        if not isinstance(node, dict):
            raise ResourceImportError(where, "a schema must be an object")
        if "not" in node:
            raise ResourceImportError(where, "'not' schemas have no table form")
        if "allOf" in node:
            merged: Node = {k: v for k, v in node.items() if k != "allOf"}
            for i, part in enumerate(node["allOf"]):
                merged = _merge(merged, self.flat(part, f"{where}/allOf/{i}"), every=True)
            return merged
        for key in ("oneOf", "anyOf"):
            if key in node:
                return self._variants(node, key, where)
        if isinstance(node.get("type"), list):  # 3.1: type: [string, "null"]
            return {
                **node,
                "type": _kind(node),
                "nullable": "null" in node["type"] or node.get("nullable", False),
            }
        return node

    def _variants(self, node: Node, key: str, where: str) -> Node:
        rest = {k: v for k, v in node.items() if k != key}
        variants = [self.flat(v, f"{where}/{key}/{i}") for i, v in enumerate(node[key])]
        nullable = any(v.get("type") == "null" for v in variants)
        variants = [v for v in variants if v.get("type") != "null"]
        kinds = {_kind(v) for v in variants}
        if not variants or len(kinds) != 1:
            raise ResourceImportError(
                f"{where}/{key}",
                f"{key} of different types ({', '.join(sorted(map(str, kinds)))}) has no column form",
            )
        merged: Node = variants[0]
        for variant in variants[1:]:
            merged = _merge(merged, variant, every=False)
        return {**merged, **rest, "nullable": nullable or merged.get("nullable", False)}

    def ref_name(self, node: Any) -> str | None:
        """The component schema a node names directly (``$ref`` or a one-item ``allOf``)."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            return (
                str(node["$ref"]).rsplit("/", 1)[1]
                if node["$ref"].startswith("#/components/schemas/")
                else None
            )
        if isinstance(node, dict) and len(node.get("allOf", [])) == 1:
            return self.ref_name(node["allOf"][0])
        return None

    # ------------------------------------------------------------------ paths

    def run(self, *, name: str, title: str, description: str, seed: int) -> ImportedEnv:
        routes = self._routes()
        for route in routes:  # resources first: fields may point at any of them
            self._declare(route)
        for collection, schema, where in self._pending:
            self.resources[collection] = self._resource(collection, schema, where)
        self._nest(routes)
        operations = [op for route in routes for op in self._operations(route)]
        names: set[str] = set()
        deduped = []
        for op in operations:
            unique, n = op.name, 2
            while unique in names:
                unique, n = f"{op.name}_{n}", n + 1
            names.add(unique)
            deduped.append(Operation(**{**op.__dict__, "name": unique}))
        self._note_leftovers()
        if not deduped:
            raise ResourceImportError("#/paths", "no supported operations: nothing to serve")
        return build_imported(
            name=name,
            title=title,
            description=description,
            source="an OpenAPI document",
            generator="importer:openapi",
            seed=seed,
            resources=list(self.resources.values()),
            operations=deduped,
            ignored=self.ignored,
        )

    def _routes(self) -> list[tuple[str, list[tuple[str, str | None]], Node]]:
        """(path, [(collection, id parameter or None)], path item) of every path."""
        routes = []
        for path, item in (self.doc.get("paths") or {}).items():
            where = _pointer("paths", path)
            parts = [p for p in path.strip("/").split("/") if p]
            segments: list[tuple[str, str | None]] = []
            for part in parts:
                if part.startswith("{") and part.endswith("}") and segments and segments[-1][1] is None:
                    segments[-1] = (segments[-1][0], part[1:-1])
                elif not part.startswith("{") and (not segments or segments[-1][1] is not None):
                    segments.append((snake(part), None))
                else:
                    raise ResourceImportError(where, f"path {path!r} is not /collection/{{id}}/... shaped")
            if not segments:
                raise ResourceImportError(where, "the root path is not a resource")
            routes.append((path, segments, self.resolve(item, where)))
        return routes

    def _declare(self, route: tuple[str, list[tuple[str, str | None]], Node]) -> None:
        """Remember the schema that describes this route's resource."""
        path, segments, item = route
        collection = segments[-1][0]
        if any(c == collection for c, _, _ in self._pending):
            return
        for method in ("get", "post", "put", "patch"):
            op = item.get(method)
            if op is None:
                continue
            where = _pointer("paths", path, method)
            schema = self._body(op, where) if method != "get" else None
            if method == "get" or schema is None:
                schema = self._success(op, where, collection=segments[-1][1] is None)
            if schema is not None:
                if ref := self.ref_name(schema):
                    self.schema_names[ref] = collection
                self._pending.append((collection, schema, where))
                return
        raise ResourceImportError(
            _pointer("paths", path), "no JSON request or response schema describes this resource"
        )

    def _success(self, op: Node, where: str, collection: bool) -> Node | None:
        """The item schema of the first 2xx JSON response (unwrapping a list or a list envelope)."""
        for code, response in sorted((op.get("responses") or {}).items()):
            if not str(code).startswith("2"):
                continue
            body = self._json(
                self.resolve(response, f"{where}/responses/{code}"), f"{where}/responses/{code}"
            )
            if body is None:
                continue
            flat = self.flat(body, f"{where}/responses/{code}")
            if flat.get("type") == "array" or "items" in flat:
                return dict(flat.get("items", {}))
            arrays = [
                (k, v)
                for k, v in flat.get("properties", {}).items()
                if self.flat(v, where).get("type") == "array"
            ]
            if collection and len(arrays) == 1:
                return dict(arrays[0][1].get("items", {}))
            return body
        return None

    def _body(self, op: Node, where: str) -> Node | None:
        if "requestBody" not in op:
            return None
        body = self.resolve(op["requestBody"], f"{where}/requestBody")
        schema = self._json(body, f"{where}/requestBody")
        if schema is None:
            raise ResourceImportError(
                f"{where}/requestBody", "only application/json request bodies are supported"
            )
        return schema

    def _json(self, holder: Node, where: str) -> Node | None:
        content = holder.get("content") or {}
        json_types = [t for t in content if t == "application/json" or t.endswith("+json")]
        for other in sorted(set(content) - set(json_types)):
            self.ignored.append(Ignored(where, "content", f"content type {other} (only JSON is served)"))
        return content[json_types[0]].get("schema") if json_types else None

    # ------------------------------------------------------------------ resources

    def _resource(self, collection: str, schema: Node, where: str) -> Resource:
        entity = singular(collection)
        where = self.locate(schema, where)[1]
        flat = self.flat(schema, where)
        if _kind(flat) != "object":
            raise ResourceImportError(where, f"the {collection} schema is not an object")
        fields = self._fields(flat, where, prefix="", optional=False, owner=collection)
        names = [f.name for f in fields]
        key = "id" if "id" in names else f"{entity}_id" if f"{entity}_id" in names else None
        if key is None:
            fields.insert(0, Field(name="id", kind="integer", read_only=True, description=f"{entity} id."))
            key = "id"
            self.ignored.append(
                Ignored(where, "schema", f"{collection} has no id property; an integer id column was added")
            )
        key_field = next(f for f in fields if f.name == key)
        fields = [f for f in fields if f.name != key]
        style = (
            "integer" if key_field.kind == "integer" else "uuid" if key_field.format == "uuid" else "prefix"
        )
        if key_field.kind not in ("integer", "string"):
            raise ResourceImportError(
                where, f"the key {key!r} of {collection} must be an integer or a string"
            )
        key_field = Field(
            name=key,
            kind=key_field.kind,
            format=key_field.format,
            read_only=True,
            description=f"{entity} id.",
        )
        return Resource(
            name=collection,
            entity=entity,
            fields=(key_field, *fields),
            keys=(key,),
            id_style=style,  # type: ignore[arg-type]
            description=str(flat.get("description") or f"{collection} of the API"),
        )

    def _fields(self, schema: Node, where: str, prefix: str, optional: bool, owner: str) -> list[Field]:
        required = set(schema.get("required", []))
        fields: list[Field] = []
        for prop, raw in (schema.get("properties") or {}).items():
            here = self.locate(raw, f"{where}/properties/{prop}")[1]
            column = snake(prefix + prop)
            target = self.schema_names.get(self.ref_name(raw) or "")
            node = self.flat(raw, here)
            nullable = (
                optional or bool(node.get("nullable")) or (prop not in required and "default" not in node)
            )
            kind = _kind(node)
            if target is not None and target != owner:
                key_kind = self._keys_by_entity()[target][0]
                fields.append(Field(name=f"{column}_id", kind=key_kind, nullable=nullable, references=target))  # type: ignore[arg-type]
            elif kind == "object":
                fields += self._fields(node, here, f"{column}_", nullable, owner)
            elif kind == "array":
                items = self.flat(node.get("items", {}), f"{here}/items")
                if self.schema_names.get(self.ref_name(node.get("items")) or ""):
                    self.ignored.append(
                        Ignored(
                            here, "field", "array of another resource; served by that resource's own paths"
                        )
                    )
                elif _kind(items) in ("object", "array", None):
                    raise ResourceImportError(
                        here, "arrays of objects or arrays are not supported (no child tables)"
                    )
                else:
                    fields.append(self._field(column, node, here, nullable, item_kind=_kind(items)))
            else:
                fields.append(self._field(column, node, here, nullable))
        return [self._link(f, owner) for f in fields]

    def _field(self, column: str, node: Node, where: str, nullable: bool, item_kind: Any = "string") -> Field:
        kind = _kind(node)
        if kind not in ("string", "integer", "number", "boolean", "array"):
            raise ResourceImportError(where, f"type {node.get('type')!r} has no column form")
        for keyword in sorted(UNSUPPORTED_VALIDATION & node.keys()):
            self.ignored.append(Ignored(where, "field", f"validation keyword {keyword!r} is not enforced"))
        enum = node.get("enum")
        if enum is not None:
            enum = [v for v in enum if v is not None]
            if kind not in ("string", "integer"):
                self.ignored.append(Ignored(where, "field", f"enum on a {kind} is not enforced"))
                enum = None
        fmt = node.get("format")
        read_only = bool(node.get("readOnly"))
        auto = ("now" if fmt == "date-time" else "today" if fmt == "date" else None) if read_only else None
        default = node.get("default")
        if read_only and not auto and default is None and not nullable:
            default = enum[0] if enum else None
            nullable = default is None
        return Field(
            name=column,
            kind=kind,  # type: ignore[arg-type]
            description=str(node.get("description") or ""),
            nullable=nullable and not auto,
            enum=tuple(enum) if enum else None,
            format=str(fmt) if fmt else None,
            minimum=node.get("minimum"),
            maximum=node.get("maximum"),
            max_length=node.get("maxLength"),
            default=default,
            auto=auto,  # type: ignore[arg-type]
            read_only=read_only,
            item_kind=item_kind,
        )

    def _link(self, f: Field, owner: str) -> Field:
        """``customer_id`` naming a known resource's entity becomes a foreign key to it."""
        if f.references or not f.name.endswith("_id") or f.kind not in ("integer", "string"):
            return f
        for resource, (schema, _) in self._keys_by_entity().items():
            if f.name == f"{singular(resource)}_id" and resource != owner:
                return Field(**{**f.__dict__, "references": resource, "kind": schema})
        return f

    def _keys_by_entity(self) -> dict[str, tuple[str, str]]:
        out = {}
        for collection, schema, where in self._pending:
            flat = self.flat(schema, where)
            key = self.flat((flat.get("properties") or {}).get("id", {"type": "integer"}), where)
            out[collection] = ("integer" if _kind(key) == "integer" else "string", where)
        return out

    # ------------------------------------------------------------------ operations

    def _nest(self, routes: list[tuple[str, list[tuple[str, str | None]], Node]]) -> None:
        """Give every resource served under ``/parents/{parentId}/...`` its parent link column."""
        for path, segments, _ in routes:
            if len(segments) > 2:
                raise ResourceImportError(
                    _pointer("paths", path), "nesting deeper than two resources is not supported"
                )
            if len(segments) < 2:
                continue
            (parent, param), (child, _) = segments
            link = self.link_name(parent, param)
            resource = self.resources[child]
            if resource.parent not in (None, link):
                raise ResourceImportError(_pointer("paths", path), f"{child} is nested under two parents")
            key = self.resources[parent].fields[0]
            fields = [f for f in resource.fields if f.name != link]
            kept = next((f for f in resource.fields if f.name == link), None)
            column = Field(
                name=link,
                kind=key.kind,
                description=kept.description
                if kept
                else f"The {singular(parent)} this {resource.entity} belongs to.",
                references=parent,
            )
            self.resources[child] = replace(resource, fields=(fields[0], column, *fields[1:]), parent=link)

    def link_name(self, parent: str, param: str | None) -> str:
        column = snake(param or "id")
        return f"{singular(parent)}_id" if column == "id" else column

    def _operations(self, route: tuple[str, list[tuple[str, str | None]], Node]) -> list[Operation]:
        path, segments, item = route
        collection, item_param = segments[-1]
        resource = self.resources[collection]
        ops = []
        for method, op in item.items():
            where = _pointer("paths", path, method)
            if method in ("parameters", "summary", "description"):
                continue
            if method not in METHODS:
                self.ignored.append(
                    Ignored(
                        where, "operation", f"{method} is not served (only GET, POST, PUT, PATCH, DELETE)"
                    )
                )
                continue
            kind = _KINDS.get((method, item_param is not None))
            if kind is None:
                raise ResourceImportError(where, f"{method.upper()} on {path} has no CRUD meaning")
            ops.append(self._operation(op, kind, method, path, resource, item, len(segments) == 2))
        return ops

    def _operation(
        self, op: Node, kind: OpKind, method: str, path: str, resource: Resource, item: Node, scoped: bool
    ) -> Operation:
        where = _pointer("paths", path, method)
        params: dict[tuple[str, str], Node] = {}
        for source, holder in (("parameters", item), (f"{method}/parameters", op)):
            for i, raw in enumerate(holder.get("parameters") or []):
                param = self.resolve(raw, f"{_pointer('paths', path)}/{source}/{i}")
                params[(str(param.get("in")), str(param.get("name")))] = param
        columns = {f.name: f for f in resource.fields if f.kind != "array"}
        filters: list[str] = []
        search, pagination = None, "none"
        for place, pname in params:
            column = snake(pname)
            if place in ("header", "cookie"):
                self.ignored.append(
                    Ignored(
                        where,
                        "parameter",
                        f"{place} parameter {pname!r} (authentication/transport, not state)",
                    )
                )
            elif place == "path":
                continue
            elif column in PAGINATION and kind == "list":
                pagination = PAGINATION[column]
                if column == "page_size":
                    self.ignored.append(
                        Ignored(where, "parameter", f"query parameter {pname!r} is served as 'per_page'")
                    )
            elif column in SEARCH and kind == "list":
                search = column
            elif column in columns and kind == "list":
                filters.append(column)
            else:
                self.ignored.append(
                    Ignored(
                        where, "parameter", f"query parameter {pname!r} matches no column and is not served"
                    )
                )
        if "security" in op:
            self.ignored.append(
                Ignored(where, "security", "security requirement (authentication is not modelled)")
            )
        if kind in ("create", "update") and (body := self._body(op, where)) is not None:
            served = {f.name for f in resource.fields}
            for prop in self.flat(body, f"{where}/requestBody").get("properties") or {}:
                column = snake(prop)
                if not any(name == column or name.startswith(f"{column}_") for name in served):
                    self.ignored.append(
                        Ignored(where, "field", f"request field {prop!r} is not a column of {resource.name}")
                    )
        default = f"{kind}_{resource.entity}" if kind != "list" else f"list_{resource.name}"
        text = " ".join(str(op.get(k) or "").strip() for k in ("summary", "description")).strip()
        return Operation(
            kind=kind,
            resource=resource.name,
            name=snake(str(op.get("operationId") or default)),
            description=text or f"{kind.capitalize()} {resource.entity} records ({method.upper()} {path}).",
            scoped=scoped,
            partial=method == "patch",
            filters=tuple(dict.fromkeys(filters)),
            search=search,
            pagination=pagination,  # type: ignore[arg-type]
        )

    def _note_leftovers(self) -> None:
        components = self.doc.get("components") or {}
        for scheme, node in (components.get("securitySchemes") or {}).items():
            kind = node.get("type", "?") if isinstance(node, dict) else "?"
            self.ignored.append(
                Ignored(
                    f"#/components/securitySchemes/{scheme}",
                    "security",
                    f"security scheme ({kind}) not modelled",
                )
            )
        if "security" in self.doc:
            self.ignored.append(
                Ignored(
                    "#/security", "security", "global security requirement (authentication is not modelled)"
                )
            )
        for key in ("servers", "webhooks", "callbacks"):
            if key in self.doc:
                self.ignored.append(Ignored(f"#/{key}", "document", "not part of the state"))
        for schema in sorted(set(components.get("schemas") or {}) - self.used_schemas):
            self.ignored.append(
                Ignored(f"#/components/schemas/{schema}", "schema", "not used by any served operation")
            )


_KINDS: dict[tuple[str, bool], OpKind] = {
    ("get", False): "list",
    ("post", False): "create",
    ("get", True): "get",
    ("put", True): "update",
    ("patch", True): "update",
    ("delete", True): "delete",
}


def _kind(node: Node) -> str | None:
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        return "object" if "properties" in node else "array" if "items" in node else None
    return str(kind)


def _merge(a: Node, b: Node, every: bool) -> Node:
    """Two object schemas as one: properties united, required united (allOf) or shared (oneOf/anyOf,
    whose enums of one property are united too)."""
    required = set(a.get("required", [])) | set(b.get("required", []))
    if not every:
        required = set(a.get("required", [])) & set(b.get("required", []))
    props = {**(b.get("properties") or {}), **(a.get("properties") or {})}
    for prop, mine in (a.get("properties") or {}).items():
        theirs = (b.get("properties") or {}).get(prop)
        if not every and isinstance(theirs, dict) and "enum" in mine and "enum" in theirs:
            props[prop] = {
                **mine,
                "enum": [*mine["enum"], *(v for v in theirs["enum"] if v not in mine["enum"])],
            }
    merged = {**b, **a, "properties": props}
    merged["required"] = sorted(required)
    if not merged["properties"]:
        del merged["properties"]
    return merged
