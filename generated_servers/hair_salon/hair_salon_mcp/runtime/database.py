# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""SQLite databases of a running environment: the seed image and one database per session.

The seed is built once from ``schema.sql`` + ``seed.sql`` and kept as serialized bytes;
each session's in-memory database is a copy of those bytes (``sqlite3.deserialize``), so
opening or resetting a session is one memory copy, not a replay of SQL.

Every connection made here is a ``GuardedConnection`` with ``SQL_LIMITS`` set
(``limit_sql``): values, statements, expressions and compounds are bounded, and no
database can be attached. The schema and seed SQL run under ``_SeedGuard``, which allows
what the emitter writes (``CREATE TABLE``, ``CREATE INDEX``, ``INSERT``, its ``PRAGMA``)
and SQLite's ordinary functions (``SAFE_SQL_FUNCTIONS``), and nothing else.
"""

from __future__ import annotations

import functools
import graphlib
import marshal
import re
import secrets
import sqlite3
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from .state import (
    DIGEST_MODULUS,
    State,
    TableInfo,
    dump_state,
    hash_digests,
    restore_state,
    state_hash,
    table_digests,
    table_infos,
    values_digest,
)

PAGE_SIZE = 1024
MEMORY_CACHE_PAGES = 16


class SeedLoadError(ValueError):
    """The schema or seed SQL is broken or refused (``_SeedGuard``), or the seed violates
    a constraint. A ``ValueError`` with a one-line message, so a server that cannot
    start says why in one line."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# SQLite's ordinary core functions (https://sqlite.org/lang_corefunc.html and the date,
# aggregate, window, math and JSON pages), lower-case: what tool SQL (``toolbox._Guard``)
# and schema and seed SQL (``_SeedGuard``) may call; the authorizer denies every other
# name. None of these reaches a file, an extension, a pointer or the connection, and
# ``SQL_LIMITS`` bounds what they make (a string or blob past ``SQLITE_LIMIT_LENGTH`` is
# "string or blob too big"). Left out on purpose: ``load_extension``,
# ``fts3_tokenizer`` (takes and leaks raw pointers) and every FTS, R-Tree and geopoly
# helper, ``readfile``/``writefile``/``edit`` and other shell or extension functions,
# ``sqlite_*`` introspection, ``subtype``, and ``printf``/``format``: SQLite 3.40
# repeats a ``%c`` to any precision whatever the length limit (``printf('%.*c',
# 2147483647, 'x')`` runs ~10 s inside one VM step, where no progress handler looks);
# tools format in Python. Operators that SQLite runs as functions: ``->``, ``->>``.
SAFE_SQL_FUNCTIONS = _words(
    # scalar
    "abs changes char coalesce concat concat_ws glob hex if ifnull iif instr "
    "last_insert_rowid length like likelihood likely lower ltrim max min nullif "
    "octet_length quote random randomblob replace round rtrim sign soundex substr "
    "substring total_changes trim typeof unhex unicode unlikely upper zeroblob "
    # date and time
    "date time datetime julianday unixepoch strftime timediff current_date "
    "current_time current_timestamp "
    # aggregate
    "avg count group_concat string_agg sum total "
    # window
    "row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value "
    "last_value nth_value "
    # math
    "acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor "
    "ln log log10 log2 mod pi pow power radians sin sinh sqrt tan tanh trunc "
    # JSON
    "json json_array json_array_length json_error_position json_extract json_insert "
    "json_object json_patch json_pretty json_quote json_remove json_replace json_set "
    "json_type json_valid json_group_array json_group_object jsonb jsonb_array "
    "jsonb_extract jsonb_insert jsonb_object jsonb_patch jsonb_remove jsonb_replace "
    "jsonb_set jsonb_group_array jsonb_group_object -> ->>"
)

# Per-connection limits (``sqlite3.Connection.setlimit``; they survive ``deserialize``,
# which replaces the database, not the connection). LENGTH bounds every string, blob and
# row a statement makes: ``randomblob(600000000)``, ``zeroblob``, ``replace`` or
# ``group_concat`` blowups fail at once with "string or blob too big" instead of
# allocating, and the functions whose cost grows with the product of two lengths
# (``instr``, ``replace``: ~6 s at 1 MiB in one VM step, ~400 s at 8 MiB) stay within
# seconds. SQL_LENGTH bounds the parse tree of one statement (SQLite's parse of a
# ``VALUES (1),(1),...`` list holds ~130 times its text). The others bound expression
# nesting, compound SELECTs, LIKE/GLOB patterns, parameter numbers and trigger or
# cascade nesting; ATTACHED = 0: no statement can open another database file.
SQL_LIMITS: dict[int, int] = {
    sqlite3.SQLITE_LIMIT_LENGTH: 1 << 20,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 128 << 10,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 250,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 50,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1000,
    sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER: 4096,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 100,
}
# Seed statements carry their rows as literals (a blob's is twice its length).
SEED_SQL_LENGTH = 2 * SQL_LIMITS[sqlite3.SQLITE_LIMIT_LENGTH] + (64 << 10)


def limit_sql(db: sqlite3.Connection, *, sql_length: int | None = None) -> None:
    """Set ``SQL_LIMITS`` on ``db`` (``sql_length``: a longer statement limit, for seeds)."""
    for category, value in SQL_LIMITS.items():
        db.setlimit(category, value)
    if sql_length is not None:
        db.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, sql_length)


_PRIVATE = f"\n/*{secrets.token_hex(16)}*/"
_WRITE_ACTIONS = frozenset({sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE})


class Authority:
    """The one SQLite authorizer of a ``GuardedConnection``, installed when it is made and
    never toggled: ``sqlite3_set_authorizer`` expires every prepared statement of the
    connection, so toggling it per tool call made every statement of every call compile
    again (a read's SELECTs cost four times what a cached statement costs).

    Between tool calls ``guard`` is None and everything is allowed (the runtime's own
    statements); during a call it is the call's ``toolbox._Guard``, which judges each
    statement as it is compiled. A compiled statement is kept in the connection's cache
    under its text, and a cached statement is run without being judged again, so a tool
    call's statements are sent under texts of its own: ``GuardedConnection.execute``
    appends the tool's ``tag`` (a comment naming one tool declaration), so a statement
    judged for one tool is never reused for another. ``writes`` keeps, per such text,
    the tables its compile was allowed to write, so a cached statement still reports
    them (``CallOutcome.written``).

    Any statement compiled here some other way (a cursor's own ``execute``, the
    runtime's statements between calls, an ``executescript``) sets ``untagged``: its
    text could be sent again by a tool's cursor, so the next tool call expires the
    whole cache first (``toolbox._arm``), as every call used to. ``tagged`` marks a
    private text while it compiles: a tool call's, or the runtime's own transaction
    statements (``GuardedConnection.own``)."""

    __slots__ = ("guard", "tagged", "text", "untagged", "writes")

    MAX_TEXTS = 4096

    def __init__(self) -> None:
        self.guard: Any = None
        self.tagged = False
        self.untagged = False
        self.text = ""
        self.writes: dict[str, set[str]] = {}

    def __call__(
        self, action: int, arg1: str | None, arg2: str | None, db_name: str | None, src: str | None
    ) -> int:
        if not self.tagged:
            self.untagged = True
        guard = self.guard
        if guard is None:
            return sqlite3.SQLITE_OK
        verdict: int = guard(action, arg1, arg2, db_name, src)
        if (
            verdict == sqlite3.SQLITE_OK
            and self.tagged
            and action in _WRITE_ACTIONS
            and arg1 in guard.written
        ):
            assert arg1 is not None
            writes = self.writes.get(self.text)
            if writes is None:
                if len(self.writes) >= self.MAX_TEXTS:
                    self.writes.clear()
                writes = self.writes[self.text] = set()
            writes.add(arg1)
        return verdict


