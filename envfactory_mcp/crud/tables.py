"""Resources by name and how they hang together: who owns an array of whom and who points at
whom (worked out once), where a row's parts sit in its document's shape, the schema of one
element of an owned array, and which entity a column's key belongs to."""

from __future__ import annotations

from typing import Any

from envfactory_mcp.crud.document import Paths, document_schema, output_paths
from envfactory_mcp.crud.model import Field, Resource, Schema


class Tables(dict[str, Resource]):
    """Resources by name, with who points at whom worked out once (large documents have hundreds)."""

    def __init__(self, resources: Any) -> None:
        super().__init__((r.name, r) for r in resources)
        self.owned: dict[str, list[Resource]] = {}
        self.children: dict[str, set[str]] = {}
        for r in self.values():
            if r.owned_by:
                self.owned.setdefault(r.owned_by[0], []).append(r)
            for f in r.fields:
                if f.references:
                    self.children.setdefault(f.references, set()).add(r.name)


def tables(by_name: dict[str, Resource]) -> Tables:
    return by_name if isinstance(by_name, Tables) else Tables(by_name.values())


def owned(resource: Resource, by_name: dict[str, Resource]) -> list[Resource]:
    """Tables holding an array property of ``resource`` (``owned_by``), in declaration order."""
    return tables(by_name).owned.get(resource.name, [])


def paths_of(resource: Resource, by_name: dict[str, Resource]) -> Paths:
    """Where a row's columns and owned arrays sit in its output (``crud.document``)."""
    return output_paths(resource, owned(resource, by_name))


def shaped(resource: Resource, by_name: dict[str, Resource]) -> bool:
    """Whether a row of ``resource`` is shown in another shape than its columns."""
    return bool(paths_of(resource, by_name)) or any(output_paths(c, []) for c in owned(resource, by_name))


def item_schema(child: Resource, *, for_input: bool) -> Schema:
    """One element of an owned array: the child's columns but its own key and owner link,
    each where the document writes it."""
    shown = [f for f in child.fields if f.name not in child.keys and f.name != child.parent]
    props = {f.name: f.schema(for_input=for_input) for f in shown}
    required = [f.name for f in shown if (f.required_on_create if for_input else True)]
    paths = output_paths(child, [])
    if paths:
        return document_schema(props, required, paths)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def entity_of(f: Field, resource: Resource, by_name: dict[str, Resource]) -> str | None:
    """The entity whose key a column holds: its target's, or its own table's for a single key
    (or, for a key of another service, the entity it declares)."""
    if f.entity:
        return f.entity
    if f.references:
        return by_name[f.references].entity
    return resource.entity if resource.keys == (f.name,) else None
