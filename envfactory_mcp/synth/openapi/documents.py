"""Reading OpenAPI documents: one file or several, and the ``$ref``s between them.

A document is JSON or YAML (read with libyaml when it is there; dates stay strings), at
most ``MAX_BYTES``. ``$ref``s are resolved with the ``referencing`` library: a local
``#/components/...`` pointer, or a relative file (``./schemas/pet.yaml#/Pet``,
``../common.yaml``) resolved against the folder of the file the ``$ref`` is written in.
Remote URLs are never fetched. A ``$ref`` that cannot be followed is a ``RefError`` (the
importer leaves that part out); a ``$ref`` loop, and a file that cannot be read as the
document, are a ``ResourceImportError``: one line naming the place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit
from urllib.request import url2pathname

import yaml  # type: ignore[import-untyped]
from referencing import Registry, Specification
from referencing import Resource as RefResource
from referencing._core import Resolver
from referencing.exceptions import PointerToNowhere, Unresolvable

from envfactory_mcp.crud.model import ResourceImportError

MAX_BYTES = 40 * 1024 * 1024  # one file of a document
SUFFIXES = (".json", ".yaml", ".yml")
ROOT_URI = "urn:envfactory:document"
_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):  # type: ignore[misc,valid-type]
    """YAML's safe loader without timestamps: ``2010-04-01`` stays the string it is in JSON."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BASE.yaml_implicit_resolvers.items()
}


class RefError(Exception):
    """A ``$ref`` that cannot be followed; ``str()`` is one line."""


