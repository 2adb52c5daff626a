"""The task pipeline: sample a chain, run it through the oracle, write the scenario, calibrate.

``generate_tasks`` is deterministic: the same environment, count, seed and sampler give
byte-identical ``tasks.jsonl``. Every emitted task is valid (its gold actions ran without
error, a write task changes the state, every parameter was known to the user or returned
by an earlier step, no duplicate gold action list); rejected chains are counted by reason.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from envfactory_mcp.env import Environment
from envfactory_mcp.graph import build_graph
from envfactory_mcp.graph.sample import RandomWalkSampler, SamplerConfig, TopologySampler
from envfactory_mcp.tasks.calibrate import calibrate_offline, check_message, leak_rules_for
from envfactory_mcp.tasks.model import (
    Calibration,
    Gold,
    GoldAction,
    InitialState,
    Provenance,
    Task,
    UserScenario,
)
from envfactory_mcp.tasks.oracle import Oracle, OracleRun, Rejected
from envfactory_mcp.tasks.scenario import STYLES, Describer, Scenario, build_scenario

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
) -> tuple[list[Task], GenerationReport]:
    """Up to ``n`` valid tasks (fewer only if ``max_draws`` chains run out first)."""
    config = config or SamplerConfig(expected=n)
    graph = build_graph(env.spec)
    chains = (
        TopologySampler(graph, seed, config)
        if sampler == "topology"
        else RandomWalkSampler(graph, seed, config)
    )
    oracle = Oracle(env, seed)
    describer = Describer(env, oracle.data)
    rng = random.Random(f"tasks:{seed}:{sampler}")
    report = GenerationReport()
    tasks: list[Task] = []
    seen: set[str] = set()
    draws = 0
    limit = max_draws if max_draws is not None else max(200, 40 * n)
    while len(tasks) < n and draws < limit:
        draws += 1
        chain = chains.sample()
        if chain is None:
            report.sampler_misses += 1
            continue
        report.sampled += 1
        try:
            run = oracle.run(chain, rng)
        except Rejected as exc:
            report.rejected[exc.code] += 1
            continue
        scenario = build_scenario(run, env, describer, rng)
        if not run.writes and not scenario.claims:
            # Nothing changes and nothing needs telling: doing nothing would pass.
            report.rejected["no_effect"] += 1
            continue
        key = json.dumps([[a.tool, a.arguments] for a in run.actions], sort_keys=True, default=str)
        if key in seen:
            report.duplicates += 1
            continue
        rules = leak_rules_for(env.spec, scenario.facts, [(a.tool, a.arguments) for a in run.actions])
        style = scenario.persona.split(", ", 1)[1].rstrip(".") if ", " in scenario.persona else STYLES[0]
        message, calibration = calibrate_offline(scenario.facts, scenario.goal_intents, style, rng)
        if check_message(message, scenario.facts, rules):
            report.calibration_failures += 1
            continue
        seen.add(key)
        task = _task(env, run, scenario, message, calibration, seed, sampler, len(tasks))
        tasks.append(task)
        if on_task is not None:
            on_task(task)
    return tasks, report


def _task(
    env: Environment,
    run: OracleRun,
    scenario: Scenario,
    message: str,
    calibration: Calibration,
    seed: int,
    sampler: str,
    index: int,
) -> Task:
    name = env.spec.name
    return Task(
        task_id=f"{name}-{sampler.replace('_', '-')}-s{seed}-{index:05d}",
        env=name,
        servers=[name],
        kind="write" if run.writes else "read",
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
        initial_state=InitialState(state_hash=run.initial_hash),
        gold=Gold(
            actions=[
                GoldAction(server=a.server, name=a.tool, arguments=a.arguments, output=a.output)
                for a in run.actions
            ],
            final_state_hash=run.final_hash,
            diff=run.diff,
            claims=scenario.claims,
        ),
        provenance=Provenance(
            sampler=sampler,
            seed=seed,
            chain=list(run.chain.tools),
            structure=run.chain.structure(),
            index=index,
        ),
    )
