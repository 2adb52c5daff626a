"""What a declared business rule says of a write, read from what the tools returned (issue 31).

A spec's ``policy_rules.rules`` (``spec.policy``: amount, quota, window, eligibility,
exclusive) are data the blind demonstrator reasons about as a careful agent would: before
it proposes a write, it checks each rule on that write against the objects the tools have
shown (the order's date against a return window, the order's items-modified mark against
the rule that allows one change, an amount against its limit, the customer's open bookings
against a quota) and the environment's clock (``EnvSpec.clock``, the day it is). Nothing
here reads a task: only the rule, the call's arguments and the outputs read so far.

``judge`` answers True (the rule refuses the call), False (it allows it) or None (what it
needs has not been read yet; ``lookup`` names the read that shows it). The rules' meaning
is the runtime's (``runtime/rules.py``); these functions read it off outputs instead of
the database.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX
from envfactory_mcp.spec import EnvSpec, ToolSpec
from envfactory_mcp.spec.policy import AmountRule, EligibilityRule, ExclusiveRule, QuotaRule, WindowRule

Rule = AmountRule | QuotaRule | WindowRule | EligibilityRule | ExclusiveRule
Output = tuple[str, dict[str, Any], Any]  # (tool, arguments, output) of one successful call


def arguments_of(rule: Rule) -> list[str]:
    """The call's arguments the rule reads."""
    if isinstance(rule, AmountRule):
        return [rule.argument]
    if isinstance(rule, WindowRule):
        return [rule.key]
    if isinstance(rule, EligibilityRule):
        return [rule.via]
    return [rule.owner, *rule.also]


def subject_of(rule: Rule) -> str | None:
    """The argument naming the object the rule is about (None for an amount)."""
    if isinstance(rule, AmountRule):
        return None
    return arguments_of(rule)[0]


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def _same(a: Any, b: Any) -> bool:
    return a is not None and b is not None and str(a) == str(b)


def _moment(value: str) -> datetime:
    text = value.replace("Z", "+00:00")
    moment = datetime.fromisoformat(text if "T" in text else text + "T00:00:00+00:00")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def shown(outputs: list[Output], key: str, value: Any, column: str) -> tuple[bool, Any]:
    """``(True, v)``: the latest object read whose ``key`` is ``value`` shows ``column`` as
    ``v``; ``(False, None)`` when no output shows it."""
    found: tuple[bool, Any] = (False, None)
    for _, _, output in outputs:
        for node in _nodes(output):
            if _same(node.get(key), value) and column in node:
                found = (True, node[column])
    return found


def _rows(outputs: list[Output], key: str, columns: list[str]) -> dict[str, dict[str, Any]]:
    """Every object read that has ``key`` and all of ``columns``, as last read, by key."""
    rows: dict[str, dict[str, Any]] = {}
    for _, _, output in outputs:
        for node in _nodes(output):
            if node.get(key) is not None and all(c in node for c in columns):
                rows[str(node[key])] = node
    return rows


def _table(spec: EnvSpec, name: str) -> Any:
    return next((t for t in spec.tables if t.name == name), None)


def listing(spec: EnvSpec, rule: QuotaRule | ExclusiveRule) -> list[ToolSpec]:
    """Read tools that list the rows of the rule's table (their key in a list of the
    output), fewest required arguments first."""
    table = _table(spec, rule.table)
    if table is None or table.entity is None:
        return []
    key = table.primary_key[0]
    tools = [
        tool
        for tool in spec.tools
        if tool.effect == "read"
        and any(e == table.entity and p.endswith(f"[].{key}") for p, e in tool.outputs.items())
    ]
    return sorted(tools, key=lambda t: len(t.input_schema.get("required", [])))


def _listed(
    spec: EnvSpec, rule: QuotaRule | ExclusiveRule, args: dict[str, Any], outputs: list[Output]
) -> bool:
    """Whether a listing of the rule's rows was read with no filter the call does not share
    (all rows, or the owner's)."""
    names = {t.name for t in listing(spec, rule)}
    wanted = {rule.owner, *rule.also}
    return any(
        name in names and all(k in wanted and _same(v, args.get(k)) for k, v in given.items())
        for name, given, _ in outputs
    )


