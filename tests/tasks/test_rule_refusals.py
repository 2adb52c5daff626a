"""Tasks that exercise the declared business rules (issue 31, build item 2).

A refusal goal may come from a rule beyond status (``policy_rules.rules``): the user asks
for a write with arguments the tool itself takes, but that rule alone refuses on the state
at that point (an order placed too long ago to return, an owner at a quota, an amount
above the limit). The gold looks the object up and does not make the write; the
demonstrator explains the refusal by the rule's reason; the oracle scores 1.0 and doing
nothing 0. Drawn from the declared rules, the same way in every environment."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import build_env
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.runtime import Toolbox
from envfactory_mcp.spec import dump_spec
from envfactory_mcp.tasks.model import Task, write_tasks
from envfactory_mcp.tasks.oracle import Oracle
from envfactory_mcp.tasks.stats import policy_problems

# A flagship and two library services whose seeds break their rules.
ENVS = ("retail", "hair_salon", "brightpath_tutoring")


def rule_refusals(task: Task, reasons: set[str]) -> list[int]:
    return [g for g, goal in enumerate(task.gold.goals) if goal.kind == "refuse" and goal.reason in reasons]


@pytest.mark.parametrize("name", ENVS)
def test_a_call_the_oracle_counts_as_refused_by_a_rule_is_taken_without_it(name: str) -> None:
    """``Oracle.breaking``: on the seed, the call is refused with exactly the rule's reason,
    and the same tools without the declared rules take it (the rule's doing alone)."""
    env = build_env(load_blueprint(name))
    oracle = Oracle(env, 1)
    spec = json.loads(dump_spec(env.spec))
    unruled = copy.deepcopy(spec)
    unruled["policy_rules"]["rules"] = []
    kinds = set()
    for index, rule in enumerate(env.spec.policy_rules.rules):
        for args in oracle.breaking(rule.tool, index)[:3]:
            for box, ok in (
                (Toolbox(spec, env.tools_module), False),
                (Toolbox(unruled, env.tools_module), True),
            ):
                session = env.new_session()
                try:
                    out = box.call(session.db, rule.tool, args)
                finally:
                    session.close()
                assert out.ok == ok, (rule, args, out.error)
                if not ok:
                    assert out.error == rule.reason
            kinds.add(rule.kind)
    assert len(kinds) >= 1


Generated = dict[str, tuple[list[Task], set[str]]]


@pytest.fixture(scope="module")
def generated(shared_tasks: Callable[[str, int, int], list[Task]]) -> Generated:
    out = {}
    for name in ENVS:
        env = build_env(load_blueprint(name))
        tasks = shared_tasks(name, 40, 3)  # made once for this module and tests/sim/test_rule_judgement.py
        reasons = {r.reason for r in env.spec.policy_rules.rules} - {
            r.reason for r in env.spec.policy_rules.refusals
        }
        out[name] = (tasks, reasons)
    return out


@pytest.mark.parametrize("name", ENVS)
def test_refusal_goals_come_from_the_declared_rules_and_never_write(name: str, generated: Generated) -> None:
    env = build_env(load_blueprint(name))
    spec = env.spec
    tasks, reasons = generated[name]
    intents = {t.name: t.intent for t in spec.tools}
    refused = [(t, g) for t in tasks for g in rule_refusals(t, reasons)]
    assert len(refused) >= 4, f"{name}: {len(refused)} refusals by a business rule in {len(tasks)} tasks"
    for task, g in refused:
        goal = task.gold.goals[g]
        rule = next(r for r in spec.policy_rules.rules if r.reason == goal.reason)
        assert goal.requested == intents[rule.tool]
        own = [task.gold.actions[i] for i in goal.actions]
        assert goal.tool in [a.name for a in own]
        assert all(spec.tool(a.name).effect == "read" for a in own), task.task_id  # type: ignore[union-attr]
        assert policy_problems(task, spec) == [], task.task_id
    # Replayed from the seed, the gold ends where it says (nothing the rule refused was made).
    for task, _ in refused[:6]:
        session = env.new_session()
        try:
            toolbox = env.toolbox()
            for action in task.gold.actions:
                assert toolbox.call(session.db, action.name, action.arguments).ok
            assert session.hash() == task.gold.final_state_hash
        finally:
            session.close()


def play(tasks: list[Task], name: str, agent: str, tmp: Path) -> dict[str, TrajectoryRecord]:
    """Rollouts over MCP of the environment as this checkout renders it (written here, not
    verified: the code is the repository's, served with allow_unverified and trust)."""
    servers = tmp / "servers"
    write_package(render_package(build_env(load_blueprint(name))), servers / name)
    write_tasks(tasks, tmp / "tasks.jsonl")
    config = RolloutConfig(
        envs=[name],
        tasks_path=str(tmp / "tasks.jsonl"),
        servers_dir=str(servers),
        agent=agent,
        transport="memory",
        concurrency=4,
        allow_unverified=True,
        trust=True,
    )
    anyio.run(rollout, config, tmp / agent)
    lines = (tmp / agent / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return {r.task_id: r for r in (TrajectoryRecord.model_validate_json(line) for line in lines)}


@pytest.mark.slow
@pytest.mark.parametrize("name", ENVS)
def test_oracle_one_noop_zero_and_the_gold_replay_demonstrator_says_the_rule(
    name: str, generated: Generated, tmp_path: Path
) -> None:
    tasks, reasons = generated[name]
    chosen = [t for t in tasks if rule_refusals(t, reasons)][:10]
    oracle = play(chosen, name, "oracle", tmp_path / "o")
    noop = play(chosen, name, "noop", tmp_path / "n")
    shown = play(chosen, name, "gold-replay", tmp_path / "d")
    explained = 0
    for task in chosen:
        assert oracle[task.task_id].reward == 1.0, (task.task_id, oracle[task.task_id].reward_parts)
        assert noop[task.task_id].reward == 0.0, task.task_id
        record = shown[task.task_id]
        assert record.reward == 1.0, (task.task_id, record.reward_parts)
        said = " ".join(
            str(m.get("content")) for m in record.messages if m.get("role") == "assistant"
        ).casefold()
        # A refusal the agent tells something about (a claim: the date a window counts
        # from) is explained by the rule's reason; one with nothing to tell may end the
        # conversation before it (the user stops once every claim is heard).
        for g in rule_refusals(task, reasons):
            if not any(c.goal == g for c in task.gold.claims):
                continue
            reason = task.gold.goals[g].reason
            assert reason is not None and reason.casefold() in said, (task.task_id, reason)
            explained += 1
    assert explained >= 1, f"{name}: no refusal by a rule with something to tell among {len(chosen)} tasks"
