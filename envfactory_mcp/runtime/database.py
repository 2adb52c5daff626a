"""SQLite databases of a running environment: the seed image and one database per session.

The seed is built once from ``schema.sql`` + ``seed.sql`` and kept as serialized bytes;
each session's in-memory database is a copy of those bytes (``sqlite3.deserialize``), so
opening or resetting a session is one memory copy, not a replay of SQL.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .state import State, dump_state, hash_state, restore_state

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
    return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH) else sqlite3.SQLITE_OK


class SessionDatabase:
    """One session's database: in memory (a copy of the seed) or a file that persists."""

    def __init__(self, seed_image: bytes, path: Path | None = None) -> None:
        self._seed_image = seed_image
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
        if state is not None:
            restore_state(self.db, state)
            return
        if self.path is None:
            self._load_seed_image()
        else:
            self._copy_seed_into_file()

    def dump(self) -> State:
        return dump_state(self.db)

    def hash(self) -> str:
        return hash_state(self.dump())

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
