"""Tools that speak their document's names and shapes (issue 27).

An importer stores a resource flat (``category_id``, ``photo_urls``: SQLite columns), but
a client following the real API docs writes ``photoUrls`` and reads
``{"category": {"id": 1}}``. Each column knows where the document writes it
(``Field.path``: property names from the top), and an owned array its property's name
(``Resource.document_name``); from those:

* the **output** of a row is shaped as the document writes it: columns nested in their
  objects under the document's names, owned arrays' elements too (``output_paths``,
  ``document_schema``; the generated ``_doc`` helper);
* an **argument** takes the document's name where that is a Python name no other argument
  or column has (``document_argument``), and an owned array's elements are taken in their
  document shape (the generated ``_flat`` helper turns them into rows).

A column whose place would clash with another's (a property that is also an object of
others) keeps its column name; a resource with no ``path`` anywhere (every library
service) is shown exactly as before, so nothing here changes their packages.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from envfactory_mcp.crud.model import RESERVED, Resource, Schema

Paths = dict[str, tuple[str, ...]]


def python_name(raw: str) -> bool:
    """Whether ``raw`` can be an argument of a generated function as it is."""
    return (
        raw.isidentifier()
        and raw.isascii()
        and not keyword.iskeyword(raw)
        and raw not in RESERVED
        and not raw.startswith("_")
    )


def portable_name(raw: str) -> bool:
    """Whether ``raw`` can name a tool argument in every major function-calling dialect
    (letters, digits, ``_``, ``.`` and ``-``, at most 64): a document's name that is no
    Python name is taken by keyword (``Timers.Inactive``, ``max-depth``, ``from``)."""
    return bool(_PORTABLE.match(raw))


_PORTABLE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def _plain(part: str) -> bool:
    return bool(part) and not any(c in part for c in ".[]")


def _clash(path: tuple[str, ...], leaves: set[tuple[str, ...]], inner: set[tuple[str, ...]]) -> bool:
    return path in leaves or path in inner or any(path[:i] in leaves for i in range(1, len(path)))


def output_paths(resource: Resource, children: list[Resource]) -> Paths:
    """Column (or owned array property) -> where the document puts it in a row, for those
    not shown under their own name at the top; ``{}`` when that would not be one tree."""
    entries: list[tuple[str, tuple[str, ...]]] = []
    for f in resource.fields:
        entries.append((f.name, f.path if f.path and all(_plain(p) for p in f.path) else (f.name,)))
    for child in children:
        assert child.owned_by is not None
        prop, raw = child.owned_by[1], child.document_name
        entries.append((prop, (raw,) if raw and _plain(raw) else (prop,)))
    leaves: set[tuple[str, ...]] = set()
    inner: set[tuple[str, ...]] = set()
    out: Paths = {}
    for column, path in entries:
        if _clash(path, leaves, inner):
            path = (column,)
            if _clash(path, leaves, inner):
                return {}
        leaves.add(path)
        inner.update(path[:i] for i in range(1, len(path)))
        if path != (column,):
            out[column] = path
    return out


class _Leaf:
    __slots__ = ("required", "schema")

    def __init__(self, schema: Schema, required: bool) -> None:
        self.schema, self.required = schema, required


def document_schema(props: dict[str, Schema], required: list[str], paths: Paths) -> Schema:
    """An object schema of ``props`` (by column) with each column at its document place."""
    tree: dict[str, Any] = {}
    for name, schema in props.items():
        path = paths.get(name, (name,))
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = _Leaf(schema, name in required)
    return _object(tree)[0]


def _object(tree: dict[str, Any]) -> tuple[Schema, bool]:
    props: dict[str, Schema] = {}
    needed: list[str] = []
    for part, value in tree.items():
        if isinstance(value, _Leaf):
            props[part], required = value.schema, value.required
        else:
            props[part], required = _object(value)
        if required:
            needed.append(part)
    schema = {"type": "object", "properties": props, "required": needed, "additionalProperties": False}
    return schema, bool(needed)


def output_name(column: str, paths: Paths) -> str:
    """Where a column sits in a row as shown, as a ``spec`` output path (``category.id``)."""
    return ".".join(paths.get(column, (column,)))


HELPERS = '''

# Per table: column -> where the document writes it in a row (its property names from the
# top), for columns not shown under their own name: rows are shown, and owned arrays'
# elements taken, in the document's shape.
DOCUMENT = ${document}


def _doc(table: str, shown: dict[str, Any]) -> dict[str, Any]:
    """A shown row in the document's shape: columns nested under the document's names."""
    names = DOCUMENT.get(table, {})
    arrays = {prop: child for prop, child, _column, _key, _row_key, _defaults in OWNED.get(table, ())}
    out: dict[str, Any] = {}
    for column, value in shown.items():
        if column in arrays and isinstance(value, list):
            value = [_doc(arrays[column], item) for item in value]
        path = names.get(column, (column,))
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value
    return out


def _flat(table: str, items: list[Any] | None) -> list[Any] | None:
    """Owned array elements given in the document's shape, as rows of ``table``."""
    if items is None:
        return None
    names = DOCUMENT.get(table, {})
    rows = []
    for item in items:
        row = dict(item)
        for path in names.values():
            row.pop(path[0], None)
        for column, path in names.items():
            node: Any = item
            for part in path:
                node = node.get(part) if isinstance(node, dict) else None
            if node is not None:
                row[column] = node
        rows.append(row)
    return rows
'''
