"""Passes 3 to 6 of the OpenAPI import: tables named and keyed, columns from the schemas
(nested objects flattened with their document paths, arrays of objects as owned tables),
links to parent tables, and the finished ``Resource`` of each."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from envfactory_mcp.crud.model import (
    Field,
    Kind,
    Resource,
    singular,
    snake,
)
from envfactory_mcp.synth.openapi import words
from envfactory_mcp.synth.openapi.classify import Classifying
from envfactory_mcp.synth.openapi.documents import Loc
from envfactory_mcp.synth.openapi.drafts import (
    KEY_NAMES,
    LOG_TABLE,
    MAX_COLUMNS,
    MAX_DEPTH,
    OWNED,
    STAMP,
    Draft,
)
from envfactory_mcp.synth.openapi.shapes import SCALARS, Shape


class Tabling(Classifying):
    # ------------------------------------------------------------------ 3. tables

    def name_tables(self) -> None:
        """Table names from the path's last literal, made unique with what precedes it; every
        table's entity (its singular) is unique too, so ids of one kind are never mistaken."""
        taken: set[str] = {LOG_TABLE}
        entities: set[str] = {"action"}
        order = sorted(
            self.drafts.values(),
            key=lambda d: (d.role == "implicit", d.role != "collection", len(d.rkey), d.rkey),
        )
        for draft in order:
            base = snake(draft.literal)
            literals = [p for p in draft.rkey[:-1] if not p.startswith("{")]
            candidates = [base]
            if literals:
                candidates += [f"{singular(literals[-1])}_{base}", "_".join([*literals[-2:], base])]
            candidates += [f"{base}_{n}" for n in range(2, 100)]
            for candidate in candidates:
                name = snake(candidate)[:56]
                entity = name if draft.singleton else singular(name)
                if draft.singleton and entity in entities:
                    entity = f"current_{name}"  # ``/user`` next to ``/users/{username}``
                if name not in taken and entity not in entities:
                    break
            taken.add(name)
            entities.add(entity)
            draft.name, draft.entity = name, entity

    def keys(self) -> None:
        for draft in self.drafts.values():
            props = self._props(draft.shape)
            if draft.singleton:
                if draft.ancestors:
                    draft.keys = ()  # the parent link, set with the links
                    draft.id_style = "client"
                else:
                    draft.keys, draft.key_kinds, draft.id_style = ("id",), {"id": "integer"}, "integer"
                continue
            if draft.item_params:
                keys, kinds = [], {}
                params = self._item_param_shapes(draft)
                draft.key_shapes = {}
                for param in draft.item_params:
                    column = _match_key(param, draft.entity, props)
                    shape = params.get(param) or (self.shapes.of(props[column]) if column in props else None)
                    kind = (
                        shape.kind if shape is not None and shape.kind in ("integer", "string") else "string"
                    )
                    if column is None:
                        column = snake(param)
                    elif column in props:
                        prop_kind = self.shapes.of(props[column]).kind
                        kind = prop_kind if prop_kind in ("integer", "string") else kind
                    keys.append(column)
                    kinds[column] = kind
                    if shape is not None:
                        draft.key_shapes[column] = shape
                draft.keys, draft.key_kinds = tuple(dict.fromkeys(keys)), kinds
            else:
                scalar = [p for p in props if self.shapes.of(props[p]).kind in ("integer", "string")]
                required = draft.shape.required if draft.shape is not None else set()
                found = next(
                    (snake(p) for n in (*KEY_NAMES, f"{draft.entity}_id") for p in scalar if snake(p) == n),
                    None,
                ) or next((snake(p) for p in scalar if p in required and snake(p).endswith("_id")), None)
                if found is not None:
                    prop = next(p for p in props if snake(p) == found)
                    draft.keys, draft.key_kinds = (found,), {found: self.shapes.of(props[prop]).kind}
                else:
                    draft.keys, draft.key_kinds = ("id",), {"id": "integer"}
                    if draft.role != "implicit" and draft.shape is not None:
                        self.note(
                            draft.shape.where,
                            "schema",
                            f"{draft.name} has no id property; an integer id column was added",
                        )
            if len(draft.keys) == 1:
                key = draft.keys[0]
                kind = draft.key_kinds[key]
                fmt = self._key_format(draft, key, props)
                draft.id_style = "integer" if kind == "integer" else "uuid" if fmt == "uuid" else "prefix"

    def _key_format(self, draft: Draft, key: str, props: dict[str, Loc]) -> str | None:
        prop = next((p for p in props if snake(p) == key), None)
        return self.shapes.of(props[prop]).format if prop is not None else None

    def _item_param_shapes(self, draft: Draft) -> dict[str, Shape]:
        """Schemas of the path parameters naming this draft's items (from any path that has them)."""
        if not hasattr(self, "_path_params"):
            self._path_params: dict[str, Shape] = {}
            for op in self.ops:
                for p in op.params:
                    if p.place == "path":
                        self._path_params.setdefault(p.name, p.shape)
        return {name: self._path_params[name] for name in draft.item_params if name in self._path_params}

    # ------------------------------------------------------------------ 4. columns

    def columns(self) -> None:
        for draft in self.drafts.values():
            shape = draft.shape
            found: dict[str, Field] = {}
            if shape is not None and shape.kind == "object":
                self._flatten(draft, shape, "", True, 0, found, top=True)
            elif shape is not None and shape.kind in (*SCALARS, "array", "json") and draft.role != "implicit":
                found["value"] = self._column("value", shape, nullable=False)
            draft.columns = found
            # request bodies: their fields are columns too, and say what a create must be given
            for op, body in draft.bodies:
                if body.kind != "object":
                    continue
                made: dict[str, Field] = {}
                self._flatten(draft, body, "", True, 0, made, top=True, writing=True)
                required = {n for n, f in made.items() if not f.nullable}
                draft.body_columns[op.where] = (set(made), required)
                draft.body_names[op.where] = {n: f.path[0] for n, f in made.items() if len(f.path) == 1}
                for name, column in made.items():
                    if name not in draft.columns:
                        draft.columns[name] = replace(column, nullable=True)
            # query parameters of a create or update are inputs too (``POST /streams?callbackUrl=``)
            for op in draft.ops:
                if op.kind not in ("create", "update", "batch") or op.draft is not draft:
                    continue
                for param in op.params:
                    name = snake(param.name)
                    if param.place != "query" or name in words.PAGINATION or name in words.CURSORS:
                        continue
                    if name not in draft.columns:
                        column = self._column(name, param.shape, nullable=True)
                        if column.kind == "array":
                            column = replace(column, item_kind=self.item_kind(param.shape))
                        draft.columns[name] = replace(column, path=(param.name,))  # the document's name
                    cols, needed = draft.body_columns.setdefault(op.where, (set(), set()))
                    cols.add(name)
                    if param.required:
                        needed.add(name)
                    op.consumed.add(param.name)
            # an array of objects no request writes stays a JSON column: a child table pays off
            # only when the array is written (and every table costs each verification probe)
            written = {c for cols, _ in draft.body_columns.values() for c in cols}
            for name, column in list(draft.columns.items()):
                if column.description == OWNED and name not in written:
                    draft.columns[name] = replace(column, description="")

    def _flatten(
        self,
        draft: Draft,
        shape: Shape,
        prefix: str,
        required: bool,
        depth: int,
        out: dict[str, Field],
        *,
        top: bool = False,
        writing: bool = False,
    ) -> None:
        for prop, loc in shape.props.items():
            before = len(out)
            try:
                self._flatten_one(draft, shape, prop, loc, prefix, required, depth, out, top, writing)
            finally:  # where each new column sits in the document (crud ``Field.path``)
                for name in list(out)[before:]:
                    f = out[name]
                    nested = f.references is None or not prefix
                    out[name] = replace(f, path=(prop, *f.path) if nested else ())

    def _flatten_one(
        self,
        draft: Draft,
        shape: Shape,
        prop: str,
        loc: Loc,
        prefix: str,
        required: bool,
        depth: int,
        out: dict[str, Field],
        top: bool,
        writing: bool,
    ) -> None:
        column = snake(prefix + prop)
        sub = self.shapes.of(loc)
        where = sub.where if sub.where != loc.where else loc.where
        if sub.error and sub.error != "recursive schema":
            self.note(loc.where, "field", sub.error)
        needed = required and prop in shape.required and not sub.nullable
        if writing and sub.default is not None:
            needed = False  # a request may leave out what has a default
        if column in out:
            if not writing:
                self.note(
                    loc.where, "field", f"its column name {column!r} is already another field's; not kept"
                )
            return
        if len(out) >= MAX_COLUMNS:
            self.note(loc.where, "field", f"{draft.name} has more than {MAX_COLUMNS} columns; not kept")
            return
        if sub.read_only and writing:
            return  # readOnly: never sent in a request, whatever ``required`` says
        target = self.by_schema.get(sub.where) if sub.name else None
        if target is not None and target is not draft and len(target.keys) == 1 and not writing:
            out[_fk_name(column, target)] = Field(
                name=_fk_name(column, target),
                kind=target.key_kinds.get(target.keys[0], "string"),  # type: ignore[arg-type]
                nullable=not needed,
                references=target.name,
                description=sub.description or f"The {target.entity.replace('_', ' ')} it refers to.",
            )
            return
        known = _fk_name(column, target) if target is not None and target is not draft else None
        if writing and known is not None and len(target.keys) == 1 and known in draft.columns:  # type: ignore[union-attr]
            out[known] = replace(draft.columns[known], nullable=not needed)
            return
        if sub.kind == "object" and sub.props and depth < MAX_DEPTH and not sub.mapping:
            self._flatten(draft, sub, column + "_", needed, depth + 1, out, writing=writing)
            return
        if sub.kind == "object":
            out[column] = Field(name=column, kind="object", nullable=not needed, description=sub.description)
            return
        if sub.kind == "array":
            items = self.shapes.of(sub.items) if sub.items is not None else Shape(where=where, kind="json")
            other = self.by_schema.get(items.where) if items.name else None
            if other is not None and other is not draft and not top:
                self.note(where, "field", "array of another resource; served by that resource's own paths")
                return
            if items.kind == "object" and items.props and top and depth == 0 and other is None:
                out[column] = Field(name=column, kind="array", item_kind="object", nullable=not needed)
                out[column] = replace(out[column], description=OWNED)  # child table, made later
                return
            item_kind = (
                items.kind if items.kind in SCALARS else "object" if items.kind == "object" else "json"
            )
            out[column] = Field(
                name=column,
                kind="array",
                item_kind=item_kind,  # type: ignore[arg-type]
                nullable=not needed,
                description=sub.description,
            )
            return
        out[column] = self._column(column, sub, nullable=not needed)

    def item_kind(self, shape: Shape) -> Kind:
        """The kind of an array's elements: a scalar, or any JSON value."""
        items = self.shapes.of(shape.items) if shape.items is not None else None
        kind = items.kind if items is not None and items.kind in SCALARS else "json"
        return cast(Kind, kind)

    def _column(self, column: str, shape: Shape, *, nullable: bool) -> Field:
        kind: str = shape.kind if shape.kind in (*SCALARS, "array", "object", "json") else "json"
        enum = None
        if shape.enum and kind in ("string", "integer"):
            values = [
                v
                for v in shape.enum
                if isinstance(v, str if kind == "string" else int) and not isinstance(v, bool)
            ]
            enum = tuple(dict.fromkeys(values)) if values else None
        if kind == "string" and shape.format == "binary":
            kind = "string"
        default = shape.default
        if default is not None and not _fits(kind, default, enum):
            default = None
        return Field(
            name=column,
            kind=kind,  # type: ignore[arg-type]
            description=shape.description,
            nullable=nullable,
            enum=enum,
            format=shape.format if kind == "string" else None,
            minimum=shape.minimum if kind in ("integer", "number") else None,
            maximum=shape.maximum if kind in ("integer", "number") else None,
            max_length=shape.max_length if kind == "string" and (shape.max_length or 0) > 0 else None,
            default=default,
            read_only=shape.read_only,
        )

    # ------------------------------------------------------------------ 5. links and keys as columns

    def links(self) -> None:
        for draft in self.drafts.values():
            for i, parent_key in enumerate(draft.ancestors):
                parent = self.drafts[parent_key]
                params = draft.slot_params[i]
                draft.links += self._link_columns(draft, parent, params)
            if draft.singleton and draft.ancestors and not draft.keys:
                draft.keys = tuple(draft.links[-1:]) or ("id",)
            for key in draft.keys:
                if key not in draft.columns:
                    kind: Any = draft.key_kinds.get(key, "string")
                    shape = draft.key_shapes.get(key)
                    column = self._column(key, shape, nullable=False) if shape is not None else None
                    column = (
                        replace(column, kind=kind, enum=None)
                        if column is not None
                        else Field(name=key, kind=kind)
                    )
                    draft.columns = {key: column, **draft.columns}

    def _link_columns(self, draft: Draft, parent: Draft, params: tuple[str, ...]) -> list[str]:
        """The columns of ``draft`` holding the key of ``parent`` (one per parameter of the run)."""
        out = []
        single = len(parent.keys) == 1
        for j, param in enumerate(params):
            key = parent.keys[j] if j < len(parent.keys) else parent.keys[-1] if parent.keys else "id"
            kind = parent.key_kinds.get(key, "string")
            candidates = [snake(param), f"{parent.entity}_{key}", f"{parent.entity}_id"]
            if snake(param) == key and key in KEY_NAMES:  # ``{id}``: name the link after the parent
                candidates = [f"{parent.entity}_{key}", f"{singular(parent.literal)}_{key}", snake(param)]
            existing = next(
                (
                    c
                    for c, f in draft.columns.items()
                    if single and f.references == parent.name and c not in out and f.kind == kind
                ),
                None,
            )
            column = existing or next(
                (
                    c
                    for c in candidates
                    if c not in out and (c not in draft.columns or draft.columns[c].kind == kind)
                ),
                None,
            )
            if column is None or (column in draft.keys and not draft.singleton):
                column = f"{parent.entity}_{key}_ref"
            if column == "id" and not draft.singleton:
                column = f"{parent.entity}_id"
            old = draft.columns.get(column)
            draft.columns[column] = Field(
                name=column,
                kind=kind,  # type: ignore[arg-type]
                description=(old.description if old else "")
                or f"The {parent.entity.replace('_', ' ')} it belongs to.",
                references=parent.name if single else None,
                nullable=draft.scoped_top,
            )
            out.append(column)
        return out

    # ------------------------------------------------------------------ 6. resources

    def build_resources(self) -> None:
        for draft in self.drafts.values():
            self._finish(draft)
        # foreign keys by name: <entity>_<key> of another table
        names: dict[str, Draft] = {}
        for draft in self.drafts.values():
            if len(draft.keys) == 1 and not draft.singleton:
                names.setdefault(f"{draft.entity}_{draft.keys[0]}", draft)
                names.setdefault(f"{singular(draft.literal)}_{draft.keys[0]}", draft)
                if draft.keys[0] != "id":
                    names.setdefault(f"{draft.entity}_id", draft)
        for draft in self.drafts.values():
            for name, f in list(draft.columns.items()):
                target = names.get(name)
                if (
                    target is not None
                    and target is not draft
                    and f.references is None
                    and f.kind == target.key_kinds.get(target.keys[0])
                    and name not in draft.keys
                ):
                    draft.columns[name] = replace(f, references=target.name)
        for draft in self.drafts.values():
            self.resources[draft.name] = self._resource(draft)
            for child in draft.children:
                self.resources[child.name] = child

    def _finish(self, draft: Draft) -> None:
        """Nullability and who sets each column: request bodies, the server, or the clock."""
        creates = [op for op in draft.ops if op.kind in ("create", "batch") or op.upsert]
        written: set[str] = set()
        for cols, _ in draft.body_columns.values():
            written |= cols
        always: set[str] | None = None
        chosen: set[str] = set()  # columns some create must be given
        for op in creates:
            _, required = draft.body_columns.get(op.where, (set(), set()))
            always = set(required) if always is None else always & required
            chosen |= required
        if any(k in chosen for k in draft.keys) or len(draft.keys) > 1:
            draft.id_style = "client"
        for name, f in list(draft.columns.items()):
            if name in draft.keys:
                kind: Any = draft.key_kinds.get(name, f.kind if f.kind in ("integer", "string") else "string")
                draft.columns[name] = replace(
                    f, kind=kind, nullable=False, read_only=True, default=None, auto=None, item_kind="string"
                )
                continue
            if name in draft.links or f.description == OWNED:
                continue
            if (draft.body_columns and name not in written) or (f.read_only and name not in written):
                stamp = f.kind == "string" and f.format != "date" and bool(STAMP.search(name))
                default = f.default
                if default is None and f.enum:
                    default = f.enum[0]
                if default is None and f.kind == "boolean":
                    default = False
                draft.columns[name] = replace(
                    f,
                    read_only=True,
                    auto="now" if stamp else None,
                    default=None if stamp else default,
                    nullable=not stamp and default is None,
                )
            elif creates:
                needed = always is not None and name in always
                draft.columns[name] = replace(
                    f, read_only=False, auto=None, nullable=not needed and f.default is None
                )
            else:
                draft.columns[name] = replace(f, read_only=False, auto=None)
        for name, f in list(draft.columns.items()):
            if f.kind in ("object", "json", "array") and f.description != OWNED and name not in draft.keys:
                # stored as JSON text, and nullable: whether an argument is required is the operation's
                draft.columns[name] = replace(f, nullable=True)

    def _resource(self, draft: Draft) -> Resource:
        fields: list[Field] = []
        owned: list[tuple[str, Field]] = []
        for name, f in draft.columns.items():
            if f.description == OWNED:
                owned.append((name, f))
                continue
            fields.append(f)
        order = {k: i for i, k in enumerate(draft.keys)}
        fields.sort(key=lambda f: (f.name not in order, order.get(f.name, 0)))
        for key in draft.keys:
            i = next(i for i, f in enumerate(fields) if f.name == key)
            fields[i] = replace(
                fields[i],
                read_only=True,
                nullable=False,
                enum=None if fields[i].references is None else fields[i].enum,  # new keys are numbered
                default=None,
                description=fields[i].description or f"{draft.entity} {key}.",
            )
        parent = None
        if draft.links and not draft.scoped_top and len(self.drafts[draft.ancestors[-1]].keys) == 1:
            parent = draft.links[-1]
        resource = Resource(
            name=draft.name,
            entity=draft.entity,
            fields=tuple(fields),
            keys=draft.keys,
            id_style=draft.id_style,  # type: ignore[arg-type]
            parent=parent,
            description=(draft.shape.description if draft.shape is not None else "")
            or f"{draft.name.replace('_', ' ')} of the API",
            singleton=draft.singleton,
        )
        for prop, _ in owned:
            child = self._child(draft, resource, prop)
            if child is not None:
                draft.children.append(child)
        return resource

    def _child(self, draft: Draft, owner: Resource, column: str) -> Resource | None:
        """An array of objects: a table of its own, one row per element, pointing at its owner."""
        if len(owner.keys) != 1:
            return None
        shape = draft.shape
        prop_loc, raw = None, None
        for prop, loc in shape.props.items() if shape is not None else ():
            if snake(prop) == column:
                prop_loc, raw = loc, prop
        if prop_loc is None:
            for _, body in draft.bodies:
                for prop, loc in body.props.items():
                    if snake(prop) == column:
                        prop_loc, raw = loc, prop
        if prop_loc is None:
            return None
        items = self.shapes.of(self.shapes.of(prop_loc).items or prop_loc)
        name = snake(f"{draft.entity}_{column}")[:56]
        while name in self.resources or any(d.name == name for d in self.drafts.values()):
            name = name + "_x"
        link = f"{owner.entity}_{owner.keys[0]}"
        holder = Draft(
            rkey=(name,),
            literal=name,
            role="child",
            ancestors=[],
            slot_params=[],
            name=name,
            entity=singular(name),
        )
        made: dict[str, Field] = {}
        self._flatten(holder, items, "", True, 1, made)
        made = {n: replace(f, references=None) for n, f in made.items() if n not in ("row_id", link)}
        if not made:
            return None
        key = "row_id"
        parent_key = owner.field(owner.keys[0])
        fields = [
            Field(
                name=key,
                kind="integer",
                read_only=True,
                description=f"Position of the {column.replace('_', ' ')} element.",
            ),
            Field(
                name=link,
                kind=parent_key.kind,
                references=owner.name,
                description=f"The {owner.entity.replace('_', ' ')} it belongs to.",
            ),
            *made.values(),
        ]
        return Resource(
            name=name,
            entity=singular(name),
            fields=tuple(fields),
            keys=(key,),
            parent=link,
            description=f"The {column.replace('_', ' ')} of each {owner.entity.replace('_', ' ')}.",
            owned_by=(owner.name, column),
            document_name=raw if raw != column else None,
        )


def _match_key(param: str, entity: str, props: dict[str, Loc]) -> str | None:
    """The property a path parameter names: ``username`` -> username, ``petId`` -> id."""
    name = snake(param)
    columns = {snake(p): p for p in props}
    if name in columns:
        return name
    stripped = name
    for head in (entity, singular(entity)):
        if name.startswith(head + "_"):
            stripped = name[len(head) + 1 :]
    if stripped in columns:
        return stripped
    tail = name.rsplit("_", 1)[-1]
    if tail in ("id", "sid", "uid", "uuid", "key", "slug", "name", "code", "number") and tail in columns:
        return tail
    if name in ("id",) or tail == "id":
        return "id" if "id" in columns else None
    return None


def _fk_name(column: str, target: Draft) -> str:
    key = target.keys[0] if target.keys else "id"
    if column.endswith("_" + key) or column == key:
        return column
    return f"{column}_{key}"


def _fits(kind: str, value: Any, enum: tuple[Any, ...] | None) -> bool:
    if enum is not None and value not in enum:
        return False
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    return False
