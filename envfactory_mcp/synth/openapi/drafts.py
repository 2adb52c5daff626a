"""What the OpenAPI import works with between its passes (``importer.py``): the document's
operations (``Op``, ``Param``), the tables in the making (``Draft``), the limits and
names the passes share, and ``Pass``, the state every pass reads and adds to."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from envfactory_mcp.crud.model import (
    Field,
    Ignored,
    IgnoredKind,
    Resource,
)
from envfactory_mcp.spec import EnvSpec
from envfactory_mcp.synth.openapi.documents import Loc, Refs
from envfactory_mcp.synth.openapi.paths import Masked, Token
from envfactory_mcp.synth.openapi.shapes import Shape, Shapes

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


class Skip(Exception):
    """An operation that cannot be served: its reason goes into the ignored entries."""


class Pass:
    """The importer's state, shared by its passes (``reading`` -> ``classify`` -> ``tables``
    -> ``tools`` -> ``importer``, each a class on top of the one before)."""

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

    def _props(self, shape: Shape | None) -> dict[str, Loc]:
        return dict(shape.props) if shape is not None and shape.kind == "object" else {}


def prefix_before_run(mask: Masked, run: int) -> Masked:
    """The part of ``mask`` before its ``run``-th parameter run."""
    seen = -1
    for i, part in enumerate(mask):
        if part.startswith("{"):
            seen += 1
            if seen == run:
                return mask[:i]
    return mask