class GuardedConnection(sqlite3.Connection):
    """The connections the runtime makes (``open_memory``, the file-backed session).

    ``preparing`` is the text of the statement that ``execute`` or ``executemany`` is
    running (None between statements), and ``schema`` the ``CREATE`` statements of the
    database it holds (set when a seed image or file is loaded). The tool authorizer
    needs both to tell a foreign-key check SQLite adds to a write from a read the tool's
    own SQL makes (``toolbox._Guard``): a statement run any other way (a cursor's own
    ``execute``, ``executescript``) gets no foreign-key exemption.

    ``authority`` is the connection's one authorizer (``Authority``, installed by
    ``connect``); during a tool call ``execute`` and ``executemany`` send the tool's
    statements under its own texts (``Authority``). ``authorizing``: whether
    ``authority`` is the authorizer SQLite has (another one set on the connection is
    replaced by it at the next tool call).
    """

    preparing: str | None = None
    schema: tuple[str, ...] | None = None
    authority: Authority | None = None
    authorizing: bool = False
    privately: bool = False  # inside ``runtime_statements``

    @contextmanager
    def runtime_statements(self) -> Iterator[None]:
        """Within it, outside a tool's own statements, ``execute`` runs each statement as
        ``private`` does: the session's hashing and dump (between calls) and the declared
        rules' check (before the tool runs) would otherwise compile statements under texts
        a tool's cursor could send, which expires the whole statement cache at the next
        call (``Authority``): every statement of every tool compiled again."""
        previous, self.privately = self.privately, True
        try:
            yield
        finally:
            self.privately = previous

    def set_authorizer(self, authorizer_callback: Any, /) -> None:
        super().set_authorizer(authorizer_callback)
        self.authorizing = authorizer_callback is not None and authorizer_callback is self.authority

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        authority = self.authority
        guard = None if authority is None else authority.guard
        if guard is None:
            if self.privately:
                return self.private(sql, parameters)
            self.preparing = sql
            try:
                return super().execute(sql, parameters)
            finally:
                self.preparing = None
        self.preparing = sql
        text = sql + guard.tag
        authority.tagged, authority.text = True, text  # type: ignore[union-attr]
        try:
            cursor = super().execute(text, parameters)
        finally:
            self.preparing = None
            authority.tagged = False  # type: ignore[union-attr]
        written = authority.writes.get(text)  # type: ignore[union-attr]
        if written:
            guard.written.update(written)
        return cursor

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        authority = self.authority
        guard = None if authority is None else authority.guard
        self.preparing = sql
        if guard is None:
            try:
                return super().executemany(sql, parameters)
            finally:
                self.preparing = None
        text = sql + guard.tag
        authority.tagged, authority.text = True, text  # type: ignore[union-attr]
        try:
            cursor = super().executemany(text, parameters)
        finally:
            self.preparing = None
            authority.tagged = False  # type: ignore[union-attr]
        written = authority.writes.get(text)  # type: ignore[union-attr]
        if written:
            guard.written.update(written)
        return cursor

    def private(self, sql: str, parameters: Any = (), /, *, many: bool = False) -> sqlite3.Cursor:
        """Run one of the runtime's own statements under a text no tool can send (``sql``
        and a per-process secret comment), so compiling it leaves the statement cache
        trusted (``Authority``): the reset's statements, between tool calls."""
        authority = self.authority
        text = sql + _PRIVATE
        if authority is not None:
            authority.tagged = True
        try:
            if many:
                return super().executemany(text, parameters)
            return super().execute(text, parameters)
        finally:
            if authority is not None:
                authority.tagged = False

    def own(self, sql: str) -> None:
        """Run one of the runtime's own statements under a private text (the toolbox's
        transaction statements, which carry a per-process secret): compiling it leaves
        the statement cache trusted (``Authority``)."""
        authority = self.authority
        if authority is None:
            super().execute(sql)
            return
        authority.tagged = True
        try:
            super().execute(sql)
        finally:
            authority.tagged = False


def runtime_statements(db: sqlite3.Connection) -> AbstractContextManager[None]:
    """``GuardedConnection.runtime_statements`` for any connection (nothing elsewhere)."""
    return db.runtime_statements() if isinstance(db, GuardedConnection) else nullcontext()


def connect(target: str | Path = ":memory:") -> GuardedConnection:
    """A ``GuardedConnection`` with ``SQL_LIMITS`` and foreign keys on."""
    # isolation_level=None: the runtime issues BEGIN/COMMIT itself so each tool call is one
    # explicit transaction. check_same_thread=False: file-backed sessions run in a worker
    # thread, always one call at a time.
    # cached_statements: a tool's statements are cached under texts of its own (``Authority``).
    db = sqlite3.connect(
        target,
        isolation_level=None,
        check_same_thread=False,
        factory=GuardedConnection,
        cached_statements=STATEMENT_CACHE,
    )
    limit_sql(db)
    db.execute("PRAGMA foreign_keys = ON")
    db.authority = Authority()
    db.set_authorizer(db.authority)
    return db


STATEMENT_CACHE = 512


def open_memory() -> GuardedConnection:
    return connect(":memory:")


def schema_of(db: sqlite3.Connection) -> tuple[str, ...]:
    """The ``CREATE`` statements of ``db``'s tables and indexes, in the order they were
    made (SQLite's own, such as ``sqlite_sequence`` and automatic indexes, and the
    runtime's change logs left out): what ``schema_copy`` needs to compile a tool's
    statement as ``db`` would."""
    return tuple(
        row[0]
        for row in db.execute(
            "SELECT sql FROM main.sqlite_schema WHERE type IN ('table', 'index') AND sql IS NOT NULL "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND tbl_name NOT LIKE ? ESCAPE '\\' "
            "ORDER BY rowid",
            (TRACK_PREFIX.replace("_", "\\_") + "%",),
        )
    )


def schema_copy(schema: tuple[str, ...]) -> sqlite3.Connection:
    """An empty database with the tables and indexes of ``schema`` (``schema_of``) and no
    foreign-key enforcement, built under ``_SeedGuard`` (a schema with a virtual table is
    refused: ``SeedLoadError``). ``toolbox._Guard`` compiles statements on it to see which
    tables a statement's own SQL reads, apart from SQLite's foreign-key checks."""
    # No statement cache: a cached statement would be bound without being compiled again,
    # so the authorizer would not see it a second time (for another tool's verdict).
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False, cached_statements=0)
    limit_sql(db, sql_length=SEED_SQL_LENGTH)
    guard = _SeedGuard()
    db.set_authorizer(guard)
    try:
        for statement in schema:
            db.execute(statement)
    except sqlite3.Error as exc:
        db.close()
        raise SeedLoadError(f"schema copy failed: {guard.denied or _one_line(str(exc))}") from None
    db.set_authorizer(None)
    db.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, SQL_LIMITS[sqlite3.SQLITE_LIMIT_SQL_LENGTH] + 64)
    return db


# Everything up to the next ';' that is outside quoted text and identifiers and comments
# (each may run to the end of the script): one match per candidate end, so the regex
# engine walks a seed's many values, not Python (issue 32: a third of building a seed).
# Possessive, so a script with no ';' left is scanned once, never backtracked.
_SQL_UP_TO_SEMICOLON = re.compile(
    r"""(?:[^'"`\[;/\-]++|'[^']*+(?:'|\Z)|"[^"]*+(?:"|\Z)|`[^`]*+(?:`|\Z)|\[[^\]]*+(?:\]|\Z)"""
    r"""|--[^\n]*+|/\*.*?(?:\*/|\Z)|[/\-])*+;""",
    re.S,
)
# ';' that end no statement (inside a trigger body) one statement may hold before the
# splitter gives up and hands SQLite the rest: it keeps a hostile script linear.
_MAX_INNER_SEMICOLONS = 256


