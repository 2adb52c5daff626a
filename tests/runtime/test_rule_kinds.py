"""Business rules beyond status, declared as data in a spec's ``policy_rules.rules`` and
enforced by the runtime before a tool runs (issue 31): for each kind, a call that breaks
the rule is refused with its reason and changes nothing; a call that keeps it goes through.
Real library environment (pet grooming), real SQLite sessions."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import TypeAdapter

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import dump_state, state_hash
from envfactory_mcp.runtime.rules import KINDS
from envfactory_mcp.runtime.toolbox import Toolbox
from envfactory_mcp.spec.policy import BusinessRule

RULE: TypeAdapter[Any] = TypeAdapter(BusinessRule)  # an annotated union: no class to name


@pytest.fixture(scope="module")
def grooming() -> Environment:
    return build_env(load_blueprint("pet_grooming"))


def run(env: Environment, rule: dict[str, Any], tool: str, args: dict[str, Any]) -> tuple[bool, str, bool]:
    """(ok, error, state changed) of one call on a fresh session, under ``rule``."""
    declared = RULE.validate_python(rule)  # the runtime's rule has the declared model's shape
    assert declared.model_dump(mode="json") == {**declared.model_dump(mode="json"), **rule}
    spec = dict(copy.deepcopy(env.bundle().spec))
    spec["policy_rules"] = {**(spec.get("policy_rules") or {}), "rules": [rule]}
    session = env.new_session()
    try:
        before = state_hash(session.db)
        out = Toolbox(spec, env.tools_module).call(session.db, tool, args)
        assert not out.internal, out.error
        return out.ok, out.error or "", state_hash(session.db) != before
    finally:
        session.close()


def rows(env: Environment, table: str) -> list[dict[str, Any]]:
    session = env.new_session()
    try:
        return dump_state(session.db)[table]
    finally:
        session.close()


def booking(env: Environment, owner: dict[str, Any]) -> dict[str, Any]:
    pet = next(p for p in rows(env, "pets") if p["owner_id"] == owner["owner_id"])
    return {
        "owner_id": owner["owner_id"],
        "pet_id": pet["pet_id"],
        "groomer_id": rows(env, "groomers")[0]["groomer_id"],
        "grooming_service_id": rows(env, "grooming_services")[0]["grooming_service_id"],
        "day": "2026-07-20",
        "start_time": "10:30",
    }


def owners_by_bookings(env: Environment) -> list[tuple[int, dict[str, Any]]]:
    appointments = rows(env, "appointments")
    pets = {p["owner_id"] for p in rows(env, "pets")}
    return sorted(
        (
            (sum(a["owner_id"] == o["owner_id"] for a in appointments), o)
            for o in rows(env, "owners")
            if o["owner_id"] in pets
        ),
        key=lambda pair: (pair[0], pair[1]["owner_id"]),
    )


def check(
    env: Environment, rule: dict[str, Any], tool: str, kept: dict[str, Any], broke: dict[str, Any]
) -> None:
    ok, error, changed = run(env, rule, tool, broke)
    assert (ok, error, changed) == (False, rule["reason"], False)
    ok, error, changed = run(env, rule, tool, kept)
    assert ok and changed, error


def test_a_quota_counts_the_owners_rows(grooming: Environment):
    ranked = owners_by_bookings(grooming)
    (few, light), (many, heavy) = ranked[0], ranked[-1]
    assert many > few
    rule = {
        "kind": "quota",
        "tool": "book_appointment",
        "table": "appointments",
        "owner": "owner_id",
        "at_most": many,
        "reason": f"an owner can hold at most {many} appointments",
    }
    check(grooming, rule, "book_appointment", booking(grooming, light), booking(grooming, heavy))


def test_a_quota_per_period_counts_only_recent_rows(grooming: Environment):
    _, heavy = owners_by_bookings(grooming)[-1]
    rule = {
        "kind": "quota",
        "tool": "book_appointment",
        "table": "appointments",
        "owner": "owner_id",
        "at_most": 1,
        "period_days": 36500,
        "since": "booked_at",
        "reason": "one booking per century",
    }
    ok, error, _ = run(grooming, rule, "book_appointment", booking(grooming, heavy))
    assert (ok, error) == (False, "one booking per century")
    assert run(grooming, {**rule, "period_days": 0}, "book_appointment", booking(grooming, heavy))[0]


def test_an_eligibility_rule_reads_the_other_entity(grooming: Environment):
    owners = [o for _, o in owners_by_bookings(grooming)]
    tiers = sorted({o["loyalty"] for o in owners})
    assert len(tiers) > 1
    good = next(o for o in owners if o["loyalty"] == tiers[0])
    bad = next(o for o in owners if o["loyalty"] != tiers[0])
    rule = {
        "kind": "eligibility",
        "tool": "book_appointment",
        "other": "owners",
        "via": "owner_id",
        "column": "loyalty",
        "allowed": [tiers[0]],
        "reason": f"only {tiers[0]} members can book online",
    }
    check(grooming, rule, "book_appointment", booking(grooming, good), booking(grooming, bad))


def test_mutually_exclusive_states(grooming: Environment):
    appointments = rows(grooming, "appointments")
    owners = [o for _, o in owners_by_bookings(grooming)]
    busy = next(
        o
        for o in owners
        if any(a["owner_id"] == o["owner_id"] and a["status"] == "confirmed" for a in appointments)
    )
    free = next(
        o
        for o in owners
        if not any(a["owner_id"] == o["owner_id"] and a["status"] == "confirmed" for a in appointments)
    )
    rule = {
        "kind": "exclusive",
        "tool": "book_appointment",
        "table": "appointments",
        "owner": "owner_id",
        "column": "status",
        "states": ["confirmed"],
        "reason": "an owner with a confirmed appointment cannot book another",
    }
    check(grooming, rule, "book_appointment", booking(grooming, free), booking(grooming, busy))


@pytest.mark.parametrize("side", ["before", "after"])
def test_a_time_window_around_an_event(grooming: Environment, side: str):
    clock = grooming.bundle().spec["clock"]
    row = next(
        a
        for a in rows(grooming, "appointments")
        if a["status"] in ("requested", "confirmed") and a["day"] > clock[:10]
    )
    column = "day" if side == "before" else "booked_at"
    rule = {
        "kind": "window",
        "tool": "cancel_appointment",
        "table": "appointments",
        "key": "appointment_id",
        "column": column,
        "side": side,
        "hours": 24,
        "reason": "outside the cancellation window",
    }
    args = {"appointment_id": row["appointment_id"], "cancel_reason": "schedule conflict"}
    wide = (
        24 * 365 * 5
    )  # before: the day is never five years ahead; after: always within five years of booking
    kept, broke = (
        ({**rule, "hours": 0}, {**rule, "hours": wide})
        if side == "before"
        else ({**rule, "hours": wide}, {**rule, "hours": 0})
    )
    ok, error, changed = run(grooming, broke, "cancel_appointment", args)
    assert (ok, error, changed) == (False, "outside the cancellation window", False)
    ok, error, changed = run(grooming, kept, "cancel_appointment", args)
    assert ok and changed, error


def test_an_amount_limit(mini_env: Environment):
    transfer = {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 100}
    rule = {
        "kind": "amount",
        "tool": "transfer",
        "argument": "amount_cents",
        "at_most": 5000,
        "reason": "transfers above $50 need a branch visit",
    }
    check(mini_env, rule, "transfer", transfer, {**transfer, "amount_cents": 5001})


def test_every_kind_is_tested_and_an_unknown_one_is_a_fault(grooming: Environment):
    assert KINDS == ("amount", "quota", "window", "eligibility", "exclusive")
    declared = [m.model_fields["kind"].default for m in BusinessRule.__origin__.__args__]  # type: ignore[attr-defined]
    assert tuple(declared) == KINDS
    spec = dict(copy.deepcopy(grooming.bundle().spec))
    spec["policy_rules"] = {
        **spec["policy_rules"],
        "rules": [{"kind": "vibes", "tool": "confirm_appointment", "reason": "no"}],
    }
    session = grooming.new_session()
    try:
        out = Toolbox(spec, grooming.tools_module).call(
            session.db, "confirm_appointment", {"appointment_id": "appointment_0001"}
        )
    finally:
        session.close()
    assert not out.ok and out.internal and "unknown rule kind 'vibes'" in (out.error or "")


def test_a_quota_among_states_and_a_rule_matching_more_columns(grooming: Environment):
    """A quota may count only rows in some states (two open bookings at a time), and a
    quota or exclusive rule may also match further columns to the call's arguments (one
    open booking per owner *and groomer*)."""
    appointments = rows(grooming, "appointments")
    owners = {o["owner_id"]: o for _, o in owners_by_bookings(grooming)}
    opened = next(
        a for a in appointments if a["status"] in ("requested", "confirmed") and a["owner_id"] in owners
    )
    owner = owners[opened["owner_id"]]
    states = {
        "kind": "quota",
        "tool": "book_appointment",
        "table": "appointments",
        "owner": "owner_id",
        "at_most": 1,
        "column": "status",
        "states": ["requested", "confirmed"],
        "reason": "one open booking at a time",
    }
    args = booking(grooming, owner)
    assert run(grooming, states, "book_appointment", args)[:2] == (False, "one open booking at a time")
    assert run(grooming, {**states, "states": ["no such state"]}, "book_appointment", args)[0]
    same = {**states, "kind": "exclusive", "also": ["groomer_id"], "reason": "not the same groomer twice"}
    del same["at_most"]
    taken = {**args, "groomer_id": opened["groomer_id"]}
    assert run(grooming, same, "book_appointment", taken)[:2] == (False, "not the same groomer twice")
    other = next(
        g["groomer_id"] for g in rows(grooming, "groomers") if g["groomer_id"] != opened["groomer_id"]
    )
    busy = {
        a["groomer_id"]
        for a in appointments
        if a["owner_id"] == owner["owner_id"] and a["status"] in ("requested", "confirmed")
    }
    if other not in busy:
        assert run(grooming, same, "book_appointment", {**args, "groomer_id": other})[0]


def test_the_tools_own_refusal_comes_first(grooming: Environment):
    """A call both the tool and a declared rule refuse is refused with the tool's reason (a
    cancelled appointment is refused as cancelled, not as too late); one only the rule
    refuses gets the rule's reason; either way nothing changes."""
    clock = grooming.bundle().spec["clock"]
    rule = {
        "kind": "window",
        "tool": "cancel_appointment",
        "table": "appointments",
        "key": "appointment_id",
        "column": "booked_at",
        "side": "after",
        "hours": 0,
        "reason": "too late to cancel",
    }
    appointments = [a for a in rows(grooming, "appointments") if a["booked_at"] < clock]
    done = next(a for a in appointments if a["status"] == "cancelled")
    ok, error, changed = run(
        grooming,
        rule,
        "cancel_appointment",
        {"appointment_id": done["appointment_id"], "cancel_reason": "plans changed"},
    )
    assert not ok and not changed and error != "too late to cancel" and "cancel" in error.lower()
    live = next(a for a in appointments if a["status"] in ("requested", "confirmed"))
    ok, error, changed = run(
        grooming,
        rule,
        "cancel_appointment",
        {"appointment_id": live["appointment_id"], "cancel_reason": "plans changed"},
    )
    assert (ok, error, changed) == (False, "too late to cancel", False)
