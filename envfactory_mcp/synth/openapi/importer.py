"""OpenAPI 3.0 / 3.1 documents -> resources and operations of the shared model (``crud``).

The import runs in passes over the document, none quadratic in its size:

1. **Operations** (``reading.py``). Every path and method (path items behind ``$ref``s followed, across
   files too), its parameters (path level and operation level) and its tokens
   (``paths.tokenize``).
2. **Resources** (``classify.py``). A literal followed by parameters is a collection with items
   (``/pets/{petId}``, ``/board/{row}/{column}``: a composite key); a path ending in a
   literal is that collection (list / create), or else something about what precedes
   it: a sub-collection (a GET returning a list), a singleton (``/user``, ``/me``,
   ``/users/{id}/settings``: a GET returning one object), a search (``/pets/findByStatus``,
   ``/search/issues``), or an action (``POST /orders/{id}/cancel``). Parents named only in
   paths (``/orgs/{org}/repos`` without ``/orgs``) become tables of their keys.
3. **Schemas** (``tables.py``). Each resource's schema is its item GET response, else its list's items,
   else its create response, else its request bodies; single-key wrappers
   (``{"article": {...}}``) and list envelopes (``{"data": [...], "total": n}``) are taken
   off. Scalars become columns, nested objects are flattened (``address_city``), maps and
   free-form objects JSON columns, arrays of scalars JSON arrays, arrays of objects owned
   child tables, a ``$ref`` to another resource (or ``<entity>_id``) a foreign key. Keys
   keep the path's names and types (``/user/{username}`` is keyed by ``username``).
4. **Tools** (``tools.py``). list / get / create / update / delete; searches are filtered lists keeping
   each query parameter that names a column; an action sets the state its verb names
   (a status value, a flag, a ``<verb>ed_at`` timestamp) or else is recorded in the
   ``action_log`` table; sign-in, token and OAuth endpoints are not served. Arguments
   take the document's names: path, query and body parameters as written (``petId``,
   ``{id}``, ``PageSize``, ``Timers.Inactive``), the request's over the response's.

Whatever is not modelled — an operation, parameter, field, content type, schema — is an
``Ignored`` entry with its JSON pointer and the reason; the import fails only when no
operation can be served. Each pass is a class on top of the one before (``Reading`` ->
``Classifying`` -> ``Tabling`` -> ``Tooling`` -> ``Importer``) over the state of
``drafts.Pass``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envfactory_mcp.crud.core import build_imported
from envfactory_mcp.crud.model import (
    Coverage,
    ImportedEnv,
    Resource,
    ResourceImportError,
)
from envfactory_mcp.spec import Authentication
from envfactory_mcp.synth.openapi.documents import RefError, pointer
from envfactory_mcp.synth.openapi.drafts import (
    Draft,
    Op,
    Param,
    prefix_before_run,
)
from envfactory_mcp.synth.openapi.security import find_operation, principal
from envfactory_mcp.synth.openapi.tools import Tooling
from envfactory_mcp.synth.policy import document_policy

__all__ = ["Draft", "Importer", "Op", "Param"]


class Importer(Tooling):
    """The passes in order (``run``): operations (``reading``), resources (``classify``),
    tables, columns and links (``tables``), tools (``tools``), then what is left over."""

    # ------------------------------------------------------------------ the leftovers

    def leftovers(self) -> None:
        doc = self.doc
        components = _dict(doc.get("components"))
        schemes = _dict(components.get("securitySchemes"))
        for scheme, node in schemes.items():
            kind = node.get("type", "?") if isinstance(node, dict) else "?"
            self.note(
                pointer("#", "components", "securitySchemes", str(scheme)),
                "security",
                f"security scheme ({kind}) not modelled",
            )
        if "security" in doc:
            self.note(
                "#/security", "security", "global security requirement (authentication is not modelled)"
            )
        for key in ("servers", "webhooks", "callbacks"):
            if key in doc:
                self.note(f"#/{key}", "document", "not part of the state")
        for op in self.ops:
            if "security" in op.node and op.node.get("security"):
                self.note(
                    op.where + "/security",
                    "security",
                    "security requirement (authentication is not modelled)",
                )
            if isinstance(op.node.get("callbacks"), dict):
                self.note(
                    op.where + "/callbacks", "document", "callbacks are requests the API makes; not served"
                )
        schemas = _dict(components.get("schemas"))
        root = self.refs.root()
        for name in schemas:
            here = root.at("components", "schemas", name)
            try:
                target = self.refs.follow(here).where
            except RefError as exc:
                self.note(here.where, "schema", str(exc))
                continue
            if here.where not in self.shapes.used and target not in self.shapes.used:
                self.note(here.where, "schema", "not used by any served operation")

    # ------------------------------------------------------------------ all of it

    def run(self, *, name: str, title: str, description: str, seed: int) -> ImportedEnv:
        self.read_operations()
        self.classify()
        for draft in self.drafts.values():  # PUT on an item of a table nothing creates: it creates too
            if draft.role == "collection" and not any(o.kind == "create" for o in draft.ops):
                for op in draft.ops:
                    if op.role == "item" and op.method == "put" and op.kind == "update":
                        op.upsert = True
        for op in self.ops:  # a search or bound list also reaches its table from the top
            if op.draft is not None and op.kind == "search" and not op.bound and len(op.slots) == 0:
                op.draft.scoped_top = op.draft.scoped_top or bool(op.draft.ancestors)
        self.name_tables()
        self.keys()
        self.columns()
        self.links()
        for op in self.ops:  # bound searches: the parent link column of the table searched
            if op.bound and op.draft is not None:
                parent = self.drafts.get(prefix_before_run(op.mask, len(op.slots) - 1))
                if parent is not None:
                    op.draft.scoped_top = True
                    columns = self._link_columns(op.draft, parent, op.slots[-1])
                    op.bound = {len(op.slots) - 1: columns[0] if len(columns) == 1 else ""}
                    if not op.bound[len(op.slots) - 1]:
                        op.kind, op.draft = "list", None
        self.build_resources()
        operations = self.operations()
        self.leftovers()
        served = len(operations)
        if not operations:
            first = next((i for i in sorted(self.ignored) if i.kind in ("operation", "content")), None)
            why = f"; first: {first}" if first else ""
            raise ResourceImportError("#/paths", f"no operation can be served: nothing stateful remains{why}")
        resources = [r for r in self.resources.values()]
        used = {op.resource for op in operations} | {op.log for op in operations if op.log}
        for r in resources:
            for f in r.fields:
                if f.references:
                    used.add(f.references)
            if r.owned_by:
                used.add(r.name)
        keep = _closure(used, resources)
        resources = [r for r in resources if r.name in keep]
        authentication = None
        found = principal(resources) if len(self.open) < len(operations) else None
        if found is not None:  # the security schemes as the policy's authentication step
            who, column = found
            find = find_operation(who, column, {o.name for o in operations})
            operations = [find, *operations]
            authentication = Authentication(
                tools=[find.name],
                entity=who.entity,
                exempt=[o.name for o in operations if o.name in self.open],
            )
        kept = sum(
            1 for r in resources if not r.log for f in r.fields if f.name not in r.keys and f.name != r.parent
        )
        dropped = len({i.where for i in self.ignored if i.kind == "field"})
        coverage = Coverage(
            operations=self.total,
            served=served,
            fields=kept + dropped,
            fields_kept=kept,
        )
        imported = build_imported(
            name=name,
            title=title,
            description=description,
            source="an OpenAPI document",
            generator="importer:openapi",
            seed=seed,
            resources=resources,
            operations=operations,
            ignored=self.ignored,
            coverage=coverage,
        )
        if authentication is not None:
            said = f"the credential is not checked; the policy's authentication step ({authentication.tools[0]}) identifies the client"
            self.ignored[:] = [
                replace(i, reason=said) if i.kind == "security" and "requirement" in i.reason else i
                for i in self.ignored
            ]
            imported = replace(imported, ignored=sorted(set(self.ignored)))
        text, rules = document_policy(
            imported.spec, security=self.security(), source="OpenAPI document", authentication=authentication
        )
        return replace(
            imported, spec=imported.spec.model_copy(update={"policy": text, "policy_rules": rules})
        )

    def security(self) -> list[str]:
        """The document's security schemes in words (``bearerAuth (HTTP bearer)``), when any
        operation requires one."""
        schemes = _dict(_dict(self.doc.get("components")).get("securitySchemes"))
        required = bool(self.doc.get("security")) or any(op.node.get("security") for op in self.ops)
        if not required:
            return []
        out = []
        for name, node in list(schemes.items())[:6]:
            node = node if isinstance(node, dict) else {}
            kind = str(node.get("type") or "?")
            detail = {"http": str(node.get("scheme") or ""), "apiKey": f"key in {node.get('in', '?')}"}.get(
                kind, ""
            )
            out.append(f"{name} ({kind}{' ' + detail if detail else ''})")
        return out or ["a credential"]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _closure(used: set[str], resources: list[Resource]) -> set[str]:
    by_name = {r.name: r for r in resources}
    keep: set[str] = set()
    pending = [n for n in used if n in by_name]
    while pending:
        name = pending.pop()
        if name in keep:
            continue
        keep.add(name)
        for f in by_name[name].fields:
            if f.references and f.references not in keep:
                pending.append(f.references)
    for r in resources:
        if r.owned_by and r.owned_by[0] in keep:
            keep.add(r.name)
    return keep