def sql_statements(script: str) -> Iterator[str]:
    """The statements of ``script`` one by one, each with the comments before it (a
    trailing comment is a last piece of its own). ``executescript`` would refuse a whole
    script longer than one statement may be, and a seed at scale is many statements.
    Linear in the script: only a ';' outside quotes and comments is a candidate end."""
    start, position, inner = 0, 0, 0
    while (piece := _SQL_UP_TO_SEMICOLON.match(script, position)) is not None:
        end = position = piece.end()
        if sqlite3.complete_statement(script[start:end]):
            yield script[start:end]
            start, inner = end, 0
        else:
            inner += 1
            if inner > _MAX_INNER_SEMICOLONS:
                break
    if script[start:].strip():
        yield script[start:]


def build_seed_image(schema_sql: str, seed_sql: str, *, own_triggers: bool = False) -> bytes:
    """Execute the schema and seed, check every constraint, and return the serialized database.

    Each file runs under ``_SeedGuard``: ``schema.sql`` may create tables and indexes,
    ``seed.sql`` may insert rows; a refused statement or function is a ``SeedLoadError``
    naming it ("seed.sql refused: ..."). ``own_triggers``: the schema may create
    triggers too (a trusted caller's; no package's schema is built so)."""
    db = open_memory()
    try:
        limit_sql(db, sql_length=SEED_SQL_LENGTH)
        # Small pages: every session holds a full copy, and seed tables are small, so
        # 1 KiB pages waste far less than the default 4 KiB on many tiny b-trees.
        db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        for name, script in (("schema.sql", schema_sql), ("seed.sql", "BEGIN;\n" + seed_sql + "\nCOMMIT;")):
            guard = _SeedGuard(name, triggers=own_triggers)
            db.set_authorizer(guard)
            try:
                if len(script.encode("utf-8")) <= SEED_SQL_LENGTH:
                    # One call: SQLite compiles and runs the statements one by one, under
                    # the same guard, with none of a Python ``execute``'s cost per statement
                    # (a third of building retail's 1764-row seed).
                    db.executescript(script)
                else:  # longer than one statement may be: ``executescript`` would refuse it
                    for statement in sql_statements(script):
                        db.execute(statement)
                if name == "schema.sql":
                    _check_defaults(db, guard)
            except sqlite3.Error as exc:
                if guard.denied is not None:
                    raise SeedLoadError(f"{name} refused: {guard.denied}") from None
                raise SeedLoadError(f"{name} failed: {_one_line(str(exc))}") from None
        db.set_authorizer(None)
        violations = db.execute("PRAGMA foreign_key_check").fetchall()
        if violations:
            table, rowid, parent, _ = violations[0]
            raise SeedLoadError(
                f"seed violates a foreign key: {table} row {rowid} references a missing {parent} "
                f"({len(violations)} violation(s) in all)"
            )
        _add_tracking(db)
        db.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 1)  # VACUUM attaches its own temporary copy
        db.execute("VACUUM")
        return db.serialize()
    finally:
        db.close()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _check_defaults(db: sqlite3.Connection, guard: _SeedGuard) -> None:
    """Compile every column's DEFAULT under ``guard``: SQLite evaluates a default on
    insert without asking the authorizer about its functions, and resolves none when the
    table is created (CHECK, generated columns and index expressions it does resolve)."""
    db.set_authorizer(None)
    tables = [row[0] for row in db.execute("SELECT name FROM pragma_table_list WHERE schema = 'main'")]
    defaults = [
        row[0]
        for table in tables
        if not table.startswith("sqlite_")
        for row in db.execute(
            "SELECT dflt_value FROM pragma_table_xinfo(?) WHERE dflt_value IS NOT NULL", (table,)
        )
    ]
    db.set_authorizer(guard)
    for default in defaults:
        db.execute(f"EXPLAIN SELECT ({default})")


# PRAGMAs seed SQL may run: the emitter's own (``env/seed.py``).
SEED_PRAGMAS = frozenset({"defer_foreign_keys", "foreign_keys"})
_SEED_STATEMENTS = {
    sqlite3.SQLITE_ALTER_TABLE: "ALTER TABLE",
    sqlite3.SQLITE_ANALYZE: "ANALYZE",
    sqlite3.SQLITE_ATTACH: "ATTACH",
    sqlite3.SQLITE_CREATE_INDEX: "CREATE INDEX",
    sqlite3.SQLITE_CREATE_TABLE: "CREATE TABLE",
    sqlite3.SQLITE_CREATE_TEMP_INDEX: "CREATE TEMP INDEX",
    sqlite3.SQLITE_CREATE_TEMP_TABLE: "CREATE TEMP TABLE",
    sqlite3.SQLITE_CREATE_TEMP_TRIGGER: "CREATE TEMP TRIGGER",
    sqlite3.SQLITE_CREATE_TEMP_VIEW: "CREATE TEMP VIEW",
    sqlite3.SQLITE_CREATE_TRIGGER: "CREATE TRIGGER",
    sqlite3.SQLITE_CREATE_VIEW: "CREATE VIEW",
    sqlite3.SQLITE_CREATE_VTABLE: "CREATE VIRTUAL TABLE",
    sqlite3.SQLITE_DELETE: "DELETE",
    sqlite3.SQLITE_DETACH: "DETACH",
    sqlite3.SQLITE_DROP_INDEX: "DROP INDEX",
    sqlite3.SQLITE_DROP_TABLE: "DROP TABLE",
    sqlite3.SQLITE_DROP_TEMP_INDEX: "DROP INDEX",
    sqlite3.SQLITE_DROP_TEMP_TABLE: "DROP TABLE",
    sqlite3.SQLITE_DROP_TEMP_TRIGGER: "DROP TRIGGER",
    sqlite3.SQLITE_DROP_TEMP_VIEW: "DROP VIEW",
    sqlite3.SQLITE_DROP_TRIGGER: "DROP TRIGGER",
    sqlite3.SQLITE_DROP_VIEW: "DROP VIEW",
    sqlite3.SQLITE_DROP_VTABLE: "DROP VIRTUAL TABLE",
    sqlite3.SQLITE_INSERT: "INSERT into",
    sqlite3.SQLITE_READ: "reading",
    sqlite3.SQLITE_PRAGMA: "PRAGMA",
    sqlite3.SQLITE_RECURSIVE: "WITH RECURSIVE",
    sqlite3.SQLITE_REINDEX: "REINDEX",
    sqlite3.SQLITE_UPDATE: "UPDATE",
}
_MAIN = ("main", None)  # None: a table named in FROM with none of its columns read


