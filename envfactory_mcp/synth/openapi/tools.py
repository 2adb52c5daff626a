"""Pass 7 of the OpenAPI import: each classified operation as a tool (``Operation``):
CRUD, searches with their query parameters, state transitions, recorded actions; its
arguments under the document's names."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from envfactory_mcp.crud.arguments import key_args, scope_of
from envfactory_mcp.crud.model import (
    NOW,
    Field,
    Operation,
    OpKind,
    Resource,
    snake,
)
from envfactory_mcp.synth.openapi import words
from envfactory_mcp.synth.openapi.documents import pointer
from envfactory_mcp.synth.openapi.drafts import (
    CLOCK_SECONDS,
    LOG_TABLE,
    MAX_COLUMNS,
    OWNED,
    Draft,
    Op,
    Param,
    Skip,
)
from envfactory_mcp.synth.openapi.security import requires_credential
from envfactory_mcp.synth.openapi.shapes import SCALARS
from envfactory_mcp.synth.openapi.tables import Tabling


class Tooling(Tabling):
    # ------------------------------------------------------------------ 7. tools

    def operations(self) -> list[Operation]:
        out: list[Operation] = []
        names: set[str] = set()
        for op in self.ops:
            if op.kind in ("security", "unserved") or not op.kind:
                if op.kind == "security":
                    self.note(
                        op.where,
                        "security",
                        "sign-in, token or credential endpoint: authentication is not modelled",
                    )
                continue
            try:
                made = self._operation(op)
            except Skip as exc:
                self.note(op.where, "operation", str(exc))
                continue
            if made is None:
                continue
            unique, n = made.name, 2
            while unique in names:
                unique, n = f"{made.name[:58]}_{n}", n + 1
            names.add(unique)
            spoken = {  # the tool takes its parameters under the document's names
                snake(p.name): p.name
                for p in op.params
                if p.place in ("path", "query") and snake(p.name) != p.name
            }
            spoken.update(op.spoken)
            if op.draft is not None:  # a field under the request's name, not the response's
                spoken.update(op.draft.body_names.get(op.where, {}))
            spoken.update(self._path_names(op, made))
            out.append(replace(made, name=unique, names=tuple(spoken.items())))
            if not requires_credential(self.doc, op.node):
                self.open.add(unique)
        return out

    def _path_names(self, op: Op, made: Operation) -> dict[str, str]:
        """Argument -> the path parameter it is (``notification_id`` -> ``id``,
        ``notification_id`` -> ``group_key``): the scope columns and then the key
        arguments are the path's parameters in order, when there are as many."""
        resource = self.resources.get(made.resource)
        if resource is None:
            return {}
        path = [name for run in op.slots for name in run]
        args = [*scope_of(made, resource), *key_args(made, resource).values()]
        if len(path) != len(args) or len(set(args)) != len(args):
            return {}
        return dict(zip(args, path, strict=True))  # the same name too: the path's, not the body's

    def _operation(self, op: Op) -> Operation | None:
        draft = op.draft
        if op.kind == "record" or (
            op.kind == "action" and draft is not None and not self._transition(op, draft)
        ):
            return self._record(op, draft)
        if draft is None:
            raise Skip("nothing in the document describes what it works on")
        resource = self.resources[draft.name]
        text = _describe(op)
        name = _tool_name(op, draft)
        scope = self._scope(op, draft)
        kind: OpKind
        if op.kind in ("list", "search"):
            filters, arrays, search, pagination = self._query(op, resource)
            return Operation(
                kind="list",
                resource=resource.name,
                name=name,
                description=text,
                scope=scope,
                filters=filters,
                array_filters=arrays,
                search=search,
                pagination=pagination,  # type: ignore[arg-type]
            )
        self._ignore_query(op)
        if op.kind in ("get", "singleton-get"):
            return Operation(kind="get", resource=resource.name, name=name, description=text, scope=scope)
        if op.kind == "delete":
            return Operation(kind="delete", resource=resource.name, name=name, description=text, scope=scope)
        if op.kind == "action":
            fields = self._action_fields(op, draft, resource)
            return Operation(
                kind="action",
                resource=resource.name,
                name=name,
                description=text,
                scope=scope,
                fields=fields,
                required=(),
                sets=op.sets,
            )
        fields, required = self._body_fields(op, draft, resource)
        if op.body_key and not self._keyed_body(op, draft, resource):
            return self._record(op, draft)  # no key in the body: which item it changes is not said
        if op.kind == "batch" and not resource.singleton:
            return Operation(
                kind="create",
                resource=resource.name,
                name=name,
                description=text,
                scope=scope,
                fields=fields,
                required=required,
                batch=op.batch if op.batch not in fields and op.batch not in scope else "rows",
            )
        kind = "create" if op.kind in ("create", "batch") else "update"
        if kind == "create" and resource.singleton:
            kind = "update"
        upsert = op.upsert and kind == "update" and not (resource.singleton and resource.keys == ("id",))
        # A create of a singleton (``POST /push/subscription``: "the old subscription is
        # replaced") sets what it is given; it is no patch that must be given something.
        partial = kind == "update" and op.kind == "update" and (op.method == "patch" or not required)
        if upsert:
            required = tuple(n for n in required if not resource.has(n) or not resource.field(n).nullable)
        return Operation(
            kind=kind,
            resource=resource.name,
            name=name,
            description=text,
            scope=scope,
            fields=fields,
            required=required if not partial or upsert else (),
            partial=partial and not upsert,
            upsert=upsert,
        )

    def _keyed_body(self, op: Op, draft: Draft, resource: Resource) -> bool:
        """Whether ``op``'s request body holds every key of ``draft``'s rows (``PUT /pet``
        with the pet's ``id``): then it updates the item that key names."""
        cols, _ = draft.body_columns.get(op.where, (set(), set()))
        return bool(resource.keys) and not resource.singleton and all(k in cols for k in resource.keys)

    def _scope(self, op: Op, draft: Draft) -> tuple[str, ...]:
        """The columns the path's parameter runs bind (the last run of an item path is its
        key; an update of the collection whose body holds the key is bound by it too)."""
        if op.body_key:
            return (*draft.links, *(k for k in draft.keys if k not in draft.links))
        if op.bound:
            return tuple(c for c in op.bound.values() if c)
        if op.role == "root" or len(op.slots) < len(draft.ancestors):
            return ()
        return tuple(draft.links)

    def _body_fields(
        self, op: Op, draft: Draft, resource: Resource
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        cols, required = draft.body_columns.get(op.where, (set(), set()))
        arrays = {c.owned_by[1] for c in draft.children if c.owned_by}
        usable = [c for c in draft.columns if c in cols and (resource.has(c) or c in arrays)]
        usable = [c for c in usable if c not in resource.keys or resource.id_style == "client" or op.upsert]
        if (
            op.kind == "create"
            and draft.keys
            and any(k in cols for k in draft.keys)
            and resource.id_style != "client"
        ):
            pass
        return tuple(usable), tuple(c for c in usable if c in required)

    def _action_fields(self, op: Op, draft: Draft, resource: Resource) -> tuple[str, ...]:
        """Request fields of an action that name columns of its table: set with the state."""
        body = self.body(op)
        body = self.unwrap(body) if body is not None else None
        if body is None or body.kind != "object":
            return ()
        made: dict[str, Field] = {}
        self._flatten(draft, body, "", True, 1, made, writing=True)
        kept = []
        for name, given in made.items():
            f = resource.field(name) if resource.has(name) else None
            if (
                f is not None
                and name not in resource.keys
                and name not in draft.links
                and f.kind == given.kind
            ):
                kept.append(name)
            else:
                self.note(
                    op.where + "/requestBody",
                    "field",
                    f"request field {name!r} is not a column of {resource.name}; not served",
                )
        return tuple(kept)

    def _transition(self, op: Op, draft: Draft) -> bool:
        """``POST /orders/{id}/cancel``: set the state the verb names, if the table has one. The
        verb is the path's last word, else the first word of the operation's id or summary
        (``resolveIncident``)."""
        said = [
            words.verb_of(op.tokens[-1].name or ""),
            words.verb_of(snake(str(op.node.get("operationId") or ""))),
            words.verb_of(snake(str(op.node.get("summary") or ""))),
        ]
        return any(bool(verb) and self._sets(op, draft, verb) for verb in dict.fromkeys(said))

    def _sets(self, op: Op, draft: Draft, verb: str) -> bool:
        resource = self.resources[draft.name]
        undo = verb.startswith("un") and len(verb) > 4
        forms = words.past_forms(verb)
        sets: list[tuple[str, Any]] = []
        for f in resource.fields:
            if f.read_only and f.name in resource.keys:
                continue
            if (f.enum and f.name in ("status", "state")) or (
                f.enum and f.name.endswith(("_status", "_state"))
            ):
                value = next((v for form in forms for v in f.enum if words.normal(v) == form), None)
                if value is not None and not any(c == f.name for c, _ in sets):
                    sets.append((f.name, value))
            elif (
                f.kind == "string"
                and f.enum is None
                and (f.name in ("status", "state") or f.name.endswith(("_status", "_state")))
                and verb in words.IRREGULAR
                and not any(c == f.name for c, _ in sets)
            ):  # a free-text state: the form its description names, else the verb's first
                named = set(re.findall(r"[a-z_]+", f.description.lower()))
                sets.append((f.name, next((w for w in forms if w in named), forms[0])))
            elif f.kind == "boolean":
                base = verb[2:] if undo else verb
                if f.name in (*words.past_forms(base), *(f"is_{w}" for w in words.past_forms(base))):
                    sets.append((f.name, not undo))
            elif f.kind in ("string", "integer") and f.name in tuple(f"{w}_at" for w in forms) + tuple(
                f"{w}_on" for w in forms
            ):  # a time stamp: the clock (as Unix seconds in an integer column)
                sets.append((f.name, NOW if f.kind == "string" else CLOCK_SECONDS))
        if not sets:
            return False
        op.sets = tuple(sets)
        return True

    def _record(self, op: Op, draft: Draft | None) -> Operation:
        log = self._log()
        resource = self.resources[draft.name] if draft is not None else log
        params: list[Field] = []
        required: list[str] = []
        taken = set(resource.keys) | set(draft.links if draft else ())
        body = self.body(op)
        body = self.unwrap(body) if body is not None else None
        if body is not None and body.kind == "object":
            made: dict[str, Field] = {}
            holder = Draft(
                rkey=("x",), literal="x", role="x", ancestors=[], slot_params=[], name="x", entity="x"
            )
            self._flatten(holder, body, "", True, 1, made, writing=True)
            for name, f in made.items():
                if name in taken or name in ("ctx",):
                    continue
                f = replace(
                    f,
                    references=None,
                    read_only=False,
                    auto=None,
                    description="" if f.description == OWNED else f.description,
                )
                if f.kind == "array" and f.item_kind == "object":
                    f = replace(f, item_kind="json")
                params.append(f)
                if not f.nullable:
                    required.append(name)
        elif body is not None:
            kind: Any = body.kind if body.kind in (*SCALARS, "array", "object") else "json"
            params.append(Field(name="body", kind=kind, nullable=False))
            required.append("body")
        for p in op.params:
            if p.place == "query":
                name = snake(p.name)
                if name in taken or any(f.name == name for f in params):
                    continue
                f = self._column(name, p.shape, nullable=not p.required)
                if f.kind == "array":
                    f = replace(f, item_kind=self.item_kind(p.shape))
                params.append(replace(f, read_only=False))
                if p.required:
                    required.append(name)
        params = params[:MAX_COLUMNS]
        keyed = draft is not None and (op.role == "item" or op.kind == "action")
        scope = self._scope(op, draft) if draft is not None else ()
        return Operation(
            kind="record",
            resource=resource.name,
            name=_tool_name(op, draft),
            description=_describe(op),
            scope=scope,
            keyed=keyed,
            log=log.name,
            params=tuple(params),
            required=tuple(required),
        )

    def _log(self) -> Resource:
        if self.log is None:
            name = LOG_TABLE
            while name in self.resources:
                name += "_x"
            self.log = Resource(
                name=name,
                entity="action",
                fields=(
                    Field(
                        name="id", kind="integer", read_only=True, description="Number of the recorded call."
                    ),
                    Field(name="action", kind="string", description="The tool that was called."),
                    Field(
                        name="resource", kind="string", nullable=True, description="The table it acted on."
                    ),
                    Field(
                        name="target",
                        kind="string",
                        nullable=True,
                        description="The key of the row it acted on (JSON).",
                    ),
                    Field(name="details", kind="object", description="The arguments of the call."),
                    Field(
                        name="created_at", kind="string", format="date-time", auto="now", description="When."
                    ),
                ),
                keys=("id",),
                description="Calls the document describes as actions with no other place in the state.",
                log=True,
            )
            self.resources[name] = self.log
        return self.log

    def _query(self, op: Op, resource: Resource) -> tuple[tuple[str, ...], tuple[str, ...], str | None, str]:
        """Filters, filters of several values, the search argument and the pagination of a
        list; each served query parameter's name is kept in ``op.spoken`` (the argument
        takes it: ``statuses`` for the ``status`` filter, ``pageSize`` for ``per_page``)."""
        filters: list[str] = []
        arrays: list[str] = []
        search, pagination = None, "none"
        paging: list[tuple[str, Param]] = []
        for p in op.params:
            name = snake(p.name)
            where = p.where
            if p.place in ("header", "cookie"):
                self.note(
                    where,
                    "parameter",
                    f"{p.place} parameter {p.name!r} (authentication/transport, not state)",
                )
            elif p.place != "query":
                continue
            elif name in words.PAGINATION:
                style = words.PAGINATION[name]
                pagination = style if pagination == "none" else pagination
                paging.append((name, p))
            elif (
                resource.has(name)
                and resource.field(name).kind in (*SCALARS, "array")
                and name not in filters
            ):
                column = resource.field(name)
                if p.shape.kind == "array" and column.kind != "array":
                    arrays.append(name)
                else:
                    filters.append(name)
                op.spoken.setdefault(name, p.name)
            elif name in words.SEARCH_PARAMS and search is None and p.shape.kind == "string":
                search = name
                op.spoken.setdefault(name, p.name)
            elif (
                name.endswith("s")
                and resource.has(name[:-1])
                and p.shape.kind == "array"
                and resource.field(name[:-1]).kind in SCALARS
                and name[:-1] not in op.spoken
            ):
                arrays.append(name[:-1])
                op.spoken[name[:-1]] = p.name
            else:
                self.note(
                    where, "parameter", f"query parameter {p.name!r} matches no column and is not served"
                )
        served = {"offset": ("limit", "offset"), "page": ("page", "per_page")}.get(pagination, ())
        for name, p in paging:
            role = words.PAGE_ROLES.get(name, "")
            if role in served and role not in op.spoken:
                op.spoken[role] = p.name
            else:
                self.note(
                    p.where,
                    "parameter",
                    f"query parameter {p.name!r} is served as {'per_page' if pagination == 'page' else 'limit'}",
                )
        if op.method == "post" and op.kind == "search":
            body = self.body(op)
            for prop in body.props if body is not None and body.kind == "object" else {}:
                name = snake(prop)
                if resource.has(name) and resource.field(name).kind in SCALARS and name not in filters:
                    filters.append(name)
                else:
                    self.note(
                        pointer(op.where, "requestBody"),
                        "field",
                        f"search field {prop!r} matches no column and is not served",
                    )
        return tuple(filters), tuple(a for a in arrays if a not in filters), search, pagination

    def _ignore_query(self, op: Op) -> None:
        for p in op.params:
            if p.place in ("header", "cookie"):
                self.note(
                    p.where,
                    "parameter",
                    f"{p.place} parameter {p.name!r} (authentication/transport, not state)",
                )
            elif p.place == "query" and op.kind != "record" and p.name not in op.consumed:
                self.note(
                    p.where, "parameter", f"query parameter {p.name!r} only shapes the response; not served"
                )


def _describe(op: Op) -> str:
    node = op.node
    text = " ".join(
        str(node.get(k) or "").strip() for k in ("summary", "description") if isinstance(node.get(k), str)
    )
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) > 600:
        text = text[:597].rstrip() + "..."
    return text or f"{op.method.upper()} {op.path}"


def _tool_name(op: Op, draft: Draft | None) -> str:
    op_id = op.node.get("operationId")
    if isinstance(op_id, str) and op_id.strip():
        return snake(op_id)[:58]
    literal = op.tokens[-1].name if op.tokens and op.tokens[-1].literal else None
    entity = draft.entity if draft is not None else "api"
    base = {
        "list": f"list_{draft.name if draft else 'items'}",
        "search": f"search_{draft.name if draft else 'items'}",
        "get": f"get_{entity}",
        "singleton-get": f"get_{entity}",
        "create": f"create_{entity}",
        "update": f"update_{entity}",
        "delete": f"delete_{entity}",
        "batch": f"create_{draft.name if draft else 'items'}",
    }.get(op.kind)
    if base is None:
        base = f"{literal or op.method}_{entity}"
    return snake(base)[:58]
