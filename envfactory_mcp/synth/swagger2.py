"""Swagger 2.0 documents -> the OpenAPI 3.0 form the OpenAPI importer reads.

``convert_swagger2(doc, path)`` returns a new OpenAPI 3.0.3 document; the input is not
changed. No PyPI package does this conversion and is kept up (the maintained converter,
swagger2openapi, is JavaScript), so it is written here, after the two specifications:

- ``host`` + ``basePath`` + ``schemes`` -> ``servers`` (a relative ``basePath`` without a host);
- ``definitions`` / ``parameters`` / ``responses`` / ``securityDefinitions`` ->
  ``components.schemas`` / ``parameters`` / ``responses`` / ``securitySchemes`` (OAuth2
  ``implicit``/``password``/``application``/``accessCode`` -> flows, ``basic`` -> HTTP basic);
- a parameter's ``type``/``format``/``items``/limits -> its ``schema``; ``collectionFormat``
  -> ``style``/``explode`` (``tsv`` has none: kept as ``x-collectionFormat``);
- ``in: body`` -> ``requestBody`` with one entry per ``consumes`` type (the operation's, else
  the document's, else JSON); ``in: formData`` -> a form ``requestBody`` (multipart when a
  field is a file or ``consumes`` says so), path-level ones merged into each operation
  (an operation's own parameter of the same name and place wins);
- a response's ``schema`` -> ``content`` per ``produces`` type, ``examples`` -> ``example``,
  ``headers`` -> headers with schemas;
- schemas: ``#/definitions/X`` refs -> ``#/components/schemas/X`` (``#/parameters/``,
  ``#/responses/`` likewise), ``x-nullable`` -> ``nullable``, ``type: file`` -> binary string,
  a string ``discriminator`` -> ``{propertyName}``.

Parameters, responses and path items behind a ``$ref`` differ between the versions, so
they are read (a local ref, or a relative file resolved against the file it is written
in, with ``documents.read_file``) and converted where they are used; relative refs inside
what came from another file are rewritten to resolve from the root document's folder.
Schemas in other files stay where they are (the importer follows those refs; their form is
close enough to OpenAPI 3.0's). Remote refs are left as they are (the importer reports
them). A ref that cannot be followed, or a loop, is a ``ResourceImportError`` (one line).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from envfactory_mcp.crud.model import ResourceImportError
from envfactory_mcp.synth.openapi.documents import SUFFIXES, pointer, read_file

__all__ = ["convert_swagger2", "is_swagger2"]

Node = dict[str, Any]
METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# keywords a Swagger 2.0 parameter or items object shares with a schema
SCHEMA_WORDS = (
    "type",
    "format",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
)
LOCAL_PREFIXES = {
    "#/definitions/": "#/components/schemas/",
    "#/parameters/": "#/components/parameters/",
    "#/responses/": "#/components/responses/",
}
MAX_REF_CHAIN = 32


def is_swagger2(doc: Any) -> bool:
    """Whether ``doc`` says it is a Swagger 2.x document (``swagger: "2.0"``)."""
    return isinstance(doc, dict) and str(doc.get("swagger", "")).startswith("2")


def convert_swagger2(doc: Node, path: Path | None = None) -> Node:
    """The OpenAPI 3.0.3 form of the Swagger 2.0 document ``doc`` (read from ``path``, when
    given: its relative refs resolve against that file's folder)."""
    version = str(doc.get("swagger", ""))
    if not version.startswith("2"):
        raise ResourceImportError("#/swagger", f"only Swagger 2.0 is converted, not {version!r}")
    return _Converter(doc, path).run()


class _Converter:
    def __init__(self, doc: Node, path: Path | None) -> None:
        self.doc = doc
        self.root = path.resolve() if path is not None else None
        self.folder = self.root.parent if self.root is not None else None
        self.files: dict[Path, Any] = {}
        self.consumes = _types(doc.get("consumes"))
        self.produces = _types(doc.get("produces"))

    # ------------------------------------------------------------------ the document

    def run(self) -> Node:
        doc = self.doc
        out: Node = {"openapi": "3.0.3"}
        info = doc.get("info")
        out["info"] = dict(info) if isinstance(info, dict) else {"title": "API", "version": ""}
        out["servers"] = _servers(doc)
        for key in ("tags", "externalDocs", "security"):
            if key in doc:
                out[key] = doc[key]
        out.update({k: v for k, v in doc.items() if isinstance(k, str) and k.startswith("x-")})
        paths = doc.get("paths")
        out["paths"] = (
            {
                raw: self.path_item(item, pointer("#", "paths", str(raw)))
                for raw, item in paths.items()
                if not (isinstance(raw, str) and raw.startswith("x-"))
            }
            if isinstance(paths, dict)
            else paths
        )
        out["components"] = self.components()
        return out

    def components(self) -> Node:
        doc = self.doc
        found: Node = {}
        definitions = _dict(doc.get("definitions"))
        if definitions:
            found["schemas"] = {name: self.schema(node) for name, node in definitions.items()}
        params = _dict(doc.get("parameters"))
        plain = {n: self.parameter(p, f"#/parameters/{n}") for n, p in params.items() if not _is_body(p)}
        if plain:
            found["parameters"] = plain
        bodies = {n: self.request_body([p], self.consumes) for n, p in params.items() if _is_body(p)}
        if bodies:
            found["requestBodies"] = bodies
        responses = _dict(doc.get("responses"))
        if responses:
            found["responses"] = {
                name: self.response(node, self.produces, f"#/responses/{name}")
                for name, node in responses.items()
            }
        schemes = _dict(doc.get("securityDefinitions"))
        if schemes:
            found["securitySchemes"] = {name: _security(node) for name, node in schemes.items()}
        return found

    def path_item(self, item: Any, where: str) -> Any:
        item = self.follow(item, where)
        if not isinstance(item, dict):
            return item
        shared = [self.follow(p, where + "/parameters") for p in _list(item.get("parameters"))]
        out: Node = {k: v for k, v in item.items() if k not in METHODS and k != "parameters"}
        plain = [self.parameter(p, where + "/parameters") for p in shared if not _is_body(p)]
        if plain:
            out["parameters"] = plain
        for method in METHODS:
            if method in item:
                here = f"{where}/{method}"
                out[method] = self.operation(self.follow(item[method], here), shared, here)
        return out

    def operation(self, op: Any, shared: list[Any], where: str) -> Any:
        if not isinstance(op, dict):
            return op
        own = [self.follow(p, where + "/parameters") for p in _list(op.get("parameters"))]
        names = {_place(p) for p in own}
        inherited = [p for p in shared if _is_body(p) and _place(p) not in names]
        consumes = _types(op["consumes"]) if "consumes" in op else self.consumes
        produces = _types(op["produces"]) if "produces" in op else self.produces
        skip = ("parameters", "responses", "consumes", "produces", "schemes")
        out: Node = {k: v for k, v in op.items() if k not in skip}
        plain = [self.parameter(p, where + "/parameters") for p in own if not _is_body(p)]
        if plain:
            out["parameters"] = plain
        body = [p for p in [*inherited, *own] if _is_body(p)]
        if body:
            out["requestBody"] = self.request_body(body, consumes)
        responses = op.get("responses")
        if isinstance(responses, dict):
            out["responses"] = {
                str(code): self.response(r, produces, f"{where}/responses/{code}")
                for code, r in responses.items()
            }
        return out

    # ------------------------------------------------------------------ parameters and bodies

    def parameter(self, node: Any, where: str) -> Any:
        node = self.follow(node, where)
        if not isinstance(node, dict):
            return node
        skip = (*SCHEMA_WORDS, "items", "collectionFormat", "x-example", "schema")
        out: Node = {k: v for k, v in node.items() if k not in skip}
        place = node.get("in")
        if place == "path":
            out["required"] = True
        out["schema"] = self.schema(node["schema"]) if "schema" in node else self.items(node)
        if "x-example" in node:
            out["example"] = node["x-example"]
        style = _style(node.get("collectionFormat"), str(place))
        if style is not None and node.get("type") == "array":
            out.update(style)
        return out

    def items(self, node: Node) -> Node:
        """The schema of a non-body parameter, a header or an ``items`` object."""
        schema: Node = {k: node[k] for k in SCHEMA_WORDS if k in node}
        if schema.get("type") == "file":
            schema["type"], schema["format"] = "string", "binary"
        if isinstance(node.get("items"), dict):
            items = node["items"]
            schema["items"] = self.schema(items) if "$ref" in items else self.items(items)
        elif schema.get("type") == "array":
            schema["items"] = {}
        if node.get("collectionFormat") == "tsv":
            schema["x-collectionFormat"] = "tsv"
        return schema

    def request_body(self, params: list[Any], consumes: list[str]) -> Node:
        params = [self.follow(p, "#/parameters") for p in params]
        body = next((p for p in params if isinstance(p, dict) and p.get("in") == "body"), None)
        if body is not None:
            types = consumes or ["application/json"]
            schema = self.schema(body.get("schema", {}))
            out: Node = {"content": {t: {"schema": schema} for t in types}}
            if isinstance(body.get("description"), str):
                out["description"] = body["description"]
            if body.get("required") is True:
                out["required"] = True
            if isinstance(body.get("name"), str):
                out["x-bodyName"] = body["name"]
            return out
        fields = [p for p in params if isinstance(p, dict) and p.get("in") == "formData"]
        properties: Node = {}
        required: list[str] = []
        for field in fields:
            name = str(field.get("name", ""))
            prop = self.items(field)
            if isinstance(field.get("description"), str):
                prop["description"] = field["description"]
            properties[name] = prop
            if field.get("required") is True:
                required.append(name)
        forms = [t for t in consumes if t.split(";")[0].strip() in FORM_TYPES]
        if not forms:
            has_file = any(f.get("type") == "file" for f in fields)
            forms = ["multipart/form-data" if has_file else "application/x-www-form-urlencoded"]
        form: Node = {"type": "object", "properties": properties}
        if required:
            form["required"] = required
        found: Node = {"content": {t: {"schema": form} for t in forms}}
        if required:
            found["required"] = True
        return found

    # ------------------------------------------------------------------ responses

    def response(self, node: Any, produces: list[str], where: str) -> Any:
        node = self.follow(node, where)
        if not isinstance(node, dict):
            return node
        skip = ("schema", "examples", "headers", "description")
        out: Node = {k: v for k, v in node.items() if k not in skip}
        description = node.get("description")
        out["description"] = description if isinstance(description, str) else ""
        headers = {n: h for n, h in _dict(node.get("headers")).items() if isinstance(h, dict)}
        if headers:
            out["headers"] = {
                name: {
                    **({"description": h["description"]} if isinstance(h.get("description"), str) else {}),
                    "schema": self.items(h),
                }
                for name, h in headers.items()
            }
        examples = _dict(node.get("examples"))
        if "schema" in node:
            schema = self.schema(node["schema"])
            types = list(produces) or ["application/json"]
            types += [t for t in examples if isinstance(t, str) and t not in types]
            out["content"] = {
                t: {"schema": schema, **({"example": examples[t]} if t in examples else {})} for t in types
            }
        return out

    # ------------------------------------------------------------------ schemas

    def schema(self, node: Any) -> Any:
        """A Swagger 2.0 schema in OpenAPI 3.0 form (a new object; local refs rewritten)."""
        if isinstance(node, list):
            return [self.schema(n) for n in node]
        if not isinstance(node, dict):
            return node
        out: Node = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = _local_ref(value)
            elif key in ("properties", "patternProperties") and isinstance(value, dict):
                out[key] = {name: self.schema(sub) for name, sub in value.items()}
            elif key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
                out[key] = self.schema(value)
            elif key == "x-nullable":
                if value is True:
                    out["nullable"] = True
            elif key == "discriminator" and isinstance(value, str):
                out[key] = {"propertyName": value}
            elif key == "type" and value == "file":
                out["type"], out["format"] = "string", "binary"
            else:
                out[key] = value
        return out

    # ------------------------------------------------------------------ refs

    def follow(self, node: Any, where: str) -> Any:
        """The node a ``$ref`` chain ends at (a parameter, response or path item), its own refs
        made relative to the root document. A remote ref, or anything that is not a ref, is
        returned as it is."""
        seen: list[tuple[Path | None, str]] = []
        current: Path | None = None  # the file the node is in; None: the root document
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if "://" in ref or ref.startswith("//"):
                break
            if (current, ref) in seen:
                raise ResourceImportError(where, f"$ref loop through {ref!r}")
            if len(seen) >= MAX_REF_CHAIN:
                raise ResourceImportError(where, f"a chain of more than {MAX_REF_CHAIN} $refs")
            seen.append((current, ref))
            file_part, _, fragment = ref.partition("#")
            if file_part:
                current = self.file(file_part, current, where)
            node = _at(self.doc if current is None else self.files[current], fragment, where, ref)
        if current is None or self.folder is None:
            return node
        return _rebase(node, current, self.folder, self.root)

    def file(self, ref: str, current: Path | None, where: str) -> Path | None:
        """The file a relative ref names (None: the root document itself), read once."""
        folder = current.parent if current is not None else self.folder
        if folder is None:
            raise ResourceImportError(where, f"$ref to {ref!r} needs the document's path to be resolved")
        target = (folder / unquote(ref)).resolve()
        if target == self.root:
            return None
        if target.suffix.lower() not in SUFFIXES:
            raise ResourceImportError(where, f"$ref to {ref!r}: only .json, .yaml and .yml files are read")
        if target not in self.files:
            if not target.is_file():
                raise ResourceImportError(where, f"$ref to {ref!r}: no such file")
            self.files[target] = read_file(target, ref)
        return target


# --------------------------------------------------------------------------- helpers


def _rebase(node: Any, base: Path, folder: Path, root: Path | None) -> Any:
    if isinstance(node, list):
        return [_rebase(n, base, folder, root) for n in node]
    if not isinstance(node, dict):
        return node
    out: Node = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str) and "://" not in value:
            file_part, _, fragment = value.partition("#")
            target = (base.parent / unquote(file_part)).resolve() if file_part else base
            if target == root:
                out[key] = "#" + fragment
            else:
                relative = Path(os.path.relpath(target, folder)).as_posix()
                out[key] = relative + ("#" + fragment if fragment else "")
        elif key in ("example", "examples", "x-example", "enum", "default"):
            out[key] = value
        else:
            out[key] = _rebase(value, base, folder, root)
    return out


