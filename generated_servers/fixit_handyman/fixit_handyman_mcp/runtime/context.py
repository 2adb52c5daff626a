# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""What a tool implementation sees: a database handle, the environment clock, and a way to fail.

Tool code is a plain module of functions ``def tool_name(ctx: ToolContext, **arguments) -> dict``.
It needs no imports from this package: it calls ``ctx.fail(...)`` for a business-rule
violation, and ``ctx.one`` / ``ctx.all`` / ``ctx.execute`` for SQL. The runtime wraps every
call in a transaction, so a tool that fails half-way leaves no trace.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

SqlParams = Sequence[Any] | dict[str, Any]


class ToolError(Exception):
    """A business-rule violation or a bad argument; the agent receives the message."""


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Per-call view of one session's database.

    ``now`` is the environment's fixed clock (ISO 8601), so the same call on the same state
    always gives the same result.
    """

    db: sqlite3.Connection
    now: str
    # Raises limits.CallTimeout once the call's deadline has passed: checked before every
    # statement, which bounds a tool looping over SQL even where no alarm reaches it.
    _check_time: Callable[[], None] | None = field(default=None, repr=False)

    def fail(self, message: str) -> NoReturn:
        raise ToolError(message)

    def one(self, sql: str, params: SqlParams = ()) -> dict[str, Any] | None:
        """First row of a query as a dict, or None."""
        cursor = self._execute(sql, params)
        row = cursor.fetchone()
        if row is None:
            return None
        return dict(zip([d[0] for d in cursor.description], row, strict=True))

    def all(self, sql: str, params: SqlParams = ()) -> list[dict[str, Any]]:
        """Every row of a query as dicts."""
        cursor = self._execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def scalar(self, sql: str, params: SqlParams = ()) -> Any:
        """The first column of the first row, or None."""
        row = self._execute(sql, params).fetchone()
        return None if row is None else row[0]

    def execute(self, sql: str, params: SqlParams = ()) -> int:
        """Run one write statement; returns the number of rows it changed."""
        return self._execute(sql, params).rowcount

    def next_id(self, table: str, column: str, prefix: str, width: int = 7) -> str:
        """The next id of the form ``<prefix><zero-padded number>`` after the largest in use.

        Derived from the state alone, so ids are deterministic for a given state.
        """
        start = len(prefix) + 1
        largest = self.scalar(
            f'SELECT MAX(CAST(SUBSTR("{column}", ?) AS INTEGER)) FROM "{table}" WHERE SUBSTR("{column}", 1, ?) = ?',
            (start, len(prefix), prefix),
        )
        return f"{prefix}{(largest or 0) + 1:0{width}d}"

    def _execute(self, sql: str, params: SqlParams) -> sqlite3.Cursor:
        if self._check_time is not None:
            self._check_time()
        return self.db.execute(sql, params)
