"""The verifiers 0.4 plugin with the real ``verifiers.v1``: ``load_environment`` builds a
verifiers Env over retail tasks, and verifiers' own episode loop (``Env.run_episode``:
the env's run, the assistant's interaction, its harness, the interception server, the
``/tool`` gate and the task's interceptor) plays a model served by the local
OpenAI-protocol server (tests/llm_server.py) replying as the oracle: the trace's reward is
the one ``envfactory-mcp rollout``'s oracle records for the same task; a model that only
talks gets 0.

verifiers 0.4 pins ``mcp==2.0.0`` while the test install's generated servers need mcp 2.3,
so it lives in a trainer's venv: ``python3.11 -m venv v && v/bin/pip install -e '.[test]'
'verifiers==0.4.0'``, then run with ``ENVFACTORY_SERVER_PYTHON`` naming an interpreter of
the test install (the servers run over stdio from it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from llm_server import openai_server
from rl_episodes import NOOP_MESSAGE, SERVERS_DIR, TRANSPORT, needs_servers, oracle_script, rollout_records

from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks

NOT_HERE = "verifiers 0.4 is not installed (it pins mcp==2.0.0: a trainer's venv, see this module's doc)"
verifiers = pytest.importorskip("verifiers", reason=NOT_HERE)
if not str(getattr(verifiers, "__version__", "")).startswith("0.4"):
    pytest.skip(NOT_HERE, allow_module_level=True)  # 0.2 (the rl extra) has another verifiers.v1
vf = pytest.importorskip("verifiers.v1", reason=NOT_HERE)

pytestmark = [pytest.mark.slow, needs_servers]  # builds retail and its tasks


@pytest.fixture(scope="module")
def tasks_file(retail_tasks: Callable[..., list[Task]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(4, seed=21)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks([t for t in made if t.gold.actions][:2], path)
    return path


def test_verifiers_runs_an_episode_with_the_rollouts_reward(
    tasks_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from envfactory_mcp.rl.verifiers_v1 import REWARD_NAME, load_environment

    solved, idle = read_tasks(tasks_file)
    rolled = rollout_records(tasks_file, tmp_path / "run")
    env = load_environment("retail", tasks_path=str(tasks_file), servers_dir=SERVERS_DIR, transport=TRANSPORT)
    assert isinstance(env, vf.Env)
    tasks = {t.data.task_id: t for t in env.taskset}
    assert set(tasks) == {solved.task_id, idle.task_id}
    script = [*oracle_script(solved), *[{"content": NOOP_MESSAGE}] * 40]
    monkeypatch.setenv("ENVFACTORY_TEST_KEY", "sk-test")

    async def main(base_url: str) -> list[Any]:
        ctx = vf.ModelContext(
            model="scripted",
            client=vf.EvalClientConfig(base_url=base_url, api_key_var="ENVFACTORY_TEST_KEY"),
        )
        async with env.serving():
            # one after the other: the scripted server answers in order
            return [await env.run_episode(tasks[t.task_id], ctx) for t in (solved, idle)]

    with openai_server(script) as server:
        first, second = anyio.run(main, server.base_url)
        sent = server.requests
    assert first.ok, first.errors
    (trace,) = first.traces
    record = rolled[solved.task_id]
    assert trace.rewards[REWARD_NAME] is not None
    assert trace.reward == record.reward == 1.0
    assert record.reward_parts is not None
    assert trace.metrics[f"{REWARD_NAME}_steps"] == record.steps
    # the model was offered the retail tools, saw the tool results from the episode
    # (not an error) and the simulated user's replies
    assert sent[0]["tools"] and sent[0]["messages"][0]["role"] == "system"
    assert {t["function"]["name"] for t in sent[0]["tools"]} >= {a.name for a in solved.gold.actions}
    tool_messages = [m for r in sent for m in r["messages"] if m["role"] == "tool"]
    assert tool_messages and not any(str(m["content"]).startswith("error:") for m in tool_messages)
    assert second.ok, second.errors
    assert second.traces[0].reward == 0.0 != record.reward