def _at(document: Any, fragment: str, where: str, ref: str) -> Any:
    node = document
    for raw in [p for p in unquote(fragment).split("/")[1:]] if fragment else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise ResourceImportError(where, f"$ref {ref!r} points at nothing")
    return node


def _local_ref(ref: str) -> str:
    for old, new in LOCAL_PREFIXES.items():
        if ref.startswith(old):
            return new + ref[len(old) :]
    return ref


def _servers(doc: Node) -> list[Node]:
    raw_base, raw_host = doc.get("basePath"), doc.get("host")
    base = raw_base.strip("/") if isinstance(raw_base, str) else ""
    base = "/" + base if base else ""
    host = raw_host.strip() if isinstance(raw_host, str) else ""
    if not host:
        return [{"url": base or "/"}]
    schemes = [s for s in _list(doc.get("schemes")) if isinstance(s, str)] or ["https"]
    return [{"url": f"{scheme}://{host.rstrip('/')}{base}"} for scheme in schemes]


def _security(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    extra = {
        k: v for k, v in node.items() if k == "description" or (isinstance(k, str) and k.startswith("x-"))
    }
    if kind == "basic":
        return {"type": "http", "scheme": "basic", **extra}
    if kind == "apiKey":
        return {"type": "apiKey", "name": node.get("name", ""), "in": node.get("in", "header"), **extra}
    if kind == "oauth2":
        scopes = _dict(node.get("scopes"))
        flow = node.get("flow")
        urls: Node = {"scopes": scopes}
        if flow in ("implicit", "accessCode"):
            urls["authorizationUrl"] = node.get("authorizationUrl", "")
        if flow in ("password", "application", "accessCode"):
            urls["tokenUrl"] = node.get("tokenUrl", "")
        name = {
            "implicit": "implicit",
            "password": "password",
            "application": "clientCredentials",
            "accessCode": "authorizationCode",
        }.get(str(flow), "implicit")
        return {"type": "oauth2", "flows": {name: urls}, **extra}
    return dict(node)


def _style(fmt: Any, place: str) -> Node | None:
    if fmt in (None, "csv"):
        return {"style": "form", "explode": False} if place in ("query", "cookie") else None
    if fmt == "multi":
        return {"style": "form", "explode": True}
    if fmt == "ssv":
        return {"style": "spaceDelimited", "explode": False}
    if fmt == "pipes":
        return {"style": "pipeDelimited", "explode": False}
    return None  # tsv: no OpenAPI 3 style (kept on the schema as x-collectionFormat)


def _is_body(param: Any) -> bool:
    return isinstance(param, dict) and param.get("in") in ("body", "formData")


def _place(param: Any) -> tuple[str, str]:
    if not isinstance(param, dict):
        return ("", "")
    return (str(param.get("name")), str(param.get("in")))


def _types(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _dict(value: Any) -> Node:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
