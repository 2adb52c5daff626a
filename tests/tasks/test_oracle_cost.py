"""The oracle's cheaper paths give what the plain ones gave (issue 32): pools probed with
every call rolled back, the gold diff read from the changed rows only, remembered seed
lookups that draw the same values with the same random numbers, calls and refusals on the
seed state made once and given again."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime import CallOutcome, Toolbox, diff_states, dump_state, hash_state
from envfactory_mcp.runtime.database import GuardedConnection
from envfactory_mcp.runtime.rules import broken
from envfactory_mcp.runtime.state import table_digest
from envfactory_mcp.seeddata import ParamInfo, SeedData, home_tables, record_row, valid_arguments
from envfactory_mcp.spec import dump_spec
from envfactory_mcp.tasks import oracle as oracle_module
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.oracle import Oracle

WRITES = ["cancel_pending_order", "modify_pending_order_address", "return_delivered_order_items"]


def committed_pool(
    oracle: Oracle, tool: str, breakers: dict[int, list[Any]] | None = None
) -> list[dict[str, object]]:
    """``Oracle.viable`` as it was: every call committed, the seed reloaded after a write;
    the calls the toolbox refuses that exactly one declared rule refuses and the tool takes
    without the rules go to ``breakers`` (rule index -> calls)."""
    rng = random.Random(f"pool:{oracle.seed}:{tool}")
    found: list[dict[str, object]] = []
    plain = Toolbox(oracle.spec_json, oracle.env.tools_module)
    unruled = Toolbox({**oracle.spec_json, "policy_rules": {"rules": []}}, oracle.env.tools_module)
    clock = oracle.spec_json["clock"]
    seen: set[str] = set()
    stale = 0
    for _ in range(oracle.pool_attempts):
        if len(found) >= oracle.pool_size or stale > 100:
            break
        args = oracle.draw(tool, rng)  # the draws of ``viable``
        key = repr(sorted(args.items()))
        if key in seen or not oracle.validators[tool].is_valid(args):
            stale += 1
            continue
        stale = 0
        seen.add(key)
        oracle.session.reset()
        db = oracle.session.db
        if plain.call(db, tool, args).ok:
            found.append(args)
            continue
        oracle.session.reset()
        hits = [
            i
            for i, r in enumerate(oracle.business_rules)
            if r["tool"] == tool and broken([r], db, tool, args, clock) is not None
        ]
        if breakers is not None and len(hits) == 1 and unruled.call(db, tool, args).ok:
            breakers.setdefault(hits[0], []).append(args)
    return found


def test_pools_probed_with_rolled_back_calls_are_the_pools_of_committed_calls(
    retail_env: Environment,
) -> None:
    probed = Oracle(retail_env, seed=4, pool_size=24, pool_attempts=300)
    committed = Oracle(retail_env, seed=4, pool_size=24, pool_attempts=300)
    for tool in WRITES:
        pool = probed.viable(tool)
        assert pool, tool
        breakers: dict[int, list[Any]] = {}
        assert pool == committed_pool(committed, tool, breakers)
        # The breakers noted among the draws (the tool run once, the rules read beside it)
        # are those the toolbox refuses, one rule alone refuses and the tool takes.
        assert {rule: calls for (name, rule), calls in probed.breakers.items() if name == tool} == breakers
        # Probing changed nothing: the session is the seed, by hash and by rows.
        assert probed.session.hash() == retail_env.seed_hash
        assert probed.session.dump() == retail_env.seed_state
        # And each pooled call does succeed, for real, on the seed.
        for args in pool[:5]:
            session = retail_env.new_session()
            assert retail_env.toolbox().call(session.db, tool, args).ok, (tool, args)
            session.close()


def test_the_gold_diff_read_from_changed_rows_is_the_diff_of_whole_states(retail_env: Environment) -> None:
    tasks, _ = generate_tasks(retail_env, 12, seed=21)
    oracle = Oracle(retail_env, seed=21)
    writes = 0
    for task in tasks:
        oracle.session.reset()
        for action in task.gold.actions:
            assert oracle.toolbox.call(oracle.session.db, action.name, action.arguments).ok
        whole = diff_states(retail_env.seed_state, dump_state(oracle.session.db), retail_env.primary_keys)
        assert oracle.seed_diff() == whole == task.gold.diff, task.task_id
        writes += bool(whole)
    assert writes >= 3  # the comparison covered real changes, not only empty diffs


def test_the_gold_diff_falls_back_to_whole_states_when_the_changed_keys_are_not_all_known(
    retail_env: Environment,
) -> None:
    oracle = Oracle(retail_env, seed=0)
    oracle.session.reset()
    user = retail_env.seed_state["users"][0]
    address = {
        "address1": "1 Elm St",
        "address2": "",
        "city": "Dover",
        "state": "DE",
        "country": "USA",
        "zip": "19901",
    }
    outcome = oracle.toolbox.call(
        oracle.session.db, "modify_user_address", {"user_id": user["user_id"], **address}
    )
    assert outcome.ok, outcome.error
    oracle.session.hash()
    oracle.session._touched = {}  # the changed keys lost: the hash no longer agrees with them
    whole = diff_states(retail_env.seed_state, dump_state(oracle.session.db), retail_env.primary_keys)
    assert whole["users"]["updated"]
    assert oracle.seed_diff() == whole


def test_remembered_home_rows_draw_what_record_row_draws(retail_env: Environment) -> None:
    oracle = Oracle(retail_env, seed=0)
    data = oracle.data
    for tool, params in oracle.params.items():
        home = home_tables(params, data)
        assert data.home_of(params)[0] == home
        for seed in range(40):
            rng = random.Random(seed)
            anchor = rng.randrange(len(data.rows))
            levels = data.related(anchor)
            plain, remembered = random.Random(seed * 7), random.Random(seed * 7)
            expected = record_row(params, levels, data, home, plain)
            got = data.record_near(anchor, levels, home, remembered) if data.home_of(params)[1] else None
            assert got == expected, (tool, seed)
            assert plain.getstate() == remembered.getstate(), (tool, seed)


def full_walk(data: SeedData, anchor: int, depth: int, per_level: int) -> list[list[int]]:
    """``SeedData.related`` as it was: every level walked whole, then cut at ``per_level``."""
    levels, seen = [[anchor]], {anchor}
    for _ in range(depth):
        nxt: list[int] = []
        for index in levels[-1]:
            table, row = data.rows[index]
            for col, entity in data.table_columns[table].items():
                if entity and row.get(col) is not None:
                    for other in data.by_value[(entity, row[col])]:
                        if other not in seen:
                            seen.add(other)
                            nxt.append(other)
        if not nxt:
            break
        levels.append(nxt[:per_level])
    return levels


@pytest.mark.parametrize("per_level", [1, 7, 300])
def test_related_rows_are_the_whole_walk_cut_per_level(retail_env: Environment, per_level: int) -> None:
    """The last level's walk stops once it holds ``per_level`` rows: the levels are those
    of walking every level whole and cutting each."""
    data = Oracle(retail_env, seed=0).data
    for anchor in range(0, len(data.rows), 7):
        for depth in (1, 2, 3):
            assert data.related(anchor, depth, per_level) == full_walk(data, anchor, depth, per_level), (
                anchor,
                depth,
            )


def plain_column_values(
    data: SeedData, rows: list[int], param: ParamInfo, tables: set[str] | None
) -> list[Any]:
    """``SeedData.column_values`` as it was: each row read in turn."""
    found: dict[Any, None] = {}
    for index in rows:
        table, row = data.rows[index]
        if param.entity:
            columns = [c for c, e in data.table_columns[table].items() if e == param.entity]
        elif tables is None or table in tables:
            columns = [param.name]
        else:
            columns = []
        for col in columns:
            if row.get(col) is not None:
                found[row[col]] = None
    return list(found)


def test_column_values_read_from_remembered_rows_are_those_of_each_row_read(retail_env: Environment) -> None:
    """Each row's values of an entity (of a column, in some tables) are taken once: the
    values of a set of rows are still those of reading each row, in order, first kept."""
    data = Oracle(retail_env, seed=0).data
    rng = random.Random(3)
    entities = sorted({e for cols in data.table_columns.values() for e in cols.values() if e})
    names = sorted({c for cols in data.table_columns.values() for c in cols})
    homes: list[set[str] | None] = [None, {"users"}, {"orders", "users"}, set()]
    for _ in range(300):
        rows = [rng.randrange(len(data.rows)) for _ in range(rng.choice([1, 5, 40, 300]))]
        entity = ParamInfo("x", {}, True, rng.choice(entities))
        assert data.column_values(rows, entity) == plain_column_values(data, rows, entity, None)
        column, home = ParamInfo(rng.choice(names), {}, True, None), rng.choice(homes)
        assert data.column_values(rows, column, home) == plain_column_values(data, rows, column, home)


def test_drawn_arguments_do_not_depend_on_what_was_drawn_before(retail_env: Environment) -> None:
    """Caches fill as draws go: a tool's draws from a fresh ``SeedData`` equal its draws
    after every other tool's draws filled them."""
    warm = Oracle(retail_env, seed=0)
    for tool, params in warm.params.items():
        rng = random.Random(f"warm:{tool}")
        for _ in range(50):
            valid_arguments(params, warm.data, rng)
    for tool in warm.params:
        cold = Oracle(retail_env, seed=0)
        a, b = random.Random(f"t:{tool}"), random.Random(f"t:{tool}")
        assert [valid_arguments(cold.params[tool], cold.data, a) for _ in range(60)] == [
            valid_arguments(warm.params[tool], warm.data, b) for _ in range(60)
        ], tool


