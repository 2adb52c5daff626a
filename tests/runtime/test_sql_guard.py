"""SQL that cannot reach unsafe code (issue 25, part 3).

Tool SQL, in-process and from jailed workers, calls only SQLite's ordinary functions
(``fts3_tokenizer``, which takes and leaks raw pointers, and ``load_extension`` are
refused by name), makes no string or blob past the connection's length limit (600 MB
``randomblob``/``zeroblob`` fail at once, allocating nothing), reads a child table's
foreign-key column only where SQLite's own foreign-key check of a declared write does
(never by a SELECT, a subquery, a join, ``EXISTS``, ``RETURNING`` or an upsert), and
still gets SQLite's foreign-key errors and cascades. Schema and seed SQL run under their
own guard: an FTS3 line is refused at load with one line, and every committed package
still loads. Real SQLite and real tool code throughout.
"""

from __future__ import annotations

import re
import resource
import sqlite3
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.runtime import SessionDatabase, Toolbox
from envfactory_mcp.runtime import toolbox as toolbox_module
from envfactory_mcp.runtime.database import (
    SQL_LIMITS,
    SeedLoadError,
    build_seed_image,
)
from envfactory_mcp.runtime.isolation import JailedTools, jail_problem

ROOT = Path(__file__).resolve().parents[2]

SCHEMA = """
CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL) STRICT, WITHOUT ROWID;
CREATE TABLE orders (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id), total INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX idx_orders_user_id ON orders (user_id);
CREATE TABLE notes (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE, body TEXT
) STRICT, WITHOUT ROWID;
CREATE TABLE pins (id TEXT PRIMARY KEY, note_id TEXT NOT NULL REFERENCES notes (id)) STRICT, WITHOUT ROWID;
"""
SEED = """
INSERT INTO users VALUES ('u1', 'Ann'), ('u2', 'Bob'), ('u3', 'Cy'), ('u4', 'Di');
INSERT INTO orders VALUES ('o1', 'u1', 100), ('o2', 'u3', 250), ('o3', 'u3', 75);
INSERT INTO notes VALUES ('n1', 'u2', 'call back'), ('n2', 'u2', 'vip'), ('n3', 'u4', 'pinned');
INSERT INTO pins VALUES ('p1', 'n3');
"""
TABLES = [
    {"name": "users", "columns": [{"name": "id"}, {"name": "name"}]},
    {
        "name": "orders",
        "columns": [{"name": "id"}, {"name": "user_id", "references": "users.id"}, {"name": "total"}],
    },
    {
        "name": "notes",
        "columns": [{"name": "id"}, {"name": "user_id", "references": "users.id"}, {"name": "body"}],
    },
    {"name": "pins", "columns": [{"name": "id"}, {"name": "note_id", "references": "notes.id"}]},
]
TOOLS = """
def _run(ctx, sql, params=()):
    return {"rows": [list(row) for row in ctx.db.execute(sql, params).fetchall()]}

def users_only(ctx, sql, params=()):
    return _run(ctx, sql, params)

def users_and_notes(ctx, sql, params=()):
    return _run(ctx, sql, params)

def sqlite_tables(ctx, sql):
    return _run(ctx, sql)

def through_a_cursor(ctx, sql):
    return {"rows": [list(row) for row in ctx.db.cursor().execute(sql).fetchall()]}

def swallows(ctx, sql):
    ctx.db.execute("UPDATE users SET name = 'Changed' WHERE id = 'u1'")
    try:
        ctx.db.execute(sql).fetchall()
    except Exception:
        pass  # the guard's refusal, caught: the tool goes on as if nothing happened
    return {"rows": []}
"""
SQL_ARGUMENT = {
    "type": "object",
    "properties": {"sql": {"type": "string"}, "params": {"type": "array"}},
    "required": ["sql"],
}


def _decl(name: str, reads: list[str], writes: list[str]) -> dict[str, object]:
    return {
        "name": name,
        "description": name,
        "effect": "write" if writes else "read",
        "input_schema": SQL_ARGUMENT,
        "output_schema": {"type": "object"},
        "reads": reads,
        "writes": writes,
    }