class _SeedGuard:
    """SQLite authorizer for ``schema.sql`` and ``seed.sql``: what the emitter writes in
    each and nothing else (``env/ddl.py``: ``CREATE TABLE``, ``CREATE INDEX``;
    ``env/seed.py``: ``INSERT`` and ``PRAGMA defer_foreign_keys``, in one transaction).

    ``schema.sql`` may create tables and indexes in ``main`` (not under the runtime's
    ``_ef_`` names; with ``triggers``, triggers too), with what SQLite itself does then
    (writing the object's row of ``sqlite_schema``, which SQL cannot write, reading the
    table for CHECK constraints and index builds). ``seed.sql`` may insert into and read
    ``main`` tables and run ``SEED_PRAGMAS``. Both may use transactions, savepoints and
    ``SAFE_SQL_FUNCTIONS``. Denied: virtual tables (FTS and every other module), views,
    triggers, temporary objects, ALTER, DROP, UPDATE, DELETE, ATTACH, recursive CTEs (a
    seed that never ends), other PRAGMAs and every other function. The first denial is
    kept for the error message."""

    __slots__ = ("ddl", "denied", "file", "triggers")

    def __init__(self, file: str = "schema.sql", *, triggers: bool = False) -> None:
        self.file, self.ddl, self.triggers = file, file == "schema.sql", triggers
        self.denied: str | None = None

    def __call__(
        self, action: int, arg1: str | None, arg2: str | None, db_name: str | None, src: str | None
    ) -> int:
        ok = sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_FUNCTION:
            if (arg2 or "").lower() in SAFE_SQL_FUNCTIONS:
                return ok
            return self._deny(
                f"the SQL function {arg2!r} is not allowed (only SQLite's ordinary core functions)"
            )
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_TRANSACTION, sqlite3.SQLITE_SAVEPOINT):
            return ok
        writes = (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE, sqlite3.SQLITE_READ)
        if self.triggers and src is not None and action in writes and db_name in _MAIN:
            return ok  # the body of one of the schema's own triggers
        creates = (sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_CREATE_INDEX)
        creating = action in creates or (self.triggers and action == sqlite3.SQLITE_CREATE_TRIGGER)
        if self.ddl and creating and db_name == "main":
            if (arg1 or "").lower().startswith(TRACK_PREFIX):
                return self._deny(
                    f"{_SEED_STATEMENTS[action]} {arg1!r}: names starting with {TRACK_PREFIX!r} are the runtime's"
                )
            return ok
        if self.ddl and (
            action == sqlite3.SQLITE_REINDEX  # a new index being filled
            or (action == sqlite3.SQLITE_READ and db_name in _MAIN)
            or (action in (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE) and arg1 == "sqlite_master")
        ):
            return ok
        if not self.ddl and (
            (action in (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_READ) and db_name in _MAIN)
            or (action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in SEED_PRAGMAS)
        ):
            return ok
        what = _SEED_STATEMENTS.get(action, f"authorizer action {action}")
        if action == sqlite3.SQLITE_CREATE_VTABLE:
            what = f"{what} {arg1!r} USING {arg2}"
        elif action == sqlite3.SQLITE_PRAGMA:
            what = f"PRAGMA {arg1}"
        elif action == sqlite3.SQLITE_DELETE and arg1 == "sqlite_master":
            what = "DROP (deleting from 'sqlite_master')"
        elif action != sqlite3.SQLITE_RECURSIVE and arg1:
            what = f"{what} {arg1!r}"
        if db_name not in _MAIN:
            what = f"{what} in the {db_name!r} database"
        only = "CREATE TABLE and CREATE INDEX" if self.ddl else "INSERT"
        return self._deny(f"{what} is not allowed in {self.file} (only {only})")

    def _deny(self, reason: str) -> int:
        if self.denied is None:
            self.denied = reason
        return sqlite3.SQLITE_DENY


TRACK_PREFIX = "_ef_"
"""Names of the change-log tables and their triggers (spec names start with a letter, so
none can collide; ``state.table_infos`` leaves them out of the state). A tool's
authorizer lets only these triggers write these tables."""


def _add_tracking(db: sqlite3.Connection) -> None:
    """Give every table of a freshly built seed a change log (``_Tracking``), unless the
    schema has triggers of its own: tracking needs recursive triggers on, so that the rows
    a REPLACE deletes are seen, and that would change what such triggers do. Those
    schemas are hashed by full scans.

    The logs and triggers live in the image itself, so every session copy has them at no
    cost. (TEMP triggers on the main tables would keep the image clean, but SQLite does
    not survive them across ``deserialize``: they stop firing, and dropping one then
    crashes the process.)"""
    if db.execute("SELECT count(*) FROM main.sqlite_schema WHERE type = 'trigger'").fetchone()[0]:
        return
    for tracking in _trackings(db):
        for sql in tracking.create:
            db.execute(sql)


def _trackings(db: sqlite3.Connection) -> list[_Tracking]:
    with_rowid = {
        row[0] for row in db.execute("SELECT name FROM pragma_table_list WHERE schema = 'main' AND wr = 0")
    }
    return [_Tracking(i, info, info.name in with_rowid) for i, info in enumerate(table_infos(db))]


class _SeedFacts:
    """What every session of one seed image shares: its tables, each table's digest in
    the seed and the seed's hash, the schema cookie, and the change logs when the image
    has them (``_add_tracking``; else the session hashes by full scans).

    The digests are taken on first use (a hash, or a session's first copy), not when the
    first read opens the shared connection: a server whose clients only read never
    digests its seed, and nothing of it is on the way to the first answer."""

    def __init__(self, db: sqlite3.Connection, digests: dict[str, int] | None = None) -> None:
        self._db = db
        self.tables: list[TableInfo] = table_infos(db)
        if digests is not None and sorted(digests) == sorted(t.name for t in self.tables):
            self.digests = digests  # kept with the image (``know_digests``): no scan
        self.schema_version: int = db.execute("PRAGMA schema_version").fetchone()[0]
        self.schema = schema_of(db)
        tracking = _trackings(db)
        present = {
            row[0]
            for row in db.execute("SELECT name FROM main.sqlite_schema WHERE type IN ('table', 'trigger')")
        }
        wanted = {t.log for t in tracking} | {t.log + s for t in tracking for s in _TRIGGER_SUFFIXES}
        self.tracking = tracking if wanted <= present else None
        # Which logs hold entries, one statement per ``_PROBED`` tables: a row of one
        # scalar subquery per log (1, or NULL for an empty one), not a statement per table.
        self.probes: list[tuple[list[_Tracking], str]] = []
        for i in range(0, len(self.tracking or ()), _PROBED):
            group = tracking[i : i + _PROBED]
            subqueries = ", ".join(f"(SELECT 1 FROM main.{_quote(t.log)} LIMIT 1)" for t in group)
            self.probes.append((group, f"SELECT {subqueries}"))
        # Whether no foreign key takes an action (``_undo_checked``), and the tables with
        # every table a foreign key of theirs references before them (name order on a cycle).
        references: dict[str, set[str]] = {t.name: set() for t in self.tables}
        by_folded = {t.name.lower(): t.name for t in self.tables}
        self.checked_undo = True
        for table in self.tables:
            for parent, on_update, on_delete in db.execute(
                'SELECT "table", on_update, on_delete FROM pragma_foreign_key_list(?)', (table.name,)
            ):
                if on_update not in _NO_ACTION or on_delete not in _NO_ACTION:
                    self.checked_undo = False
                found = by_folded.get(str(parent).lower())
                if found is not None and found != table.name:
                    references[table.name].add(found)
        try:
            self.parents_first: list[str] = list(graphlib.TopologicalSorter(references).static_order())
        except graphlib.CycleError:
            self.parents_first = [t.name for t in self.tables]
        # The seed's ``sqlite_sequence`` rows (None: it has no such table).
        self.sequence: list[tuple[Any, ...]] | None = None
        if "sqlite_sequence" in present:
            self.sequence = [tuple(r) for r in db.execute("SELECT name, seq FROM main.sqlite_sequence")]
        # What ``seed_rows`` read, by table and keys (the seed never changes).
        self._seed_rows: OrderedDict[tuple[str, tuple[Any, ...]], list[tuple[Any, ...]]] = OrderedDict()

    def seed_rows(self, reader: sqlite3.Connection, log: _Tracking, keys: list[Any]) -> list[tuple[Any, ...]]:
        """``_rows_of(reader, log, keys)`` on the seed's reader, kept: an undo reads the seed's
        rows of the keys an episode wrote, and the trials of one task (and its gold replay)
        write the same keys. The same rows in the same order, as the reader is the seed and
        the keys (their values and types) the same."""
        key = (log.info.name, tuple(tuple((v.__class__, v) for v in k) for k in keys))
        rows = self._seed_rows.get(key)
        if rows is None:
            rows = self._seed_rows[key] = _rows_of(reader, log, keys)
            if len(self._seed_rows) > SEED_ROWS_KEPT:
                self._seed_rows.popitem(last=False)
        return rows

    @functools.cached_property
    def digests(self) -> dict[str, int]:
        return table_digests(self._db)  # the shared connection is query_only: this is the seed

    @functools.cached_property
    def hash(self) -> str:
        return hash_digests(self.digests)


_TRIGGER_SUFFIXES = ("_i", "_u", "_d")
SEED_ROWS_KEPT = 512  # undo reads of the seed's rows one seed keeps (``_SeedFacts.seed_rows``)
_PROBED = 256  # change logs one probe statement looks at (``_SeedFacts.probes``)


