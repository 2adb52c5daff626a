"""Oracle execution: turn a sampled chain into concrete gold actions on the seed state.

For each goal step the oracle draws arguments that really work on the seed (a user who
really has a delivered order with an exchangeable item): candidates come from related
seed rows (``envfactory_mcp.seeddata``) and are kept once the real tool code accepts them.
Then the whole chain runs through the environment's own toolbox from a fresh seed state:
every parameter bound to an earlier step is read from that step's real output (and must
contain the goal's value), every parameter the user types comes from the user's own
rows. The result is the gold actions, the gold final state (hash and diff), and which
values the user had to know.

A chain is rejected (``Rejected`` with a reason code) when a parameter is neither known
to the user nor returned by an earlier step, a step fails, an earlier step's output does
not contain the goal's value, or a chain with writes leaves the state unchanged.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import jsonschema_rs

from envfactory_mcp.env import Environment
from envfactory_mcp.graph.build import split_tool_id
from envfactory_mcp.graph.sample import Chain
from envfactory_mcp.runtime import CallOutcome, Toolbox, diff_states, dump_state
from envfactory_mcp.runtime.database import runtime_statements
from envfactory_mcp.runtime.rules import broken
from envfactory_mcp.runtime.state import (
    DIGEST_MODULUS,
    State,
    TableInfo,
    hash_digests,
    row_digest,
    table_digest,
    table_infos,
)
from envfactory_mcp.seeddata import ParamInfo, SeedData, tool_params, valid_arguments
from envfactory_mcp.spec import EnvSpec, ToolSpec

GoalFilter = Callable[[dict[str, Any]], bool]

SEED_CALLS_MAX = 4096  # calls on the seed state whose outcome ``Oracle.call`` (``refusal``) keeps
TRACE_CALLS_MAX = 4096  # calls on a state the writes since the seed made whose outcome ``Oracle.call`` keeps


def _keepable(outcome: CallOutcome) -> bool:
    """Whether a call's outcome may be given again for the same call on the same state: not
    a broken tool or a time limit (not the request's outcome), and an output kept as text."""
    return not outcome.internal and (outcome.output is None or outcome.text is not None)


class Rejected(Exception):
    """The chain cannot become a valid task; ``code`` says why, for the statistics."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class GoldAction:
    server: str
    tool: str
    arguments: dict[str, Any]
    output: dict[str, Any]


@dataclass(frozen=True)
class UserValue:
    """A value the user typed into the conversation (it went into a tool unchanged)."""

    step: int
    param: str
    value: Any
    entity: str | None


@dataclass
class OracleRun:
    chain: Chain
    actions: list[GoldAction]
    user_values: list[UserValue]
    looked_up: list[tuple[int, str, str, Any]]  # (step, param, entity, value) the agent had to find
    persona: dict[str, Any] | None  # the persona's own row, when the domain has one
    initial_hash: str
    final_hash: str
    writes: int
    # step -> the reason of the declared rule that refuses it: a write the user asks for
    # that a business rule forbids (the call is not made; issue 31)
    refused: dict[int, str] = field(default_factory=dict)


@dataclass
class Oracle:
    """Runs chains of one environment. Deterministic for a given seed."""

    env: Environment
    seed: int = 0
    pool_size: int = 96
    pool_attempts: int = 2000
    pools: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # (tool, rule index) -> calls on the seed that the tool takes but that rule refuses
    breakers: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    _searched: set[tuple[str, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.server = self.env.spec.name
        self.spec_json = json.loads(self.env.spec_text)
        self.data = SeedData(self.spec_json, self.env.seed_state)
        self.toolbox = Toolbox(self.spec_json, self.env.tools_module)  # ``env.toolbox()``
        rules = (self.spec_json.get("policy_rules") or {}).get("rules") or []
        self.business_rules: list[Mapping[str, Any]] = list(rules)
        self.session = self.env.new_session()
        self.tools: dict[str, ToolSpec] = {t.name: t for t in self.env.spec.tools}
        self.params: dict[str, list[ParamInfo]] = {t["name"]: tool_params(t) for t in self.spec_json["tools"]}
        self.validators = {
            t.name: jsonschema_rs.Draft202012Validator(t.input_schema) for t in self.env.spec.tools
        }
        self.persona_entity = persona_entity_of(self.env.spec)
        self._seed_changes: int | None = None  # SQLite's total_changes right after the last reset
        self._personas: dict[tuple[str, int], Any] = {}  # (tool, id of a pooled call) -> its persona
        self._pool_objects: dict[tuple[str, int], set[tuple[str, str]]] = {}  # (tool, id of a pooled call)
        self._owner_groups: dict[str, dict[Any, list[dict[str, Any]]] | None] = {}  # tool -> owner -> calls
        self._owner_keys: dict[str, set[str]] = {}  # tool -> repr of the owner of each call of its pool
        self._seed_digests: dict[str, int] | None = None  # each table's digest in the seed
        self._infos: dict[str, TableInfo] | None = None  # the session's tables
        self._seed_rows: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}  # table -> key -> seed row
        self._seed_calls: dict[tuple[str, str], CallOutcome] = {}  # (tool, its arguments' repr) on the seed
        self._seed_refusals: dict[tuple[str, int, str], str | None] = {}  # ``refusal`` on the seed
        # The calls (tool, its arguments' repr) that changed the session since the seed, in
        # order, while known: valid while SQLite's total_changes is ``_trace_changes``.
        self._trace: tuple[tuple[str, str], ...] | None = None
        self._trace_changes = -1
        self._trace_calls: dict[tuple[tuple[tuple[str, str], ...], str, str], CallOutcome] = {}
        self._anchor_strata: dict[str, list[list[int]] | None] = {}  # ``anchor_strata``, per tool

    def call(self, tool: str, args: dict[str, Any]) -> CallOutcome:
        """``self.toolbox.call`` on the session. A call made on the seed state that leaves
        it so (a read, a refused write) gives the same outcome every time: it is kept (up to
        ``SEED_CALLS_MAX`` calls) and given again, its output a fresh copy, without running
        the tool (the chains' lookups repeat: half the calls of ``tasks retail``).

        So is a call that leaves the state as it is on a state the oracle's own calls made
        from the seed (``_trace``: the writes that went through since the last reset, in
        order; the tools are deterministic, so the same writes from the seed make the same
        state): up to ``TRACE_CALLS_MAX`` of them. A chain's lookups after its writes
        repeat when the gold is replayed and when another attempt draws the same goal."""
        db = self.session.db
        changes = db.total_changes
        at_seed = self._seed_changes is not None and changes == self._seed_changes
        trace = self._trace if changes == self._trace_changes else None
        shape = repr(sorted(args.items())) if at_seed or trace is not None else ""
        key = (tool, shape)
        kept = self._seed_calls.get(key) if at_seed else None
        if kept is None and trace:  # a state the writes since the seed made
            kept = self._trace_calls.get((trace, tool, shape))
        if kept is not None:
            return kept if kept.text is None else replace(kept, output=json.loads(kept.text))
        outcome = self.toolbox.call(db, tool, args)
        keep = _keepable(outcome)
        if (
            at_seed
            and db.total_changes == self._seed_changes  # still the seed
            and keep
            and len(self._seed_calls) < SEED_CALLS_MAX
        ):
            self._seed_calls[key] = outcome
        if trace is None:
            self._trace = None  # the state is not known: nothing is kept until a reset
            return outcome
        spec = self.tools.get(tool)
        if outcome.ok and spec is not None and spec.effect == "write":  # committed
            self._trace = (*trace, (tool, shape))
        elif trace and keep and len(self._trace_calls) < TRACE_CALLS_MAX:
            # a read, or a call refused and rolled back: the state is as it was
            self._trace_calls[trace, tool, shape] = outcome
        self._trace_changes = db.total_changes
        return outcome

    def hash(self) -> str:
        """The session's hash (``SessionDatabase.hash``), keeping what ``call`` knows of the
        state: draining the change logs moves SQLite's total_changes, not the rows."""
        db = self.session.db
        known = db.total_changes == self._trace_changes
        value = self.session.hash()
        if known:
            self._trace_changes = db.total_changes
        return value

    def _at_seed(self, db: Any) -> None:
        """The session is on the seed (a reset, or calls rolled back since one)."""
        self._seed_changes = self._trace_changes = db.total_changes
        self._trace = ()

    @cached_property
    def unruled(self) -> Toolbox:
        """The same tools with every call rolled back (a write is not committed) and without
        the declared business rules: trying a call for a pool leaves the seed as it was (no
        reset after it), and a call a rule refuses that this takes is refused by the rule
        alone (its gold would differ were the rule absent). Made when first needed (pools
        read from the cache need none)."""
        return Toolbox(
            {
                **self.spec_json,
                "tools": [{**t, "effect": "read"} for t in self.spec_json["tools"]],
                "policy_rules": {**(self.spec_json.get("policy_rules") or {}), "rules": []},
            },
            self.env.tools_module,
        )

    def reset(self) -> None:
        """The session back to the seed state. Skipped when no row changed since the last
        reset (SQLite's ``total_changes`` counts every row a statement inserted, updated
        or deleted, rolled back or not; tools cannot change the schema): most calls the
        oracle tries are reads or fail before they write."""
        if self._seed_changes is not None and self.session.db.total_changes == self._seed_changes:
            self._at_seed(self.session.db)
            return
        self.session.reset()
        self._at_seed(self.session.db)

    # ---------------------------------------------------------------- goal arguments

    def viable(self, tool: str) -> list[dict[str, Any]]:
        """Arguments that succeed for ``tool`` on the seed state (built once, then reused)."""
        if tool in self.pools:
            return self.pools[tool]
        rng = random.Random(f"pool:{self.seed}:{tool}")
        found: list[dict[str, Any]] = []
        seen: set[str] = set()
        stale = 0  # draws in a row that gave nothing new: the tool has few distinct calls
        # A read no declared rule is on runs as ``call`` runs it (nothing to roll back, no
        # rule to leave out): its outcome on the seed is the one ``call`` keeps and gives.
        shared = self.tools[tool].effect == "read" and not self.toolbox.rules_of.get(tool)
        for _ in range(self.pool_attempts):
            if len(found) >= self.pool_size or stale > 100:
                break
            args = self.draw(tool, rng)
            key = repr(sorted(args.items()))
            if key in seen or not self.validators[tool].is_valid(args):
                stale += 1
                continue
            stale = 0
            seen.add(key)
            self.reset()
            db = self.session.db
            # The tool runs once, without the rules, and the rules are read beside it: the
            # toolbox with them would take the call exactly when the tool takes it and no
            # rule refuses it (its rules refuse only what the tool takes), and a call that
            # exactly one rule refuses is a breaker of that rule.
            if self._try(db, tool, args, (tool, key) if shared else None):
                hits = self._hits(tool, args)
                if not hits:
                    found.append(args)
                elif len(hits) == 1:
                    self.breakers.setdefault((tool, hits[0]), []).append(args)
            self._at_seed(db)  # rolled back: still the seed
        self.pools[tool] = found
        return found

    def _try(self, db: Any, tool: str, args: dict[str, Any], shared: tuple[str, str] | None) -> bool:
        """Whether ``unruled`` takes the call on the seed. ``shared``: the call's key in
        ``_seed_calls`` for a read no declared rule is on, whose outcome there is the same
        under either toolbox: read from there when kept, else kept there."""
        if shared is not None:
            kept = self._seed_calls.get(shared)
            if kept is not None:
                return kept.ok
        outcome = self.unruled.call(db, tool, args)
        if shared is not None and _keepable(outcome) and len(self._seed_calls) < SEED_CALLS_MAX:
            self._seed_calls[shared] = outcome
        return outcome.ok

    def anchor_strata(self, tool: str) -> list[list[int]] | None:
        """The seed rows a call of ``tool`` that the tool takes can be about, in strata, or
        None (draw as ``valid_arguments`` does). A declared state refusal on ``tool`` (only
        a pending order can be cancelled) says the tool takes a call only for an object
        whose ``column`` holds an ``allowed`` value: when that object is what a plain draw
        anchors on (the first parameter with rows, an order for an order's write), the
        draws are anchored on such rows of the entity's own table (every refusal of the
        tool on that entity holds), in the strata ``valid_arguments`` would use (one per
        value of each categorical column, those left empty dropped). Most draws of a write
        would otherwise be about an order in the wrong state (19 in 20 of
        ``exchange_delivered_order_items``' in retail). An object drawn from around another
        anchor (an event an employee answers, drawn from around the employee) is drawn as
        before: anchored on the event, the employee drawn would be its organiser. Remembered
        per tool."""
        if tool in self._anchor_strata:
            return self._anchor_strata[tool]
        strata: list[list[int]] | None = None
        data = self.data
        rules = [r for r in self.env.spec.policy_rules.refusals if r.tool == tool]
        # the parameter a plain draw anchors on: the neighbourhood of its row is the call's
        param = next((p for p in self.params[tool] if data.anchor_choices(p)[0]), None)
        for rule in rules:
            if param is None or param.entity != rule.entity or rule.entity not in data.owner:
                continue
            table = data.owner[rule.entity][0]
            if rule.column not in data.table_columns.get(table, {}):
                continue
            held = [r for r in rules if r.entity == rule.entity and r.column in data.table_columns[table]]
            rows, pairs = data.anchor_choices(param)
            allowed = {
                i
                for i in rows
                if data.rows[i][0] == table and all(data.rows[i][1].get(r.column) in r.allowed for r in held)
            }
            if allowed:
                groups = [data.stratum(param, pair) for pair in pairs] if pairs else [rows]
                strata = [kept for group in groups if (kept := [i for i in group if i in allowed])]
            break
        self._anchor_strata[tool] = strata
        return strata

    def draw(self, tool: str, rng: random.Random) -> dict[str, Any]:
        """Arguments for a call of ``tool`` drawn from the seed (``valid_arguments``, not
        checked against the schema), around a row ``anchor_strata`` allows when it names
        any: the draws of ``viable`` and ``breaking``."""
        strata = self.anchor_strata(tool)
        anchor = rng.choice(rng.choice(strata)) if strata else None
        return valid_arguments(self.params[tool], self.data, rng, anchor)

    def _hits(self, tool: str, args: dict[str, Any]) -> list[int]:
        """The indices of the declared rules on ``tool`` that the call breaks, on the
        session's state."""
        db = self.session.db
        clock = self.spec_json["clock"]
        with runtime_statements(db):  # as the toolbox reads them: the tools' statements stay compiled
            return [
                i
                for i, r in enumerate(self.business_rules)
                if r.get("tool") == tool and broken([r], db, tool, args, clock)
            ]

    def _note_breaker(self, tool: str, args: dict[str, Any], only: int) -> None:
        """Keeps a call that exactly one declared rule on ``tool``, ``only``, refuses and
        the tool itself takes (run without the rules)."""
        hits = self._hits(tool, args)
        if hits == [only] and self.unruled.call(self.session.db, tool, args).ok:
            self.breakers.setdefault((tool, only), []).append(args)

    def breaking(self, tool: str, rule: int) -> list[dict[str, Any]]:
        """Calls of ``tool`` on the seed that the declared rule ``rule`` (its index in
        ``policy_rules.rules``) alone refuses."""
        key = (tool, rule)
        if key not in self._searched:
            self._searched.add(key)
            self.viable(tool)  # notes the breakers among its draws
            rng = random.Random(f"breakers:{self.seed}:{tool}:{rule}")
            found = self.breakers.setdefault(key, [])
            seen = {repr(sorted(a.items())) for a in found}
            stale = 0
            for _ in range(self.pool_attempts):
                if len(found) >= self.pool_size // 2 or stale > 200:
                    break
                args = self.draw(tool, rng)
                text = repr(sorted(args.items()))
                if text in seen or not self.validators[tool].is_valid(args):
                    stale += 1
                    continue
                seen.add(text)
                self.reset()
                before = len(found)
                self._note_breaker(tool, args, only=rule)
                stale = 0 if len(found) > before else stale + 1
                self._at_seed(self.session.db)  # rolled back: still the seed
        return self.breakers.get(key, [])

    def pool_state(self) -> dict[str, Any]:
        """What ``viable`` and ``breaking`` found so far, as JSON values (``tasks.pool_cache``
        keeps it on disk): each tool's pool, the breakers noted per (tool, rule) — by
        ``viable``'s draws and by ``breaking``'s search — and the (tool, rule) searched."""
        return {
            "pools": [[tool, pool] for tool, pool in self.pools.items()],
            "breakers": [[tool, rule, calls] for (tool, rule), calls in self.breakers.items()],
            "searched": sorted([tool, rule] for tool, rule in self._searched),
        }

    def restore_pools(self, state: Mapping[str, Any]) -> None:
        """Takes ``pool_state`` of an oracle of the same environment, seed and pool sizes
        (before any pool of this one is built): ``viable`` and ``breaking`` then give what
        they would have found."""
        for tool, pool in state["pools"]:
            self.pools.setdefault(tool, pool)
        for tool, rule, calls in state["breakers"]:
            self.breakers.setdefault((tool, rule), calls)
        self._searched |= {(tool, rule) for tool, rule in state["searched"]}

    def refusal(self, tool: str, rule: int, args: dict[str, Any]) -> str | None:
        """The rule's reason if, on the session's state now, ``rule`` alone refuses the call
        and the tool would take it without the rules; else None."""
        db = self.session.db
        key = None
        known = db.total_changes == self._trace_changes  # the state ``call`` knows, if any
        if self._seed_changes is not None and db.total_changes == self._seed_changes:
            key = (tool, rule, repr(sorted(args.items())))  # on the seed: the same answer every time
            if key in self._seed_refusals:
                return self._seed_refusals[key]
        spec = self.business_rules[rule]
        clock = self.spec_json["clock"]
        others = [r for i, r in enumerate(self.business_rules) if i != rule and r.get("tool") == tool]
        with runtime_statements(db):  # as the toolbox reads them: the tools' statements stay compiled
            alone = (
                broken([spec], db, tool, args, clock) is not None
                and broken(others, db, tool, args, clock) is None
            )
        if not alone:
            reason = None
        else:
            outcome = self.unruled.call(db, tool, args)
            if outcome.internal:
                return None
            reason = str(spec["reason"]) if outcome.ok else None
        if known:
            self._trace_changes = db.total_changes  # ``unruled`` rolls every call back: the same state
        if key is not None:
            self._seed_changes = db.total_changes  # still the seed
            if len(self._seed_refusals) < SEED_CALLS_MAX:
                self._seed_refusals[key] = reason
        return reason

    def seed_diff(self) -> dict[str, Any]:
        """``diff_states`` from the seed to the session's state, reading only the rows the
        session changed since its last reset: the keys its change logs name (the
        session's ``_touched``, drained by ``hash()``), each row as it is now and as the
        seed has it. Believed only when the session's hash agrees (every table's seed
        digest with those rows' digests swapped), else every table is read and compared."""
        db = self.session.db
        final = self.hash()  # drains the change logs into the touched keys
        touched = getattr(self.session, "_touched", None)
        if isinstance(touched, dict):
            with runtime_statements(db):  # between calls, as the session's own reads: no tool text
                keyed = self._keyed_states(db, touched)
            if keyed is not None:
                before, after, digests = keyed
                if hash_digests(digests) == final:
                    return diff_states(before, after, self.env.primary_keys)
        with runtime_statements(db):
            now = dump_state(db)
        return diff_states(self.env.seed_state, now, self.env.primary_keys)

    def _keyed_states(
        self, db: Any, touched: dict[str, set[tuple[Any, ...]]]
    ) -> tuple[State, State, dict[str, int]] | None:
        """(seed rows, current rows) of the touched keys per table, and every table's
        digest with those rows swapped in; None where a table has no primary key."""
        if self._infos is None:  # tools cannot change the schema
            self._infos = {info.name: info for info in table_infos(db)}
            known = self.env.seed_digests
            self._seed_digests = (
                dict(known)
                if known.keys() == self.env.seed_state.keys()
                else {t: table_digest(rows) for t, rows in self.env.seed_state.items()}
            )
        assert self._seed_digests is not None
        digests = dict(self._seed_digests)
        before: State = {}
        after: State = {}
        for table, keys in touched.items():
            if not keys:
                continue
            info = self._infos.get(table)
            if info is None or table not in digests or info.primary_key == ("rowid",):
                return None
            seed = self._seed_rows.get(table)
            if seed is None:
                pk = info.primary_key
                seed = self._seed_rows[table] = {
                    tuple(r[c] for c in pk): r for r in self.env.seed_state[table]
                }
            old = [seed[k] for k in keys if k in seed]
            new = _rows_at(db, info, sorted(keys, key=repr))
            digests[table] = (
                digests[table] - sum(map(row_digest, old)) + sum(map(row_digest, new))
            ) % DIGEST_MODULUS
            before[table], after[table] = old, new
        if digests.keys() != self._infos.keys():
            return None
        return before, after, digests

    # ---------------------------------------------------------------- running a chain

    def run(
        self,
        chain: Chain,
        rng: random.Random,
        attempts: int = 4,
        goal_filters: dict[int, GoalFilter] | None = None,
        refused: dict[int, int] | None = None,
    ) -> OracleRun:
        """Gold actions for ``chain``, trying up to ``attempts`` goal instantiations.
        ``goal_filters`` (step index -> predicate on the goal's arguments) narrow the goal
        calls drawn for those steps (an order that is *not* pending, for a refusal).
        ``refused`` (step index -> index of a declared business rule): that goal step is a
        call the rule alone refuses; it is drawn from ``breaking``, not made, and its
        action's output is ``{"refused": reason}``."""
        narrowed: dict[tuple[int, bool], list[dict[str, Any]]] = {}  # the goal pools, narrowed once a chain
        for attempt in range(attempts):
            try:
                return self._run_once(chain, rng, goal_filters or {}, refused or {}, narrowed)
            except Rejected as exc:
                # Another draw of the first goal picks another user, who may have what the
                # other goals need; a chain with a parameter nobody provides never will.
                if exc.code == "missing_param" or attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    def _run_once(
        self,
        chain: Chain,
        rng: random.Random,
        goal_filters: dict[int, GoalFilter],
        refused: dict[int, int],
        narrowed: dict[tuple[int, bool], list[dict[str, Any]]],
    ) -> OracleRun:
        """One attempt of ``run``. ``narrowed``: (goal step, whether it decides the user) ->
        its pool narrowed by its goal filter (and, deciding, by ``_serving``), as an
        earlier attempt on this chain found it: the same for every attempt."""
        for i, step in enumerate(chain.steps):
            for b in step.bindings:
                if b.source == "missing":
                    raise Rejected(
                        "missing_param",
                        f"step {i} ({step.tool}): {b.param} is neither known to the user nor returned by an earlier step",
                    )
        goal_args: dict[int, dict[str, Any]] = {}
        persona_value: Any = None
        taken: set[tuple[str, str]] = set()
        goals = [i for i, step in enumerate(chain.steps) if step.goal]
        # Goals that act on objects decide who the user is; goals with only typed values
        # (a log-in, a calculation) then take that user's own values.
        # A write a rule refuses is rarer than one that goes through: it decides first.
        goals.sort(
            key=lambda i: (
                i not in refused,
                not any(p.entity for p in self.params[split_tool_id(chain.steps[i].tool)[1]]),
            )
        )
        for i in goals:
            _, tool = split_tool_id(chain.steps[i].tool)
            decides = i in refused and persona_value is None
            cached = narrowed.get((i, decides))
            if cached is not None:
                pool = cached
            else:
                pool = self.breaking(tool, refused[i]) if i in refused else self.viable(tool)
                if i in goal_filters:
                    pool = [a for a in pool if goal_filters[i](a)]
                if decides:
                    # The refused call decides who the user is: someone every other goal can serve.
                    serves = self._serving(chain, goals, i, goal_filters)
                    pool = [a for a in pool if serves(a)]
                narrowed[(i, decides)] = pool
            if persona_value is not None:
                pool = self._owned(tool, pool, persona_value)
            # Each goal is about its own objects: two goals on one order would contradict
            # each other (change its address, then cancel it) or ask the same thing twice.
            if taken:
                pool = [a for a in pool if not self._pooled_objects(tool, a) & taken]
            if not pool:
                raise Rejected(
                    "no_viable_goal", f"no call of {tool} succeeds on the seed state for this user"
                )
            goal_args[i] = dict(rng.choice(pool))
            taken |= self._objects(tool, goal_args[i])
            if persona_value is None:
                persona_value = self._persona_of(tool, goal_args[i])
        persona_row = self._persona_row(persona_value)
        targets = self._targets(chain, goal_args, persona_value)
        # Rows the user's world is made of: the persona's own, else those around the goal's objects.
        anchor = persona_row if persona_row is not None else self._target_row(targets)
        near = self.data.related(anchor, depth=3) if anchor is not None else []

        self.reset()
        actions: list[GoldAction] = []
        user_values: list[UserValue] = []
        looked_up: list[tuple[int, str, str, Any]] = []
        refusals: dict[int, str] = {}
        for i, step in enumerate(chain.steps):
            server, tool = split_tool_id(step.tool)
            params = {p.name: p for p in self.params[tool]}
            args = dict(goal_args.get(i, {}))
            for b in step.bindings:
                param = params[b.param]
                if b.source == "step":
                    assert b.step is not None and b.path is not None
                    # Every output of that step carrying this entity, not only the sampled path:
                    # an order's items are under items[].item_id, not items[].exchange_item_id.
                    producer = self.tools[actions[b.step].tool]
                    paths = [p for p, e in producer.outputs.items() if e == param.entity] or [b.path]
                    candidates = [v for p in paths for v in values_at(actions[b.step].output, p)]
                    value = self._pick(param, candidates, args.get(b.param), targets, rng)
                    if value is None:
                        raise Rejected(
                            "unresolvable",
                            f"step {i} ({tool}): {b.param} is not among what step {b.step} returned at {b.path}",
                        )
                    args[b.param] = value
                    if param.entity:
                        looked_up.append((i, b.param, param.entity, value))
                else:
                    if b.param not in args:
                        args[b.param] = self._user_value(param, targets, persona_value, near, rng)
                    user_values.append(UserValue(i, b.param, args[b.param], param.entity))
            for name, value in args.items():  # optional goal arguments the user also typed
                if name not in {b.param for b in step.bindings}:
                    user_values.append(UserValue(i, name, value, params[name].entity))
            if not self.validators[tool].is_valid(args):
                raise Rejected("invalid_args", f"step {i} ({tool}): arguments do not match the input schema")
            if i in refused:  # asked for, refused by the rule alone on the state here: not made
                reason = self.refusal(tool, refused[i], args)
                if reason is None:
                    raise Rejected(
                        "rule_not_broken", f"step {i} ({tool}): the rule no longer refuses the call"
                    )
                refusals[i] = reason
                actions.append(GoldAction(server, tool, args, {"refused": reason}))
                continue
            outcome = self.call(tool, args)
            if not outcome.ok:
                raise Rejected("step_error", f"step {i} ({tool}) failed: {outcome.error}")
            assert outcome.output is not None
            actions.append(GoldAction(server, tool, args, outcome.output))
        writes = sum(
            1
            for i, s in enumerate(chain.steps)
            if self.tools[split_tool_id(s.tool)[1]].effect == "write" and i not in refusals
        )
        # The session's hash is kept up to date per written row: it equals hash_state(final).
        initial_hash, final_hash = self.env.seed_hash, self.hash()
        if writes and final_hash == initial_hash:
            raise Rejected("no_change", "the chain writes but leaves the state exactly as it was")
        persona = self.data.rows[persona_row][1] if persona_row is not None else None
        return OracleRun(
            chain=chain,
            actions=actions,
            user_values=user_values,
            looked_up=looked_up,
            persona=persona,
            initial_hash=initial_hash,
            final_hash=final_hash,
            writes=writes,
            refused=refusals,
        )

    # ---------------------------------------------------------------- helpers

    def _objects(self, tool: str, args: dict[str, Any]) -> set[tuple[str, str]]:
        """What a call is about: its first object (an order, a product), the persona aside;
        for a call on the persona alone (their own address), the tool itself."""
        for param in self.params[tool]:  # objects the user can name come first
            if param.entity and param.entity != self.persona_entity and param.name in args:
                value = args[param.name]
                return {(param.entity, repr(v)) for v in (value if isinstance(value, list) else [value])}
        return {("tool", tool)}

    def _pooled_objects(self, tool: str, args: dict[str, Any]) -> set[tuple[str, str]]:
        """``_objects`` of a call in ``pools`` (which live as long as the oracle), remembered."""
        key = (tool, id(args))
        found = self._pool_objects.get(key)
        if found is None:
            found = self._pool_objects[key] = self._objects(tool, args)
        return found

    def _persona_of(self, tool: str, args: dict[str, Any]) -> Any:
        """The persona (e.g. the user) that owns the objects in ``args``: the nearest
        persona-entity value in rows related to them."""
        if self.persona_entity is None:
            return None
        for param in self.params[tool]:
            if not param.entity or param.name not in args:
                continue
            value = args[param.name]
            value = value[0] if isinstance(value, list) and value else value
            if param.entity == self.persona_entity:
                return value
            row = self.data.owner_row(param.entity, value)
            if row is None:
                continue
            # the first persona value in row order of the nearest level that has one: the
            # row itself first (an order names its user), walking from it only when not
            owner = self.data.first_value([row], self.persona_entity)
            if owner is not None:
                return owner
            for level in self.data.related(row, depth=2)[1:]:
                owner = self.data.first_value(level, self.persona_entity)
                if owner is not None:
                    return owner
        return None

    def _serving(
        self,
        chain: Chain,
        goals: list[int],
        step: int,
        goal_filters: dict[int, GoalFilter],
    ) -> GoalFilter:
        """Whether the persona of a goal call (at ``step``) has a viable call for every
        other goal step of ``chain``: a predicate that asks it once per persona (the calls of
        a pool share few), reading each other goal's pool when first needed."""
        tool = split_tool_id(chain.steps[step].tool)[1]
        pools: dict[int, tuple[str, list[dict[str, Any]], set[str] | None]] = {}
        verdicts: dict[Any, bool] = {}

        def serves(args: dict[str, Any]) -> bool:
            persona = self._owner_of_pooled(tool, args)  # a pooled call: remembered
            if persona is None:
                return True
            key = repr(persona)
            if key not in verdicts:
                verdicts[key] = True
                for j in goals:
                    if j == step:
                        continue
                    if j not in pools:
                        other = split_tool_id(chain.steps[j].tool)[1]
                        pool = [a for a in self.viable(other) if j not in goal_filters or goal_filters[j](a)]
                        # a call on objects is the persona's that owns them (``_belongs``)
                        owners: set[str] | None = None
                        if j not in goal_filters and other in self._owner_keys:
                            owners = self._owner_keys[other]
                        elif any(p.entity for p in self.params[other]):
                            owners = {repr(self._owner_of_pooled(other, a)) for a in pool}
                            if j not in goal_filters:  # the whole pool: the same for every chain
                                self._owner_keys[other] = owners
                        pools[j] = (other, pool, owners)
                    other, pool, owners = pools[j]
                    if owners is not None:
                        served = key in owners
                    else:
                        served = any(self._belongs(other, a, persona) for a in pool)
                    if not served:
                        verdicts[key] = False
                        break
            return verdicts[key]

        return serves

    def _owner_of_pooled(self, tool: str, args: dict[str, Any]) -> Any:
        """``_persona_of`` a call in ``pools`` (which live as long as the oracle), remembered."""
        key = (tool, id(args))
        if key not in self._personas:
            self._personas[key] = self._persona_of(tool, args)
        return self._personas[key]

    def _owned(self, tool: str, pool: list[dict[str, Any]], persona: Any) -> list[dict[str, Any]]:
        """The calls of ``pool`` (calls in ``pools`` or ``breakers``) that ``_belongs`` to
        ``persona``, in order. For ``tool``'s whole viable pool of a tool on objects, its
        calls grouped by owner once (equal values hash alike, so a group holds exactly
        the calls whose owner ``==`` the persona)."""
        if not any(p.entity for p in self.params[tool]):
            return [a for a in pool if self._belongs(tool, a, persona)]
        if pool is self.pools.get(tool):
            if tool not in self._owner_groups:
                groups: dict[Any, list[dict[str, Any]]] | None = {}
                try:
                    for a in pool:
                        groups.setdefault(self._owner_of_pooled(tool, a), []).append(a)  # type: ignore[union-attr]
                except TypeError:  # an owner that cannot be hashed: compare one by one
                    groups = None
                self._owner_groups[tool] = groups
            groups = self._owner_groups[tool]
            if groups is not None:
                try:
                    return list(groups.get(persona, ()))
                except TypeError:
                    pass
        return [a for a in pool if self._owner_of_pooled(tool, a) == persona]

    def _belongs(self, tool: str, args: dict[str, Any], persona: Any) -> bool:
        """Whether ``args`` (a call in ``pools``, which live as long as the oracle) are the
        persona's: its objects, and its own typed values (a name, a zip code) wherever a
        parameter is a column of the persona's row."""
        if any(p.entity for p in self.params[tool]):
            same: bool = self._owner_of_pooled(tool, args) == persona
            return same
        row = self._persona_row(persona)
        if row is None:
            return True
        own = self.data.rows[row][1]
        return all(args[name] == own[name] for name in args if name in own)

    def _persona_row(self, value: Any) -> int | None:
        if self.persona_entity is None or value is None:
            return None
        return self.data.owner_row(self.persona_entity, value)

    def _target_row(self, targets: dict[str, list[Any]]) -> int | None:
        for entity, values in targets.items():
            for value in values:
                row = self.data.owner_row(entity, value)
                if row is not None:
                    return row
        return None

    def _targets(
        self, chain: Chain, goal_args: dict[int, dict[str, Any]], persona: Any
    ) -> dict[str, list[Any]]:
        """Entity values the goals act on: what lookups should find along the way."""
        targets: dict[str, list[Any]] = {}
        if persona is not None and self.persona_entity:
            targets[self.persona_entity] = [persona]
        for i, args in goal_args.items():
            _, tool = split_tool_id(chain.steps[i].tool)
            for param in self.params[tool]:
                if param.entity and param.name in args:
                    value = args[param.name]
                    for v in value if isinstance(value, list) else [value]:
                        targets.setdefault(param.entity, []).append(v)
        return targets

    def _pick(
        self,
        param: ParamInfo,
        candidates: list[Any],
        required: Any,
        targets: dict[str, list[Any]],
        rng: random.Random,
    ) -> Any:
        is_array = param.schema.get("type") == "array"
        if required is not None:  # a goal: its value must be among what the lookup returned
            wanted = required if isinstance(required, list) else [required]
            return required if all(v in candidates for v in wanted) else None
        if not candidates:
            return None
        preferred = [v for v in targets.get(param.entity or "", []) if v in candidates]
        choice = preferred[0] if preferred else rng.choice(candidates)
        return [choice] if is_array else choice

    def _user_value(
        self,
        param: ParamInfo,
        targets: dict[str, list[Any]],
        persona: Any,
        near: list[list[int]],
        rng: random.Random,
    ) -> Any:
        """What the user would type: their own data (their email, an order number of theirs)."""
        from envfactory_mcp.seeddata import value_from_schema

        if param.entity and targets.get(param.entity):
            value = targets[param.entity][0]
            return [value] if param.schema.get("type") == "array" else value
        for level in near:
            found = [v for v in self.data.column_values(level, param) if self.data.fits(param.schema, v)]
            if found:
                return found[0]
        return value_from_schema(param.schema, rng)


def _rows_at(db: Any, info: TableInfo, keys: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """The rows of ``info``'s table with these primary keys (those that exist), as dicts."""
    columns = ", ".join(f'"{c}"' for c in info.columns)
    key = ", ".join(f'"{c}"' for c in info.primary_key)
    one = "(" + ", ".join("?" for _ in info.primary_key) + ")"
    rows: list[dict[str, Any]] = []
    for start in range(0, len(keys), 100):
        chunk = keys[start : start + 100]
        cursor = db.execute(
            f'SELECT {columns} FROM main."{info.name}" WHERE ({key}) IN (VALUES {", ".join(one for _ in chunk)})',
            [v for k in chunk for v in k],
        )
        rows += (dict(zip(info.columns, row, strict=True)) for row in cursor)
    return rows


def values_at(output: Any, path: str) -> list[Any]:
    """Every value at ``path`` ('a.b[].c', 'orders[]') in ``output``, flattened."""
    nodes = [output]
    for part in path.split("."):
        is_array = part.endswith("[]")
        key = part[:-2] if is_array else part
        nxt = []
        for node in nodes:
            if isinstance(node, dict) and key in node:
                value = node[key]
                if is_array and isinstance(value, list):
                    nxt.extend(value)
                elif not is_array:
                    nxt.append(value)
        nodes = nxt
    return [n for n in nodes if n is not None and not isinstance(n, dict | list)]


def leaves(value: Any) -> list[Any]:
    """Every scalar in a JSON value (objects and lists walked)."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in leaves(v)]
    return [value]


def objects(value: Any) -> list[dict[str, Any]]:
    """Every object in a JSON value, outermost first."""
    if isinstance(value, dict):
        return [value, *(o for v in value.values() for o in objects(v))]
    if isinstance(value, list):
        return [o for v in value for o in objects(v)]
    return []


def persona_entity_of(spec: EnvSpec) -> str | None:
    """The entity a person is: what a log-in tool (only typed, non-id inputs) returns."""
    for tool in spec.tools:
        inputs = tool.input_schema.get("properties", {})
        if not inputs or tool.effect != "read":
            continue
        if all(
            (tool.params.get(n) and tool.params[n].user_provided and not tool.params[n].entity)
            for n in inputs
        ):
            entities = {e for path, e in tool.outputs.items() if "[]" not in path}
            if len(entities) == 1:
                return entities.pop()
    return None