def counted(oracle: Oracle, toolbox: str) -> list[str]:
    """The names of the tools ``oracle``'s ``toolbox`` (an attribute name) runs from now on."""
    made: list[str] = []
    box = getattr(oracle, toolbox)
    call: Callable[..., CallOutcome] = box.call

    def counting(db: Any, name: str, args: dict[str, Any]) -> CallOutcome:
        made.append(name)
        return call(db, name, args)

    box.call = counting
    return made


def test_calls_on_the_seed_are_made_once_and_given_again_as_fresh_copies(retail_env: Environment) -> None:
    oracle = Oracle(retail_env, seed=0)
    made = counted(oracle, "toolbox")
    order = next(o for o in retail_env.seed_state["orders"] if o["status"] == "pending")
    args = {"order_id": order["order_id"]}
    oracle.reset()
    first = oracle.call("get_order_details", args)
    again = oracle.call("get_order_details", dict(args))
    assert first.ok and again.ok and made == ["get_order_details"]
    assert again.output == first.output and again.output is not first.output  # a copy to keep
    assert again.output is not None and list(again.output) == list(first.output or {})
    # A call the tool refuses on the seed leaves it so: kept too.
    missing = {"order_id": "#W0000000"}
    assert not oracle.call("get_order_details", missing).ok
    assert not oracle.call("get_order_details", missing).ok
    assert made == ["get_order_details"] * 2
    # After a write the state is not the seed: every call is made.
    cancel = {"order_id": order["order_id"], "reason": "no longer needed"}
    assert oracle.call("cancel_pending_order", cancel).ok
    after = oracle.call("get_order_details", args)
    assert after.ok and after.output != first.output and made[-1] == "get_order_details"
    assert len(made) == 4
    oracle.reset()  # the seed again: what was kept is given
    assert oracle.call("get_order_details", args).output == first.output and len(made) == 4


