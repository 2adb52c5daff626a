"""OpenAPI 3.0 / 3.1 documents -> resources and operations of the shared model (``crud``).

The import runs in passes over the document, none quadratic in its size:

1. **Operations.** Every path and method (path items behind ``$ref``s followed, across
   files too), its parameters (path level and operation level) and its tokens
   (``paths.tokenize``).
2. **Resources.** A literal followed by parameters is a collection with items
   (``/pets/{petId}``, ``/board/{row}/{column}``: a composite key); a path ending in a
   literal is that collection (list / create), or else something about what precedes
   it: a sub-collection (a GET returning a list), a singleton (``/user``, ``/me``,
   ``/users/{id}/settings``: a GET returning one object), a search (``/pets/findByStatus``,
   ``/search/issues``), or an action (``POST /orders/{id}/cancel``). Parents named only in
   paths (``/orgs/{org}/repos`` without ``/orgs``) become tables of their keys.
3. **Schemas.** Each resource's schema is its item GET response, else its list's items,
   else its create response, else its request bodies; single-key wrappers
   (``{"article": {...}}``) and list envelopes (``{"data": [...], "total": n}``) are taken
   off. Scalars become columns, nested objects are flattened (``address_city``), maps and
   free-form objects JSON columns, arrays of scalars JSON arrays, arrays of objects owned
   child tables, a ``$ref`` to another resource (or ``<entity>_id``) a foreign key. Keys
   keep the path's names and types (``/user/{username}`` is keyed by ``username``).
4. **Tools.** list / get / create / update / delete; searches are filtered lists keeping
   each query parameter that names a column; an action sets the state its verb names
   (a status value, a flag, a ``<verb>ed_at`` timestamp) or else is recorded in the
   ``action_log`` table; sign-in, token and OAuth endpoints are not served.

Whatever is not modelled — an operation, parameter, field, content type, schema — is an
``Ignored`` entry with its JSON pointer and the reason; the import fails only when no
operation can be served.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, cast

from envfactory_mcp.crud.core import build_imported, key_args, scope_of
from envfactory_mcp.crud.model import (
    NOW,
    Coverage,
    Field,
    Ignored,
    IgnoredKind,
    ImportedEnv,
    Kind,
    Operation,
    OpKind,
    Resource,
    ResourceImportError,
    singular,
    snake,
)
from envfactory_mcp.spec import Authentication, EnvSpec
from envfactory_mcp.synth.openapi import words
from envfactory_mcp.synth.openapi.documents import Loc, RefError, Refs, pointer
from envfactory_mcp.synth.openapi.paths import Masked, Token, masked, tokenize
from envfactory_mcp.synth.openapi.security import find_operation, principal, requires_credential
from envfactory_mcp.synth.openapi.shapes import SCALARS, Shape, Shapes
from envfactory_mcp.synth.policy import document_policy

Node = dict[str, Any]
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
SERVED_METHODS = ("get", "post", "put", "patch", "delete")
MAX_COLUMNS = 120  # per table; the rest are listed as ignored
MAX_DEPTH = 2  # nested objects flattened this deep; deeper ones are JSON columns
MAX_KEY_PARTS = 8  # path parameters in a row (a composite key); more is not a record
LOG_TABLE = "action_log"
KEY_NAMES = ("id", "uid", "uuid", "sid", "key", "slug", "name", "code", "number")
OWNED = "\x00owned"  # the description of an array of objects while it waits to become a child table
CLOCK_SECONDS = int(
    datetime.fromisoformat(str(EnvSpec.model_fields["clock"].default).replace("Z", "+00:00")).timestamp()
)  # the environment's clock as a Unix time (``archived_at: integer``)
STAMP = re.compile(
    r"^(date_|time_)?(created|updated|modified|added|inserted|last_modified|last_updated)(_at|_on|_date|_time)?$"
)
BODY_TYPES = ("application/json", "application/x-www-form-urlencoded", "multipart/form-data")


@dataclass
class Param:
    name: str  # as written
    place: str  # path, query, header, cookie
    required: bool
    shape: Shape
    where: str


@dataclass
class Op:
    """One operation of the document and what the import made of it."""

    path: str
    method: str
    where: str  # #/paths/<path>/<method>, the pointer the fidelity figures count by
    loc: Loc
    tokens: list[Token]
    params: list[Param]
    mask: Masked
    # filled in by classification
    role: str = ""  # item, collection, sub, root
    kind: str = ""  # get list create update delete action record search singleton-get ...
    draft: Draft | None = None
    bound: dict[int, str] = field(default_factory=dict)  # search over another table: slot -> column
    sets: tuple[tuple[str, Any], ...] = ()
    upsert: bool = False
    consumed: set[str] = field(default_factory=set)  # query parameters taken as columns
    spoken: dict[str, str] = field(default_factory=dict)  # argument -> the query parameter it serves
    batch: str = ""  # a batch create: the argument holding its rows
    body_key: bool = False  # an update of the collection path whose body holds the item's key (``PUT /pet``)

    @property
    def node(self) -> Node:
        return self.loc.node if isinstance(self.loc.node, dict) else {}

    @property
    def slots(self) -> list[tuple[str, ...]]:
        """The path's parameter runs, outermost first (the last one is the item key when it ends the path)."""
        return [t.params for t in self.tokens if not t.literal]


