"""The ART adapter with the real ``openpipe-art`` (0.5): ``art.gather_trajectory_groups``
runs ``rl.art_env.rollout`` with an ``art.Model`` whose inference endpoint is the local
OpenAI-protocol server (tests/llm_server.py) replying as the oracle; the trajectory's reward
is the one ``envfactory-mcp rollout``'s oracle records for the same task, its choices are
the model's replies, and a model that only talks gets 0. Needs the ``art`` extra
(``pip install -e '.[test,art]'``, CPU only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from llm_server import openai_server
from rl_episodes import (
    NOOP_MESSAGE,
    SERVERS_DIR,
    TRANSPORT,
    needs_servers,
    oracle_script,
    rollout_records,
)

from envfactory_mcp.rl import EnvFactoryServers
from envfactory_mcp.tasks.model import read_tasks, write_tasks

art = pytest.importorskip("art", reason="the art extra is not installed: pip install -e '.[test,art]'")

pytestmark = [pytest.mark.slow, needs_servers]  # builds retail and its tasks


@pytest.fixture(scope="module")
def tasks_file(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(4, seed=21)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks([t for t in made if t.gold.actions][:2], path)
    return path


def test_art_gathers_an_episode_with_the_rollouts_reward(tasks_file: Path, tmp_path: Path):
    from envfactory_mcp.rl.art_env import rollout

    solved, idle = read_tasks(tasks_file)
    rolled = rollout_records(tasks_file, tmp_path / "run")
    script = [*oracle_script(solved), *[{"content": NOOP_MESSAGE}] * 30]

    async def main(base_url: str) -> Any:
        model = art.Model(
            name="scripted",
            project="envfactory-test",
            inference_base_url=base_url,
            inference_api_key="sk-test",
            inference_model_name="scripted",
        )
        async with EnvFactoryServers(["retail"], transport=TRANSPORT, servers_dir=SERVERS_DIR) as servers:
            # one group after the other: the scripted server answers in order
            groups = []
            for task in (solved, idle):
                groups += await art.gather_trajectory_groups(
                    [art.TrajectoryGroup([rollout(model, task, servers)])], pbar_desc=None
                )
            return groups

    with openai_server(script) as server:
        groups = anyio.run(main, server.base_url)
        sent = server.requests
    assert [len(g.trajectories) for g in groups] == [1, 1], [g.exceptions for g in groups]
    first, second = groups[0].trajectories[0], groups[1].trajectories[0]
    assert isinstance(first, art.Trajectory)
    assert first.metadata["task_id"] == solved.task_id and first.metadata["termination"] == "user_stop"
    assert first.reward == rolled[solved.task_id].reward == 1.0
    assert second.reward == 0.0 and rolled[solved.task_id].reward != second.reward
    # the model's replies are kept as choices (what ART trains on), the rest as messages
    choices = [m for m in first.messages_and_choices if not isinstance(m, dict)]
    assert len(choices) == len(oracle_script(solved))
    assert first.tools and sent[0]["tools"] and sent[0]["messages"][0]["role"] == "system"
    assert any(m.get("role") == "tool" for m in sent[1]["messages"])
