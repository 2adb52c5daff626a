# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Binds declared tools to their implementations and runs one call atomically.

A call is: validate the arguments against the input schema, open a transaction, run the
tool under an SQLite authorizer that only lets it touch the tables it declares, validate
its output against the output schema, then commit (writes) or roll back (reads, and any
failure). With ``call_seconds`` a call also has a time limit (``limits.CallWatch``).
Every failure comes back as a ``CallOutcome`` with a message for the agent; nothing here
raises into the MCP layer but ``KeyboardInterrupt``.
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import jsonschema_rs

from .context import ToolContext, ToolError
from .database import (
    SAFE_SQL_FUNCTIONS,
    TRACK_PREFIX,
    GuardedConnection,
    SeedLoadError,
    runtime_statements,
    schema_copy,
)
from .limits import CallTimeout, CallWatch
from .rules import broken

logger = logging.getLogger(__name__)

# sqlite3 authorizer action codes (https://sqlite.org/c3ref/c_alter_table.html).
_READ, _INSERT, _UPDATE, _DELETE, _SELECT, _FUNCTION, _RECURSIVE = (
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_INSERT,
    sqlite3.SQLITE_UPDATE,
    sqlite3.SQLITE_DELETE,
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
)
_WRITES = {_INSERT: "insert into", _UPDATE: "update", _DELETE: "delete from"}
MAX_ERROR_CHARS = 500
# The toolbox's own transaction statements, under texts no tool can send (``_arm``).
_SECRET = secrets.token_hex(16)
_BEGIN, _COMMIT, _ROLLBACK = (f"{verb} /*{_SECRET}*/" for verb in ("BEGIN", "COMMIT", "ROLLBACK"))
_TAGS = itertools.count(1)


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """The result of one tool call: structured output, or an error message for the agent."""

    ok: bool
    output: dict[str, Any] | None = None
    error: str | None = None
    internal: bool = False  # True when the tool itself is broken, not the request
    # What broke, when ``internal``: "exception" (the tool raised, ran out of memory or
    # recursed too deep), "timeout" (past its time limit), "output" (not an object,
    # not JSON, or not matching the output schema), or the authorizer's "read" (an
    # undeclared table), "write" (a table it does not declare writing) or "forbidden"
    # (transaction control, PRAGMA, DDL, ATTACH, an SQL function outside
    # ``SAFE_SQL_FUNCTIONS``).
    fault: str | None = None
    # Tables the call was allowed to write (whether or not the writes were kept).
    written: frozenset[str] = frozenset()
    # ``output`` as the text content of its result (``json_text``), when the call made it.
    text: str | None = None

    def output_text(self) -> str:
        """``output`` as JSON text: keys sorted, non-ASCII kept (a result's text content)."""
        return self.text if self.text is not None else json_text(self.output)


@dataclass(frozen=True, slots=True)
class BoundTool:
    name: str
    description: str
    effect: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    destructive: bool
    idempotent: bool
    reads: frozenset[str]
    writes: frozenset[str]
    fn: Callable[..., Any]
    input_validator: jsonschema_rs.Draft202012Validator
    output_validator: jsonschema_rs.Draft202012Validator
    # Appended to this declaration's statements: their own entries in a connection's
    # statement cache (``database.Authority``).
    tag: str = field(default_factory=lambda: f"\n/*ef-tool {next(_TAGS)}*/")