@dataclass
class Draft:
    """A table in the making."""

    rkey: Masked
    literal: str
    role: str  # collection (has items), list (a GET list, no item path), singleton, implicit
    ancestors: list[Masked]  # rkeys of the parents, outermost first (one per parameter run)
    slot_params: list[tuple[str, ...]]  # parameter names of each ancestor run, from the first path
    item_params: tuple[str, ...] = ()
    ops: list[Op] = field(default_factory=list)
    name: str = ""
    entity: str = ""
    shape: Shape | None = None
    bodies: list[tuple[Op, Shape]] = field(default_factory=list)  # request bodies of create/update ops
    keys: tuple[str, ...] = ()
    key_kinds: dict[str, str] = field(default_factory=dict)
    id_style: str = "integer"
    columns: dict[str, Field] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)  # scope column of each ancestor run
    key_shapes: dict[str, Shape] = field(default_factory=dict)  # schemas of path parameters that are keys
    children: list[Resource] = field(default_factory=list)  # owned array tables
    body_columns: dict[str, tuple[set[str], set[str]]] = field(
        default_factory=dict
    )  # op where -> (cols, required)
    # op where -> column -> the name its request body gives it (``FriendlyName`` where the
    # response says ``friendly_name``): what the operation's argument is called
    body_names: dict[str, dict[str, str]] = field(default_factory=dict)
    scoped_top: bool = False  # also reached with no parent (a top-level path, or a bound search)
    description: str = ""

    @property
    def singleton(self) -> bool:
        return self.role == "singleton"


