"""The plain reset/step API against the retail server over real MCP (in-memory transport):
the oracle's moves through ``step`` score 1.0 with the very record a rollout writes, a
policy that only talks scores 0."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from paths import SERVERS_DIR
from rl_episodes import TRANSPORT, needs_servers

from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.store import read_records
from envfactory_mcp.rl import EnvFactoryEnv, EnvFactoryServers
from envfactory_mcp.sim.agents import NOOP_MESSAGE, closing_message, confirmation_request
from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks

pytestmark = [
    pytest.mark.slow,
    needs_servers,
]  # builds retail and its tasks (~40 s on first use in a session)


@pytest.fixture(scope="module")
def tasks_file(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(4, seed=21)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks([t for t in made if t.gold.actions][:3], path)
    return path


@pytest.fixture(scope="module")
def tasks(tasks_file: Path) -> list[Task]:
    return read_tasks(tasks_file)


def oracle_messages(task: Task) -> list[dict[str, object]]:
    """What the oracle agent sends, as OpenAI assistant messages: each gold call, after a
    request for the user's yes when the policy wants one, then the closing words."""
    moves: list[dict[str, object]] = []
    for i, a in enumerate(task.gold.actions):
        if a.confirm:
            moves.append({"role": "assistant", "content": confirmation_request(a)})
        call = {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": a.name, "arguments": json.dumps(a.arguments)},
        }
        moves.append({"role": "assistant", "content": None, "tool_calls": [call]})
    return [*moves, {"role": "assistant", "content": closing_message(task)}]


async def play(servers: EnvFactoryServers, task: Task, moves: list[dict[str, object]]) -> tuple:
    env = EnvFactoryEnv(servers, task)
    obs = await env.reset()
    assert obs["messages"][0]["role"] == "system" and obs["messages"][1]["role"] == "user"
    assert obs["tools"] and not any(t["function"]["name"].startswith("control.") for t in obs["tools"])
    reward, done, seen = None, False, []
    info: dict[str, object] = {}
    for move in moves:
        obs, reward, done, info = await env.step(move)
        seen.append(obs["messages"])
        if done:
            break
    return reward, done, info, seen


def test_the_oracle_through_step_scores_one_with_the_rollouts_record(
    tasks: list[Task], tasks_file: Path, tmp_path: Path
):
    async def main() -> list[tuple]:
        async with EnvFactoryServers(["retail"], transport=TRANSPORT, servers_dir=SERVERS_DIR) as servers:
            return [await play(servers, task, oracle_messages(task)) for task in tasks]

    played = anyio.run(main)
    config = RolloutConfig(
        envs=["retail"],
        tasks_path=str(tasks_file),
        servers_dir=str(SERVERS_DIR),
        transport=TRANSPORT,
        agent="oracle",
    )
    anyio.run(rollout, config, tmp_path / "run")
    by_task = {r.task_id: r for r in read_records(tmp_path / "run")}
    for task, (reward, done, info, seen) in zip(tasks, played, strict=True):
        assert done and reward == 1.0, info.get("termination_detail")
        record, rolled = info["record"], by_task[task.task_id]
        assert record.termination == rolled.termination == "user_stop"
        assert record.messages == rolled.messages  # the same conversation
        assert record.reward == rolled.reward and record.reward_parts == rolled.reward_parts
        assert record.final_state_hash == rolled.final_state_hash == task.gold.final_state_hash
        # every tool call was answered by a tool message, every text by the user
        moves = oracle_messages(task)
        assert all(
            m[0]["role"] == ("tool" if move.get("tool_calls") else "user")
            for m, move in zip(seen, moves, strict=True)
        )
        assert seen[-1][-1]["role"] == "user"


def test_talking_only_scores_zero_and_step_after_the_end_is_refused(tasks: list[Task]):
    async def main() -> None:
        async with EnvFactoryServers(["retail"], transport=TRANSPORT, servers_dir=SERVERS_DIR) as servers:
            env = EnvFactoryEnv(servers, tasks[0])
            await env.reset()
            reward, done = None, False
            for _ in range(40):
                obs, reward, done, info = await env.step(NOOP_MESSAGE)
                assert obs["messages"][-1]["role"] == "user"
                if done:
                    break
            assert done and reward == 0.0, info
            assert info["record"].final_state_hash == info["record"].initial_state_hash
            with pytest.raises(Exception, match="over"):
                await env.step("hello")
            # a new episode on the same env starts clean
            obs = await env.reset()
            assert obs["messages"][1]["role"] == "user"
            await env.close()

    anyio.run(main)