class Toolbox:
    """The tools of one environment, ready to call against any session database."""

    def __init__(
        self, spec: Mapping[str, Any], module: ModuleType | Any, call_seconds: float | None = None
    ) -> None:
        """Bind the spec's tools to ``module``'s functions (a module, or anything holding them as
        attributes: ``isolation.JailedTools``); ``call_seconds`` is each call's
        time limit (None: none here, the caller bounds time itself)."""
        self.clock: str = spec["clock"]
        self.call_seconds = call_seconds
        self.tools: dict[str, BoundTool] = {}
        # Declared business rules beyond status (``rules``), checked before a tool runs.
        self.rules: list[Mapping[str, Any]] = list((spec.get("policy_rules") or {}).get("rules") or [])
        # Each tool's own, in declared order: a call of a tool with none checks nothing.
        self.rules_of: dict[str, list[Mapping[str, Any]]] = {}
        for rule in self.rules:
            self.rules_of.setdefault(str(rule.get("tool")), []).append(rule)
        # The spec's tables, case-folded as SQLite compares names (``_Guard``). A tool's
        # declared tables count only where they are the spec's (when it lists them), so a
        # declaration cannot name SQLite's own virtual tables (``dbstat``, ``sqlite_stmt``).
        self.tables = frozenset(table["name"].lower() for table in spec.get("tables", []))
        # (child table, foreign-key column) -> parent table: SQLite's foreign-key checks
        # read these when a statement writes the parent (``_Guard``).
        self.foreign_keys: dict[tuple[str, str], str] = {
            (table["name"], column["name"]): column["references"].split(".", 1)[0]
            for table in spec.get("tables", [])
            for column in table["columns"]
            if column.get("references")
        }
        for decl in spec["tools"]:
            fn = getattr(module, decl["name"], None)
            if not callable(fn):
                raise ValueError(
                    f"tool {decl['name']!r} is declared in the spec but {module.__name__} has no such function"
                )
            effect = decl["effect"]
            destructive = decl.get("destructive")
            idempotent = decl.get("idempotent")
            self.tools[decl["name"]] = BoundTool(
                name=decl["name"],
                description=decl["description"],
                effect=effect,
                input_schema=decl["input_schema"],
                output_schema=decl["output_schema"],
                destructive=effect == "write" and (destructive is None or destructive),
                idempotent=idempotent if idempotent is not None else effect == "read",
                reads=self._known(decl.get("reads", [])) | self._known(decl.get("writes", [])),
                writes=self._known(decl.get("writes", [])),
                fn=fn,
                input_validator=jsonschema_rs.Draft202012Validator(decl["input_schema"]),
                output_validator=jsonschema_rs.Draft202012Validator(decl["output_schema"]),
            )

    def _known(self, names: list[str]) -> frozenset[str]:
        return frozenset(n for n in names if not self.tables or n.lower() in self.tables)

    def call(self, db: sqlite3.Connection, name: str, arguments: Mapping[str, Any] | None) -> CallOutcome:
        tool = self.tools.get(name)
        if tool is None:
            return CallOutcome(
                ok=False, error=f"Unknown tool {name!r}. Available tools: {', '.join(sorted(self.tools))}."
            )
        args = dict(arguments or {})
        problem = _first_error(tool.input_validator, args)
        if problem is not None:
            return CallOutcome(ok=False, error=f"Invalid arguments for {name}: {problem}")
        guard = _Guard(tool, self.foreign_keys, self.tables, db)
        watch = CallWatch(db, self.call_seconds)
        ctx = ToolContext(db=db, now=self.clock, _check_time=watch.check if self.call_seconds else None)
        _begin(db)
        refused: str | None = None
        rules = self.rules_of.get(name)
        if rules:
            # The declared rules read the state before the call; a broken one refuses the
            # call only once the tool itself has nothing to refuse (its own reason, the more
            # specific, comes first: a cancelled booking is refused as cancelled, not as
            # too late), and the tool's changes are undone.
            try:
                with runtime_statements(db):
                    refused = broken(rules, db, name, args, self.clock)
            except (sqlite3.Error, KeyError, ValueError, TypeError) as exc:
                _undo(db)
                return CallOutcome(
                    ok=False,
                    error=_clip(f"Internal error in tool {name}: rule check failed: {exc}"),
                    internal=True,
                    fault="exception",
                )
        _arm(db, guard)
        try:
            with watch:
                output = tool.fn(ctx, **args)
                _disarm(db)
                if not isinstance(output, dict):
                    raise _BrokenTool(f"returned {type(output).__name__}, not an object")
                try:  # plain JSON only: tuples become lists; NaN and Infinity are not JSON
                    text = _json_text(output)
                    output = json.loads(text)
                except (TypeError, ValueError) as exc:
                    raise _BrokenTool(f"output is not JSON: {exc}") from None
                bad = _first_error(tool.output_validator, output)
                if bad is not None:
                    raise _BrokenTool(f"output does not match its output schema: {bad}")
        except CallTimeout:
            return self._timed_out(db, name, watch)
        except ToolError as exc:
            if watch.expired:
                return self._timed_out(db, name, watch)
            _undo(db)
            if guard.denied is not None:  # the tool swallowed a denied statement
                return CallOutcome(
                    ok=False,
                    error=f"Internal error in tool {name}: {guard.denied}",
                    internal=True,
                    fault=guard.kind,
                )
            return CallOutcome(ok=False, error=_clip(str(exc) or "The request was refused."))
        except (Exception, SystemExit) as exc:  # a defect in the tool, not in the request
            if watch.expired:  # an interrupted statement, seen by the tool or not
                return self._timed_out(db, name, watch)
            _undo(db)
            if guard.denied is not None:
                reason, fault = guard.denied, guard.kind
            elif isinstance(exc, _BrokenTool):
                reason, fault = str(exc), "output"
            elif isinstance(exc, ForeignFault):
                reason, fault = str(exc), exc.fault
            elif isinstance(exc, MemoryError):  # the allocation failed, so its memory is free again
                reason, fault = "MemoryError: ran out of memory (the server's memory limit)", "exception"
            else:
                reason, fault = f"{type(exc).__name__}: {exc}", "exception"
            logger.error(
                "tool %s failed: %s",
                name,
                reason,
                exc_info=fault == "exception" and not isinstance(exc, ForeignFault),
            )
            return CallOutcome(
                ok=False, error=_clip(f"Internal error in tool {name}: {reason}"), internal=True, fault=fault
            )
        except BaseException:  # KeyboardInterrupt: stop serving, with the call undone
            _undo(db)
            raise
        if watch.expired:  # the deadline passed in the toolbox's own checks, or the tool
            return self._timed_out(db, name, watch)  # caught an interrupted statement
        if guard.denied is not None:  # the tool caught a denied statement's error and went on:
            _undo(db)  # none of its writes are kept, as when it lets the error through
            logger.error("tool %s went on after a denied statement: %s", name, guard.denied)
            return CallOutcome(
                ok=False,
                error=f"Internal error in tool {name}: {guard.denied}",
                internal=True,
                fault=guard.kind,
            )
        if refused is not None:
            _undo(db)
            return CallOutcome(ok=False, error=_clip(refused))
        _end(db, commit=tool.effect == "write")
        return CallOutcome(ok=True, output=output, written=frozenset(guard.written), text=text)

    def _timed_out(self, db: sqlite3.Connection, name: str, watch: CallWatch) -> CallOutcome:
        watch.close()  # may have been left half-way by the CallTimeout
        _undo(db)
        logger.error("tool %s exceeded its time limit of %g s", name, self.call_seconds)
        return CallOutcome(
            ok=False,
            error=f"Tool {name} exceeded its time limit of {self.call_seconds:g} s; its changes were undone.",
            internal=True,
            fault="timeout",
        )