class Importer:
    def __init__(self, doc: Node, refs: Refs) -> None:
        self.doc = doc
        self.refs = refs
        self.shapes = Shapes(refs)
        self.ignored: list[Ignored] = []
        self.ops: list[Op] = []
        self.drafts: dict[Masked, Draft] = {}
        self.by_schema: dict[str, Draft] = {}  # component schema place -> the table it describes
        self.resources: dict[str, Resource] = {}
        self.log: Resource | None = None
        self.total = 0  # operations in the document
        self.open: set[str] = set()  # tools whose operations need no credential
        self._bare = False  # the GET being classified documents no response body

    def note(self, where: str, kind: IgnoredKind, reason: str) -> None:
        self.ignored.append(Ignored(where, kind, reason))

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

    # ------------------------------------------------------------------ 2. resources

    def classify(self) -> None:
        items = {op.mask[:-1] for op in self.ops if op.tokens and not op.tokens[-1].literal}
        self.item_rkeys = items
        # collections with items first, so subs can be matched to them
        for op in self.ops:
            if not op.tokens:
                op.role = "root"
            elif not op.tokens[-1].literal:
                op.role = "item"
                op.draft = self._draft(op.mask[:-1], op.tokens[:-1], "collection", op.tokens[-1].params)
                op.kind = {"get": "get", "delete": "delete"}.get(op.method, "update")
                op.draft.ops.append(op)
            elif op.mask in items:
                op.role = "collection"
                op.draft = self._draft(op.mask, op.tokens, "collection")
                op.kind = {"get": "list", "post": "create"}.get(op.method, "record")
                if op.method in ("put", "patch"):  # ``PUT /pet`` with the pet, id and all, in its body
                    op.kind, op.body_key = "update", True
                if op.kind == "create" and words.is_security(
                    [t.name or "" for t in op.tokens], bool(op.slots)
                ):
                    op.kind = "security"
                op.draft.ops.append(op)
            else:
                op.role = "sub"
        for draft in list(self.drafts.values()):
            self._schema(draft)
        self._index_schemas()
        subs: dict[Masked, list[Op]] = {}
        for op in self.ops:
            if op.role == "sub":
                subs.setdefault(op.mask, []).append(op)
        for mask, ops in subs.items():
            self._classify_sub(mask, ops)
        for op in self.ops:
            if op.role == "root":
                self._classify_root(op)
        for draft in list(self.drafts.values()):
            if draft.shape is None and draft.role != "implicit":
                self._schema(draft)
        self._index_schemas()

    def _draft(
        self, rkey: Masked, tokens: list[Token], role: str, item_params: tuple[str, ...] = ()
    ) -> Draft:
        draft = self.drafts.get(rkey)
        if draft is None:
            ancestors, slots = [], []
            for i, token in enumerate(tokens):
                if not token.literal:
                    parent = masked(tokens[:i])
                    ancestors.append(parent)
                    slots.append(token.params)
                    if parent not in self.drafts:
                        self._draft(parent, tokens[:i], "implicit", token.params)
            literal = next((t.name for t in reversed(tokens) if t.name), "items")
            draft = Draft(rkey, literal, role, ancestors, slots)
            self.drafts[rkey] = draft
        if role == "collection" and draft.role in ("implicit", "list"):
            draft.role = "collection"
        if item_params and not draft.item_params:
            draft.item_params = item_params
        return draft

    def _schema(self, draft: Draft) -> None:
        """The shape that describes a draft's rows, and the request bodies that write them."""
        ranked: list[tuple[int, Shape]] = []
        for op in draft.ops:
            if op.kind in ("action", "record", "search") or op.draft is not draft:
                continue
            shape, _ = self.response(op) if op.method in ("get", "post", "put", "patch") else (None, False)
            if (op.role == "item" and op.method == "get" and shape is not None) or (
                op.kind == "singleton-get" and shape is not None
            ):
                ranked.append((0, self.unwrap(shape)))
            elif op.kind == "list" and shape is not None:
                found = self.list_items(shape, draft.literal)
                if found is not None:
                    ranked.append((1, found))
            elif op.kind == "create" and shape is not None:
                ranked.append((2, self.unwrap(shape)))
            elif op.kind == "update" and shape is not None:
                ranked.append((3, self.unwrap(shape)))
            if op.kind in ("create", "update", "batch"):
                body = self.body(op)
                rows = self.batch_rows(body) if op.kind != "update" else None
                if rows is not None and op.kind != "update":  # several new rows in one call
                    op.kind, op.batch = "batch", rows[0]
                    body = rows[1]
                if body is not None:
                    body = self.unwrap(body)
                    draft.bodies.append((op, body))
                    ranked.append((4 if op.kind in ("create", "batch") else 5, body))
        ranked = [(rank, shape) for rank, shape in ranked if shape.kind == "object" or rank <= 1]
        if ranked:
            draft.shape = min(ranked, key=lambda pair: pair[0])[1]

    def _index_schemas(self) -> None:
        for draft in sorted(self.drafts.values(), key=lambda d: (d.role != "collection", len(d.rkey))):
            shape = draft.shape
            if shape is not None and shape.name and shape.where not in self.by_schema:
                self.by_schema[shape.where] = draft

    def _classify_root(self, op: Op) -> None:
        if op.method == "get":
            draft = self._draft(("service",), [Token(name="service")], "singleton")
            op.kind, op.draft = "singleton-get", draft
            draft.ops.append(op)
        else:
            op.kind = "record"

    def _classify_sub(self, mask: Masked, ops: list[Op]) -> None:
        """A path ending in a literal that is not a collection with items: what is it?"""
        tokens = ops[0].tokens
        verb = tokens[-1].name or ""
        before = tokens[-2] if len(tokens) > 1 else None
        owner: Draft | None = None
        place = "top"
        if before is not None and not before.literal:
            owner, place = self.drafts.get(mask[:-2]), "item"
        elif before is not None and mask[:-1] in self.drafts and self.drafts[mask[:-1]].role == "collection":
            owner, place = self.drafts[mask[:-1]], "collection"
        literals = [t.name for t in tokens if t.name]
        methods = {op.method: op for op in ops}
        get = methods.get("get")
        got, bare = self.response(get) if get else (None, False)
        self._bare = bare
        listed = self.list_items(got, verb) if got is not None else None
        for op in ops:
            if words.is_security(literals[-2:], keyed=bool(op.slots)):
                op.kind = "security"
                continue
            if op.method == "get":
                self._sub_get(op, mask, tokens, verb, owner, place, got, listed, methods)
            elif op.method == "post":
                self._sub_post(op, mask, tokens, verb, owner, place, listed, methods)
            elif op.method in ("put", "patch"):
                if place == "item" and owner is not None and get is None and self._lifecycle(owner, verb):
                    op.kind, op.draft = "action", owner  # ``PUT /incidents/{id}/resolve``: a transition
                elif listed is not None or (owner is None and place != "top"):
                    op.kind = "record"
                    op.draft = owner
                else:
                    draft = self._singleton(mask, tokens, place)
                    op.kind, op.draft, op.upsert = "update", draft, place == "item"
                    draft.ops.append(op)
            elif op.method == "delete":
                existing = self.drafts.get(mask)
                if existing is not None and existing.singleton and place == "item":
                    op.kind, op.draft = "delete", existing
                    existing.ops.append(op)
                else:
                    op.kind, op.draft = "record", owner

    def _lifecycle(self, owner: Draft, word: str) -> bool:
        """Whether ``word`` (a path's last word) moves ``owner``'s rows to a state: a verb we
        know, or one whose past form is among the values of the rows' state."""
        verb = words.verb_of(word)
        if verb in words.IRREGULAR:
            return True
        forms = set(words.past_forms(verb))
        for loc in self._props(owner.shape).values():
            shape = self.shapes.of(loc)
            if shape.enum and any(words.normal(v) in forms for v in shape.enum):
                return True
        return False

    def _singleton(self, mask: Masked, tokens: list[Token], place: str) -> Draft:
        draft = self._draft(mask, tokens, "singleton")
        if draft.role == "implicit":
            draft.role = "singleton"
        return draft

    def _sub_get(
        self,
        op: Op,
        mask: Masked,
        tokens: list[Token],
        verb: str,
        owner: Draft | None,
        place: str,
        got: Shape | None,
        listed: Shape | None,
        methods: dict[str, Op],
    ) -> None:
        search = words.is_search(verb) or (len(tokens) > 1 and words.is_search(tokens[-2].name or ""))
        if listed is not None:
            target = self.by_schema.get(listed.where) if listed.name else None
            if target is None and search and owner is not None and place == "collection":
                target = owner
            if (
                target is None
                and search
                and len(tokens) > 1
                and tokens[-2].name
                and words.is_search(tokens[-2].name)
            ):
                target = next(
                    (d for d in self.drafts.values() if d.literal == verb and d.role == "collection"), None
                )
            if target is not None and self._bind(op, target):
                op.kind, op.draft = "search", target
                target.ops.append(op)
                return
            draft = self._draft(mask, tokens, "list")
            op.kind, op.draft = "list", draft
            draft.ops.append(op)
            return
        if got is not None and got.kind == "object":
            shape = self.unwrap(got)
            target = self.by_schema.get(shape.where) if shape.name else None
            if target is not None and target is owner and place == "item":
                op.kind, op.draft = "get", owner  # another way to read the item
                owner.ops.append(op)
                return
            if target is not None and place == "collection" and target is owner and self._bind(op, target):
                op.kind, op.draft = "search", target  # a lookup: the rows matching the query
                target.ops.append(op)
                return
            draft = self._singleton(mask, tokens, place)
            op.kind, op.draft = "singleton-get", draft
            draft.ops.append(op)
            return
        if any(m in methods for m in ("put", "patch")):
            draft = self._singleton(mask, tokens, place)
            op.kind, op.draft = "singleton-get", draft
            draft.ops.append(op)
            return
        if got is None and self._bare and place != "collection" and not _verbish(verb):
            draft = self._draft(mask, tokens, "list")  # documented without a body: rows with a key only
            op.kind, op.draft = "list", draft
            draft.ops.append(op)
            self.note(
                op.where + "/responses", "content", "no response body is documented: its rows have only a key"
            )
            return
        op.kind = "unserved"
        if got is not None and got.error:
            self.note(op.where, "operation", f"its response schema cannot be read: {got.error}")
        else:
            self.note(
                op.where, "operation", "the response is not JSON data (a file, text or nothing): not modelled"
            )

    def _sub_post(
        self,
        op: Op,
        mask: Masked,
        tokens: list[Token],
        verb: str,
        owner: Draft | None,
        place: str,
        listed: Shape | None,
        methods: dict[str, Op],
    ) -> None:
        if listed is not None:  # the sub path is a list: POST adds to it
            draft = self._draft(mask, tokens, "list")
            op.kind, op.draft = "create", draft
            draft.ops.append(op)
            return
        rows = self.batch_rows(self.body(op)) if place == "collection" and owner is not None else None
        if rows is not None and owner is not None and _creates_several(op, verb):
            op.kind, op.draft, op.batch = "batch", owner, rows[0]  # rows of the collection, in one call
            owner.bodies.append((op, rows[1]))
            owner.ops.append(op)
            return
        if words.is_batch(verb):
            op.kind = "unserved"
            self.note(op.where, "operation", "a batch endpoint (several records in one call): not served")
            return
        response, _ = self.response(op)
        if words.is_search(verb):
            items = self.list_items(response, "") if response is not None else None
            target = self.by_schema.get(items.where) if items is not None and items.name else None
            target = target or (owner if place == "collection" else None)
            if target is not None and self._bind(op, target):
                op.kind, op.draft = "search", target
                target.ops.append(op)
                return
        if place == "item" and owner is not None:
            op.kind, op.draft = "action", owner
            return
        made = response if response is not None and self.unwrap(response).kind == "object" else self.body(op)
        if place == "top" and made is not None and self.unwrap(made).is_object and not _verbish(verb):
            draft = self._draft(mask, tokens, "list")  # a noun: each call makes a record
            op.kind, op.draft = "create", draft
            draft.ops.append(op)
            return
        op.kind, op.draft = "record", owner

    def _bind(self, op: Op, target: Draft) -> bool:
        """Whether the path's parameters can scope ``target``'s rows: none, the same parents as
        its own paths, or one parent more (``/accounts/{id}/statuses`` over ``statuses``)."""
        runs, own = len(op.slots), len(target.ancestors)
        if runs == 0 or (runs == own and op.mask[: len(target.rkey) - 1] == target.rkey[:-1]):
            return True
        if runs == own + 1:
            parent = self.drafts.get(_prefix_before_run(op.mask, runs - 1))
            if parent is not None and parent is not target and not parent.singleton:
                op.bound = {runs - 1: ""}  # the link column is found once the columns are known
                return True
        return False

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

    def _props(self, shape: Shape | None) -> dict[str, Loc]:
        return dict(shape.props) if shape is not None and shape.kind == "object" else {}

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
            except _Skip as exc:
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
            raise _Skip("nothing in the document describes what it works on")
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
                parent = self.drafts.get(_prefix_before_run(op.mask, len(op.slots) - 1))
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


