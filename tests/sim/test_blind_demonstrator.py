"""The demonstrator blind to the gold (issue 26, point 1): ``sim.planner.BlindDemonstrator``
decides from ``agent_view(task)`` (the user's side) and what the tools return. Started with a
task whose gold raises on every read but the user's phrases of its goals, it plays the same
episodes as with the whole task; scored against the real task it finishes every task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.catalog import load_environment
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.grounding import ungrounded_calls
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.sim.planner import BlindDemonstrator, agent_view
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import Task, write_tasks

pytestmark = pytest.mark.slow
N = 40
SEED = 9


class Sealed:
    """Raises on any read but ``allowed``."""

    def __init__(self, what: str, allowed: dict[str, Any]) -> None:
        self._what, self._allowed = what, allowed

    def __getattr__(self, name: str) -> Any:
        if name in self._allowed:
            return self._allowed[name]
        raise AssertionError(f"the blind demonstrator read {self._what}.{name}")


def sealed(task: Task) -> Task:
    """``task`` with a gold that raises on every read but each goal's user phrases."""
    goals = [
        Sealed(
            "goal",
            {k: getattr(g, k) for k in ("kind", "intent", "requested", "condition", "otherwise", "request")},
        )
        for g in task.gold.goals
    ]
    return task.model_copy(update={"gold": Sealed("gold", {"goals": goals})})


class Sealing:
    def __init__(self, inner: BlindDemonstrator) -> None:
        self.inner, self.name = inner, inner.name

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self.inner.start(sealed(task), tools, system_prompt)

    async def act(self, messages: list[dict[str, Any]]) -> Any:
        return await self.inner.act(messages)


@pytest.fixture(scope="module")
def envs() -> dict[str, Any]:
    return {name: load_environment(name, SERVERS_DIR).env for name in ENVS}


# dog_walking lists every customer's objects: only the signed-in one's are candidates
ENVS = ["retail", "airline", "telecom", "banking", "clinic", "dog_walking"]