def _undo(db: sqlite3.Connection) -> None:
    """Roll the call back. An interrupted write may have ended the transaction already."""
    _disarm(db)
    if db.in_transaction:
        _end(db, commit=False)


def _arm(db: sqlite3.Connection, guard: _Guard) -> None:
    """Put ``guard`` in charge of what ``db`` compiles for this call.

    A connection the runtime made keeps its one authorizer (``database.Authority``) and
    its statement cache: the call's statements are cached under the tool's own texts,
    and only when some statement was compiled here under a text a tool could send (a
    cursor's, the runtime's between calls) is the cache expired first, by setting the
    authorizer again. Any other connection gets the guard itself, as its authorizer for
    the call."""
    authority = db.authority if isinstance(db, GuardedConnection) else None
    if authority is None:
        db.set_authorizer(guard)
        return
    if authority.untagged or not db.authorizing:  # type: ignore[attr-defined]
        db.set_authorizer(authority)  # expires every prepared statement of ``db``
        authority.untagged = False
    authority.guard = guard


def _disarm(db: sqlite3.Connection) -> None:
    authority = db.authority if isinstance(db, GuardedConnection) else None
    if authority is None:
        db.set_authorizer(None)
    else:
        authority.guard = None


def _begin(db: sqlite3.Connection) -> None:
    if isinstance(db, GuardedConnection):
        db.own(_BEGIN)
    else:
        db.execute("BEGIN")


def _end(db: sqlite3.Connection, *, commit: bool) -> None:
    if isinstance(db, GuardedConnection):
        db.own(_COMMIT if commit else _ROLLBACK)
    else:
        db.execute("COMMIT" if commit else "ROLLBACK")


class _BrokenTool(Exception):
    pass


class ForeignFault(Exception):
    """The tool failed where it ran, outside this process (a jailed worker,
    ``isolation.py``): ``str()`` is the reason, ``fault`` the kind ("exception" or
    "output", as in ``CallOutcome.fault``)."""

    def __init__(self, reason: str, fault: str) -> None:
        super().__init__(reason)
        self.fault = fault