SPEC: dict[str, Any] = {
    "clock": "2026-01-01T00:00:00Z",
    "tables": TABLES,
    "tools": [
        # The red team's tool: declares only users (writing it, which is what used to
        # let it read every orders.user_id through the foreign-key exemption).
        _decl("users_only", ["users"], ["users"]),
        _decl("users_and_notes", [], ["users", "notes"]),
        # A hostile declaration naming SQLite's own virtual tables.
        _decl("sqlite_tables", ["users", "dbstat", "sqlite_stmt", "sqlite_master"], []),
        _decl("through_a_cursor", ["users"], ["users"]),
        _decl("swallows", ["users"], ["users"]),
    ],
}


@pytest.fixture(scope="module")
def image() -> bytes:
    return build_seed_image(SCHEMA, SEED)


@pytest.fixture(scope="module")
def tools_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sql_guard") / "tools.py"
    path.write_text(TOOLS, encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=["in-process", "jailed"])
def tools(request: pytest.FixtureRequest, tools_file: Path):
    """The tool code, as a module in this process or in jailed workers, and its spec."""
    if request.param == "in-process":
        module = types.ModuleType("sql_guard_tools")
        exec(TOOLS, module.__dict__)  # noqa: S102 - the tool code under test, written here
        yield SPEC, module
        return
    if jail_problem() is not None:
        pytest.skip(f"no working jail here: {jail_problem()}")
    spec = {**SPEC, "tools": [t for t in SPEC["tools"] if t["name"] != "through_a_cursor"]}
    jailed = JailedTools(tools_file, [t["name"] for t in spec["tools"]])
    try:
        yield spec, jailed
    finally:
        jailed.close()


@pytest.fixture()
def toolbox(tools) -> Toolbox:
    spec, module = tools
    return Toolbox(spec, module, 5)


def call(toolbox: Toolbox, db: sqlite3.Connection, sql: str, tool: str = "users_only"):
    return toolbox.call(db, tool, {"sql": sql})


def rows(db: sqlite3.Connection, sql: str) -> list[tuple[object, ...]]:
    return db.execute(sql).fetchall()


# ------------------------------------------------------------------ functions


@pytest.mark.parametrize(
    ("sql", "function"),
    [
        ("SELECT fts3_tokenizer('simple', x'4141414141414141')", "fts3_tokenizer"),  # plants a pointer
        ("SELECT hex(fts3_tokenizer('simple'))", "fts3_tokenizer"),  # leaks libsqlite3's address
        ("SELECT FTS3_Tokenizer('porter') IS NULL", "fts3_tokenizer"),
        ("SELECT load_extension('libc.so.6')", "load_extension"),
        ("SELECT Load_Extension('/tmp/evil.so', 'sqlite3_evil_init')", "load_extension"),
        ("SELECT sqlite_compileoption_get(0)", "sqlite_compileoption_get"),
        ("SELECT sqlite_source_id()", "sqlite_source_id"),
        ("SELECT length(printf('%.*c', 600000000, 'x'))", "printf"),
        ("SELECT name FROM users WHERE name MATCH 'x'", "match"),
    ],
)
def test_unsafe_sql_functions_are_refused_by_name(toolbox: Toolbox, image: bytes, sql: str, function: str):
    db = SessionDatabase(image).db
    out = call(toolbox, db, sql)
    assert not out.ok and out.internal and out.fault == "forbidden", out
    assert out.error == (
        f"Internal error in tool users_only: called the SQL function {function!r}, which tools may not "
        "call (only SQLite's ordinary core functions)"
    )
    # Nothing was planted: an FTS3 query (here, making one) cannot reach a tokenizer, and
    # the server answers the next call.
    fts = sqlite3.connect(":memory:")
    fts.execute("CREATE VIRTUAL TABLE t USING fts3(x)")
    fts.execute("INSERT INTO t VALUES ('still alive')")
    assert fts.execute("SELECT x FROM t WHERE t MATCH 'alive'").fetchall() == [("still alive",)]
    assert call(toolbox, db, "SELECT name FROM users WHERE id = 'u1'").output == {"rows": [["Ann"]]}


