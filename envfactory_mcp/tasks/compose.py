"""Composing a task from goals, so that an agent that follows the policy can finish it.

A task is one to three goals of one user, and sometimes a refusal by a business rule besides. Each goal is a chain the sampler built for a goal
tool (topology-aware, lookups included); the chains run together through the oracle, so
every goal acts on that user's own objects. Then the gold is completed the way the
policy (``EnvSpec.policy_rules``) needs it:

* one authentication call first, with the user's own identity values, whenever a tool
  outside ``authentication.exempt`` is used (the user will be asked for them);
* before a write that a refusal rule restricts, the read that shows the object's state
  (the agent must see an order is pending before cancelling it);
* repeated identical reads dropped; a hand-off call appended for a transfer goal;
* every action replayed from the seed, so outputs and the final state are the real ones;
  a refusal or contingent goal whose branch the replayed state no longer supports (an
  earlier goal's write changed it) is rejected.

Goal kinds (``GoalDraw.kind``): ``act`` (a write), ``ask`` (a read with claims),
``refuse`` (the user asks for a write the rules forbid in the object's state: the gold
looks the state up and changes nothing; the state is the claim), ``contingent`` ("if it
is still pending, cancel it; otherwise return it": the seed decides the branch), and
``transfer`` (a request no tool serves: hand-off to a human). A refusal is also drawn
from a declared business rule (``policy_rules.rules``: an amount above a limit, a row
outside a time window, an owner at a quota, another row in an exclusive state, a record
not eligible; issue 31): the chain ends in the write the user asks for, with arguments
the tool itself takes but that rule alone refuses on the state at that point; the gold
makes the lookups before it and not the write, and the goal's own action is the lookup
of the object the rule is about where there is one, else the last (the agent looks,
tells what it found and explains the rule's reason); where that lookup shows the
rule's column (the order's date a return window counts from, the tier an eligibility
rule asks for), that value is a claim of the goal (``rule_claim``). A hand-off is drawn only
from the out-of-scope requests the policy text does not refuse, and when the text lists
what the agent must not promise the user asks for a person too (``tasks.policy_text``):
whether a goal ends in a refusal, a hand-off or an action follows the policy.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Literal

from envfactory_mcp.graph.sample import Binding, Chain, Step
from envfactory_mcp.spec import EnvSpec, RefusalRule, ToolSpec
from envfactory_mcp.spec.policy import AmountRule, EligibilityRule, ExclusiveRule, QuotaRule, WindowRule
from envfactory_mcp.tasks.model import GoalKind
from envfactory_mcp.tasks.oracle import GoalFilter, Oracle, OracleRun, Rejected, values_at
from envfactory_mcp.tasks.oracle import GoldAction as GoalAction
from envfactory_mcp.tasks.policy_text import read_policy

Branch = Literal["then", "otherwise"]

# How many goals a task has, and how often each kind of goal is drawn (when the
# environment's rules allow it). Tuned so that, on retail, >= 35% of tasks write twice or
# more and >= 10% are refusals or transfers, like tau2-bench's human-written tasks.
GOAL_COUNTS = {1: 0.15, 2: 0.45, 3: 0.40}
KIND_WEIGHTS: dict[GoalKind, float] = {
    "act": 0.73,
    "contingent": 0.12,
    "ask": 0.07,
    "refuse": 0.04,
    "transfer": 0.04,
}
TELL_STATE = "just tell me where it stands"
TOTAL_SHARE = 0.3  # of ask goals, when a calculator and list amounts exist
# How often a task also holds a refusal by a declared business rule, beside the goals
# drawn above (when the environment declares rules the seed can break on the writes goals
# use): a goal of its own, so the other goals keep their shares (writes, refusals).
RULE_REFUSAL_SHARE = 0.7

Business = AmountRule | QuotaRule | WindowRule | EligibilityRule | ExclusiveRule
TOTAL_INTENT = "find out how much they would cost together"


@dataclass(frozen=True)
class GoalDraw:
    """One goal before it meets the data."""

    kind: GoalKind
    tool: str  # the tool the goal's chain ends in (spec name)
    rule: RefusalRule | Business | None = None  # refuse / contingent: the restriction in play
    business: int | None = None  # refuse by a business rule: its index in policy_rules.rules
    counter: RefusalRule | None = None  # contingent: the rule of the other branch (None: tell the state)
    taken: Branch | None = None  # contingent: the branch the chain serves
    request: str | None = None  # transfer: the out-of-scope request
    ask: bool = False  # transfer: the user also asks for a person (the policy hands off only then)
    total: bool = False  # ask: two objects' amounts added up with the calculator


@dataclass(frozen=True)
class ComposedGold:
    actions: list[GoalAction]
    goal_actions: list[list[int]]  # per goal, indices into actions that serve it
    goal_index: list[int]  # per goal, the index of its own action (the goal tool's call)
    named: list[tuple[int, str, Any]]  # (goal, entity, value): list elements a total is about
    auth_args: dict[str, Any] | None  # the identity values the user must give
    step_goal: dict[int, int]  # oracle step index -> goal number, for the facts of each step
    dropped: set[int]  # oracle steps left out (lookups that only found the user: authentication does)
    initial_hash: str
    final_hash: str
    diff: dict[str, Any]


class GoalDrawer:
    """Draws goal shapes for one environment, preferring tools used least so far."""

    def __init__(self, spec: EnvSpec, rng: random.Random) -> None:
        self.spec, self.rng = spec, rng
        rules = spec.policy_rules
        auth = set(rules.authentication.tools) if rules.authentication else set()
        helpers = set(rules.utilities) | auth | ({rules.transfer.tool} if rules.transfer else set())
        self.writes = [t.name for t in spec.tools if t.effect == "write" and t.name not in helpers]
        self.asks = [t.name for t in spec.tools if t.effect == "read" and t.claims and t.name not in helpers]
        # Questions about an amount of one element of a list (a variant's price) can be
        # asked of two at once: "what would they cost together?" needs the calculator.
        self.totals = (
            [t for t in self.asks if any("[]" in c for c in spec.tool(t).claims)]  # type: ignore[union-attr]
            if rules.calculator
            else []
        )
        self.rules = list(rules.refusals)
        # Declared business rules on the writes goals use, by index (refusals by a rule).
        self.business = [i for i, r in enumerate(rules.rules) if r.tool in self.writes]
        self.transfer = rules.transfer
        # Out-of-scope requests the policy text refuses are never handed off (tasks.policy_text).
        reading = read_policy(spec)
        self.hand_offs = reading.hand_offs
        self.ask_person = reading.restricts_promises
        self.used: dict[str, int] = {}

    def draw(self) -> list[GoalDraw]:
        rng = self.rng
        count = rng.choices(list(GOAL_COUNTS), list(GOAL_COUNTS.values()))[0]
        goals: list[GoalDraw] = []
        for index in range(count):
            kinds = [k for k in KIND_WEIGHTS if self._possible(k, last=index == count - 1, goals=goals)]
            kind = rng.choices(kinds, [KIND_WEIGHTS[k] for k in kinds])[0]
            goal = self._goal(kind)
            if goal is not None:
                goals.append(goal)
        if self.business and rng.random() < RULE_REFUSAL_SHARE:
            # Before a hand-off, which ends the conversation.
            end = len(goals) - (1 if goals and goals[-1].kind == "transfer" else 0)
            goals.insert(rng.randint(0, end), self._rule_refusal())
        return goals

    def _rule_refusal(self) -> GoalDraw:
        """The user asks for a write a declared business rule forbids (the rule used least)."""
        rules = self.spec.policy_rules.rules
        key = self._least_used([f"rule {i}" for i in self.business])
        index = int(key.split()[1])
        return GoalDraw("refuse", rules[index].tool, rule=rules[index], business=index)

    def _possible(self, kind: GoalKind, last: bool, goals: list[GoalDraw]) -> bool:
        if kind == "act":
            return bool(self.writes)
        if kind == "ask":
            return bool(self.asks)
        if kind in ("refuse", "contingent"):
            return bool(self.rules)
        # One hand-off, at the end: after it the user talks to someone else.
        return self.transfer is not None and bool(self.hand_offs) and last and bool(goals)

    def _least_used(self, names: list[str]) -> str:
        weights = [1.0 / (1 + self.used.get(n, 0)) for n in names]
        choice = self.rng.choices(names, weights)[0]
        self.used[choice] = self.used.get(choice, 0) + 1
        return choice

    def _goal(self, kind: GoalKind) -> GoalDraw | None:
        rng = self.rng
        if kind == "act":
            return GoalDraw("act", self._least_used(self.writes))
        if kind == "ask":
            if self.totals and rng.random() < TOTAL_SHARE:
                return GoalDraw("ask", rng.choice(self.totals), total=True)
            return GoalDraw("ask", self._least_used(self.asks))
        if kind == "transfer":
            assert self.transfer is not None
            request = rng.choice(self.hand_offs)
            return GoalDraw("transfer", self.transfer.tool, request=request, ask=self.ask_person)
        restricted = self._least_used(sorted({r.tool for r in self.rules}))
        rule = next(r for r in self.rules if r.tool == restricted)
        if kind == "refuse":
            return GoalDraw("refuse", rule.shown_by, rule=rule)
        counters = [r for r in self.rules if _opposite(r, rule)]
        counter = rng.choice(counters) if counters and rng.random() < 0.7 else None
        branch: Branch = rng.choice(["then", "otherwise"])
        if branch == "then":  # "if still <allowed by rule>: do rule.tool; otherwise <counter or tell>"
            return GoalDraw("contingent", rule.tool, rule=rule, counter=counter, taken="then")
        if counter is not None:  # the state allows the counter's tool: the fallback is taken
            return GoalDraw("contingent", counter.tool, rule=rule, counter=counter, taken="otherwise")
        return GoalDraw("contingent", rule.shown_by, rule=rule, counter=None, taken="otherwise")


def _opposite(a: RefusalRule, b: RefusalRule) -> bool:
    """Rules on the same state whose allowed states do not overlap (cancel vs return)."""
    return (
        a.entity == b.entity
        and a.column == b.column
        and a.tool != b.tool
        and not set(a.allowed) & set(b.allowed)
    )


def concatenate(chains: list[Chain]) -> tuple[Chain, list[int]]:
    """One chain running ``chains`` one after the other, and the goal step of each."""
    steps: list[Step] = []
    goals: list[int] = []
    for chain in chains:
        offset = len(steps)
        goal_steps = [i for i, s in enumerate(chain.steps) if s.goal]
        if not offset:  # the first chain's steps as they are
            steps.extend(chain.steps)
        else:
            for step in chain.steps:
                bindings = tuple(
                    Binding(b.param, b.source, b.step + offset, b.path) if b.step is not None else b
                    for b in step.bindings
                )
                steps.append(Step(step.tool, bindings, step.goal))
        goals.append(offset + goal_steps[-1])
    return Chain(tuple(steps), chains[0].sampler if chains else "topology"), goals


def state_filter(oracle: Oracle, tool: str, rule: RefusalRule, allowed: bool) -> GoalFilter:
    """A goal filter keeping calls of ``tool`` whose ``rule.entity`` object is (``allowed``)
    or is not in a state ``rule`` allows."""
    spec = oracle.tools[tool]
    params = [n for n, p in spec.params.items() if p.entity == rule.entity]

    def keep(args: dict[str, Any]) -> bool:
        for name in params:
            value = args.get(name)
            row = oracle.data.owner_row(rule.entity, value) if value is not None else None
            if row is not None:
                return (oracle.data.rows[row][1].get(rule.column) in rule.allowed) == allowed
        return False

    return keep


def complete_for_policy(
    oracle: Oracle,
    run: OracleRun,
    goal_steps: list[int],
    chain_goal: list[int],
    draws: list[GoalDraw],
    rng: random.Random,
) -> ComposedGold:
    """The gold actions a policy-following agent makes for ``run`` (see the module doc).
    ``goal_steps`` are the goal steps of the chains run, ``chain_goal`` the goal (index in
    ``draws``) each of them serves (a total asks two chains for one goal)."""
    spec = oracle.env.spec
    rules = spec.policy_rules
    auth_tools = set(rules.authentication.tools) if rules.authentication else set()

    def goal_of(step: int) -> int:
        chain = next((c for c, s in enumerate(goal_steps) if s >= step), len(goal_steps) - 1)
        return chain_goal[chain]

    dropped = _persona_lookups(oracle, run, goal_steps) if rules.authentication else set()
    kept: list[tuple[GoalAction, int]] = []  # (action, goal)
    step_goal: dict[int, int] = {}
    goal_index: list[int] = [-1] * len(draws)
    refused_goals: set[int] = set()
    for index, action in enumerate(run.actions):
        goal = goal_of(index)
        step_goal[index] = goal
        if goal in refused_goals:
            continue  # what the chain did after the write it asked for: nothing was written
        if index in run.refused:
            # A write the rule refuses is not made: the goal's own action is its last lookup.
            own = [i for i, (a, g) in enumerate(kept) if g == goal and oracle.tools[a.tool].effect == "read"]
            if not own:
                raise Rejected("no_rule_lookup", f"nothing is looked up before the refused {action.tool}")
            # Preferably the lookup of the object the rule is about (the order whose date is
            # past the window, the owner at the quota), else the last one.
            subject = _rule_subject(oracle, draws[goal], action.arguments)
            about = [i for i in own if subject is not None and _mentions(kept[i][0].arguments, subject)]
            goal_index[goal] = (about or own)[-1]
            refused_goals.add(goal)
            continue
        if action.tool in auth_tools or index in dropped:
            continue
        tool = oracle.tools[action.tool]
        is_goal = index in goal_steps
        # A lookup already made is not made again (the ids it showed are still on screen).
        if tool.effect == "read" and not is_goal and any(_same_call(action, o) for o, _ in kept):
            continue
        for rule in rules.rules_for(action.tool):
            value = entity_value(tool, rule.entity, action.arguments)
            if value is None or any(_shows(oracle, other, rule, value) for other, _ in kept):
                continue
            check = _check_call(oracle, rule, value)
            if check is None:
                raise Rejected("no_state_check", f"no {rule.shown_by} call shows {rule.entity} {value}")
            kept.append((check, goal))
        if is_goal:
            goal_index[goal] = len(kept)
        kept.append((action, goal))
    named: list[tuple[int, str, Any]] = []
    for goal, draw in enumerate(draws):
        if draw.total:
            looked = [a for a, g in kept if g == goal and a.tool == draw.tool]
            amounts = [_list_amount(oracle.tools[draw.tool], a.output, rng) for a in looked]
            if len(amounts) != 2 or any(x is None for x in amounts):
                raise Rejected("no_total", f"two {draw.tool} results with an amount each are needed")
            expression = " + ".join(_number_text(x[2]) for x in amounts if x is not None)
            named += [(goal, x[0], x[1]) for x in amounts if x is not None]
            assert rules.calculator is not None
            # Right after the goal's own lookups, before the next goal begins.
            at = max(i for i, (_, g) in enumerate(kept) if g == goal) + 1
            goal_index = [i + 1 if i >= at else i for i in goal_index]
            goal_index[goal] = at
            kept.insert(
                at, (GoalAction(oracle.server, rules.calculator, {"expression": expression}, {}), goal)
            )
    transfer_goals = [g for g, d in enumerate(draws) if d.kind == "transfer"]
    for goal in transfer_goals:
        goal_index[goal] = len(kept)
        kept.append((_transfer_call(oracle, run, draws[goal], kept), goal))
    auth_args: dict[str, Any] | None = None
    if any(rules.needs_authentication(a.tool) for a, _ in kept):
        if run.persona is None:
            # Goals that belong to no one in particular (a public catalog's pets): any user
            # may ask for them, and the scenario speaks as that user.
            assert rules.authentication is not None
            run.persona = _anyone(oracle, rules.authentication.entity, sorted(auth_tools), rng)
        if run.persona is None:
            raise Rejected("no_persona", "the task needs an authenticated user but no user exists")
        auth = _auth_call(oracle, run.persona, sorted(auth_tools), rng)
        auth_args = auth.arguments
        kept.insert(0, (auth, 0))
        goal_index = [i + 1 for i in goal_index]
    if any(i < 0 for i in goal_index):
        raise Rejected("goal_dropped", "a goal step was an authentication or a lookup of the user only")
    if dropped and auth_args is None:
        raise Rejected("persona_lookup", "a lookup only found the user, and no authentication replaces it")
    actions, diff = _replay(oracle, [a for a, _ in kept])
    goal_actions: list[list[int]] = [[] for _ in draws]
    for index, (_, goal) in enumerate(kept):
        goal_actions[goal].append(index)
    for goal, draw in enumerate(draws):
        _check_branch(draw, [actions[i] for i in goal_actions[goal]])
    final_hash = oracle.hash()  # the state ``_replay`` left
    writes = sum(1 for a in actions if oracle.tools[a.tool].effect == "write")
    if writes and final_hash == oracle.env.seed_hash:
        raise Rejected("no_change", "the writes leave the state exactly as it was")
    return ComposedGold(
        actions=actions,
        goal_actions=goal_actions,
        goal_index=goal_index,
        named=named,
        auth_args=auth_args,
        step_goal=step_goal,
        dropped=dropped,
        initial_hash=oracle.env.seed_hash,
        final_hash=final_hash,
        diff=diff,
    )


def _rule_subject(oracle: Oracle, draw: GoalDraw, arguments: dict[str, Any]) -> Any:
    """The value of the refused call that names what its business rule is about, or None."""
    if draw.business is None:
        return None
    rule = oracle.business_rules[draw.business]
    name = {"window": "key", "eligibility": "via", "quota": "owner", "exclusive": "owner"}.get(rule["kind"])
    return arguments.get(rule[name]) if name is not None else None


def _mentions(arguments: dict[str, Any], value: Any) -> bool:
    return any(v == value or (isinstance(v, list) and value in v) for v in arguments.values())


def _check_branch(draw: GoalDraw, own: list[GoalAction]) -> None:
    """Rejects a refusal or contingent goal whose branch the state it shows, replayed after
    the goals before it, no longer supports: an earlier goal's write may have changed it
    (paying an overdue invoice lifts the account's credit hold, so "book a pickup if the
    account is active, otherwise tell me where it stands" must book)."""
    rule = draw.rule
    if not isinstance(rule, RefusalRule) or draw.kind not in ("refuse", "contingent"):
        return  # a business rule's refusal was checked on the state at its step (Oracle.refusal)
    reads = [a for a in own if a.tool == rule.shown_by]
    states = values_at(reads[-1].output, rule.path) if reads else []
    if not states:
        return
    allows = states[0] in rule.allowed
    if allows != (draw.kind == "contingent" and draw.taken == "then"):
        raise Rejected("stale_branch", f"{rule.entity} is {states[0]!r} once the goals before it are done")


def _persona_lookups(oracle: Oracle, run: OracleRun, goal_steps: list[int]) -> set[int]:
    """Non-goal reads whose outputs feed only the user's own id into later steps (an order
    looked up to find out who the user is): authentication answers that instead."""
    consumers: dict[int, set[str | None]] = {}
    for step in run.chain.steps:
        params = {p.name: p.entity for p in oracle.params[step.tool.split("/", 1)[1]]}
        for b in step.bindings:
            if b.source == "step" and b.step is not None:
                consumers.setdefault(b.step, set()).add(params.get(b.param))
    return {
        index
        for index, action in enumerate(run.actions)
        if index not in goal_steps
        and oracle.tools[action.tool].effect == "read"
        and consumers.get(index)
        and consumers[index] <= {oracle.persona_entity}
    }


def _list_amount(tool: ToolSpec, output: dict[str, Any], rng: random.Random) -> tuple[str, Any, float] | None:
    """One element of the list a claim runs through: (its entity, its id, its amount)."""
    for path in tool.claims:
        if "[]" not in path:
            continue
        prefix, rest = path.split("[].", 1)
        ids = [(p.split("[].", 1)[1], e) for p, e in tool.outputs.items() if p.startswith(prefix + "[].")]
        node: Any = output
        for part in prefix.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        elements = [e for e in node if isinstance(e, dict)] if isinstance(node, list) else []
        if not ids or not elements:
            continue
        element = rng.choice(elements)
        amounts = values_at(element, rest)
        key, entity = ids[0]
        if amounts and isinstance(amounts[0], int | float) and element.get(key) is not None:
            return entity, element[key], float(amounts[0])
    return None


def _number_text(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _same_call(a: GoalAction, b: GoalAction) -> bool:
    return a.tool == b.tool and json.dumps(a.arguments, sort_keys=True) == json.dumps(
        b.arguments, sort_keys=True
    )


def entity_value(tool: ToolSpec, entity: str, arguments: dict[str, Any]) -> Any:
    """The value of the ``entity`` argument of a call (the first, for a list of them), or None."""
    for name, param in tool.params.items():
        if param.entity == entity and name in arguments:
            value = arguments[name]
            return value[0] if isinstance(value, list) and value else value
    return None


def _shows(oracle: Oracle, action: GoalAction, rule: RefusalRule, value: Any) -> bool:
    return (
        action.tool == rule.shown_by
        and entity_value(oracle.tools[action.tool], rule.entity, action.arguments) == value
    )


def _check_call(oracle: Oracle, rule: RefusalRule, value: Any) -> GoalAction | None:
    tool = oracle.tools[rule.shown_by]
    params = [n for n, p in tool.params.items() if p.entity == rule.entity]
    required = tool.input_schema.get("required", [])
    if len(params) != 1 or any(r not in params for r in required):
        return None
    return GoalAction(oracle.server, rule.shown_by, {params[0]: value}, {})


def _anyone(oracle: Oracle, entity: str, tools: list[str], rng: random.Random) -> dict[str, Any] | None:
    """A user's row, drawn from the seed, for a task no goal ties to a user: one holding
    the values an authentication tool asks for."""
    if entity not in oracle.data.owner:
        return None
    wanted = [list(oracle.tools[t].input_schema.get("properties", {})) for t in tools]
    table = oracle.data.owner[entity][0]
    rows = [oracle.data.rows[i][1] for i in oracle.data.by_table.get(table, [])]
    rows = [r for r in rows if any(ps and all(isinstance(r.get(p), str | int) for p in ps) for ps in wanted)]
    return dict(rng.choice(rows)) if rows else None


def _auth_call(oracle: Oracle, persona: dict[str, Any], tools: list[str], rng: random.Random) -> GoalAction:
    """A call of one authentication tool with the persona's own values that returns them."""
    options = []
    for name in tools:
        props = oracle.tools[name].input_schema.get("properties", {})
        if props and all(isinstance(persona.get(p), str | int) for p in props):
            options.append((name, {p: persona[p] for p in props}))
    rng.shuffle(options)
    for name, args in options:
        oracle.reset()
        outcome = oracle.call(name, args)
        if outcome.ok and outcome.output is not None:
            return GoalAction(oracle.server, name, args, outcome.output)
    raise Rejected("no_authentication", "no authentication tool identifies this user from their own values")


def _transfer_call(
    oracle: Oracle, run: OracleRun, draw: GoalDraw, kept: list[tuple[GoalAction, int]]
) -> GoalAction:
    """The hand-off: a summary built only from what the conversation will have shown."""
    ids = [
        str(a.output[path])
        for a, _ in kept
        for path, entity in oracle.tools[a.tool].outputs.items()
        if entity == oracle.persona_entity and "[]" not in path and a.output.get(path) is not None
    ]
    who = f"Customer {ids[0]}" if ids else "The customer"
    summary = f"{who} asks for {draw.request}, which I cannot handle with my tools."
    return GoalAction(oracle.server, draw.tool, {"summary": summary}, {})


def _replay(oracle: Oracle, actions: list[GoalAction]) -> tuple[list[GoalAction], dict[str, Any]]:
    """Run ``actions`` from the seed through the real tools: their outputs and the diff
    from the seed to the final state."""
    oracle.reset()
    done: list[GoalAction] = []
    for action in actions:
        # The state before a write, to tell whether it changed anything (a read's outcome
        # needs no hash: the session's hash is a function of its rows, taken when asked).
        write = oracle.tools[action.tool].effect == "write"
        before = oracle.hash() if write else None
        outcome = oracle.call(action.tool, action.arguments)
        if not outcome.ok or outcome.output is None:
            raise Rejected("policy_completion", f"{action.tool} failed once completed: {outcome.error}")
        if outcome.written:
            oracle.session.mark_written(outcome.written)
        if write and oracle.hash() == before:
            # Setting an address to the one it already has: the user would ask for nothing.
            raise Rejected("no_change", f"{action.tool} leaves the state as it was")
        done.append(GoalAction(action.server, action.tool, action.arguments, outcome.output))
    return done, oracle.seed_diff()


def rule_claim(oracle: Oracle, draw: GoalDraw, action: GoalAction) -> tuple[str, Any] | None:
    """``(path, value)`` of the refused goal's lookup output that shows the column its
    business rule reads (a window's moment, an eligibility's state), or None."""
    if draw.business is None:
        return None
    rule = oracle.business_rules[draw.business]
    if rule["kind"] not in ("window", "eligibility"):
        return None
    column = rule["column"]
    value = action.output.get(column) if isinstance(action.output, dict) else None
    return (column, value) if isinstance(value, str | int | float) and not isinstance(value, bool) else None