class _Guard:
    """SQLite authorizer: a tool reads its declared tables and writes only those it declares.

    Transactions, schema changes, PRAGMA and ATTACH are denied to every tool, so tool
    code cannot commit half-way, escape the session database or change the schema; so
    is every SQL function outside ``SAFE_SQL_FUNCTIONS`` (``fts3_tokenizer``,
    ``load_extension``, anything unknown). The first denial is kept so the error names
    the table or function, not just "not authorized".

    A table named in FROM with none of its columns read (``SELECT count(*) FROM t``,
    ``EXISTS (SELECT 1 FROM t)``) arrives without a database name, as a CTE does: it is
    a read of ``t`` when ``t`` is one of the spec's tables (or the runtime's or SQLite's
    own), else a CTE or subquery name, which is allowed.

    *Foreign-key checks.* A write to a parent table makes SQLite's foreign-key check
    read the referencing column of each child table (always for a delete or a key
    update, and for an insert whenever the table has triggers, as the change-log tables
    give it); those reads are the constraint's, not the tool's. They arrive exactly as a
    read in the tool's own SQL would (the child's table and column, "main", no trigger
    or view), before, between or after the tool's own reads depending on the statement
    (a ``RETURNING`` or upsert clause is compiled after the checks). So the exemption is
    decided on the statement itself: a read of a child's foreign-key column whose parent
    the tool declares writing is allowed only if the statement being prepared
    (``GuardedConnection.preparing``), compiled on an empty copy of the schema without
    foreign-key enforcement (``schema_copy``) under this same authorizer without the
    exemption, reads nothing the tool does not declare. Then every such read in the real
    compile is SQLite's check; a statement whose own SQL reads the child (a SELECT, a
    subquery, a join, ``EXISTS``, ``RETURNING``, in any statement) is refused whole.
    Verdicts are kept per tool declaration, schema and statement text (``_verdict``).
    """

    __slots__ = (
        "db",
        "denied",
        "foreign_keys",
        "kind",
        "reads",
        "tables",
        "tag",
        "tool",
        "writes",
        "written",
    )

    def __init__(
        self,
        tool: BoundTool,
        foreign_keys: Mapping[tuple[str, str], str] | None = None,
        tables: frozenset[str] = frozenset(),
        db: sqlite3.Connection | None = None,
    ) -> None:
        self.tool, self.db, self.tables = tool, db, tables
        self.reads, self.writes, self.tag = tool.reads, tool.writes, tool.tag
        self.foreign_keys = foreign_keys or {}
        self.written: set[str] = set()
        self.denied: str | None = None
        self.kind: str | None = None  # "read", "write" or "forbidden", as in CallOutcome.fault

    def __call__(
        self, action: int, arg1: str | None, arg2: str | None, db_name: str | None, src: str | None
    ) -> int:
        if action == _FUNCTION:
            if (arg2 or "").lower() in SAFE_SQL_FUNCTIONS:
                return sqlite3.SQLITE_OK
            return self._deny(
                "forbidden",
                f"called the SQL function {arg2!r}, which tools may not call "
                "(only SQLite's ordinary core functions)",
            )
        if action in (_SELECT, _RECURSIVE):
            return sqlite3.SQLITE_OK
        if (action == _READ or action in _WRITES) and _change_log(arg1, src):
            return sqlite3.SQLITE_OK  # a change-log trigger keeping its log (``database.py``)
        if action == _READ:
            if arg1 in self.reads:
                return sqlite3.SQLITE_OK
            if db_name is None:  # a FROM name with no column read: a table, or a CTE (see the class)
                name = (arg1 or "").lower()
                if name in {r.lower() for r in self.reads} or not self._table(name):
                    return sqlite3.SQLITE_OK
            elif src is None and self.foreign_keys.get((arg1 or "", arg2 or "")) in self.writes:
                refusal = self._own_reads_refused()
                if refusal is None:
                    return sqlite3.SQLITE_OK  # SQLite's foreign-key check of a write to the parent
                if refusal[1]:
                    return self._deny(*refusal)
            return self._deny("read", f"read table {arg1!r}, which it does not declare")
        if action in _WRITES:
            if arg1 in self.writes:
                self.written.add(arg1)
                return sqlite3.SQLITE_OK
            return self._deny(
                "write", f"tried to {_WRITES[action]} table {arg1!r}, which it does not declare writing"
            )
        return self._deny(
            "forbidden", f"ran a forbidden SQL operation (authorizer action {action}, {arg1!r})"
        )

    def _table(self, name: str) -> bool:
        return name in self.tables or name.startswith((TRACK_PREFIX, "sqlite_"))

    def _own_reads_refused(self) -> tuple[str, str] | None:
        """None when the statement being prepared reads only declared tables apart from
        SQLite's foreign-key checks; else the refusal (its kind and reason; an empty
        reason: the statement could not be judged, so the read is refused as it is)."""
        sql = getattr(self.db, "preparing", None)
        schema = getattr(self.db, "schema", None)
        if not isinstance(sql, str) or not isinstance(schema, tuple):
            return "read", ""  # not run through ``GuardedConnection.execute``: no exemption
        return _verdict(self.tool, self.tables, schema, sql)

    def _deny(self, kind: str, reason: str) -> int:
        if self.denied is None:
            self.denied, self.kind = reason, kind
        return sqlite3.SQLITE_DENY


