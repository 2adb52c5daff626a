"""What the statements of one script define, as drafts: each table's columns (as ``Field``
values with their SQL types), keys, foreign keys, uniques, indexes and checks, before the
tables become ``Resource`` values (``synth/sqlddl.py``); and what was left out, with why."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from envfactory_mcp.crud.model import Field, Ignored
from envfactory_mcp.synth.sql.script import Dialect, Statement
from envfactory_mcp.synth.sql.types import ColumnType, Domain


@dataclass
class ForeignDraft:
    """A foreign key as written: columns of this table -> a table and its columns."""

    columns: tuple[str, ...]
    target: str
    target_columns: tuple[str, ...]  # empty: the target's primary key
    line: int
    actions: str = ""


@dataclass
class TableDraft:
    """One table as the statements describe it, before it becomes a ``Resource``."""

    name: str
    original: str
    line: int
    fields: dict[str, Field] = field(default_factory=dict)
    types: dict[str, ColumnType] = field(default_factory=dict)
    originals: dict[str, str] = field(default_factory=dict)  # column as written (lower) -> name
    written: list[str] = field(default_factory=list)  # every column as written (lower), in order
    keys: list[str] = field(default_factory=list)
    auto: set[str] = field(default_factory=set)  # numbered by the database
    foreign: list[ForeignDraft] = field(default_factory=list)
    uniques: list[tuple[str, ...]] = field(default_factory=list)  # multi-column, or unique indexes
    indexed: set[str] = field(default_factory=set)
    description: str = ""
    checks: list[tuple[exp.Expression, int]] = field(default_factory=list)

    def column(self, written: str) -> str | None:
        """The column's name here, for a name as the script writes it."""
        return self.originals.get(written.lower())


@dataclass
class Schema:
    """What the statements of one script define, and what they leave out."""

    dialect: Dialect
    tables: dict[str, TableDraft] = field(default_factory=dict)
    by_original: dict[str, str] = field(default_factory=dict)  # table as written (lower) -> name
    enums: dict[str, tuple[str, ...]] = field(default_factory=dict)
    domains: dict[str, Domain] = field(default_factory=dict)
    ignored: list[Ignored] = field(default_factory=list)
    create_tables: int = 0  # CREATE TABLE statements seen
    columns_seen: int = 0
    data: list[Statement] = field(default_factory=list)  # INSERT and COPY statements
    partitions: dict[str, tuple[str, int]] = field(default_factory=dict)  # table (lower) -> (parent, line)

    def table(self, node: exp.Expression | None) -> TableDraft | None:
        """The draft of a table a statement names (``public.film``, ``"Film"``)."""
        if node is None:
            return None
        name = node.name if isinstance(node, exp.Table | exp.Identifier) else node.sql()
        found = self.by_original.get(name.lower())
        return self.tables.get(found) if found else None

    def skip(self, line: int, reason: str, kind: str = "statement") -> None:
        self.ignored.append(Ignored(f"line {line}", kind, reason))  # type: ignore[arg-type]
