"""The CRUD model: resources, fields, operations and guards, what an importer or a library
service translates its input into (``crud.core`` derives an environment from it, and
``crud.seed_rows`` its seed rows). Plain data and naming rules; nothing is derived here."""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.spec import EnvSpec
from envfactory_mcp.spec.models import Compare, EnumLabel
from envfactory_mcp.verify.static_gate import FORBIDDEN_NAMES

Kind = Literal["string", "integer", "number", "boolean", "array", "object", "json"]
OpKind = Literal["get", "list", "create", "update", "delete", "action", "record", "find"]
Schema = dict[str, Any]
Rows = dict[str, list[dict[str, Any]]]

JSON_KINDS = ("array", "object", "json")  # stored as JSON text
UUID_PREFIX = "00000000-0000-4000-8000-"
# Names no column or argument may have: the static gate refuses them in tool code (``input``,
# ``open``, ...), and generated code needs ``ctx``, ``str`` and ``all`` as they are.
RESERVED = frozenset(FORBIDDEN_NAMES) | {
    "ctx",
    "changes",
    "str",
    "all",
    "dict",
    "list",
    "bool",
    "int",
    "float",
    "Any",
}


class ResourceImportError(EnvFactoryError):
    """A resource (OpenAPI document, SQL DDL) uses something the importers cannot represent.

    ``where`` names the place: a JSON pointer (``#/paths/~1pets/get``) or ``line 12``.
    """

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Field:
    """One column of a resource, with what its JSON Schema and seed values need."""

    name: str
    kind: Kind
    description: str = ""
    nullable: bool = False
    enum: tuple[str | int, ...] | None = None
    format: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    unique: bool = False
    references: str | None = None  # name of the resource this column points at
    default: Any = None  # used on create when the argument is left out
    auto: Literal["now", "today"] | None = None  # set from the clock on create
    read_only: bool = False  # never an argument (server-set keys, timestamps)
    item_kind: Kind = "string"  # for arrays
    values: tuple[Any, ...] = ()  # seed rows draw this column's values from these (a vocabulary)
    entity: str | None = None  # the entity of a key of another service this column holds (linked services)
    # How scoring compares it with the gold (``ColumnSpec.compare``); None: ``text`` for prose (``crud.words.is_prose``).
    compare: Compare | None = None
    # Per enum value, how people say it (``ColumnSpec.enum_labels``); None: a state's values in words
    # (``crud.words.column_labels``).
    labels: dict[str, EnumLabel] | None = field(default=None, hash=False)
    # Where an importer found it in the document: property names from the top
    # (``("detail", "invoice_number")`` for a column ``detail_invoice_number``). A column nested
    # deeper than the top is taken inside its object argument, as the document writes it.
    path: tuple[str, ...] = ()

    def schema(self, *, for_input: bool = False) -> Schema:
        """The JSON Schema of this column's value, as output (nullable) or input (never null:
        an optional argument is left out)."""
        node: Schema = {} if self.kind == "json" else {"type": self.kind}
        if self.kind == "array":
            node["items"] = {} if self.item_kind == "json" else {"type": self.item_kind}
        if self.enum is not None:
            node["enum"] = list(self.enum)
        if for_input:
            if self.format and self.kind == "string":
                node["format"] = self.format
            if self.minimum is not None:
                node["minimum"] = max(self.minimum, -(2**63)) if self.kind == "integer" else self.minimum
            if self.maximum is not None:  # SQLite stores integers in 64 bits
                node["maximum"] = min(self.maximum, 2**63 - 1) if self.kind == "integer" else self.maximum
            if self.max_length is not None:
                node["maxLength"] = self.max_length
        if self.nullable and self.kind != "json" and not for_input:  # an optional input is left out, not null
            node["type"] = [self.kind, "null"]
            if self.enum is not None:
                node["enum"] = [*self.enum, None]
        if self.description:
            node["description"] = self.description
        return node

    @property
    def required_on_create(self) -> bool:
        return not (self.nullable or self.read_only or self.auto or self.default is not None)


@dataclass(frozen=True)
class Resource:
    """A table of records: its columns, key, and how new keys are made."""

    name: str  # table name, plural snake_case
    entity: str  # singular, the entity type of its key
    fields: tuple[Field, ...]  # every column, keys included
    keys: tuple[str, ...]
    id_style: Literal["integer", "prefix", "uuid", "client"] = "integer"
    parent: str | None = None  # the column that nests it under another resource's path
    description: str = ""
    # One record (``GET /user``, ``GET /settings``): key ``id`` is always 1 and never an
    # argument. A per-parent singleton (``/users/{id}/settings``) is keyed by its parent link.
    singleton: bool = False
    # An array of objects of another resource, stored as rows of this table: the owner's
    # tools take and show them as the owner's property ``owned_by[1]``; they are deleted with it.
    owned_by: tuple[str, str] | None = None  # (owner table, property name)
    log: bool = False  # the table of recorded actions (``Operation.kind == "record"``)
    # Seed rows: how many top-level rows, or rows per parent row (default 6-12, and 1-3).
    seed_count: tuple[int, int] | None = None
    # An owned array's property name as the document writes it (``photoUrls``), when
    # ``owned_by[1]`` is not that name.
    document_name: str | None = None

    @property
    def label(self) -> str:
        return self.entity.replace("_", " ").capitalize()

    @cached_property
    def _columns(self) -> dict[str, Field]:
        return {f.name: f for f in self.fields}

    def field(self, name: str) -> Field:
        return self._columns[name]

    def has(self, name: str) -> bool:
        return name in self._columns

    def key_param(self, key: str) -> str:
        """Argument name of a key column: ``pet_id`` for a column called ``id``."""
        return f"{self.entity}_id" if key == "id" else key

    @property
    def writable(self) -> tuple[Field, ...]:
        """Columns a create or update takes as arguments (the parent link is a path argument)."""
        return tuple(
            f
            for f in self.fields
            if not f.read_only and not f.auto and f.name not in self.keys and f.name != self.parent
        )


