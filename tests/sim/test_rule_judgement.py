"""The blind demonstrator reasons about the declared business rules (issues 31 and 26).

``policy_rules.rules`` (amount, quota, window, eligibility, exclusive) are data it checks
before it proposes a write, on what the tools have shown (``sim.business``): a rule that
forbids the write is explained to the user with its reason, and the write is never made.
A write a rule refuses after all (what the rule needs could not be read) is told as a
refusal, never as a success. The same in every environment: nothing here names one rule,
tool or task."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import build_env
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.grounding import ungrounded_calls
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.sim import business
from envfactory_mcp.sim.planner import BlindDemonstrator, agent_view
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import Task, write_tasks
from envfactory_mcp.tasks.oracle import Oracle

# A flagship (eligibility, window) and library services (amount, quota, window, exclusive).
ENVS = ("retail", "hair_salon", "brightpath_tutoring", "dog_walking")
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")


@pytest.mark.parametrize("name", ENVS)
def test_what_the_runtime_refuses_the_reads_show(name: str) -> None:
    """For every declared rule, calls the rule alone refuses on the seed (``Oracle.breaking``):
    the reads ``business.lookup`` names, made in turn, show enough for ``business.judge`` to
    refuse them; calls the tools take on the seed (``Oracle.viable``) it never refuses."""
    env = build_env(load_blueprint(name))
    oracle = Oracle(env, 1)
    toolbox = env.toolbox()
    checked: dict[str, int] = {}
    for index, rule in enumerate(env.spec.policy_rules.rules):
        cases = [(args, True) for args in oracle.breaking(rule.tool, index)[:3]]
        cases += [(args, False) for args in oracle.viable(rule.tool)[:3]]
        for args, refused in cases:
            session = env.new_session()
            outputs: list[tuple[str, dict[str, Any], Any]] = []
            try:
                verdict = business.judge(env.spec, rule, args, outputs)
                while verdict is None:
                    made = [(o[0], o[1]) for o in outputs]
                    read = business.lookup(env.spec, rule, args, lambda n, a, made=made: (n, a) in made)
                    assert read is not None, (rule, args, outputs)
                    out = toolbox.call(session.db, *read)
                    assert out.ok, (read, out.error)
                    outputs.append((read[0], read[1], out.output))
                    verdict = business.judge(env.spec, rule, args, outputs)
            finally:
                session.close()
            assert verdict is refused, (rule, args)
            checked[rule.kind] = checked.get(rule.kind, 0) + refused
    assert sum(checked.values()) >= 2 and len(checked) >= 2, checked


def rule_refusals(task: Task, reasons: set[str]) -> list[int]:
    return [g for g, goal in enumerate(task.gold.goals) if goal.kind == "refuse" and goal.reason in reasons]


Generated = dict[str, tuple[list[Task], set[str], Any]]


@pytest.fixture(scope="module")
def generated(shared_tasks: Callable[[str, int, int], list[Task]]) -> Generated:
    out = {}
    for name in ENVS:
        env = build_env(load_blueprint(name))
        tasks = shared_tasks(name, 40, 3)  # made once for this module and tests/tasks/test_rule_refusals.py
        reasons = {r.reason for r in env.spec.policy_rules.rules}
        out[name] = ([t for t in tasks if rule_refusals(t, reasons)][:12], reasons, env)
    return out


def play(env: Any, tasks: list[Task], tmp: Path, factory: Any) -> dict[str, TrajectoryRecord]:
    """Rollouts over MCP of the environment as this checkout renders it."""
    name = env.spec.name
    write_package(render_package(env), tmp / "servers" / name)
    write_tasks(tasks, tmp / "tasks.jsonl")
    config = RolloutConfig(
        envs=[name],
        tasks_path=str(tmp / "tasks.jsonl"),
        servers_dir=str(tmp / "servers"),
        agent="demonstrator",
        transport="memory",
        concurrency=4,
        allow_unverified=True,
        trust=True,
        seed=3,
    )
    anyio.run(rollout, config, tmp / "run", None, factory)
    lines = (tmp / "run" / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return {r.task_id: r for r in (TrajectoryRecord.model_validate_json(line) for line in lines)}


def tool_errors(record: TrajectoryRecord) -> list[str]:
    return [
        str(m.get("content"))
        for m in record.messages
        if m.get("role") == "tool" and str(m.get("content")).startswith("Error:")
    ]


def assistant_text(record: TrajectoryRecord) -> str:
    return " ".join(
        str(m.get("content")) for m in record.messages if m.get("role") == "assistant" and m.get("content")
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", ENVS)
def test_the_blind_demonstrator_refuses_what_a_rule_forbids_before_proposing_it(
    name: str, generated: Generated, tmp_path: Path
) -> None:
    """Tasks holding a refusal by a declared rule, played by the blind demonstrator: reward
    1.0, no policy violation, every call grounded; no call came back refused by a rule (it
    saw the rule's verdict in what it read and never proposed the write); the reason is
    said in prose (no snake_case word) wherever the conversation reached the refusal."""
    tasks, reasons, env = generated[name]
    assert len(tasks) >= 4, f"{name}: {len(tasks)} tasks with a refusal by a rule"
    records = play(env, tasks, tmp_path, lambda c, t: BlindDemonstrator(seed=c.seed, spec=env.spec))
    explained = 0
    for task in tasks:
        record = records[task.task_id]
        assert record.reward == 1.0, (task.task_id, record.reward_parts)
        assert policy_violations(record.messages, env.spec) == [], task.task_id
        assert ungrounded_calls(record.messages, env.spec) == [], task.task_id
        assert not [e for e in tool_errors(record) if any(r in e for r in reasons)], task.task_id
        said = assistant_text(record)
        assert not SNAKE.search(said), (task.task_id, SNAKE.findall(said))
        explained += sum(
            str(task.gold.goals[g].reason).casefold() in said.casefold() for g in rule_refusals(task, reasons)
        )
    assert explained >= len(tasks) // 2, f"{name}: {explained} refusals explained in {len(tasks)} tasks"


@pytest.mark.slow
def test_a_write_a_rule_refuses_after_all_is_told_as_a_refusal(
    generated: Generated, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the rules' verdicts hidden from it (``judge`` cannot tell, no read shows more),
    the blind demonstrator proposes the write; the server refuses it with the rule's reason,
    and the agent's next words tell the user that reason: a refusal, never "done". Where no
    other change follows in the task, the reward is 1.0 (nothing written, the claims said).
    (A change that follows waits on the scripted user, who gives one yes per change made:
    the refused write used it.)"""
    monkeypatch.setattr(business, "judge", lambda *a, **k: None)
    monkeypatch.setattr(business, "lookup", lambda *a, **k: None)
    tasks, reasons, env = generated["retail"]
    records = play(env, tasks, tmp_path, lambda c, t: BlindDemonstrator(seed=c.seed, spec=env.spec))
    refused_after = whole = 0
    for task in tasks:
        record = records[task.task_id]
        messages = record.messages
        for i, message in enumerate(messages):
            content = str(message.get("content"))
            reason = next((r for r in reasons if message.get("role") == "tool" and r in content), None)
            if reason is None:
                continue
            refused_after += 1
            reply = next(str(m.get("content")) for m in messages[i + 1 :] if m.get("role") == "assistant")
            assert reason.casefold() in reply.casefold(), (task.task_id, reply)
        last = max(rule_refusals(task, reasons))
        if all(g.kind not in ("act", "contingent") for g in task.gold.goals[last + 1 :]):
            assert record.reward == 1.0, (task.task_id, record.reward_parts)
            whole += 1
    assert refused_after >= 4 and whole >= 2, (refused_after, whole)


def test_the_view_it_reasons_from_holds_no_reason() -> None:
    """What the blind demonstrator knows of a refusal to come is the user's request only:
    the rule it checks comes from the spec, never from the task."""
    env = build_env(load_blueprint("retail"))
    tasks, _ = generate_tasks(env, 10, seed=3)
    reasons = {r.reason for r in env.spec.policy_rules.rules}
    for task in tasks:
        view = agent_view(task)
        assert not any(r in repr(view) for r in reasons), task.task_id
