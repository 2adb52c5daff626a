"""Business rules beyond status, declared as data and enforced before a tool runs (issue 31).

A spec's ``policy_rules.rules`` is a list of rule objects, each naming the ``tool`` it
restricts, its ``kind`` and the ``reason`` the agent is given when a call breaks it (as
prose, like a status refusal's). ``Toolbox.call`` checks them inside the call's
transaction on the state before the tool runs: a call that breaks one is refused with its
reason and changes nothing, unless the tool refuses it first with its own (more specific)
reason. The kinds (``spec.policy`` declares the same shapes):

* ``amount``: argument ``argument`` at most ``at_most`` (a refund up to $200);
* ``quota``: at most ``at_most`` rows of ``table`` whose ``owner`` column (and each column
  named in ``also``) equals the call's argument of that name, counting only rows whose ``since`` moment is within
  ``period_days`` of the clock when given (three bookings a week), and only rows whose
  ``column`` is in ``states`` when given (two open bookings at a time);
* ``window``: the row of ``table`` whose key column ``key`` is the call's argument of that name, has its ``column`` moment no
  more than ``hours`` before the clock (``after``: a return within 30 days of delivery) or
  at least ``hours`` after it (``before``: cancel at least 24 hours before the start);
* ``eligibility``: the row of ``other`` whose key column ``via`` is the call's argument of
  that name has ``column`` in ``allowed`` (a gold member);
* ``exclusive``: no row of ``table`` whose ``owner`` column (and each ``also`` column)
  equals the call's argument of that name has ``column`` in ``states`` (one active
  subscription at a time; one waiting hold per patron and title).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

KINDS = ("amount", "quota", "window", "eligibility", "exclusive")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _moment(value: str) -> datetime:
    text = value.replace("Z", "+00:00")
    moment = datetime.fromisoformat(text if "T" in text else text + "T00:00:00+00:00")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _column_of(db: sqlite3.Connection, table: str, key: str, value: Any, column: str) -> tuple[Any] | None:
    """``(column,)`` of the row of ``table`` whose ``key`` column is ``value``; None if none."""
    row = db.execute(
        f"SELECT {_quoted(column)} FROM {_quoted(table)} WHERE {_quoted(key)} = ?", [value]
    ).fetchone()
    return None if row is None else (row[0],)


def broken(
    rules: list[Mapping[str, Any]], db: sqlite3.Connection, tool: str, args: Mapping[str, Any], now: str
) -> str | None:
    """The reason of the first rule on ``tool`` the call breaks, or None."""
    for rule in rules:
        if rule.get("tool") == tool and _breaks(rule, db, args, now):
            return str(rule["reason"])
    return None


def _breaks(rule: Mapping[str, Any], db: sqlite3.Connection, args: Mapping[str, Any], now: str) -> bool:
    kind = rule["kind"]
    if kind == "amount":
        value = args.get(rule["argument"])
        return isinstance(value, (int, float)) and value > rule["at_most"]
    if kind in ("quota", "exclusive"):
        owner = rule["owner"]
        if owner not in args:
            return False
        also = list(rule.get("also") or [])
        if any(name not in args for name in also):
            return False
        sql = f"SELECT COUNT(*) FROM {_quoted(rule['table'])} WHERE {_quoted(owner)} = ?"
        params: list[Any] = [args[owner]]
        for name in also:
            sql += f" AND {_quoted(name)} = ?"
            params.append(args[name])
        if rule.get("states"):  # an exclusive rule always has them
            states = list(rule["states"])
            sql += f" AND {_quoted(rule['column'])} IN ({', '.join('?' for _ in states)})"
            params += states
        if kind == "exclusive":
            return int(db.execute(sql, params).fetchone()[0]) > 0
        if rule.get("period_days") is not None:
            start = _moment(now) - timedelta(days=rule["period_days"])
            sql += f" AND {_quoted(rule['since'])} >= ?"
            params.append(start.strftime("%Y-%m-%dT%H:%M:%SZ"))
        return bool(int(db.execute(sql, params).fetchone()[0]) >= rule["at_most"])
    if kind == "window":
        if rule["key"] not in args:
            return False
        found = _column_of(db, rule["table"], rule["key"], args[rule["key"]], rule["column"])
        if found is None or not isinstance(found[0], str):
            return False  # no such row (the tool says so) or no moment yet
        hours = timedelta(hours=rule["hours"])
        if rule.get("side", "after") == "after":
            return _moment(now) > _moment(found[0]) + hours
        return _moment(found[0]) - _moment(now) < hours
    if kind == "eligibility":
        if rule["via"] not in args:
            return False
        found = _column_of(db, rule["other"], rule["via"], args[rule["via"]], rule["column"])
        return found is not None and found[0] not in list(rule["allowed"])
    raise ValueError(f"unknown rule kind {kind!r} (known: {', '.join(KINDS)})")