def judge(spec: EnvSpec, rule: Rule, args: dict[str, Any], outputs: list[Output]) -> bool | None:
    """Whether ``rule`` refuses a call with ``args`` on what ``outputs`` show: True, False,
    or None when what it reads has not been shown yet."""
    if any(name not in args for name in arguments_of(rule)):
        return False  # the runtime checks nothing it is not given
    now = _moment(spec.clock)
    if isinstance(rule, AmountRule):
        value = args[rule.argument]
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value > rule.at_most
    if isinstance(rule, WindowRule | EligibilityRule):
        key = rule.key if isinstance(rule, WindowRule) else rule.via
        seen, value = shown(outputs, key, args[key], rule.column)
        if not seen:
            return None
        if isinstance(rule, EligibilityRule):
            return value not in list(rule.allowed)
        if not isinstance(value, str):
            return False  # no moment yet
        hours = timedelta(hours=rule.hours)
        if rule.side == "after":
            return now > _moment(value) + hours
        return _moment(value) - now < hours
    if not _listed(spec, rule, args, outputs):
        return None
    table = _table(spec, rule.table)
    columns = [rule.owner, *rule.also]
    if rule.column:
        columns.append(rule.column)
    if isinstance(rule, QuotaRule) and rule.period_days is not None and rule.since:
        columns.append(rule.since)
    rows = _rows(outputs, table.primary_key[0], columns).values()
    counted = [
        row
        for row in rows
        if all(_same(row.get(name), args[name]) for name in [rule.owner, *rule.also])
        and (not rule.states or row.get(str(rule.column)) in list(rule.states))
    ]
    if isinstance(rule, ExclusiveRule):
        return bool(counted)
    if rule.period_days is not None and rule.since:
        start = now - timedelta(days=rule.period_days)
        counted = [
            r for r in counted if isinstance(r.get(rule.since), str) and _moment(r[rule.since]) >= start
        ]
    return len(counted) >= rule.at_most


def lookup(spec: EnvSpec, rule: Rule, args: dict[str, Any], called: Any) -> tuple[str, dict[str, Any]] | None:
    """The read that shows what ``rule`` needs for a call with ``args`` and was not made
    yet (``called(name, arguments)``), or None."""
    if isinstance(rule, AmountRule):
        return None
    if isinstance(rule, QuotaRule | ExclusiveRule):
        for tool in listing(spec, rule):
            props = tool.input_schema.get("properties", {})
            required = tool.input_schema.get("required", [])
            given = {name: args[name] for name in [rule.owner, *rule.also] if name in props and name in args}
            if any(name not in given for name in required):
                continue
            for choice in (given, {}) if not required else (given,):
                if not called(tool.name, choice):
                    return tool.name, choice
        return None
    key = rule.key if isinstance(rule, WindowRule) else rule.via
    for tool in spec.tools:
        if tool.effect != "read" or rule.column not in tool.output_schema.get("properties", {}):
            continue
        required = tool.input_schema.get("required", [])
        if required == [key] and not called(tool.name, {key: args[key]}):
            return tool.name, {key: args[key]}
    return None


def refused_by(spec: EnvSpec, tool: str, output: Any) -> Any:
    """The rule (a business rule, else a status rule) on ``tool`` whose reason is the error
    a call of it came back with, or None."""
    if not isinstance(output, dict) or not isinstance(output.get("error"), str):
        return None
    text = output["error"].strip()
    text = text[len(TOOL_ERROR_PREFIX) :].strip() if text.startswith(TOOL_ERROR_PREFIX) else text
    rules = [*spec.policy_rules.business_rules_for(tool), *spec.policy_rules.rules_for(tool)]
    return next((r for r in rules if r.reason.strip().casefold() == text.casefold()), None)