class _Skip(Exception):
    pass


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


def _prefix_before_run(mask: Masked, run: int) -> Masked:
    """The part of ``mask`` before its ``run``-th parameter run."""
    seen = -1
    for i, part in enumerate(mask):
        if part.startswith("{"):
            seen += 1
            if seen == run:
                return mask[:i]
    return mask


def _link_hint(parent: Draft) -> str:
    return parent.name


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


BATCH_NOT_CREATE = re.compile(
    r"(delet|remov|updat|modif|patch|edit|get|retriev|read|fetch|query|lookup|search|find|cancel|move|"
    r"archiv|statistic|validat|check|send|export)"
)


def _creates_several(op: Op, verb: str) -> bool:
    """``POST /users/createWithList``, ``POST /contacts/batch`` ("Bulk create contacts"): a
    call that adds several rows, as its path word, id or summary say (a batch delete does not)."""
    said = " ".join(
        [verb, snake(str(op.node.get("operationId") or "")), snake(str(op.node.get("summary") or ""))]
    )
    if BATCH_NOT_CREATE.search(said):
        return False
    first = verb.split("_", 1)[0]
    return (
        words.is_batch(verb)
        or first in ("create", "add", "insert", "import", "upload", "post")
        or bool(re.search(r"\b(batch|bulk)\b|_(batch|bulk)_|^(batch|bulk)_|_(batch|bulk)$", said))
    )


def _verbish(word: str) -> bool:
    first = word.split("_", 1)[0]
    return first in words.IRREGULAR or first in (
        "run",
        "generate",
        "validate",
        "send",
        "check",
        "test",
        "execute",
        "trigger",
        "sync",
        "import",
        "export",
        "upload",
        "download",
        "copy",
        "move",
        "merge",
        "clone",
        "transfer",
        "recover",
        "restore",
        "reset",
        "clear",
        "purge",
        "flush",
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