def test_ordinary_functions_still_work(toolbox: Toolbox, image: bytes):
    db = SessionDatabase(image).db
    out = call(
        toolbox,
        db,
        "SELECT upper(name), length(name), json_extract('{\"a\": 7}', '$.a'), '{\"b\": 1}' ->> 'b', "
        "date('2026-01-31', '+1 day'), round(2.5), abs(-3), coalesce(NULL, 'x'), substr(id, 2), "
        "instr(name, 'n'), replace(name, 'A', 'a'), count(*) OVER (), row_number() OVER (ORDER BY id), "
        "typeof(randomblob(4)), length(zeroblob(8)), sqrt(16.0), group_concat(id) OVER () "
        "FROM users WHERE id = 'u1'",
    )
    assert out.ok, out.error
    assert out.output == {
        "rows": [["ANN", 3, 7, 1, "2026-02-01", 3.0, 3, "x", "1", 2, "ann", 1, 1, "blob", 8, 4.0, "u1"]]
    }


# ------------------------------------------------------------------ bounded values


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT length(randomblob(600000000))",
        "SELECT length(zeroblob(600000000))",
        "SELECT length(hex(randomblob(700000)))",
        "SELECT length(replace(hex(zeroblob(500000)), '0', 'xxxxxxxx'))",
        "SELECT length(group_concat(hex(zeroblob(100000)))) FROM users, users AS a, users AS b",
        "WITH RECURSIVE c(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM c) SELECT length(s) FROM c",
    ],
)
def test_huge_values_fail_fast_without_allocating(toolbox: Toolbox, image: bytes, sql: str):
    db = SessionDatabase(image).db
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB, this process (the server side)
    started = time.monotonic()
    out = call(toolbox, db, sql)
    assert time.monotonic() - started < 2
    assert not out.ok and out.internal and out.fault == "exception"
    assert "string or blob too big" in out.error
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak) / 1024
    assert grown_mb < 64, f"the call grew the process by {grown_mb:.0f} MB"
    assert call(toolbox, db, "SELECT count(*) FROM users").output == {"rows": [[4]]}


