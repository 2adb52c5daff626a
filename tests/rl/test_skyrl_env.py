"""The SkyRL gym adapter with the real ``skyrl_gym`` (0.4): the environment made by
``skyrl_gym.make`` plays the oracle's decoded text (tool calls as ``<tool_call>`` blocks)
and ends with the reward, reward parts and final state ``envfactory-mcp rollout``'s oracle
records for the same task; a policy that only talks scores 0. Needs the ``skyrl`` extra
(``pip install -e '.[test,skyrl]'``, CPU only)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rl_episodes import NOOP_MESSAGE, SERVERS_DIR, TRANSPORT, needs_servers, oracle_texts, rollout_records

from envfactory_mcp.tasks.model import read_tasks, write_tasks

skyrl_gym = pytest.importorskip(
    "skyrl_gym", reason="the skyrl extra is not installed: pip install -e '.[test,skyrl]'"
)

pytestmark = [pytest.mark.slow, needs_servers]  # builds retail and its tasks


@pytest.fixture(scope="module")
def tasks_file(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(4, seed=21)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks([t for t in made if t.gold.actions][:2], path)
    return path


def make(tasks_file: Path, task_id: str):
    from envfactory_mcp.rl.skyrl_env import EnvFactorySkyRLEnv, register

    register()
    env = skyrl_gym.make(
        "envfactory",
        env_config={"servers_dir": str(SERVERS_DIR), "transport": TRANSPORT},
        extras={"tasks_path": str(tasks_file), "task_id": task_id},
    )
    assert isinstance(env, EnvFactorySkyRLEnv)
    return env


def test_a_skyrl_episode_scores_as_the_rollout(tasks_file: Path, tmp_path: Path):
    from skyrl_gym.envs.base_text_env import BaseTextEnv

    tasks = read_tasks(tasks_file)
    rolled = rollout_records(tasks_file, tmp_path / "run")
    for task in tasks:
        env = make(tasks_file, task.task_id)
        assert isinstance(env, BaseTextEnv)
        prompt, meta = env.init([{"role": "user", "content": "ignored: the episode opens"}])
        assert [m["role"] for m in prompt] == ["system", "user"]
        assert {t["function"]["name"] for t in meta["tools"]} >= {a.name for a in task.gold.actions}
        outs = []
        for text in oracle_texts(task):
            out = env.step(text)
            outs.append(out)
            if out["done"]:
                break
        env.close()
        last, record = outs[-1], rolled[task.task_id]
        assert last["done"] and last["metadata"]["termination"] == record.termination == "user_stop"
        assert last["reward"] == record.reward == 1.0
        assert record.reward_parts is not None
        assert last["metadata"]["reward_parts"] == record.reward_parts.model_dump()
        assert env.episode.record.final_state_hash == record.final_state_hash
        # each tool call came back as a tool message, and no reward before the end
        assert any(o["observations"][0]["role"] == "tool" for o in outs)
        assert all(o["reward"] == 0.0 and not o["done"] for o in outs[:-1])


def test_a_skyrl_episode_that_only_talks_scores_zero(tasks_file: Path):
    task = read_tasks(tasks_file)[0]
    env = make(tasks_file, task.task_id)
    env.init()
    out = None
    for _ in range(40):
        out = env.step(NOOP_MESSAGE)
        assert out["observations"][-1]["role"] == "user"
        if out["done"]:
            break
    env.close()
    assert out is not None and out["done"] and out["reward"] == 0.0
    assert env.episode.record.final_state_hash == env.episode.record.initial_state_hash