def play(env: Any, tasks: list[Task], tmp: Path, seal: bool) -> dict[str, TrajectoryRecord]:
    write_tasks(tasks, tmp / "tasks.jsonl")
    config = RolloutConfig(
        envs=[env.spec.name],
        tasks_path=str(tmp / "tasks.jsonl"),
        servers_dir=str(SERVERS_DIR),
        agent="demonstrator",
        transport="memory",
        concurrency=8,
        seed=SEED,
    )

    def factory(c: RolloutConfig, t: Task) -> Any:
        agent = BlindDemonstrator(seed=c.seed, spec=env.spec)
        return Sealing(agent) if seal else agent

    anyio.run(rollout, config, tmp / "run", None, factory)
    lines = (tmp / "run" / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return {r.task_id: r for r in (TrajectoryRecord.model_validate_json(line) for line in lines)}


@pytest.fixture(scope="module")
def played(envs: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = {}
    for name, env in envs.items():
        tasks, _ = generate_tasks(env, N, seed=SEED)
        out[name] = (tasks, play(env, tasks, tmp_path_factory.mktemp(name), seal=True))
    return out


def test_the_view_holds_the_users_side_only(envs: dict[str, Any]):
    tasks, _ = generate_tasks(envs["retail"], 10, seed=SEED)
    for task in tasks:
        view = agent_view(sealed(task))  # raises if it reads the gold
        assert view.facts == tuple(task.user_scenario.known_info)
        assert [g.kind for g in view.goals] == [
            {"refuse": "act"}.get(g.kind, g.kind) for g in task.gold.goals
        ]  # a refusal to come is not known


def test_it_never_reads_the_gold(envs: dict[str, Any], played: dict[str, Any], tmp_path: Path):
    """Sealed gold: no read raised (every episode ended by the user), and the episodes are
    the same as with the whole task."""
    for name in ("retail", "airline", "telecom"):
        tasks, sealed_run = played[name]
        assert all(r.termination in ("user_stop", "max_steps") for r in sealed_run.values()), name
        open_run = play(envs[name], tasks[:15], tmp_path / name, seal=False)
        for task_id, record in open_run.items():
            other = sealed_run[task_id]
            # the hashes say which side moved when the two differ (the state, or the gold's replay)
            hashes = {
                run: (r.gold_state_hash[:12], (r.final_state_hash or "")[:12], r.termination, r.reward)
                for run, r in (("open", record), ("sealed", other))
            }
            assert record.messages == other.messages, (task_id, hashes)


@pytest.mark.parametrize("name", ENVS)
def test_blind_it_finishes_every_task(name: str, envs: dict[str, Any], played: dict[str, Any]):
    """Reward 1.0 on every task, scored against the real task; every call grounded and no
    policy violation."""
    tasks, records = played[name]
    spec = envs[name].spec
    failed = [t.task_id for t in tasks if records[t.task_id].reward != 1.0]
    for task in tasks:
        assert ungrounded_calls(records[task.task_id].messages, spec) == [], task.task_id
        assert policy_violations(records[task.task_id].messages, spec) == [], task.task_id
    assert failed == []


def test_a_total_is_added_up_with_the_calculator(envs: dict[str, Any], played: dict[str, Any]):
    """ "How much would they cost together": the blind demonstrator looks each object up,
    adds the amounts with the environment's calculator, and says the sum (the gold's), once
    for each total a task asks for."""
    import json

    from envfactory_mcp.tasks.compose import TOTAL_INTENT

    seen = 0
    for name in ("retail", "airline", "clinic"):
        tasks, records = played[name]
        calculator = envs[name].spec.policy_rules.calculator
        for task in tasks:
            totals = sum(g.intent == TOTAL_INTENT for g in task.gold.goals)
            if not totals:
                continue
            seen += 1
            messages = records[task.task_id].messages
            calls = [c for m in messages if m.get("role") == "assistant" for c in (m.get("tool_calls") or [])]
            sums = [c for c in calls if c["function"]["name"].endswith(str(calculator))]
            assert len(sums) == totals, task.task_id  # one sum per total asked for
            expressions = [json.loads(c["function"]["arguments"]) for c in sums]
            gold = [a.arguments for a in task.gold.actions if a.name == calculator]
            assert expressions == gold, task.task_id  # the same amounts, in the order named
            assert records[task.task_id].reward == 1.0, task.task_id
    assert seen >= 3


def test_a_description_is_read_inside_one_value(envs: dict[str, Any]):
    """The user's words match within one value of what a tool returned, never across the
    end of one value and the next field's name: a ticket about a line "although I did not
    travel" followed by its ``phone_number`` is not "the Travel phone line"."""
    from envfactory_mcp.sim import planner
    from envfactory_mcp.tasks.model import Fact

    env = envs["telecom"]
    tasks, _ = generate_tasks(env, 1, seed=SEED)
    agent = BlindDemonstrator(seed=SEED, spec=env.spec)
    agent.start(tasks[0], [], "")
    ticket = {
        "ticket_id": "TKT1",
        "category": "billing",
        "description": "Roaming charge although I did not travel",
        "phone_number": "4045550101",
        "status": "closed",
    }
    agent._outputs = [("get_ticket_details", {"ticket_id": "TKT1"}, ticket)]
    fact = Fact(
        key="phone_number",
        kind="reference",
        value="4045550199",
        text="the Travel phone line",
        must=["Travel phone"],
        in_opening=True,
        goal=0,
    )
    entity = agent._key_entity("phone_number")
    said = "i want to report a problem with my travel phone line."
    assert agent._fact_value(fact, entity, said, []) is planner._UNREAD  # read on, not the ticket's line
    line = {"phone_number": "4045550199", "label": "Travel phone", "status": "active"}
    agent._outputs.append(("get_line_details", {"phone_number": "4045550199"}, line))
    assert agent._fact_value(fact, entity, said, []) == "4045550199"