@dataclass(frozen=True)
class Guard:
    """A business rule on the target row of an update, action or delete: the call is
    refused, with ``reason``, unless the row's ``column`` holds one of ``allowed``."""

    column: str
    allowed: tuple[Any, ...]
    reason: str


@dataclass(frozen=True)
class Operation:
    """One tool: an operation on one resource.

    ``get`` / ``list`` / ``create`` / ``update`` / ``delete`` are the CRUD operations;
    ``find`` looks a row's key up by other columns it is unique by (``fields``: a customer's
    id from their email);
    ``action`` changes one row as the document's verb says (``sets``: a status value, a
    flag, a timestamp), and ``record`` checks its target row exists and records the call
    (its arguments) as a row of the log table (``log``), so the call has an effect to check.
    """

    kind: OpKind
    resource: str
    name: str
    description: str
    scoped: bool = False  # the parent key is an argument (nested path)
    partial: bool = False  # PATCH: every field optional
    filters: tuple[str, ...] = ()
    search: str | None = None  # argument name of a free-text search over text columns
    pagination: Literal["none", "offset", "page"] = "none"
    # Columns bound by the path's parameters (``/accounts/{AccountSid}/calls`` binds
    # ``account_sid``): required arguments, checked or set like keys. None: the parent
    # link when ``scoped``.
    scope: tuple[str, ...] | None = None
    # Columns (and owned arrays) taken as arguments; None: every writable column.
    fields: tuple[str, ...] | None = None
    # Of ``fields``, the required ones; None: ``Field.required_on_create`` on create, none else.
    required: tuple[str, ...] | None = None
    sets: tuple[tuple[str, Any], ...] = ()  # action: column -> value (NOW: the clock)
    keyed: bool = True  # action / record: the target row's key is an argument
    upsert: bool = False  # update: creates the row when its key is new (``PUT /bans/{user_id}``)
    log: str | None = None  # record: the log table
    params: tuple[Field, ...] = ()  # record: arguments kept in the log row's details
    array_filters: tuple[str, ...] = ()  # list: filters given as arrays (any of the values)
    guard: Guard | None = None  # update / action / delete: the state the target row must be in
    intent: str | None = None  # what a user would call it ("cancel an appointment"); derived if None
    # create: the argument holding an array of new rows (a batch create); each element takes
    # what a create of one row takes, and the call returns ``{"items": [...], "total": n}``.
    batch: str | None = None
    # Argument -> the name the document gives it (``pet_id`` -> ``petId``): path and query
    # parameters an importer read; the tool takes the document's name where it can.
    names: tuple[tuple[str, str], ...] = ()


NOW = "$now"  # ``Operation.sets`` value: the environment's clock


IgnoredKind = Literal[
    "operation", "parameter", "field", "schema", "content", "security", "statement", "document"
]


@dataclass(frozen=True, order=True)
class Ignored:
    """One part of a resource that is not (or not fully) in the environment, and why.

    ``where`` is a JSON pointer (``#/paths/~1pets/get``) or ``line 12``; ``kind`` says
    what sort of part it is, so a fidelity report can count operations, parameters,
    fields and statements apart."""

    where: str
    kind: IgnoredKind
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True)
class Coverage:
    """How much of a resource became the environment: the fidelity report's figures.

    ``operations``: the document's operations (OpenAPI: one per path and method) or
    state-defining statements (SQL: ``CREATE TABLE``); ``served``: of those, the ones
    the environment serves (a tool, or a table); ``fields`` / ``fields_kept``: the
    properties or columns seen, and those kept as columns."""

    operations: int = 0
    served: int = 0
    fields: int = 0
    fields_kept: int = 0


@dataclass(frozen=True)
class ImportedEnv:
    """What an importer produces: the parts ``assemble_env`` takes, and what it left out, with why."""

    spec: EnvSpec
    tools_source: str
    rows: Rows
    ignored: list[Ignored] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)

    def notes(self) -> list[str]:
        """``ignored`` as one line each: ``<where>: <reason>``."""
        return [str(item) for item in self.ignored]


def snake(name: str) -> str:
    """``petId`` / ``Pet-ID`` / ``HTTPMethod`` / ``class`` -> ``pet_id`` / ``pet_id`` / ``http_method`` /
    ``class_``: a valid column and argument name."""
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    if not text or not text[0].isalpha():
        text = f"x_{text}"
    text = text[:60]
    return f"{text}_" if keyword.iskeyword(text) or text in RESERVED else text


_ES_PLURALS = re.compile(
    r"(sses|xes|ches|shes|zzes|(stat|bon|camp|vir|corp|foc|radi|cens|b|ali|bi|atl|canv)uses|(ali|bi|atl|canv)ases)$"
)


def singular(name: str) -> str:
    """``categories`` -> category, ``statuses`` -> status, ``databases`` -> database."""
    if name.endswith(("series", "species")):
        return name
    if name.endswith("ies") and len(name) > 4:
        return (
            name[:-1]
            if re.search(r"(mov|cook|zomb|rook|calor|prair|sort|goal)ies$", name)
            else name[:-3] + "y"
        )
    if _ES_PLURALS.search(name):
        return name[:-2]
    return name[:-1] if name.endswith("s") and not name.endswith(("ss", "us", "is")) else name
