"""The task pipeline: draw goals, sample a chain per goal, run them through the oracle,
complete the gold for the policy, write the scenario, realise the opening message.

``generate_tasks`` is deterministic: the same environment, count, seed and sampler give
byte-identical ``tasks.jsonl``. Every emitted task is valid (its gold actions ran without
error, a write task changes the state, every parameter was known to the user or returned
by an earlier step, the user knows whatever the policy makes the agent ask for, no two
tasks share a gold outcome); rejected draws are counted by reason.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from envfactory_mcp.env import Environment
from envfactory_mcp.graph import build_graph
from envfactory_mcp.graph.build import tool_id
from envfactory_mcp.graph.sample import Chain, RandomWalkSampler, SamplerConfig, TopologySampler
from envfactory_mcp.spec import RefusalRule
from envfactory_mcp.tasks.calibrate import check_message, leak_rules_for
from envfactory_mcp.tasks.compose import (
    ComposedGold,
    GoalDraw,
    GoalDrawer,
    complete_for_policy,
    concatenate,
    rule_claim,
    state_filter,
)
from envfactory_mcp.tasks.model import (
    Calibration,
    Claim,
    GoalKind,
    Gold,
    GoldAction,
    InitialState,
    Provenance,
    Task,
    UserScenario,
)
from envfactory_mcp.tasks.oracle import GoalFilter, Oracle, Rejected
from envfactory_mcp.tasks.pool_cache import load as pool_cache_load
from envfactory_mcp.tasks.pool_cache import save as pool_cache_save
from envfactory_mcp.tasks.realise import OpeningPlan, realise_opening
from envfactory_mcp.tasks.scenario import Describer, Scenario, build_scenario
from envfactory_mcp.tasks.stats import outcome_key

SamplerName = Literal["topology", "random_walk"]


@dataclass
class GenerationReport:
    """What happened on the way to ``tasks``: for the statistics."""

    sampled: int = 0  # chains that reached the oracle
    sampler_misses: int = 0  # draws the sampler itself discarded (length, diversity caps)
    rejected: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0
    calibration_failures: int = 0


def generate_tasks(
    env: Environment,
    n: int,
    seed: int = 0,
    sampler: SamplerName = "topology",
    config: SamplerConfig | None = None,
    max_draws: int | None = None,
    on_task: Callable[[Task], None] | None = None,
    pool_cache: bool = True,
) -> tuple[list[Task], GenerationReport]:
    """Up to ``n`` valid tasks (fewer only if ``max_draws`` draws run out first).
    ``pool_cache``: read and write the oracle's candidate pools in the user's cache
    (``tasks.pool_cache``; the tasks are the same either way)."""
    config = config or SamplerConfig(expected=n)
    graph = build_graph(env.spec)
    topology = TopologySampler(graph, seed, config)
    walk = RandomWalkSampler(graph, seed, config)
    drawer = GoalDrawer(env.spec, random.Random(f"goals:{seed}"))
    oracle = Oracle(env, seed)
    cached = pool_cache_load(oracle) if pool_cache else None
    # Refusals by a business rule only where the seed holds a call that rule alone refuses.
    declared = env.spec.policy_rules.rules
    drawer.business = [i for i in drawer.business if oracle.breaking(declared[i].tool, i)]
    describer = Describer(env, oracle.data)
    rng = random.Random(f"tasks:{seed}:{sampler}")
    report = GenerationReport()
    tasks: list[Task] = []
    outcomes: set[str] = set()
    draws_done = 0
    limit = max_draws if max_draws is not None else max(200, 40 * n)
    while len(tasks) < n and draws_done < limit:
        draws_done += 1
        drawn = _draw(env, drawer, topology, walk, oracle, sampler)
        if drawn is None:
            report.sampler_misses += 1
            continue
        chain, goal_steps, chain_goal, goals, filters, refused = drawn
        report.sampled += 1
        try:
            run = oracle.run(chain, rng, goal_filters=filters, refused=refused)
            gold = complete_for_policy(oracle, run, goal_steps, chain_goal, goals, rng)
        except Rejected as exc:
            report.rejected[exc.code] += 1
            continue
        # A refusal by a business rule: the goal's own action is the lookup before the write
        # not made, as a status refusal's is the read that shows the state.
        goals = [
            replace(g, tool=gold.actions[gold.goal_index[i]].tool) if g.business is not None else g
            for i, g in enumerate(goals)
        ]
        try:
            scenario = build_scenario(run, gold, goals, env, describer, rng)
        except Rejected as exc:  # an object of the task is another customer's
            report.rejected[exc.code] += 1
            continue
        for g, draw in enumerate(goals):  # a refusal by a business rule: what the rule reads is told
            shown = rule_claim(oracle, draw, gold.actions[gold.goal_index[g]])
            if shown is not None and not any(c.goal == g and c.path == shown[0] for c in scenario.claims):
                action = gold.actions[gold.goal_index[g]]
                text = str(shown[1]).replace("_", " ")
                scenario.claims.append(
                    Claim(tool=action.tool, path=shown[0], value=shown[1], text=text, goal=g)
                )
        writes = any(env.spec.tool(a.tool).effect == "write" for a in gold.actions)  # type: ignore[union-attr]
        required = _required_calls(goals)
        if not writes and not scenario.claims and not required:
            # Nothing changes and nothing needs telling: doing nothing would pass.
            report.rejected["no_effect"] += 1
            continue

        rules = leak_rules_for(env.spec, scenario.facts, [(a.tool, a.arguments) for a in gold.actions])
        identity = [f for f in scenario.facts if f.kind == "identity"]
        plan = OpeningPlan(
            style=scenario.style,
            name=scenario.name,
            identity=identity,
            goals=scenario.plans,
            withheld=scenario.withheld,
        )
        # The wording has its own seed: a change in how requests are worded never changes
        # which tasks are drawn.
        message, operations = realise_opening(plan, random.Random(f"opening:{seed}:{sampler}:{draws_done}"))
        if check_message(message, scenario.facts, rules):
            report.calibration_failures += 1
            continue
        calibration = Calibration(method="offline", operations=operations)
        task = _task(env, chain, gold, scenario, required, message, calibration, seed, sampler, len(tasks))
        outcome = outcome_key(task)
        if outcome in outcomes:  # no two tasks come to the same thing
            report.duplicates += 1
            continue
        outcomes.add(outcome)
        tasks.append(task)
        if on_task is not None:
            on_task(task)
    pool_cache_save(oracle, cached)
    return tasks, report


Drawn = tuple[Chain, list[int], list[int], list[GoalDraw], dict[int, GoalFilter], dict[int, int]]


def _draw(
    env: Environment,
    drawer: GoalDrawer,
    topology: TopologySampler,
    walk: RandomWalkSampler,
    oracle: Oracle,
    sampler: SamplerName,
) -> Drawn | None:
    """A chain, its goal steps, the goal each serves, the goals, the goal filters and the
    goal steps a declared business rule refuses (step -> rule index); None when the
    sampler missed."""
    if sampler == "random_walk":
        chain = walk.sample()
        if chain is None:
            return None
        last = chain.steps[-1].tool.split("/", 1)[1]
        kind: GoalKind = "act" if env.spec.tool(last).effect == "write" else "ask"  # type: ignore[union-attr]
        return chain, [len(chain.steps) - 1], [0], [GoalDraw(kind, last)], {}, {}
    goals = drawer.draw()
    chains: list[Chain] = []
    chain_goal: list[int] = []
    for index, goal in enumerate(goals):
        if goal.kind == "transfer":
            continue
        for _ in range(2 if goal.total else 1):
            sampled = topology.sample(goal=tool_id(env.spec.name, goal.tool))
            if sampled is None:
                return None
            chains.append(sampled)
            chain_goal.append(index)
    if not chains:
        return None
    chain, goal_steps = concatenate(chains)
    filters: dict[int, GoalFilter] = {}
    refused: dict[int, int] = {}
    for index, step in zip(chain_goal, goal_steps, strict=True):
        goal = goals[index]
        if goal.business is not None:  # the write the user asks for, refused by that rule
            refused[step] = goal.business
        # A refusal, or a contingent goal whose fallback is to tell the state: the object
        # must be in a state the rule does not allow.
        elif isinstance(goal.rule, RefusalRule) and goal.tool == goal.rule.shown_by:
            filters[step] = state_filter(oracle, goal.tool, goal.rule, allowed=False)
    return chain, goal_steps, chain_goal, goals, filters, refused


def _required_calls(goals: list[GoalDraw]) -> list[str]:
    return [g.tool for g in goals if g.kind == "transfer"]


def _task(
    env: Environment,
    chain: Chain,
    gold: ComposedGold,
    scenario: Scenario,
    required: list[str],
    message: str,
    calibration: Calibration,
    seed: int,
    sampler: str,
    index: int,
) -> Task:
    name = env.spec.name
    confirm = set(env.spec.policy_rules.confirm)
    writes = any(env.spec.tool(a.tool).effect == "write" for a in gold.actions)  # type: ignore[union-attr]
    return Task(
        task_id=f"{name}-{sampler.replace('_', '-')}-s{seed}-{index:05d}",
        env=name,
        servers=[name],
        kind="write" if writes else "read",
        user_scenario=UserScenario(
            persona=scenario.persona,
            name=scenario.name,
            known_info=scenario.facts,
            unknown_info=scenario.unknown,
            reason_for_call=scenario.reason,
            instructions_overspecified=scenario.overspecified,
            opening_message=message,
            calibration=calibration,
        ),
        initial_state=InitialState(state_hash=gold.initial_hash),
        gold=Gold(
            actions=[
                GoldAction(
                    server=a.server,
                    name=a.tool,
                    arguments=a.arguments,
                    output=a.output,
                    confirm=a.tool in confirm,
                )
                for a in gold.actions
            ],
            final_state_hash=gold.final_hash,
            diff=gold.diff,
            claims=scenario.claims,
            required_calls=required,
            goals=scenario.goals,
        ),
        provenance=Provenance(
            sampler=sampler,
            seed=seed,
            chain=list(chain.tools),
            structure=chain.structure(),
            index=index,
        ),
    )
