"""Pass 1 of the OpenAPI import: every operation of the document with its parameters, and
the request and response bodies the later passes read (envelopes and wrappers taken off)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envfactory_mcp.crud.model import (
    ResourceImportError,
    snake,
)
from envfactory_mcp.synth.openapi import words
from envfactory_mcp.synth.openapi.documents import Loc, RefError, pointer
from envfactory_mcp.synth.openapi.drafts import (
    BODY_TYPES,
    MAX_KEY_PARTS,
    METHODS,
    SERVED_METHODS,
    Op,
    Param,
    Pass,
)
from envfactory_mcp.synth.openapi.paths import masked, tokenize
from envfactory_mcp.synth.openapi.shapes import Shape


class Reading(Pass):
    # ------------------------------------------------------------------ 1. operations

    def read_operations(self) -> None:
        paths = self.doc.get("paths")
        if not isinstance(paths, dict):
            raise ResourceImportError("#/paths", "the document has no paths")
        root = self.refs.root()
        tokens, dropped = tokenize([str(p) for p in paths], self.doc.get("servers"))
        for raw_path in paths:
            path = str(raw_path)
            here = root.at("paths", raw_path)
            try:
                item = self.refs.follow(here)
            except RefError as exc:
                self._skip_path(path, paths[raw_path], str(exc))
                continue
            if not isinstance(item.node, dict):
                self._skip_path(path, {}, "the path item is not an object")
                continue
            for name in dropped.get(path, []):
                self.note(
                    pointer(here.where),
                    "parameter",
                    f"path parameter {name!r} shares a segment with another; not served",
                )
            shared = self._params(item, "parameters")
            for method in METHODS:
                if method not in item.node:
                    continue
                self.total += 1
                where = pointer("#", "paths", path, method)
                if method not in SERVED_METHODS:
                    self.note(
                        where,
                        "operation",
                        f"{method.upper()} is not served (only GET, POST, PUT, PATCH, DELETE)",
                    )
                    continue
                loc = item.at(method)
                try:
                    loc = self.refs.follow(loc)
                except RefError as exc:
                    self.note(where, "operation", str(exc))
                    continue
                if not isinstance(loc.node, dict):
                    self.note(where, "operation", "the operation is not an object")
                    continue
                toks = tokens[path]
                longest = max((len(tok.params) for tok in toks), default=0)
                if longest > MAX_KEY_PARTS:
                    self.note(
                        where,
                        "operation",
                        f"{longest} path parameters in a row: no record has a key of that many parts",
                    )
                    continue
                own = self._params(loc, "parameters")
                merged = {(p.place, p.name): p for p in [*shared, *own]}
                self.ops.append(Op(path, method, where, loc, toks, list(merged.values()), masked(toks)))

    def _skip_path(self, path: str, item: Any, reason: str) -> None:
        methods = [m for m in METHODS if isinstance(item, dict) and m in item] or ["get"]
        self.total += len(methods)
        for method in methods:
            self.note(pointer("#", "paths", path, method), "operation", reason)

    def _params(self, holder: Loc, key: str) -> list[Param]:
        found = []
        raw = holder.node.get(key) if isinstance(holder.node, dict) else None
        for i, _ in enumerate(raw if isinstance(raw, list) else []):
            try:
                loc = self.refs.follow(holder.at(key, i))
            except RefError as exc:
                self.note(pointer(holder.where, key, str(i)), "parameter", str(exc))
                continue
            node = loc.node
            if not isinstance(node, dict) or not isinstance(node.get("name"), str):
                self.note(loc.where, "parameter", "a parameter without a name")
                continue
            schema = loc.at("schema") if isinstance(node.get("schema"), dict) else None
            if schema is None and isinstance(node.get("content"), dict):
                media = next(iter(node["content"]), None)
                schema = loc.at("content", media, "schema") if media else None
            shape = self.shapes.of(schema) if schema is not None else Shape(where=loc.where, kind="string")
            if not shape.description and isinstance(node.get("description"), str):
                shape = replace(shape, description=node["description"][:300])
            found.append(
                Param(node["name"], str(node.get("in")), node.get("required") is True, shape, loc.where)
            )
        return found

    # ------------------------------------------------------------------ responses and bodies

    def response(self, op: Op) -> tuple[Shape | None, bool]:
        """The shape of the first 2xx JSON response, and whether some 2xx response has no body."""
        responses = op.node.get("responses")
        empty = False
        if not isinstance(responses, dict):
            return None, True
        codes = sorted((str(c) for c in responses), key=lambda c: (not c.startswith("2"), c))
        for code in codes:
            if not (code.startswith("2") or code in ("default",)) or (code == "default" and empty):
                continue
            raw = next(k for k in responses if str(k) == code)
            try:
                loc = self.refs.follow(op.loc.at("responses", raw))
            except RefError as exc:
                self.note(pointer(op.where, "responses", code), "content", str(exc))
                continue
            schema = self._content(loc, op.where + f"/responses/{code}", body=False)
            if schema is None:
                content = loc.node.get("content") if isinstance(loc.node, dict) else None
                empty = empty or not content  # no body at all (a file or text is not "empty")
                continue
            return self.shapes.of(schema), empty
        return None, empty

    def body(self, op: Op) -> Shape | None:
        if "requestBody" not in op.node:
            return None
        try:
            loc = self.refs.follow(op.loc.at("requestBody"))
        except RefError as exc:
            self.note(op.where + "/requestBody", "content", str(exc))
            return None
        schema = self._content(loc, op.where + "/requestBody", body=True)
        return self.shapes.of(schema) if schema is not None else None

    def _content(self, holder: Loc, where: str, *, body: bool) -> Loc | None:
        content = holder.node.get("content") if isinstance(holder.node, dict) else None
        if not isinstance(content, dict) or not content:
            return None
        names = [str(t) for t in content]
        pick = next(
            (t for t in names if t.split(";")[0].strip() in ("application/json",) or t.endswith("+json")),
            None,
        )
        if pick is None:
            usable = BODY_TYPES if body else ("application/json", "*/*", "application/*")
            pick = next((t for t in names if t.split(";")[0].strip() in usable), None)
        if pick is None:
            shown = ", ".join(sorted(names))[:120]
            self.note(where, "content", f"content type {shown} (only JSON and forms are served)")
            return None
        raw = next(k for k in content if str(k) == pick)
        media = holder.at("content", raw)
        if not isinstance(media.node, dict) or not isinstance(media.node.get("schema"), dict):
            return None
        return media.at("schema")

    def batch_rows(self, body: Shape | None) -> tuple[str, Shape] | None:
        """A request body of several new rows: an array of objects (argument ``items``), or
        an object whose only property is one (``{"users": [...]}``): its name and row shape."""
        if body is None:
            return None
        if body.kind == "object" and len(body.props) == 1 and not body.mapping:
            name, loc = next(iter(body.props.items()))
            inner = self.shapes.of(loc)
            found = self.batch_rows(inner) if inner.kind == "array" else None
            return (snake(name), found[1]) if found is not None else None
        if body.kind != "array" or body.items is None:
            return None
        item = self.unwrap(self.shapes.of(body.items))
        return ("items", item) if item.kind == "object" and item.props else None

    def unwrap(self, shape: Shape) -> Shape:
        """``{"pet": {...}}`` -> the inner object."""
        if shape.kind == "object" and len(shape.props) == 1 and not shape.mapping:
            inner = self.shapes.of(next(iter(shape.props.values())))
            if inner.kind == "object" and (inner.props or inner.name):
                return inner
        return shape

    def list_items(self, shape: Shape | None, hint: str = "") -> Shape | None:
        """The item shape of a list response: an array, or an envelope with one array of objects."""
        if shape is None:
            return None
        if shape.kind == "array":
            return (
                self.shapes.of(shape.items)
                if shape.items is not None
                else Shape(where=shape.where, kind="json")
            )
        if shape.kind != "object" or not shape.props:
            return None
        arrays: dict[str, Shape] = {}
        for name, loc in shape.props.items():
            prop = self.shapes.of(loc)
            if prop.kind == "array" and prop.items is not None:
                item = self.shapes.of(prop.items)
                if item.kind == "object" and (item.props or item.name):
                    arrays[name] = item
        if len(arrays) == 1:
            return next(iter(arrays.values()))
        for name in (hint, *words.LIST_KEYS):
            if name and name in arrays:
                return arrays[name]
        for name, item in arrays.items():
            if snake(name) == hint:
                return item
        return None