def read_file(path: Path, where: str) -> Any:
    """The parsed content of one JSON or YAML file, or a one-line ``ResourceImportError``."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ResourceImportError(where, f"cannot read the file: {exc.strerror or exc}") from None
    if size > MAX_BYTES:
        raise ResourceImportError(
            where,
            f"{size / 2**20:.1f} MB is over the {MAX_BYTES // 2**20} MB limit for one file of a document",
        )
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise ResourceImportError(where, f"cannot read the file: {exc.strerror or exc}") from None
    return parse_text(text, where, json_first=path.suffix.lower() == ".json")


def parse_text(text: str, where: str, *, json_first: bool = False) -> Any:
    """JSON (tried first for ``.json`` files and text starting with ``{``), else YAML."""
    if len(text) > MAX_BYTES:
        raise ResourceImportError(where, f"the text is over the {MAX_BYTES // 2**20} MB limit for a document")
    try:
        if json_first or text.lstrip().startswith("{"):
            try:
                return json.loads(text)
            except json.JSONDecodeError as exc:
                if json_first:
                    raise ResourceImportError(
                        where, f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
                    ) from None
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ResourceImportError(where, f"not valid YAML: {at}{problem}") from None
    except RecursionError:
        raise ResourceImportError(where, "nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ResourceImportError(where, f"cannot be read: {str(exc).splitlines()[0][:200]}") from None


@dataclass(frozen=True)
class Loc:
    """A node of the document, the URI of the file it is in (its refs resolve against it),
    and its place as shown to users (``#/components/schemas/Pet``, ``pets.yaml#/Pet``)."""

    node: Any
    base: str
    where: str

    def at(self, *parts: str | int) -> Loc:
        """The child node under ``parts`` (missing: None)."""
        node = self.node
        for part in parts:
            if isinstance(node, dict):
                node = node.get(part)
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                node = node[part]
            else:
                node = None
        return Loc(node, self.base, pointer(self.where, *map(str, parts)))


def pointer(where: str, *parts: str) -> str:
    """``where`` extended by JSON pointer segments (``~`` and ``/`` escaped)."""
    text = where if "#" in where else where + "#"
    for part in parts:
        text += "/" + part.replace("~", "~0").replace("/", "~1")
    return text


class Refs:
    """``$ref`` resolution over the root document and the files it points at."""

    def __init__(self, root: Any, path: Path | None) -> None:
        self.root_uri = path.resolve().as_uri() if path is not None else ROOT_URI
        self.folder = path.resolve().parent if path is not None else None
        self.files: dict[str, Any] = {self.root_uri: root}
        registry: Registry[Any] = Registry(retrieve=self._retrieve).with_resource(  # type: ignore[call-arg]
            self.root_uri, Specification.OPAQUE.create_resource(root)
        )
        self._resolvers: dict[str, Resolver[Any]] = {self.root_uri: registry.resolver(self.root_uri)}
        self._cache: dict[tuple[str, str], Loc] = {}
        self._retrieved: dict[str, RefResource[Any]] = {}

    def root(self) -> Loc:
        return Loc(self.files[self.root_uri], self.root_uri, "#")

    def name(self, uri: str) -> str:
        """How a file is named in messages: ``#`` for the root, else its path from the root's folder."""
        if uri == self.root_uri:
            return "#"
        parsed = urlsplit(uri)
        if parsed.scheme == "file" and self.folder is not None:
            path = Path(url2pathname(parsed.path))
            try:
                return path.relative_to(self.folder).as_posix() + "#"
            except ValueError:
                return path.as_posix() + "#"
        return uri + "#"

    def _retrieve(self, uri: str) -> RefResource[Any]:
        if uri in self._retrieved:
            return self._retrieved[uri]
        parsed = urlsplit(uri)
        if parsed.scheme in ("http", "https"):
            raise RefError(
                f"remote $ref {uri!r} is not fetched (only refs within the document or to local files)"
            )
        if parsed.scheme != "file":
            raise RefError(
                f"$ref to {uri!r} cannot be resolved (a relative file ref needs the document's path)"
            )
        path = Path(url2pathname(unquote(parsed.path)))
        if path.suffix.lower() not in SUFFIXES:
            raise RefError(f"$ref to {path.name!r}: only .json, .yaml and .yml files are read")
        if not path.is_file():
            raise RefError(f"$ref to {self.name(uri)[:-1]!r}: no such file")
        try:
            contents = read_file(path, self.name(uri)[:-1])
        except ResourceImportError as exc:
            raise RefError(str(exc)) from None
        self.files[uri] = contents
        self._retrieved[uri] = Specification.OPAQUE.create_resource(contents)
        return self._retrieved[uri]

    def follow(self, loc: Loc) -> Loc:
        """The node a chain of ``$ref``s starting at ``loc`` ends at (``loc`` itself without one)."""
        seen: list[str] = []
        while isinstance(loc.node, dict) and "$ref" in loc.node:
            ref = loc.node["$ref"]
            if not isinstance(ref, str):
                raise RefError(f"{loc.where}: $ref must be a string, not {type(ref).__name__}")
            key = (loc.base, ref)
            target = self._cache.get(key)
            if target is None:
                target = self._cache[key] = self._lookup(loc, ref)
            if target.where in seen or target.where == loc.where:
                # never a schema, whatever reads it: the document is malformed, not just this part
                raise ResourceImportError(seen[0] if seen else loc.where, f"$ref loop through {target.where}")
            seen.append(loc.where)
            if len(seen) > 64:
                raise RefError(f"{seen[0]}: a chain of more than 64 $refs")
            loc = target
        return loc

    def _lookup(self, loc: Loc, ref: str) -> Loc:
        resolver = self._resolvers[loc.base]
        try:
            resolved = resolver.lookup(ref)
        except PointerToNowhere:
            raise RefError(f"{loc.where}: $ref {ref!r} points at nothing") from None
        except Unresolvable as exc:
            cause = exc.__cause__
            inner = cause.__cause__ if cause is not None else None
            if isinstance(inner, RefError):
                raise RefError(f"{loc.where}: {inner}") from None
            raise RefError(f"{loc.where}: $ref {ref!r} cannot be resolved") from None
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            raise RefError(f"{loc.where}: malformed $ref {ref!r}") from None
        base = loc.base if ref.startswith("#") else urldefrag(urljoin(loc.base, ref))[0]
        self._resolvers.setdefault(base, resolved.resolver)
        fragment = ref.partition("#")[2]
        where = self.name(base) + unquote(fragment) if fragment else self.name(base)
        return Loc(resolved.contents, base, where.rstrip("#") or "#")