def test_refusals_on_the_seed_are_asked_once_and_leave_the_seed(retail_env: Environment) -> None:
    oracle = Oracle(retail_env, seed=0, pool_size=24, pool_attempts=300)
    tool = "return_delivered_order_items"
    rule = next(i for i, r in enumerate(oracle.business_rules) if r["tool"] == tool)
    calls = oracle.breaking(tool, rule)
    assert calls
    oracle.reset()
    made = counted(oracle, "unruled")
    reason = oracle.refusal(tool, rule, calls[0])
    assert reason == oracle.business_rules[rule]["reason"] and made == [tool]
    assert oracle.refusal(tool, rule, dict(calls[0])) == reason and made == [tool]
    # The call was rolled back: the session is still the seed, and known to be.
    assert oracle.session.hash() == retail_env.seed_hash
    reads = counted(oracle, "toolbox")
    oracle.call("get_order_details", {"order_id": calls[0]["order_id"]})
    oracle.reset()
    oracle.call("get_order_details", {"order_id": calls[0]["order_id"]})
    assert reads == ["get_order_details"]


def test_tasks_are_the_same_when_no_call_is_kept(
    retail_env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, _ = generate_tasks(retail_env, 10, seed=5, pool_cache=False)
    monkeypatch.setattr(oracle_module, "SEED_CALLS_MAX", 0)
    made, _ = generate_tasks(retail_env, 10, seed=5, pool_cache=False)
    assert [t.to_line() for t in kept] == [t.to_line() for t in made]


def test_the_spec_is_dumped_once_and_each_bundle_holds_its_own_copy(retail_env: Environment) -> None:
    assert retail_env.spec_text == dump_spec(retail_env.spec)
    first, second = retail_env.bundle().spec, retail_env.bundle().spec
    assert first == second == json.loads(dump_spec(retail_env.spec)) and first is not second


def test_pools_read_back_make_no_probing_toolbox(retail_env: Environment) -> None:
    built = Oracle(retail_env, seed=2, pool_size=8, pool_attempts=100)
    pool = built.viable("get_order_details")
    assert pool and "unruled" in vars(built)
    read = Oracle(retail_env, seed=2, pool_size=8, pool_attempts=100)
    read.restore_pools(built.pool_state())
    assert read.viable("get_order_details") == pool
    assert "unruled" not in vars(read)


def test_reading_the_rules_keeps_the_tools_statements_compiled(
    retail_env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The oracle reads the declared rules (for pools, breakers, refusals) and the changed
    rows (for the gold diff) as the runtime's own statements: setting the authorizer again,
    which expires every compiled statement of the session, is not needed between calls."""
    oracle = Oracle(retail_env, seed=0, pool_size=24, pool_attempts=300)
    tool = "return_delivered_order_items"
    rule = next(i for i, r in enumerate(oracle.business_rules) if r["tool"] == tool)
    oracle.viable("get_order_details")  # the session's first call compiles under its authorizer
    expired: list[object] = []
    original = GuardedConnection.set_authorizer

    def counting(self: GuardedConnection, callback: Any, /) -> None:
        expired.append(callback)
        original(self, callback)

    monkeypatch.setattr(GuardedConnection, "set_authorizer", counting)
    calls = oracle.breaking(tool, rule)
    assert calls and oracle.viable(tool)
    oracle.reset()
    assert oracle.refusal(tool, rule, calls[0]) is not None
    order = next(o for o in retail_env.seed_state["orders"] if o["status"] == "pending")
    assert oracle.call(
        "cancel_pending_order", {"order_id": order["order_id"], "reason": "no longer needed"}
    ).ok
    assert oracle.seed_diff()
    assert oracle.call("get_order_details", {"order_id": order["order_id"]}).ok
    assert expired == []


def test_the_seed_digests_kept_are_those_of_the_seed_state(retail_env: Environment) -> None:
    """The oracle's gold diff reads the environment's seed digests instead of hashing every
    seed row again: they are each table's digest, and the seed hash is made of them."""
    assert retail_env.seed_digests == {t: table_digest(rows) for t, rows in retail_env.seed_state.items()}
    assert retail_env.seed_hash == hash_state(retail_env.seed_state)


def test_pool_draws_are_about_objects_a_declared_refusal_allows(retail_env: Environment) -> None:
    """A write with a declared state refusal (only a delivered order's items can be
    exchanged) is drawn around an object in an allowed state: every such object can be
    drawn, no other, and most draws name one; a tool without a refusal draws as before."""
    oracle = Oracle(retail_env, seed=2)
    data = oracle.data
    refusals = retail_env.spec.policy_rules.refusals
    assert refusals
    for rule in refusals:
        strata = oracle.anchor_strata(rule.tool)
        assert strata, rule.tool
        table = data.owner[rule.entity][0]
        allowed = {i for i in data.by_table[table] if data.rows[i][1][rule.column] in rule.allowed}
        assert {i for stratum in strata for i in stratum} == allowed, rule.tool
        param = next(p.name for p in oracle.params[rule.tool] if p.entity == rule.entity)
        rng = random.Random(5)
        states = [
            data.rows[row][1][rule.column]
            if (row := data.owner_row(rule.entity, args.get(param))) is not None
            else None
            for args in (oracle.draw(rule.tool, rng) for _ in range(200))
        ]
        assert sum(s in rule.allowed for s in states) >= 160, (rule.tool, states)
    assert oracle.anchor_strata("get_order_details") is None
    rng, again = random.Random(7), random.Random(7)
    params = oracle.params["get_order_details"]
    assert [oracle.draw("get_order_details", rng) for _ in range(20)] == [
        valid_arguments(params, data, again) for _ in range(20)
    ]


def test_a_write_s_pool_fills_from_few_draws(retail_env: Environment) -> None:
    """Drawn around delivered orders, a pool of exchanges fills from a few hundred draws
    (drawn around any order, 2000 draws found 81 of 96: 19 in 20 named an order in
    another state)."""
    oracle = Oracle(retail_env, seed=3, pool_size=96, pool_attempts=600)
    for tool in (
        "exchange_delivered_order_items",
        "return_delivered_order_items",
        "modify_pending_order_items",
    ):
        assert len(oracle.viable(tool)) == 96, tool


def test_a_refused_object_drawn_from_around_another_is_drawn_as_before() -> None:
    """An answer to an event is drawn from around the employee who answers it (the first
    parameter with rows): its refusal on the event's state does not anchor the draws on
    events, which would draw each event's organiser as the one answering, whom most
    answers refuse or who has no invitation. The draws are ``valid_arguments``' and the
    pool is fuller than when anchored on events (93 of 96 at seed 0; 56 then)."""
    from paths import SERVERS_DIR

    from envfactory_mcp.catalog import load_environment

    env = load_environment("workplace", SERVERS_DIR, allow_unverified=True).env
    oracle = Oracle(env, seed=0)
    rules = [r for r in env.spec.policy_rules.refusals if r.tool == "respond_to_event"]
    assert rules and rules[0].entity == "event"
    assert oracle.anchor_strata("respond_to_event") is None
    rng, again = random.Random(7), random.Random(7)
    params = oracle.params["respond_to_event"]
    assert [oracle.draw("respond_to_event", rng) for _ in range(20)] == [
        valid_arguments(params, oracle.data, again) for _ in range(20)
    ]
    assert len(oracle.viable("respond_to_event")) >= 80