def test_a_jailed_tools_result_rows_are_bounded_where_they_are_read(tools_file: Path, image: bytes):
    """A jailed tool's statement runs in this process: a cross join of small tables
    (256 rows of 200 KB, 51 MB) stops at the result budget with one line, and the
    session answers the next call. (In-process tool code reads its own rows.)"""
    if jail_problem() is not None:
        pytest.skip(f"no working jail here: {jail_problem()}")
    module = JailedTools(tools_file, ["users_only"])
    spec = {**SPEC, "tools": [t for t in SPEC["tools"] if t["name"] == "users_only"]}
    db = SessionDatabase(image).db
    toolbox = Toolbox(spec, module, 30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = call(toolbox, db, "SELECT hex(zeroblob(100000)) FROM users a, users b, users c, users d")
    assert not out.ok and "result is over 16 MiB" in out.error, out
    assert "\n" not in out.error
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 48, f"reading the result grew this process by {grown_mb:.0f} MB"
    assert call(toolbox, db, "SELECT count(*) FROM users").output == {"rows": [[4]]}
    module.close()


def test_runaway_sql_is_still_stopped_by_the_time_limit(tools, image: bytes):
    spec, module = tools
    db = SessionDatabase(image).db
    started = time.monotonic()
    out = call(
        Toolbox(spec, module, 0.5),
        db,
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c",
    )
    assert out.fault == "timeout", out
    assert time.monotonic() - started < 5
    assert call(Toolbox(spec, module, 5), db, "SELECT count(*) FROM users").output == {"rows": [[4]]}


def test_every_connection_the_runtime_makes_carries_the_limits(image: bytes, tmp_path: Path):
    def check(what: str, db: sqlite3.Connection) -> None:
        for category, value in SQL_LIMITS.items():
            assert db.getlimit(category) == value, (what, category)
        with pytest.raises(sqlite3.DataError, match="string or blob too big"):
            db.execute("SELECT randomblob(?)", (SQL_LIMITS[sqlite3.SQLITE_LIMIT_LENGTH] + 1,)).fetchone()
        with pytest.raises(sqlite3.OperationalError, match="too many attached databases"):
            db.execute("ATTACH ':memory:' AS other")

    session = SessionDatabase(image)
    check("the shared seed reader", session.reader())
    check("a session's copy", session.db)
    session.db.execute("UPDATE users SET name = 'Ann B' WHERE id = 'u1'")
    session.reset()  # the image loaded again into the same connection
    check("after a reset", session.db)
    session.db.execute("UPDATE users SET name = 'Ann C' WHERE id = 'u1'")
    session.hash()
    assert session.park()
    check("after unparking", session.db)
    assert rows(session.db, "SELECT name FROM users WHERE id = 'u1'") == [("Ann C",)]
    check("file-backed", SessionDatabase(image, tmp_path / "state.db").db)
    # The seed builder too: a seed row past the length limit is refused at load.
    big = "x" * (SQL_LIMITS[sqlite3.SQLITE_LIMIT_LENGTH] + 1)
    with pytest.raises(SeedLoadError, match=r"seed\.sql failed: string or blob too big"):
        build_seed_image(SCHEMA, SEED + f"INSERT INTO users VALUES ('u9', '{big}');")


# ------------------------------------------------------------------ the foreign-key exemption

# Every way a tool that declares only users could read orders.user_id.
FK_READS = {
    "select": "SELECT user_id FROM orders",
    "qualified": "SELECT main.orders.user_id FROM main.orders",
    "subquery": "SELECT id FROM users WHERE id IN (SELECT user_id FROM orders)",
    "scalar subquery": "SELECT (SELECT group_concat(user_id) FROM orders)",
    "join": "SELECT u.id FROM users u JOIN orders o ON o.user_id = u.id",
    "exists": "SELECT id FROM users WHERE EXISTS (SELECT 1 FROM orders WHERE orders.user_id = users.id)",
    "cte": "WITH c AS (SELECT user_id FROM orders) SELECT * FROM c",
    "row count": "SELECT count(*) FROM orders",
    "row count, other case": "SELECT count(*) FROM ORDERS",
    "update set subquery": "UPDATE users SET name = (SELECT group_concat(user_id) FROM orders) WHERE id = 'u2'",
    "update second set": "UPDATE users SET name = 'x', id = (SELECT max(user_id) FROM orders) WHERE id = 'u2'",
    "update where subquery": "UPDATE users SET name = 'has orders' WHERE id IN (SELECT user_id FROM orders)",
    "delete where subquery": "DELETE FROM users WHERE id IN (SELECT user_id FROM orders) AND id = 'u2'",
    "delete returning": "DELETE FROM users WHERE id = 'u2' RETURNING (SELECT group_concat(user_id) FROM orders)",
    "update returning": "UPDATE users SET name = 'x' WHERE id = 'u1' RETURNING (SELECT user_id FROM orders LIMIT 1)",
    "insert select": "INSERT INTO users SELECT user_id || '-copy', 'x' FROM orders",
    "insert values": "INSERT INTO users VALUES ('u9', (SELECT group_concat(user_id) FROM orders))",
    "upsert": "INSERT INTO users VALUES ('u2', 'x') ON CONFLICT (id) DO UPDATE SET name = "
    "(SELECT group_concat(user_id) FROM orders)",
}


@pytest.mark.parametrize("sql", FK_READS.values(), ids=FK_READS.keys())
def test_a_tool_cannot_read_an_undeclared_childs_foreign_key_column(toolbox: Toolbox, image: bytes, sql: str):
    session = SessionDatabase(image)
    before = session.hash()
    out = call(toolbox, session.db, sql)
    assert not out.ok and out.internal and out.fault == "read", out
    assert "read table 'orders', which it does not declare" in out.error.replace("'ORDERS'", "'orders'")
    assert "u1" not in out.error and "u3" not in out.error
    assert session.hash() == before


def test_sqlite_foreign_key_checks_of_declared_writes_still_hold(toolbox: Toolbox, image: bytes):
    """Deleting a user or changing its key makes SQLite check orders (undeclared by both
    tools) and notes; deleting also cascades to notes, which only ``users_and_notes``
    declares writing (so ``users_only`` cannot delete users at all, as before)."""
    db = SessionDatabase(image).db
    for tool, sql in [
        ("users_only", "UPDATE users SET id = 'u9' WHERE id = 'u3'"),  # u3 has orders
        ("users_and_notes", "DELETE FROM users WHERE id = 'u1'"),  # u1 has orders
        ("users_and_notes", "UPDATE users SET id = 'u9' WHERE id = 'u1'"),
    ]:
        out = call(toolbox, db, sql, tool=tool)
        assert not out.ok and out.fault == "exception", out
        assert out.error == f"Internal error in tool {tool}: IntegrityError: FOREIGN KEY constraint failed"
    out = call(toolbox, db, "DELETE FROM users WHERE id = 'u1'")
    assert not out.ok and out.fault == "write" and "delete from table 'notes'" in out.error
    # Rows nothing references: the same statements pass, and so do inserts, a key set to
    # itself, a REPLACE of a referenced row (its orders still find it) and RETURNING.
    for tool, sql, expected in [
        ("users_only", "INSERT INTO users VALUES ('u5', 'Eve')", []),
        ("users_only", "UPDATE users SET id = id WHERE id = 'u1'", []),
        ("users_only", "UPDATE users SET id = 'u6' WHERE id = 'u5' RETURNING id, name", [["u6", "Eve"]]),
        ("users_and_notes", "DELETE FROM users WHERE id = 'u6' RETURNING name", [["Eve"]]),
        ("users_and_notes", "REPLACE INTO users VALUES ('u1', 'Ann Again')", []),
    ]:
        out = call(toolbox, db, sql, tool=tool)
        assert out.ok, (sql, out.error)
        assert out.output == {"rows": expected}
    assert rows(db, "SELECT id, name FROM users ORDER BY id") == [
        ("u1", "Ann Again"),
        ("u2", "Bob"),
        ("u3", "Cy"),
        ("u4", "Di"),
    ]
    assert rows(db, "SELECT count(*) FROM orders") == [(3,)]


def test_a_statement_is_judged_again_for_each_tool_that_sends_it(toolbox: Toolbox, image: bytes):
    """The same statement text from two tools with different declarations (a shared
    helper's INSERT, as banking's ``_post``): each tool's verdict compiles it afresh, so
    the second tool's write is exempted as the first one's was (a cached compile once
    reached the authorizer for the first tool only and refused every later one)."""
    db = SessionDatabase(image).db
    for n, tool in enumerate(["users_only", "users_and_notes", "users_only"]):
        out = toolbox.call(db, tool, {"sql": "INSERT INTO users VALUES (?, 'New')", "params": [f"x{n}"]})
        assert out.ok, (tool, out.error)
    assert rows(db, "SELECT id FROM users WHERE name = 'New' ORDER BY id") == [("x0",), ("x1",), ("x2",)]


def test_cascades_and_checks_inside_them_still_hold(toolbox: Toolbox, image: bytes):
    db = SessionDatabase(image).db
    # u2's notes go with it (ON DELETE CASCADE, notes declared written).
    out = call(toolbox, db, "DELETE FROM users WHERE id = 'u2'", tool="users_and_notes")
    assert out.ok, out.error
    assert rows(db, "SELECT id FROM notes ORDER BY id") == [("n3",)]
    # u4's note is pinned (pins, undeclared, references notes): the cascade's own check fails.
    out = call(toolbox, db, "DELETE FROM users WHERE id = 'u4'", tool="users_and_notes")
    assert not out.ok and out.error.endswith("IntegrityError: FOREIGN KEY constraint failed"), out
    assert rows(db, "SELECT id FROM users ORDER BY id") == [("u1",), ("u3",), ("u4",)]
    # ... and the tool still cannot read pins.note_id itself.
    out = call(toolbox, db, "SELECT note_id FROM pins", tool="users_and_notes")
    assert not out.ok and out.fault == "read" and "read table 'pins'" in out.error


def test_no_foreign_key_exemption_without_the_statement_text(image: bytes):
    """A statement run through a cursor of its own is not seen by ``GuardedConnection``:
    the exemption is not granted (fail closed), the read is refused as any other."""
    module = types.ModuleType("cursor_tools")
    exec(TOOLS, module.__dict__)  # noqa: S102 - the tool code under test, written here
    db = SessionDatabase(image).db
    toolbox = Toolbox(SPEC, module, 5)
    assert toolbox.call(db, "users_only", {"sql": "INSERT INTO users VALUES ('u5', 'Eve')"}).ok
    out = toolbox.call(db, "through_a_cursor", {"sql": "INSERT INTO users VALUES ('u6', 'Fay')"})
    assert not out.ok and out.fault == "read"
    assert out.error is not None
    assert re.search(r"read table '(orders|notes)', which it does not declare", out.error), out.error


def test_declarations_cannot_name_sqlites_own_tables(toolbox: Toolbox, image: bytes):
    db = SessionDatabase(image).db
    for sql, table in [
        ("SELECT count(*) FROM dbstat", "dbstat"),
        ("SELECT sql FROM sqlite_stmt", "sqlite_stmt"),
        ("SELECT name FROM sqlite_master", "sqlite_master"),
        ("SELECT count(*) FROM sqlite_master", "sqlite_master"),
    ]:
        out = call(toolbox, db, sql, tool="sqlite_tables")
        assert not out.ok and out.internal, (sql, out)
        # (SQLite's virtual tables first "update" sqlite_master as they are set up.)
        assert f"read table {table!r}, which it does not declare" in out.error or (
            "tried to update table 'sqlite_master'" in out.error
        )
    assert call(toolbox, db, "SELECT count(*) FROM users", tool="sqlite_tables").output == {"rows": [[4]]}
    cte = "WITH recent AS (SELECT id FROM users) SELECT count(*) FROM recent"
    assert call(toolbox, db, cte, tool="sqlite_tables").output == {"rows": [[4]]}


# ------------------------------------------------------------------ the statement cache (issue 32)


def test_a_tools_statements_stay_compiled_across_calls(image: bytes, monkeypatch: pytest.MonkeyPatch):
    """The authorizer is not set again per call (that expired every prepared statement):
    a tool's statements are compiled, and judged, once, whichever tools run in between,
    and a cached write still reports the table it writes."""
    module = types.ModuleType("cached_tools")
    exec(TOOLS, module.__dict__)  # noqa: S102 - the tool code under test, written here
    toolbox = Toolbox(SPEC, module, 5)
    db = SessionDatabase(image).db
    judged: list[tuple[int, str | None, str | None, str | None, str | None]] = []
    judge = toolbox_module._Guard.__call__

    def judging(
        self: toolbox_module._Guard,
        action: int,
        arg1: str | None,
        arg2: str | None,
        db_name: str | None,
        src: str | None,
    ) -> int:
        judged.append((action, arg1, arg2, db_name, src))
        return judge(self, action, arg1, arg2, db_name, src)

    monkeypatch.setattr(toolbox_module._Guard, "__call__", judging)
    read = {"sql": "SELECT name FROM users WHERE id = ?", "params": ["u1"]}
    write = {"sql": "UPDATE users SET name = ? WHERE id = 'u4'"}
    assert toolbox.call(db, "users_only", read).output == {"rows": [["Ann"]]}
    assert toolbox.call(db, "users_and_notes", {**write, "params": ["Dee"]}).written == {"users"}
    assert judged  # the first time, each statement is judged
    judged.clear()
    for name in ("Di", "Dot"):
        assert toolbox.call(db, "users_only", read).output == {"rows": [["Ann"]]}
        out = toolbox.call(db, "users_and_notes", {**write, "params": [name]})
        assert out.ok and out.written == {"users"}, out
    assert judged == []
    assert rows(db, "SELECT name FROM users WHERE id = 'u4'") == [("Dot",)]


def test_a_statement_compiled_outside_a_tool_is_judged_again_for_a_tools_cursor(image: bytes):
    """A statement the runtime compiled between calls (no authorizer judging it) is in
    the connection's cache under its plain text; a tool's cursor sending that same text
    gets it judged for the tool all the same (the cache is expired first), so it
    cannot read what it does not declare."""
    module = types.ModuleType("cursor_cache_tools")
    exec(TOOLS, module.__dict__)  # noqa: S102 - the tool code under test, written here
    toolbox = Toolbox(SPEC, module, 5)
    db = SessionDatabase(image).db
    assert toolbox.call(db, "through_a_cursor", {"sql": "SELECT name FROM users WHERE id = 'u1'"}).ok
    sql = "SELECT user_id FROM orders"
    assert rows(db, sql)  # the runtime's own statement, between calls
    out = toolbox.call(db, "through_a_cursor", {"sql": sql})
    assert not out.ok and out.fault == "read" and "read table 'orders'" in (out.error or ""), out
    # And a transaction statement the runtime ran is no way for a tool to end its call.
    for verb in ("COMMIT", "ROLLBACK", "BEGIN"):
        out = toolbox.call(db, "through_a_cursor", {"sql": verb})
        assert not out.ok and out.fault == "forbidden", (verb, out)


# ------------------------------------------------------------------ schema and seed SQL

FTS3_LINE = "CREATE VIRTUAL TABLE notes_fts USING fts3(body);"


@pytest.mark.parametrize(
    ("schema_extra", "seed_extra", "reason"),
    [
        (FTS3_LINE, "", "schema.sql refused: CREATE VIRTUAL TABLE 'notes_fts' USING fts3 is not allowed"),
        ("", FTS3_LINE, "seed.sql refused: CREATE VIRTUAL TABLE 'notes_fts' USING fts3 is not allowed"),
        ("", "CREATE VIRTUAL TABLE f5 USING fts5(body);", "CREATE VIRTUAL TABLE 'f5' USING fts5"),
        (
            "",
            "SELECT fts3_tokenizer('simple', x'4141414141414141');",
            "seed.sql refused: the SQL function 'fts3_tokenizer' is not allowed",
        ),
        ("", "INSERT INTO notes VALUES ('n9', 'u1', load_extension('x'));", "function 'load_extension'"),
        ("", "ATTACH 'other.db' AS other;", "ATTACH"),
        ("", "PRAGMA writable_schema = ON;", "PRAGMA writable_schema is not allowed"),
        ("", "PRAGMA journal_mode = OFF;", "PRAGMA journal_mode is not allowed"),
        ("CREATE VIEW v AS SELECT * FROM users;", "", "CREATE VIEW 'v' is not allowed"),
        (
            "CREATE TRIGGER t AFTER INSERT ON users BEGIN SELECT 1; END;",
            "",
            "CREATE TRIGGER 't' is not allowed",
        ),
        ("CREATE TEMP TABLE scratch (x);", "", "in the 'temp' database is not allowed"),
        ("CREATE TABLE _ef_was_0 (x);", "", "names starting with '_ef_' are the runtime's"),
        ("", "UPDATE users SET name = 'x';", "UPDATE 'users' is not allowed"),
        ("", "DELETE FROM pins;", "DELETE 'pins' is not allowed"),
        ("", "DROP TABLE pins;", "DROP (deleting from 'sqlite_master') is not allowed in seed.sql"),
        # A default's functions are not shown to the authorizer when a row takes it.
        ("CREATE TABLE d (x TEXT DEFAULT (printf('%.*c', 2147483647, 'x')));", "", "function 'printf'"),
        ("INSERT INTO users VALUES ('u0', 'early');", "", "INSERT into 'users' is not allowed in schema.sql"),
        ("", "CREATE TABLE later (x);", "CREATE TABLE 'later' is not allowed in seed.sql (only INSERT)"),
        (
            "",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO pins SELECT x, 'n3' FROM c;",
            "WITH RECURSIVE is not allowed",
        ),
    ],
)
def test_schema_and_seed_sql_beyond_tables_and_rows_is_refused_in_one_line(
    schema_extra: str, seed_extra: str, reason: str
):
    with pytest.raises(ValueError) as refused:
        build_seed_image(SCHEMA + schema_extra, SEED + seed_extra)
    assert isinstance(refused.value, SeedLoadError)
    message = str(refused.value)
    assert reason in message
    assert "\n" not in message


def test_what_the_emitter_writes_still_loads():
    image = build_seed_image(
        SCHEMA + "CREATE UNIQUE INDEX idx_users_name ON users (name);\n"
        "CREATE TABLE docs (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT CHECK (json_valid(body)), "
        "at TEXT DEFAULT CURRENT_TIMESTAMP, n INTEGER CHECK (length(body) > 0)) STRICT;",
        "PRAGMA defer_foreign_keys = ON;\nINSERT INTO pins VALUES ('p2', 'n1');\n"
        + SEED
        + "INSERT INTO docs (body) VALUES ('{\"a\": 1}');",
    )
    db = SessionDatabase(image).db
    assert rows(db, "SELECT count(*) FROM pins") == [(2,)]
    assert rows(db, "SELECT id, body FROM docs") == [(1, '{"a": 1}')]


def test_only_a_trusted_caller_builds_a_schema_with_triggers_of_its_own():
    trigger = "CREATE TRIGGER bump AFTER INSERT ON pins BEGIN UPDATE notes SET body = 'pinned' WHERE id = NEW.note_id; END;"
    with pytest.raises(SeedLoadError, match=r"schema\.sql refused: CREATE TRIGGER 'bump' is not allowed"):
        build_seed_image(SCHEMA + trigger, SEED)
    db = SessionDatabase(build_seed_image(SCHEMA + trigger, SEED, own_triggers=True)).db
    assert rows(db, "SELECT body FROM notes WHERE id = 'n3'") == [("pinned",)]
    with pytest.raises(SeedLoadError, match="function 'printf' is not allowed"):  # its body is checked too
        build_seed_image(SCHEMA + trigger.replace("'pinned'", "printf('%d', 1)"), SEED, own_triggers=True)


@pytest.mark.slow
@pytest.mark.slow  # renders the seeds of the environments not built here: about 12 s of CPU
def test_every_shipped_environment_builds_its_seed_image():
    """Under the statement guard, every shipped environment's schema and seed load: as its
    package holds them (the checkout commits only golden packages; the others' files are
    rendered, the same bytes their build writes, generated_servers/MANIFEST.json)."""
    from envfactory_mcp.blueprints import blueprint_names, load_blueprint
    from envfactory_mcp.env import build_env

    names = blueprint_names()
    assert len(names) >= 100
    for name in names:
        folder = ROOT / "generated_servers" / name / f"{name}_mcp" / "data"
        if folder.is_dir():
            schema, seed = (
                (folder / "schema.sql").read_text(encoding="utf-8"),
                (folder / "seed.sql").read_text(encoding="utf-8"),
            )
        else:
            env = build_env(load_blueprint(name))
            schema, seed = env.schema_sql, env.seed_sql
        assert SessionDatabase(build_seed_image(schema, seed)).hash(), name


@pytest.mark.slow
@pytest.mark.skipif(jail_problem() is not None, reason=f"no working jail here: {jail_problem()}")
def test_a_package_with_an_fts3_seed_line_is_refused_at_start_in_one_line(
    mini_env: Environment, tmp_path: Path
):
    """Served as an untrusted package is (``--jail``: the seed is built by the jailed fork
    server): the server prints one line naming the function and exits 2."""
    folder = write_package(render_package(mini_env), tmp_path / "minibank") / "minibank_mcp"
    seed = folder / "data" / "seed.sql"
    seed.write_text(
        seed.read_text(encoding="utf-8")
        + "SELECT fts3_tokenizer('simple', x'4141414141414141');\n"
        + "CREATE VIRTUAL TABLE t USING fts3(x);\nINSERT INTO t VALUES ('boom');\n",
        encoding="utf-8",
    )
    served = subprocess.run(
        [sys.executable, "-m", "envfactory_mcp.runtime", str(folder), "--jail"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert served.returncode == 2, served.stderr
    lines = served.stderr.strip().splitlines()
    assert len(lines) == 1, served.stderr
    assert "seed.sql refused: the SQL function 'fts3_tokenizer' is not allowed" in lines[0]


@pytest.mark.parametrize(
    "sql", ["SELECT total FROM orders", "DELETE FROM notes", "PRAGMA writable_schema = ON"]
)
def test_a_tool_that_catches_a_denied_statements_error_keeps_none_of_its_writes(image: bytes, sql: str):
    module = types.ModuleType("sql_guard_tools")
    exec(TOOLS, module.__dict__)  # noqa: S102 - the tool code under test, written here
    box = Toolbox(SPEC, module, 5)
    db = SessionDatabase(image)
    outcome = box.call(db.db, "swallows", {"sql": sql})
    assert not outcome.ok and outcome.internal and outcome.fault in ("read", "write", "forbidden")
    assert rows(db.db, "SELECT name FROM users WHERE id = 'u1'") == [("Ann",)]
    allowed = box.call(db.db, "swallows", {"sql": "SELECT name FROM users"})
    assert allowed.ok and rows(db.db, "SELECT name FROM users WHERE id = 'u1'") == [("Changed",)]
