"""Calls the oracle has made on a state are given again, not run again (issue 32): a read
after the same writes from the seed (``Oracle.call``'s trace of the writes since a reset),
and a read a pool tried on the seed (``Oracle.viable`` and ``Oracle.call`` share what a
read no declared rule is on gives there)."""

from __future__ import annotations

from typing import Any

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime import CallOutcome, Toolbox
from envfactory_mcp.tasks import oracle as oracle_module
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.oracle import Oracle


def counting(oracle: Oracle, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, dict[str, Any]]]:
    """Every call a toolbox runs, as (id of the toolbox, tool, arguments)."""
    ran: list[tuple[int, str, dict[str, Any]]] = []
    original = Toolbox.call

    def call(self: Toolbox, db: Any, name: str, arguments: Any) -> CallOutcome:
        if not getattr(self, "uncounted", False):
            ran.append((id(self), name, dict(arguments or {})))
        return original(self, db, name, arguments)

    monkeypatch.setattr(Toolbox, "call", call)
    return ran


def pending_orders(env: Environment) -> list[str]:
    return [o["order_id"] for o in env.seed_state["orders"] if o["status"] == "pending"]


def fresh(env: Environment, oracle: Oracle, tool: str, args: dict[str, Any]) -> CallOutcome:
    """What the tool gives when run (the cache aside): on the session's state now."""
    toolbox = Toolbox(oracle.spec_json, env.tools_module)
    toolbox.uncounted = True  # type: ignore[attr-defined]
    return toolbox.call(oracle.session.db, tool, args)


def test_a_read_after_the_same_writes_is_given_again(
    retail_env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    oracle = Oracle(retail_env, seed=0)
    first, second = pending_orders(retail_env)[:2]
    cancel = {"order_id": first, "reason": "no longer needed"}
    ran = counting(oracle, monkeypatch)

    oracle.reset()
    assert oracle.call("cancel_pending_order", cancel).ok
    oracle.hash()  # draining the change logs leaves the rows, and what is known of them
    seen = oracle.call("get_order_details", {"order_id": first})
    assert seen.ok and seen.output is not None and seen.output["status"] == "cancelled"
    assert len(ran) == 2

    oracle.reset()
    assert oracle.call("cancel_pending_order", cancel).ok  # a write always runs
    again = oracle.call("get_order_details", {"order_id": first})
    assert len(ran) == 3  # the read was not run again
    assert again == seen and again.output is not seen.output  # a fresh copy of its output
    assert again == fresh(retail_env, oracle, "get_order_details", {"order_id": first})

    # Other writes make another state: nothing given from the first.
    oracle.reset()
    assert oracle.call("cancel_pending_order", {"order_id": second, "reason": "no longer needed"}).ok
    other = oracle.call("get_order_details", {"order_id": first})
    assert len(ran) == 5 and other.output is not None and other.output["status"] == "pending"

    # A write the tool refuses leaves the state as it was: what follows is still known.
    oracle.reset()
    assert oracle.call("cancel_pending_order", cancel).ok
    refused = oracle.call("cancel_pending_order", cancel)  # already cancelled
    assert not refused.ok
    before = len(ran)
    assert oracle.call("get_order_details", {"order_id": first}) == seen
    assert oracle.call("cancel_pending_order", cancel) == refused
    assert len(ran) == before


def test_a_state_changed_behind_the_oracle_is_not_taken_for_a_known_one(
    retail_env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    oracle = Oracle(retail_env, seed=0)
    order = pending_orders(retail_env)[0]
    oracle.reset()
    assert oracle.call("cancel_pending_order", {"order_id": order, "reason": "no longer needed"}).ok
    assert oracle.call("get_order_details", {"order_id": order}).ok
    # a write the oracle did not make: the state it knew is gone
    with oracle.session.db:
        oracle.session.db.execute(
            "UPDATE orders SET status = 'pending', cancel_reason = NULL WHERE order_id = ?", (order,)
        )
    ran = counting(oracle, monkeypatch)
    outcome = oracle.call("get_order_details", {"order_id": order})
    assert len(ran) == 1 and outcome.output is not None and outcome.output["status"] == "pending"


def test_a_read_tried_for_a_pool_is_not_run_again_on_the_seed(
    retail_env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    oracle = Oracle(retail_env, seed=0, pool_size=12, pool_attempts=200)
    ran = counting(oracle, monkeypatch)
    pool = oracle.viable("get_order_details")
    tried = len(ran)
    assert pool and tried >= len(pool)
    oracle.reset()
    for args in pool:
        outcome = oracle.call("get_order_details", args)
        assert outcome.ok and outcome == fresh(retail_env, oracle, "get_order_details", args)
    assert len(ran) == tried  # every one given from what the pool's trial kept
    # and the other way round: a read ``call`` made on the seed is not run again for a pool
    other = Oracle(retail_env, seed=0, pool_size=12, pool_attempts=200)
    other.reset()
    for args in pool:
        other.call("get_order_details", args)
    before = len(ran)
    assert other.viable("get_order_details") == pool
    assert not [args for _, _, args in ran[before:] if args in pool]


def test_tasks_are_the_same_when_no_call_after_a_write_is_kept(
    retail_env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, _ = generate_tasks(retail_env, 10, seed=5, pool_cache=False)
    monkeypatch.setattr(oracle_module, "TRACE_CALLS_MAX", 0)
    monkeypatch.setattr(oracle_module, "SEED_CALLS_MAX", 0)
    made, _ = generate_tasks(retail_env, 10, seed=5, pool_cache=False)
    assert [t.to_line() for t in kept] == [t.to_line() for t in made]
