"""Business rules beyond status in every library environment (issue 31).

Every environment declares at least two non-status rules of at least two kinds, and each
one is broken here on a real session: the session's rows are set so the rule is broken
(an owner already at the quota, a row whose moment is outside the window, another row in
an exclusive state, a record not eligible, an amount above the limit), the tool is called
through the runtime's ``Toolbox`` with arguments that satisfy its schema, and the call is
refused with the rule's reason, changing nothing, and the same call goes through without
the rule (the refusal is the rule's doing); with the rule's state restored it is kept
(``runtime.rules.broken`` finds nothing to refuse). A flagship's tool code enforces its
declared rules itself, with its own reason first: there the call is refused and the
declared rule finds the break."""

from __future__ import annotations

import copy
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import jsonschema_rs
import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env
from envfactory_mcp.library import load_service, service_names
from envfactory_mcp.library.rules import derive
from envfactory_mcp.runtime import state_hash
from envfactory_mcp.runtime.rules import broken
from envfactory_mcp.runtime.toolbox import Toolbox


def clock_of(spec: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(spec["clock"].replace("Z", "+00:00")).astimezone(UTC)


def _stamp(moment: datetime, column_is_date: bool) -> str:
    return moment.strftime("%Y-%m-%d") if column_is_date else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _candidates(name: str, db: Any, tables: set[str]) -> list[Any]:
    """Values the session holds for an argument: a column of that name, or one whose name
    ends the argument's (``from_account_id``: an ``account_id``), then plain words."""
    found: list[Any] = []
    for table in sorted(tables):
        for column in (c[1] for c in db.execute(f'PRAGMA table_info("{table}")')):
            if column == name or (name.endswith("_" + column) and column.endswith("_id")):
                found += [r[0] for r in db.execute(f'SELECT DISTINCT "{column}" FROM "{table}" LIMIT 5')]
    return [*found, "2026-09-01", "10:00", "Something in words", "someone@example.com"]


def _value(schema: dict[str, Any], name: str, db: Any, tables: set[str]) -> Any:
    """A value the argument's schema accepts, from the session's rows where it can."""
    accepts = jsonschema_rs.Draft202012Validator(schema).is_valid
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "array":
        one = name[:-1] if name.endswith("s") else name
        items = [
            v
            for v in _candidates(one, db, tables)
            if jsonschema_rs.Draft202012Validator(schema.get("items", {})).is_valid(v)
        ]
        value = items[: max(1, schema.get("minItems", 0))]
        return value if accepts(value) else []
    return next((v for v in _candidates(name, db, tables) if accepts(v)), "Something in words")


def arguments(spec: dict[str, Any], tool: str, db: Any) -> dict[str, Any]:
    """Required arguments the schema accepts; a row the tool acts on is one in a state its
    status rule allows (a confirmed booking for a cancellation)."""
    schema = next(t for t in spec["tools"] if t["name"] == tool)["input_schema"]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    args = {
        name: _value(prop, name, db, tables)
        for name, prop in schema.get("properties", {}).items()
        if name in schema.get("required", [])
    }
    for refusal in (spec.get("policy_rules") or {}).get("refusals") or []:
        if refusal["tool"] != tool:
            continue
        for table in spec["tables"]:
            key = table["primary_key"][0] if table.get("primary_key") else None
            columns = {c["name"] for c in table["columns"]}
            if key in args and refusal["column"] in columns:
                marks = ", ".join("?" for _ in refusal["allowed"])
                row = db.execute(
                    f'SELECT "{key}" FROM "{table["name"]}" WHERE "{refusal["column"]}" IN ({marks}) LIMIT 1',
                    list(refusal["allowed"]),
                ).fetchone()
                if row is not None:
                    args[key] = row[0]
    return args


def break_it(rule: dict[str, Any], args: dict[str, Any], db: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """Arguments and session rows that break ``rule``; returns the arguments."""
    kind = rule["kind"]
    clock = clock_of(spec)
    if kind == "amount":
        schema = next(t for t in spec["tools"] if t["name"] == rule["tool"])["input_schema"]
        prop = schema["properties"][rule["argument"]]
        over = rule["at_most"] + 1
        value = min(over, prop.get("maximum", over))
        return {**args, rule["argument"]: int(value) if prop.get("type") == "integer" else value}
    if kind in ("quota", "exclusive"):
        table, owner = rule["table"], rule["owner"]
        key = db.execute(f'PRAGMA table_info("{table}")').fetchone()[1]
        order = f'"{key}"'
        if rule.get("states"):  # rows already in the states first: only their owner changes
            marks = ", ".join("?" for _ in rule["states"])
            order = f'"{rule["column"]}" IN ({marks}) DESC, "{key}"'
        rows = [
            r[0]
            for r in db.execute(
                f'SELECT "{key}" FROM "{table}" ORDER BY {order}', list(rule.get("states") or [])
            )
        ]
        need = 1 if kind == "exclusive" else rule["at_most"]
        assert len(rows) >= need, f"{table} has too few rows to break {rule}"
        first = db.execute(f'SELECT * FROM "{table}" WHERE "{key}" = ?', [rows[0]]).fetchone()
        columns = [c[1] for c in db.execute(f'PRAGMA table_info("{table}")')]
        values = dict(zip(columns, first, strict=True))
        for name in (owner, *rule.get("also", [])):
            args = {**args, name: values[name]}
        for row in rows[:need]:
            sets = {owner: values[owner], **{n: values[n] for n in rule.get("also", [])}}
            state = db.execute(
                f'SELECT "{rule.get("column") or key}" FROM "{table}" WHERE "{key}" = ?', [row]
            )
            if rule.get("states") and state.fetchone()[0] not in rule["states"]:
                sets[rule["column"]] = rule["states"][0]
            if rule.get("period_days") is not None:
                sets[rule["since"]] = _stamp(clock, False)
            assignments = ", ".join(f'"{c}" = ?' for c in sets)
            db.execute(f'UPDATE "{table}" SET {assignments} WHERE "{key}" = ?', [*sets.values(), row])
        return args
    if kind == "window":
        table, key, column = rule["table"], rule["key"], rule["column"]
        if key in args:
            row, moment = db.execute(
                f'SELECT "{key}", "{column}" FROM "{table}" WHERE "{key}" = ?', [args[key]]
            ).fetchone()
        else:
            row, moment = db.execute(
                f'SELECT "{key}", "{column}" FROM "{table}" ORDER BY "{column}" IS NULL LIMIT 1'
            ).fetchone()
        is_date = isinstance(moment, str) and "T" not in moment
        hours = timedelta(hours=rule["hours"])
        when = clock - hours - timedelta(days=2) if rule["side"] == "after" else clock + hours / 2
        if is_date and rule["side"] == "before":
            when = clock  # today: under the window's hours ahead
        db.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE "{key}" = ?', [_stamp(when, is_date), row])
        return {**args, key: row}
    if kind == "eligibility":
        other, via, column = rule["other"], rule["via"], rule["column"]
        table = next(t for t in spec["tables"] if t["name"] == other)
        enum = next(c for c in table["columns"] if c["name"] == column)["enum"]
        outside = next(v for v in enum if v not in rule["allowed"])
        row = db.execute(f'SELECT "{via}" FROM "{other}" LIMIT 1').fetchone()[0]
        db.execute(f'UPDATE "{other}" SET "{column}" = ? WHERE "{via}" = ?', [outside, row])
        return {**args, via: row}
    raise AssertionError(f"no way to break a {kind} rule")


def rules_of(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return list((spec.get("policy_rules") or {}).get("rules") or [])


FLAGSHIPS = ("airline", "banking", "clinic", "logistics", "retail", "telecom", "travel", "workplace")


@pytest.mark.parametrize("name", [*service_names(), *FLAGSHIPS])
def test_every_rule_is_refused_when_broken_and_kept_otherwise(name: str):
    env = build_env(load_blueprint(name))
    spec = dict(env.bundle().spec)
    rules = rules_of(spec)
    kinds = Counter(r["kind"] for r in rules)
    assert len(rules) >= 2 and len(kinds) >= 2, kinds
    for rule in rules:
        alone = copy.deepcopy(spec)
        alone["policy_rules"] = {**spec["policy_rules"], "rules": [rule]}
        toolbox = Toolbox(alone, env.tools_module)
        session = env.new_session()
        try:
            db = session.db
            args = arguments(spec, rule["tool"], db)
            args = break_it(rule, args, db, spec)
            db.commit()
            before = state_hash(db)
            out = toolbox.call(db, rule["tool"], args)
            assert not out.ok and state_hash(db) == before, (rule, args)
            assert broken([rule], db, rule["tool"], args, spec["clock"]) == rule["reason"]
            if name in FLAGSHIPS:
                # A flagship's tool code enforces its rule too, and its own reason comes
                # first; the declared rule is the same rule as data (never stricter).
                continue
            assert out.error == rule["reason"], (rule, args, out.error)
            # The refusal is the rule's doing: without it, the tool takes the very call.
            unruled = copy.deepcopy(spec)
            unruled["policy_rules"] = {**spec["policy_rules"], "rules": []}
            free = Toolbox(unruled, env.tools_module).call(db, rule["tool"], args)
            assert free.ok, (rule, args, free.error)
        finally:
            session.close()
        fresh = env.new_session()
        try:
            kept = {**args}
            if rule["kind"] == "amount":
                kept[rule["argument"]] = rule["at_most"]
            if rule["kind"] in ("quota", "exclusive"):  # an owner with no live rows in the table
                db = fresh.db
                sql = f'SELECT "{rule["owner"]}" FROM "{rule["table"]}"'
                taken = {r[0] for r in db.execute(sql)}
                kept[rule["owner"]] = "nobody with rows here" if taken else kept[rule["owner"]]
            if rule["kind"] == "window":
                key, column = rule["key"], rule["column"]
                clock = clock_of(spec)
                ok = clock + timedelta(days=30) if rule["side"] == "before" else clock - timedelta(hours=1)
                sql = f'SELECT "{column}" FROM "{rule["table"]}" WHERE "{key}" = ?'
                moment = fresh.db.execute(sql, [args[key]]).fetchone()[0]
                is_date = isinstance(moment, str) and "T" not in moment
                if is_date and rule["side"] == "after":
                    ok = clock  # today: within any window of a day or more
                fresh.db.execute(
                    f'UPDATE "{rule["table"]}" SET "{column}" = ? WHERE "{key}" = ?',
                    [_stamp(ok, is_date), args[key]],
                )
            if rule["kind"] == "eligibility":
                fresh.db.execute(
                    f'UPDATE "{rule["other"]}" SET "{rule["column"]}" = ? WHERE "{rule["via"]}" = ?',
                    [rule["allowed"][0], args[rule["via"]]],
                )
            assert broken([rule], fresh.db, rule["tool"], kept, spec["clock"]) is None, rule
        finally:
            fresh.close()


def test_rules_come_from_the_shape_not_from_names():
    """The derivation reads tables and operations: reads alone give no rule."""
    service = load_service("brightpath_tutoring")
    ops = service.all_operations()
    rules = derive(service.customer_resource(), service.resources, ops)
    kinds = Counter(r.kind for r in rules)
    assert kinds["quota"] >= 1 and kinds["window"] >= 1 and kinds["exclusive"] >= 1
    assert (
        derive(service.customer_resource(), service.resources, [o for o in ops if o.kind in ("get", "list")])
        == []
    )


def test_the_name_free_similarity_compares_rules():
    """Two services alike in tables and tools but not in their rules are not one service:
    the rule shapes (kind and numbers, names left out) are part of the comparison."""
    from envfactory_mcp.library.distinct import shapes, similarity

    spec = load_blueprint("brightpath_tutoring").build_spec(1)
    rules = spec.policy_rules
    assert rules is not None and rules.rules
    fewer = spec.model_copy(update={"policy_rules": rules.model_copy(update={"rules": rules.rules[:1]})})
    assert any(key.startswith("rule quota") for key in shapes(spec))
    assert similarity(shapes(spec), shapes(spec)) == 1.0
    assert similarity(shapes(spec), shapes(fewer)) < 1.0