_VERDICTS: OrderedDict[tuple[Any, ...], tuple[str, str] | None] = OrderedDict()
_MAX_VERDICTS = 4096
_SCHEMA_COPIES: OrderedDict[tuple[str, ...], tuple[sqlite3.Connection | None, threading.Lock]] = OrderedDict()
_MAX_SCHEMA_COPIES = 8
_CACHE_LOCK = threading.Lock()


def _verdict(
    tool: BoundTool, tables: frozenset[str], schema: tuple[str, ...], sql: str
) -> tuple[str, str] | None:
    """Whether ``sql``'s own reads, without foreign-key enforcement, are all declared by
    ``tool`` (see ``_Guard``): None if so, else the first refusal. Called from inside
    the authorizer of the session's connection; compiles on another connection."""
    key = (tool.reads, tool.writes, tables, schema, sql)
    with _CACHE_LOCK:
        if key in _VERDICTS:
            _VERDICTS.move_to_end(key)
            return _VERDICTS[key]
        entry = _SCHEMA_COPIES.get(schema)
        if entry is None:
            try:
                entry = (schema_copy(schema), threading.Lock())
            except SeedLoadError as exc:
                logger.error("foreign-key exemption unavailable: %s", exc)
                entry = (None, threading.Lock())
            _SCHEMA_COPIES[schema] = entry
            while len(_SCHEMA_COPIES) > _MAX_SCHEMA_COPIES:
                _SCHEMA_COPIES.popitem(last=False)
        _SCHEMA_COPIES.move_to_end(schema)
    copy, lock = entry
    result: tuple[str, str] | None = ("read", "")
    if copy is not None:
        strict = _Guard(tool, None, tables)
        with lock:
            copy.set_authorizer(strict)
            try:
                copy.execute("EXPLAIN " + sql)
                result = None
            except sqlite3.ProgrammingError:  # raised binding parameters: the statement compiled
                result = None
            except sqlite3.Error:
                pass
            finally:
                copy.set_authorizer(None)
        if strict.denied is not None:
            result = (strict.kind or "read", strict.denied)
        elif not strict.written:  # a foreign-key check comes with a write: this was not compiled
            result = ("read", "")
    with _CACHE_LOCK:
        _VERDICTS[key] = result
        while len(_VERDICTS) > _MAX_VERDICTS:
            _VERDICTS.popitem(last=False)
    return result


def _change_log(table: str | None, trigger: str | None) -> bool:
    """A statement of the session's change-log triggers on their own log. Tools cannot
    create triggers (DDL is denied), so only the runtime's can carry the name."""
    return trigger is not None and trigger.startswith(TRACK_PREFIX) and (table or "").startswith(TRACK_PREFIX)


# What ``json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)`` builds on
# every call, built once (an encoder keeps no state between calls).
_SORTED_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False)


def json_text(value: Any) -> str:
    """``value`` as the JSON text of a result's content: keys sorted, non-ASCII kept, no
    NaN or Infinity (``ValueError``); an object with keys that do not sort (``1`` and
    ``"a"``) is written as JSON writes them (as strings), then sorted."""
    try:
        return _SORTED_JSON.encode(value)
    except TypeError:
        plain = json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))
        return json.dumps(plain, ensure_ascii=False, sort_keys=True)


_json_text = json_text


def _first_error(validator: jsonschema_rs.Draft202012Validator, instance: Any) -> str | None:
    """None when ``instance`` is valid, else a short description of its first problem.

    jsonschema-rs validates in about a microsecond (the Python jsonschema package takes
    tens), which keeps validation off the latency budget of every call.
    """
    if validator.is_valid(instance):
        return None
    error = next(iter(validator.iter_errors(instance)))
    where = "/".join(str(p) for p in error.instance_path)
    message = error.message
    shown = json.dumps(error.instance, ensure_ascii=False, separators=(",", ":"), default=str)
    if len(shown) > 80:  # keep the reason readable when the bad value is huge
        message = message.replace(shown, f"{shown[:40]}... ({len(shown)} characters)")
    message = _clip(message, 300)
    return f"at '{where}': {message}" if where else message


def _clip(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