def _logged(db: sqlite3.Connection, facts: _SeedFacts, *, private: bool) -> Iterator[_Tracking]:
    """The change logs of ``db`` that hold entries, in table order (``private``: run the
    probes as the runtime's private statements; else through ``db.execute``)."""
    for group, probe in facts.probes:
        cursor = db.private(probe) if private else db.execute(probe)  # type: ignore[attr-defined]
        for log, entry in zip(group, cursor.fetchone(), strict=True):
            if entry is not None:
                yield log


_NO_ACTION = frozenset({"NO ACTION", "RESTRICT"})


class _Tracking:
    """The change log of one table: which rows changed since the last hash.

    ``_ef_was_<i>`` gets an entry per row change: the key (the primary key, or the rowid
    of a rowid table) with the row as it was before (``existed`` 1), or that it did not
    exist (``existed`` 0, an insert, or the new key of an update). The first entry of a
    key since the last hash is the row as it was then. Triggers run inside the
    statement's transaction, so a statement or call rolled back leaves no record.
    Hashing subtracts the logged rows' digests, adds the digests of the current rows
    with the logged keys (an indexed lookup, never a scan), and empties the log.
    """

    def __init__(self, index: int, info: TableInfo, with_rowid: bool) -> None:
        self.info = info
        self.log = f"{TRACK_PREFIX}was_{index}"
        q = _quote
        keys = ["rowid"] if with_rowid else list(info.primary_key)
        self.key_cols = [f"{TRACK_PREFIX}rowid"] if with_rowid else keys
        self.row_cols = [c for c in info.columns if with_rowid or c not in keys]
        log_cols = [*self.key_cols, *self.row_cols]
        self.log_names = log_cols
        existed = q(f"{TRACK_PREFIX}existed")
        log = f"main.{q(self.log)}"
        old_row = ", ".join(f"OLD.{q(c)}" for c in [*keys, *self.row_cols])
        new_key = ", ".join([*(f"NEW.{q(k)}" for k in keys), *("NULL" for _ in self.row_cols)])
        # A plain append (no key constraint, so nothing a statement's own conflict clause,
        # which overrides its triggers' clauses, could turn into a REPLACE or an abort);
        # hashing reads the first entry of each key.
        remember_old = f"INSERT INTO {q(self.log)} VALUES ({old_row}, 1);"
        remember_new = f"INSERT INTO {q(self.log)} VALUES ({new_key}, 0);"
        table = q(info.name)
        bodies = {"_i": ("INSERT", remember_new), "_u": ("UPDATE", f"{remember_old} {remember_new}")}
        bodies["_d"] = ("DELETE", remember_old)
        # Untyped columns keep every value exactly as it was stored (no affinity).
        self.create = [f"CREATE TABLE {log} ({', '.join(map(q, log_cols))}, {existed})"] + [
            f"CREATE TRIGGER main.{q(self.log + suffix)} AFTER {event} ON {table} BEGIN {body} END"
            for suffix, (event, body) in bodies.items()
        ]
        log_keys = ", ".join(map(q, self.key_cols))
        key_tuple = "rowid" if with_rowid else ", ".join(map(q, keys))
        self.current_where = f"WHERE ({key_tuple}) IN (SELECT {log_keys} FROM {log})"
        self.keys = f"SELECT DISTINCT {log_keys} FROM {log}"
        # Every entry, in the order they were made (``drain_values``).
        self.entries = f"SELECT {', '.join(map(q, log_cols))}, {existed} FROM {log} ORDER BY rowid"
        # Where an entry holds each of the table's columns, and the current rows of the
        # logged keys (``drain_values``, what hashing reads).
        self.column_at = [log_cols.index(c) for c in info.columns]
        self.current = (
            f"SELECT {', '.join(chr(34) + c + chr(34) for c in info.columns)} "
            f'FROM main."{info.name}" {self.current_where}'
        )
        # Parking (``SessionDatabase.park``): the current rows of given keys, and removing them.
        self.with_rowid = with_rowid
        self.key_expr = key_tuple
        self.row_select = ", ".join([*(["rowid"] if with_rowid else []), *map(q, info.columns)])
        self.insert = (
            f"INSERT INTO main.{table} ({self.row_select}) "
            f"VALUES ({', '.join('?' for _ in range(len(info.columns) + with_rowid))})"
        )
        self.clear = f"DELETE FROM {log}"
        # ``_undo_checked``: where a row of ``row_select`` holds its key and the values an
        # update sets (every column but the key's), and that update (None: nothing to set).
        columns = list(info.columns)
        self.key_at = [0] if with_rowid else [columns.index(k) for k in keys]
        self.value_at = [columns.index(c) + with_rowid for c in self.row_cols]
        sets = ", ".join(map(q, self.row_cols))
        slots = ", ".join("?" for _ in self.row_cols)
        self.update = (
            f"UPDATE main.{table} SET ({sets}) = ({slots}) WHERE ({key_tuple}) = "
            f"({', '.join('?' for _ in self.key_at)})"
            if self.row_cols
            else None
        )

    def drain_values(
        self, db: sqlite3.Connection
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """From one read of the log: the keys logged (each once, first seen first, as
        ``keys`` gives them) and, for each key whose first entry says the row existed, the
        row as it was before that entry; then the current rows of the logged keys. Rows
        are values in the table's column order (``state.values_digest``). Keys are grouped
        as SQLite's ``GROUP BY`` groups them (NULL with NULL, 1 with 1.0, text apart from
        blobs), which is how Python's dict compares them."""
        width = len(self.key_cols)
        first: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        for entry in db.execute(self.entries):
            first.setdefault(entry[:width], entry)
        at = self.column_at
        old = [tuple([entry[i] for i in at]) for entry in first.values() if entry[-1] == 1]
        return list(first), old, db.execute(self.current).fetchall()


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _Seed:
    """One seed image as the process shares it: its facts, and one read-only connection
    on it that sessions without a copy of their own read through."""

    def __init__(self, image: bytes) -> None:
        self.image = image
        self.reader = open_memory()
        self.reader.deserialize(image)
        self.reader.execute(f"PRAGMA cache_size = {MEMORY_CACHE_PAGES}")
        known = _KNOWN_DIGESTS.pop(id(image), None)
        self.facts = _SeedFacts(self.reader, known[1] if known is not None and known[0] is image else None)
        self.reader.schema = self.facts.schema
        self.reader.execute("PRAGMA query_only = ON")  # whatever runs on it, the seed stays the seed


# The seeds whose shared reader and facts stay built, most recently used last: a server
# has one seed (a jailed session process one too), but a process that builds many (the
# verifier, the task oracle, tests) must not keep every image it ever served. A seed
# dropped here is built again from its image on its next use.
_SEEDS: OrderedDict[int, _Seed] = OrderedDict()
SEEDS_KEPT = 8


# Digests ``cache.py`` kept beside an image (``know_digests``), by the id of the image
# object (kept with them, so the id stays its own) until its ``_Seed`` is made.
_KNOWN_DIGESTS: OrderedDict[int, tuple[bytes, dict[str, int]]] = OrderedDict()


def know_digests(image: bytes, digests: dict[str, int]) -> None:
    """Every table's digest in ``image``, as ``seed_digests`` computed them when the image
    was kept (``cache.py``): its ``_SeedFacts`` takes them instead of scanning every row
    (~38 ms of a retail server's start), when they name exactly its tables."""
    _KNOWN_DIGESTS[id(image)] = (image, digests)
    while len(_KNOWN_DIGESTS) > SEEDS_KEPT:
        _KNOWN_DIGESTS.popitem(last=False)


def seed_digests(image: bytes) -> dict[str, int]:
    """Every table's digest in ``image`` (its seed's, taken now if not yet)."""
    return dict(_seed(image).facts.digests)


def _seed(image: bytes) -> _Seed:
    key = id(image)
    seed = _SEEDS.get(key)
    if seed is not None and seed.image is image:
        if next(reversed(_SEEDS)) != key:
            _SEEDS.move_to_end(key)
        return seed
    seed = _SEEDS[key] = _Seed(image)
    _SEEDS.move_to_end(key)
    while len(_SEEDS) > SEEDS_KEPT:
        _SEEDS.popitem(last=False)
    return seed


class HotSet:
    """The in-memory sessions of one store that hold a materialized copy, least recently
    used first, and how many may: past ``sessions`` copies, or past ``budget_bytes``
    (each copy counted as its image plus ``COPY_OVERHEAD``), the least recently used one
    that is not in the middle of a call is parked (``SessionDatabase.park``).

    Held weakly: a session dropped with its connection leaves the set by itself."""

    COPY_OVERHEAD = 256 * 1024
    """RSS of a session's copy beyond its image: connection, page cache, schema."""

    def __init__(self, sessions: int | None, budget_bytes: int | None = None) -> None:
        self.sessions = sessions
        self.budget_bytes = budget_bytes
        self._lru: OrderedDict[int, weakref.ref[SessionDatabase]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._lru)

    def touch(self, db: SessionDatabase) -> None:
        key = id(db)
        if key in self._lru:
            self._lru.move_to_end(key)

    def add(self, db: SessionDatabase) -> None:
        """``db`` has just materialized (a first copy, or unparked): park others if need be."""
        key = id(db)
        if key not in self._lru:
            self._lru[key] = weakref.ref(db, lambda _, key=key: self._lru.pop(key, None))  # type: ignore[misc]
        self._lru.move_to_end(key)
        self._shed(db)

    def discard(self, db: SessionDatabase) -> None:
        self._lru.pop(id(db), None)

    def _limit(self, db: SessionDatabase) -> int | None:
        limits = []
        if self.sessions is not None:
            limits.append(self.sessions)
        if self.budget_bytes is not None:
            limits.append(max(1, self.budget_bytes // (len(db.seed_image) + self.COPY_OVERHEAD)))
        return min(limits) if limits else None

    def _shed(self, newest: SessionDatabase) -> None:
        limit = self._limit(newest)
        if limit is None or len(self._lru) <= limit:
            return
        for key, ref in list(self._lru.items()):
            if len(self._lru) <= limit:
                return
            db = ref()
            if db is None or db is newest:
                continue
            if db.busy:
                continue  # a call holds its connection (a jailed call in a worker thread)
            if not db.park():
                self._lru.pop(key, None)  # cannot be parked (see ``park``): no longer counted


class SessionDatabase:
    """One session's database: in memory (a copy of the seed) or a file that persists.

    *Copy on first write.* An in-memory session has no database of its own until its
    connection is asked for (``db``: the server asks for it for a write or a jailed call;
    any other caller gets it on first use). Until then ``reader()`` is the seed image's
    one shared read-only connection, and the session's hash and dump are the seed's. A
    reset to the seed reloads a copy the session has (it keeps its connection).

    ``hash()`` costs what changed, not what the state holds. A session with a copy keeps
    every table's digest (``state.py``): it starts from the seed's digests and hash, kept
    once per image (nothing is rehashed), and the image's change logs record the rows
    each write touches (``_Tracking``), so the next ``hash()`` re-digests only those rows,
    found without scanning any table. The value is also remembered until SQLite's
    ``total_changes`` (or the schema cookie) moves. A schema changed under the session or
    a seed with triggers of its own is hashed by full scans; so is the file-backed mode,
    whose file other processes may write.

    *Parking.* Draining the logs also collects, per table, every key written since the
    seed (``_touched``). ``park()`` keeps only those keys' current rows (or their absence),
    ``sqlite_sequence``, the digests and the hash, as one ``marshal`` blob, and closes
    the copy: an idle writing session then costs what it wrote. Any use of the
    connection (``db``, ``reader()``, ``dump()``, a reset to a given state) unparks it: a
    fresh copy of the seed with the delta applied, the same state, hash and rowids
    (``hash()`` alone answers from what was kept). A store parks through a ``HotSet``.
    """

    def __init__(self, seed_image: bytes, path: Path | None = None, *, hot: HotSet | None = None) -> None:
        self._seed_image = seed_image
        self._hash_cache: tuple[tuple[int, int], str] | None = None  # ((total_changes, cookie), hash)
        # (total_changes, cookie) when the copy last held the seed (``_start_from_seed``).
        self._seed_at: tuple[int, int] | None = None
        self._digests: dict[str, int] | None = None  # None: unknown, scan everything
        self._own: GuardedConnection | None = None
        # Keys written since the seed, per table (None: unknown, e.g. after a reset to a state).
        self._touched: dict[str, set[tuple[Any, ...]]] | None = {}
        self._parked: bytes | None = None  # the delta while parked (``park``)
        self._parked_hash = ""
        self._busy = 0
        self._hot = hot if path is None else None
        self.path = path
        if path is not None:
            fresh = not path.exists()
            self._own = connect(path)
            if fresh:  # before WAL: the copy sets the page size, which WAL mode would forbid
                self._copy_seed_into_file()
            self._own.execute("PRAGMA journal_mode = WAL")
            self._own.execute("PRAGMA foreign_keys = ON")
            self._own.schema = schema_of(self._own)

    @property
    def seed_image(self) -> bytes:
        return self._seed_image

    @property
    def db(self) -> sqlite3.Connection:
        """This session's own connection: made, a copy of the seed, on first use."""
        own = self._own
        if own is not None:
            if self._hot is not None:
                self._hot.touch(self)
            return own
        own = self._own = open_memory()
        self._load_seed_image()
        self._start_from_seed()
        if self._parked is not None:
            self._unpark(self._parked)
        if self._hot is not None:
            self._hot.add(self)
        return own

    @property
    def copied(self) -> bool:
        """Whether the session holds a database of its own (a copy, parked or not, or the file)."""
        return self._own is not None or self._parked is not None

    @property
    def parked(self) -> bool:
        return self._parked is not None

    def spare_ready(self) -> bool:
        """Whether this session holds an in-memory copy a reset keeps (not parked, not a
        file, not in a call or a transaction): worth keeping for another key of its owner."""
        own = self._own
        return (
            own is not None
            and self.path is None
            and self._parked is None
            and not self._busy
            and not own.in_transaction
        )

    @property
    def busy(self) -> bool:
        """A call holds the connection (``in_use``): it must not be parked now."""
        return self._busy > 0

    @contextmanager
    def in_use(self) -> Iterator[sqlite3.Connection]:
        """The connection, kept from being parked until the block ends (for a call that
        lets other requests run while it works: a jailed call in a worker thread)."""
        self._busy += 1
        try:
            yield self.db
        finally:
            self._busy -= 1

    def reader(self) -> sqlite3.Connection:
        """The connection for one read-only call: the session's own, or while it has none
        the seed's shared one, which the caller may only use synchronously (no other call
        may run on it before this one is over) and cannot write (``query_only``)."""
        if self._own is not None or self._parked is not None:
            return self.db
        return _seed(self._seed_image).reader

    @property
    def file_backed(self) -> bool:
        return self.path is not None

    def reset(self, state: State | None = None) -> None:
        """Back to the seed, or to a given canonical state (validated against the schema)."""
        if state is not None:
            db = self.db
            self._hash_cache, self._digests = None, None
            restore_state(db, state)
            self._touched = None  # the whole state differs: this session is not parked again
            if self.path is None:
                tracking = self._facts().tracking
                if tracking is not None and not self._schema_moved(db):  # else full scans
                    for log in tracking:
                        db.execute(log.clear)
                    self._digests = table_digests(db)  # a whole new state: one scan
            return
        if self._undo_to_seed():
            return
        self._hash_cache, self._digests = None, None
        if self.path is None:
            self._touched, self._parked = {}, None  # a parked session is back to sharing the seed
            # The same connection reloaded (not dropped), so what a caller set on it (a
            # progress handler, say) stays; a session that never copied has nothing to do.
            if self._own is not None:
                self._load_seed_image()
                self._start_from_seed()
                if self._hot is not None:
                    self._hot.add(self)
        else:
            self._copy_seed_into_file()

    def _undo_to_seed(self) -> bool:
        """Back to the seed by undoing only the rows changed since it: every key the change
        logs name (drained now) or hashing collected (``_touched``) gets the seed's row
        again, or none, and ``sqlite_sequence`` the seed's; the seed's digests and hash
        are the session's again, nothing rehashed. So a reset costs what the episode
        changed, not what the seed holds (a copy of a 20 MB image was most of a reset at
        100x). False, nothing done, where the rows changed are not known (no copy, a
        file, no change logs, a reset to a given state, DDL, an open transaction) or are
        many (``UNDO_KEYS``, ``UNDO_BYTES_PER_KEY``): then the image is loaded again."""
        db = self._own
        if db is None or self.path is not None or self._parked is not None or db.in_transaction:
            return False
        facts = self._facts()
        tracking, touched = facts.tracking, self._touched
        if tracking is None or touched is None or not isinstance(db, GuardedConnection):
            return False
        cookie = db.private("PRAGMA schema_version").fetchone()[0]
        if cookie != facts.schema_version:
            return False
        if self._seed_at == (db.total_changes, cookie):
            # Not one row changed since the seed was loaded or last undone to (SQLite
            # counts every row a statement changes, kept or rolled back): already the seed.
            self._start_from_seed()
            if self._hot is not None:
                self._hot.touch(self)
            return True
        keys_of: dict[str, set[tuple[Any, ...]]] = {}
        # Nothing written since the logs were last drained (a hash, or the last undo, kept
        # with the counter it saw): every log is empty, no probe needed.
        drained = self._hash_cache is not None and self._hash_cache[0] == (db.total_changes, cookie)
        logged_now = set() if drained else set(map(id, _logged(db, facts, private=True)))
        for log in tracking:
            known = touched.get(log.info.name)
            logged = db.private(log.keys).fetchall() if id(log) in logged_now else ()
            if known or logged:
                keys_of[log.info.name] = {*(known or ()), *map(tuple, logged)}
        if sum(map(len, keys_of.values())) > max(UNDO_KEYS, len(self._seed_image) // UNDO_BYTES_PER_KEY):
            return False
        if keys_of or facts.sequence is not None:  # else already the seed: nothing to run
            reader = _seed(self._seed_image).reader
            by_name = {log.info.name: log for log in tracking}
            if not (facts.checked_undo and _undo_checked(db, reader, facts, keys_of, by_name)):
                _undo_unchecked(db, reader, facts, keys_of, by_name)
        self._touched = {}
        self._start_from_seed()
        if self._hot is not None:
            self._hot.touch(self)
        return True

    def changed_keys(self) -> dict[str, set[tuple[Any, ...]]] | None:
        """Per table, the keys (primary key values, or the rowid of a rowid table) of every
        row written since the seed or the last reset, the change logs drained first; None
        where they are not known (a file-backed session, a schema moved, a seed hashed by
        full scans, a reset to a given state). A caller reads those rows instead of the
        whole state (the task oracle's gold diff). The sets are copies."""
        self.hash()
        if self.path is not None or self._touched is None:
            return None
        if self._own is not None and self._digests is None:
            return None
        return {table: set(keys) for table, keys in self._touched.items() if keys}

    def mark_written(self, tables: Iterable[str]) -> None:
        """Tables a tool call may have written. Kept for callers; the hash does not need
        it (the change logs see every row written, reported or not)."""

    def dump(self) -> State:
        reader = self.reader()
        with runtime_statements(reader):
            return dump_state(reader)

    def hash(self) -> str:
        db = self._own
        if db is None:
            return self._parked_hash if self._parked is not None else self._facts().hash
        if self.path is not None:
            return state_hash(db)
        with runtime_statements(db):
            return self._hash(db)

    def _hash(self, db: sqlite3.Connection) -> str:
        # DDL run on ``db`` directly (tools cannot) moves the cookie, not total_changes.
        cookie = db.execute("PRAGMA schema_version").fetchone()[0]
        if cookie != self._facts().schema_version:
            self._digests = None  # the logs may not cover the tables: full scans until a reset
        changes = (db.total_changes, cookie)
        if self._hash_cache is not None and self._hash_cache[0] == changes:
            return self._hash_cache[1]
        tracking = self._facts().tracking
        if tracking is None or self._digests is None:
            value = state_hash(db)
        else:
            touched = self._touched
            for log in list(_logged(db, self._facts(), private=False)):
                name = log.info.name
                keys, old_rows, new_rows = log.drain_values(db)
                if touched is not None:
                    touched.setdefault(name, set()).update(keys)
                digest = self._digests[name]
                columns = log.info.columns
                for values in old_rows:
                    digest -= values_digest(columns, values)
                for values in new_rows:
                    digest += values_digest(columns, values)
                self._digests[name] = digest % DIGEST_MODULUS
                db.execute(log.clear)
            value = hash_digests(self._digests)
        self._hash_cache = ((db.total_changes, cookie), value)
        return value

    def park(self) -> bool:
        """Keep only what this session changed since the seed, and close its copy (see the
        class). False, and nothing done, for a session that cannot be parked: one with no
        copy, file-backed, in a transaction or a call, after DDL or a reset to a given
        state, or of a seed without change logs."""
        db = self._own
        if db is None or self.path is not None or self._busy or db.in_transaction:
            return False
        tracking = self._facts().tracking
        if tracking is None or self._touched is None:
            return False
        if self._schema_moved(db):
            return False
        value = self.hash()  # drains the logs into the digests and ``_touched``
        if self._digests is None:
            return False
        tables = []
        for log in tracking:
            keys = sorted(self._touched.get(log.info.name, ()), key=_sort_key)
            if keys:
                tables.append((log.info.name, keys, _rows_of(db, log, keys)))
        sequence: list[tuple[Any, ...]] = []
        if db.execute("SELECT 1 FROM main.sqlite_schema WHERE name = 'sqlite_sequence'").fetchone():
            sequence = [tuple(r) for r in db.execute("SELECT name, seq FROM main.sqlite_sequence")]
        blob = marshal.dumps((tables, sequence, self._digests))
        db.close()
        if self._hot is not None:
            self._hot.discard(self)
        self._own, self._parked, self._parked_hash = None, blob, value
        self._touched, self._digests, self._hash_cache = {}, None, None
        return True

    def _unpark(self, blob: bytes) -> None:
        """Apply a parked delta to the fresh copy of the seed ``db`` just loaded."""
        db = self._own
        assert db is not None
        tables, sequence, digests = marshal.loads(blob)
        by_name = {log.info.name: log for log in self._facts().tracking or ()}
        db.execute("PRAGMA foreign_keys = OFF")  # rows go in in any order; the state is consistent
        try:
            db.execute("BEGIN")
            touched: dict[str, set[tuple[Any, ...]]] = {}
            for name, keys, rows in tables:
                log = by_name[name]
                for chunk in _chunks(keys):
                    db.execute(f"DELETE FROM main.{_quote(name)} {_keys_where(log, chunk)}", _flat(chunk))
                db.executemany(log.insert, rows)
                touched[name] = set(map(tuple, keys))
            if sequence:
                db.execute("DELETE FROM main.sqlite_sequence")
                db.executemany("INSERT INTO main.sqlite_sequence (name, seq) VALUES (?, ?)", sequence)
            for log in by_name.values():
                db.execute(log.clear)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        finally:
            db.execute("PRAGMA foreign_keys = ON")
        self._touched, self._digests = touched, digests
        self._hash_cache = ((db.total_changes, self._facts().schema_version), self._parked_hash)
        self._parked, self._parked_hash = None, ""

    def _facts(self) -> _SeedFacts:
        return _seed(self._seed_image).facts

    def _start_from_seed(self) -> None:
        """Right after loading the image: the seed's digests and hash, nothing rehashed."""
        assert self._own is not None
        facts = self._facts()
        self._digests = dict(facts.digests) if facts.tracking is not None else None
        self._seed_at = (self._own.total_changes, facts.schema_version)
        self._hash_cache = (self._seed_at, facts.hash)

    def _schema_moved(self, db: sqlite3.Connection) -> bool:
        """DDL run on ``db`` directly (tools cannot): the logs may not cover the tables."""
        cookie: int = db.execute("PRAGMA schema_version").fetchone()[0]
        return cookie != self._facts().schema_version

    def close(self) -> None:
        if self._hot is not None:
            self._hot.discard(self)
        self._parked = None
        if self._own is not None:
            self._own.close()

    def _load_seed_image(self) -> None:
        db = self._own
        assert db is not None
        db.deserialize(self._seed_image)
        db.execute("PRAGMA foreign_keys = ON")
        db.schema = self._facts().schema
        if self._facts().tracking is not None:  # the rows a REPLACE deletes reach the logs
            db.execute("PRAGMA recursive_triggers = ON")
        # The pages already live in memory; a page cache would only duplicate them, per session.
        db.execute(f"PRAGMA cache_size = {MEMORY_CACHE_PAGES}")

    def _copy_seed_into_file(self) -> None:
        db = self._own
        assert db is not None
        seed = open_memory()
        try:
            seed.deserialize(self._seed_image)
            seed.backup(db)
        finally:
            seed.close()
        # The file is hashed by full scans, so nothing would ever empty the change logs.
        for kind, name in db.execute(
            "SELECT type, name FROM main.sqlite_schema WHERE type IN ('trigger', 'table') "
            "AND name LIKE '\\_ef\\_%' ESCAPE '\\' ORDER BY type DESC"
        ).fetchall():
            db.execute(f"DROP {kind.upper()} main.{_quote(name)}")
        db.execute("PRAGMA foreign_keys = ON")


_CHUNK = 256
# Past this many changed rows (or one per ``UNDO_BYTES_PER_KEY`` of the image, when that is
# more), undoing them costs more than loading the seed image again, which a reset then does.
UNDO_KEYS = 64
UNDO_BYTES_PER_KEY = 2048


def _chunks(keys: list[Any]) -> Iterator[list[Any]]:
    for i in range(0, len(keys), _CHUNK):
        yield keys[i : i + _CHUNK]


def _flat(keys: list[Any]) -> list[Any]:
    return [value for key in keys for value in key]


def _keys_where(log: _Tracking, keys: list[Any]) -> str:
    width = len(log.key_cols)
    one = "(" + ", ".join("?" for _ in range(width)) + ")"
    return f"WHERE ({log.key_expr}) IN (VALUES {', '.join(one for _ in keys)})"


def _rows_of(db: sqlite3.Connection, log: _Tracking, keys: list[Any]) -> list[tuple[Any, ...]]:
    """The current rows (rowid first for a rowid table) of the given keys that exist, read
    by the runtime's private statements on a connection of its own (``private``)."""
    run = db.private if isinstance(db, GuardedConnection) else db.execute
    rows: list[tuple[Any, ...]] = []
    for chunk in _chunks(keys):
        sql = f"SELECT {log.row_select} FROM main.{_quote(log.info.name)} {_keys_where(log, chunk)}"
        rows.extend(map(tuple, run(sql, _flat(chunk))))
    return rows


def _sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    # Keys may mix None, numbers, text and blobs: a deterministic order all the same.
    return tuple((v is None, type(v).__name__, v if v is not None else 0) for v in key)


def _undo_checked(
    db: GuardedConnection,
    reader: GuardedConnection,
    facts: _SeedFacts,
    keys_of: dict[str, set[tuple[Any, ...]]],
    by_name: dict[str, _Tracking],
) -> bool:
    """Give the keys of ``keys_of`` the seed's rows again, or none, with foreign keys still
    enforced: rows the episode deleted are inserted (parent tables first), rows it changed
    updated in place, rows it added deleted (child tables first). True when done.

    Turning the checks off is a flag PRAGMA, and SQLite expires every compiled statement of
    the connection at one: after each reset every statement of every tool would be compiled
    (and judged by the authorizer) again. Only for seeds whose foreign keys take no action
    (``_SeedFacts.checked_undo``): then each statement changes exactly the rows it names,
    so a check it breaks (an order this cannot follow: a cycle, a key that moved, a unique
    value two rows swapped) raises instead; everything is rolled back and False returned,
    for ``_undo_unchecked``."""
    Plan = tuple[_Tracking, dict[tuple[Any, ...], tuple[Any, ...]], set[tuple[Any, ...]]]
    plans: list[Plan] = []
    try:
        db.private("BEGIN")
        for name in facts.parents_first:
            key_set = keys_of.get(name)
            if not key_set:
                continue
            log = by_name[name]
            keys = sorted(key_set, key=_sort_key)
            seed_rows = {tuple(row[i] for i in log.key_at): row for row in facts.seed_rows(reader, log, keys)}
            present: set[tuple[Any, ...]] = set()
            for chunk in _chunks(keys):
                sql = f"SELECT {log.key_expr} FROM main.{_quote(name)} {_keys_where(log, chunk)}"
                present.update(map(tuple, db.private(sql, _flat(chunk))))
            plans.append((log, seed_rows, present))
        for log, seed_rows, present in plans:
            deleted = [row for key, row in seed_rows.items() if key not in present]
            if deleted:
                db.private(log.insert, deleted, many=True)
        for log, seed_rows, present in plans:
            changed = [
                [*(row[i] for i in log.value_at), *(row[i] for i in log.key_at)]
                for key, row in seed_rows.items()
                if key in present
            ]
            if changed and log.update is not None:
                db.private(log.update, changed, many=True)
        for log, seed_rows, present in reversed(plans):
            added = sorted((key for key in present if key not in seed_rows), key=_sort_key)
            for chunk in _chunks(added):
                where = _keys_where(log, chunk)
                db.private(f"DELETE FROM main.{_quote(log.info.name)} {where}", _flat(chunk))
        _finish_undo(db, facts, keys_of, by_name)
    except sqlite3.Error:
        if db.in_transaction:
            db.private("ROLLBACK")
        return False
    return True


def _undo_unchecked(
    db: GuardedConnection,
    reader: GuardedConnection,
    facts: _SeedFacts,
    keys_of: dict[str, set[tuple[Any, ...]]],
    by_name: dict[str, _Tracking],
) -> None:
    """``_undo_checked``'s result with foreign keys off: each key's row deleted and the
    seed's inserted, in any order (the seed is consistent); expires every statement."""
    db.private("PRAGMA foreign_keys = OFF")
    try:
        db.private("BEGIN")
        for name, key_set in keys_of.items():
            log = by_name[name]
            keys = sorted(key_set, key=_sort_key)
            rows = facts.seed_rows(reader, log, keys)
            for chunk in _chunks(keys):
                db.private(f"DELETE FROM main.{_quote(name)} {_keys_where(log, chunk)}", _flat(chunk))
            if rows:
                db.private(log.insert, rows, many=True)
        _finish_undo(db, facts, keys_of, by_name)
    except BaseException:
        db.private("ROLLBACK")
        raise
    finally:
        db.private("PRAGMA foreign_keys = ON")


def _finish_undo(
    db: GuardedConnection,
    facts: _SeedFacts,
    keys_of: dict[str, set[tuple[Any, ...]]],
    by_name: dict[str, _Tracking],
) -> None:
    """The seed's ``sqlite_sequence`` again, the undone tables' change logs emptied, commit."""
    if facts.sequence is not None:
        db.private("DELETE FROM main.sqlite_sequence")
        if facts.sequence:
            db.private(
                "INSERT INTO main.sqlite_sequence (name, seq) VALUES (?, ?)", facts.sequence, many=True
            )
    for name in keys_of:
        db.private(by_name[name].clear)
    db.private("COMMIT")
