# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""SQLite databases of a running environment: the seed image and one database per session.

The seed is built once from ``schema.sql`` + ``seed.sql`` and kept as serialized bytes;
each session's in-memory database is a copy of those bytes (``sqlite3.deserialize``), so
opening or resetting a session is one memory copy, not a replay of SQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from .state import (
    State,
    TableInfo,
    dump_state,
    dump_table,
    hash_fragments,
    hash_state,
    restore_state,
    table_fragment,
    table_infos,
)

PAGE_SIZE = 1024
MEMORY_CACHE_PAGES = 16


class SeedLoadError(Exception):
    """The schema or seed SQL is broken, or the seed violates a constraint."""


def open_memory() -> sqlite3.Connection:
    # isolation_level=None: the runtime issues BEGIN/COMMIT itself so each tool call is one
    # explicit transaction. check_same_thread=False: file-backed sessions run in a worker
    # thread, always one call at a time.
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA foreign_keys = ON")
    return db


def build_seed_image(schema_sql: str, seed_sql: str) -> bytes:
    """Execute the schema and seed, check every constraint, and return the serialized database."""
    db = open_memory()
    try:
        # Small pages: every session holds a full copy, and seed tables are small, so
        # 1 KiB pages waste far less than the default 4 KiB on many tiny b-trees.
        db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        # Schema and seed SQL only build this one database: ATTACH would create files.
        db.set_authorizer(_no_attach)
        try:
            db.executescript(schema_sql)
        except sqlite3.Error as exc:
            raise SeedLoadError(f"schema.sql failed: {exc}") from None
        try:
            db.executescript("BEGIN;\n" + seed_sql + "\nCOMMIT;")
        except sqlite3.Error as exc:
            raise SeedLoadError(f"seed.sql failed: {exc}") from None
        db.set_authorizer(None)
        violations = db.execute("PRAGMA foreign_key_check").fetchall()
        if violations:
            table, rowid, parent, _ = violations[0]
            raise SeedLoadError(
                f"seed violates a foreign key: {table} row {rowid} references a missing {parent} "
                f"({len(violations)} violation(s) in all)"
            )
        db.execute("VACUUM")
        return db.serialize()
    finally:
        db.close()


def _no_attach(action: int, *_: object) -> int:
    return (
        sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH) else sqlite3.SQLITE_OK
    )


class _SeedFacts:
    """What every session of one seed image shares: its tables and their canonical
    fragments, and whether per-table tracking is sound (no triggers, no cascading keys)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.tables: list[TableInfo] = table_infos(db)
        self.fragments = {info.name: table_fragment(dump_table(db, info)) for info in self.tables}
        triggers = db.execute("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'").fetchone()[0]
        cascades = any(
            row[5] != "NO ACTION" or row[6] != "NO ACTION"
            for info in self.tables
            for row in db.execute(f'PRAGMA foreign_key_list("{info.name}")')
        )
        self.trackable = not triggers and not cascades


_SEEDS: dict[int, tuple[bytes, _SeedFacts]] = {}


class SessionDatabase:
    """One session's database: in memory (a copy of the seed) or a file that persists.

    ``hash()`` is cheap on the paths a host takes all the time. It is remembered until
    SQLite's ``total_changes`` moves (every row written counts, even one rolled back), and
    for an in-memory session reset to the seed it is assembled from per-table fragments:
    the seed's, except for tables reported written since (``mark_written``, which the
    server calls with the tables a tool call's authorizer let it write).
    """

    def __init__(self, seed_image: bytes, path: Path | None = None) -> None:
        self._seed_image = seed_image
        self._hash_cache: tuple[int, str] | None = None  # (total_changes, hash)
        self._fragments: dict[str, str] | None = None  # None: unknown, dump everything
        self._dirty: set[str] = set()
        self._accounted = -1  # total_changes when the dirty set was last complete
        self.path = path
        if path is None:
            self.db = open_memory()
            self._load_seed_image()
        else:
            fresh = not path.exists()
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            if fresh:  # before WAL: the copy sets the page size, which WAL mode would forbid
                self._copy_seed_into_file()
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA foreign_keys = ON")

    @property
    def file_backed(self) -> bool:
        return self.path is not None

    def reset(self, state: State | None = None) -> None:
        """Back to the seed, or to a given canonical state (validated against the schema)."""
        self._hash_cache, self._fragments, self._dirty = None, None, set()
        if state is not None:
            restore_state(self.db, state)
            return
        if self.path is None:
            self._load_seed_image()
            facts = self._seed_facts()
            if facts.trackable:
                self._fragments = dict(facts.fragments)
                self._accounted = self.db.total_changes
        else:
            self._copy_seed_into_file()

    def mark_written(self, tables: Iterable[str]) -> None:
        """Tables a tool call may have written (its authorizer allowed the statements).

        Call it right after the call: any row change not accounted for this way (SQLite's
        ``total_changes`` moved since) makes the next ``hash()`` dump every table."""
        self._dirty.update(tables)
        self._accounted = self.db.total_changes

    def dump(self) -> State:
        return dump_state(self.db)

    def hash(self) -> str:
        changes = self.db.total_changes
        if self._hash_cache is not None and self._hash_cache[0] == changes and self.path is None:
            return self._hash_cache[1]
        if self.path is None and self._fragments is not None:
            every = changes != self._accounted  # a write nobody reported: trust nothing cached
            for info in self._seed_facts().tables:
                if every or info.name in self._dirty:
                    self._fragments[info.name] = table_fragment(dump_table(self.db, info))
            self._dirty.clear()
            self._accounted = changes
            value = hash_fragments(self._fragments)
        else:
            value = hash_state(self.dump())
        self._hash_cache = (changes, value)
        return value

    def _seed_facts(self) -> _SeedFacts:
        cached = _SEEDS.get(id(self._seed_image))
        if cached is None or cached[0] is not self._seed_image:
            cached = (self._seed_image, _SeedFacts(self.db))  # right after loading the image
            _SEEDS[id(self._seed_image)] = cached
        return cached[1]

    def close(self) -> None:
        self.db.close()

    def _load_seed_image(self) -> None:
        self.db.deserialize(self._seed_image)
        self.db.execute("PRAGMA foreign_keys = ON")
        # The pages already live in memory; a page cache would only duplicate them, per session.
        self.db.execute(f"PRAGMA cache_size = {MEMORY_CACHE_PAGES}")

    def _copy_seed_into_file(self) -> None:
        seed = open_memory()
        try:
            seed.deserialize(self._seed_image)
            seed.backup(self.db)
        finally:
            seed.close()
        self.db.execute("PRAGMA foreign_keys = ON")
