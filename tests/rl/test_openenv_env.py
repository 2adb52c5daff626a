"""The OpenEnv adapter with the real OpenEnv (``openenv-core`` 0.3): ``make_app`` serves
retail tasks through OpenEnv's own server (``create_app``: HTTP and WebSocket, run here by
uvicorn on 127.0.0.1) and OpenEnv's ``EnvClient`` plays the oracle's moves over the
WebSocket: the episode ends with the reward, reward parts and termination
``envfactory-mcp rollout``'s oracle records for the same task; a policy that only talks
scores 0. Needs the ``openenv`` extra (``pip install -e '.[test,openenv]'``, CPU only)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from rl_episodes import NOOP_MESSAGE, SERVERS_DIR, TRANSPORT, needs_servers, oracle_messages, rollout_records

from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks

pytest.importorskip(
    "openenv.core", reason="the openenv extra is not installed: pip install -e '.[test,openenv]'"
)
uvicorn = pytest.importorskip(
    "uvicorn", reason="the openenv extra is not installed: pip install -e '.[test,openenv]'"
)

pytestmark = [pytest.mark.slow, needs_servers]  # builds retail and its tasks


@pytest.fixture(scope="module")
def tasks_file(retail_tasks: Callable[..., list[Task]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(4, seed=21)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks([t for t in made if t.gold.actions][:2], path)
    return path


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a free 127.0.0.1 port, in a thread; its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="openenv-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a far backstop: startup is a few CPU seconds
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the OpenEnv server did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()


def test_an_openenv_episode_scores_as_the_rollout(tasks_file: Path, tmp_path: Path) -> None:
    from envfactory_mcp.rl.openenv_env import EnvFactoryAction, EnvFactoryClient, EnvFactoryState, make_app

    tasks = read_tasks(tasks_file)
    rolled = rollout_records(tasks_file, tmp_path / "run")
    app = make_app("retail", tasks_path=str(tasks_file), servers_dir=SERVERS_DIR, transport=TRANSPORT)

    async def play(base_url: str) -> dict[str, Any]:
        found: dict[str, Any] = {}
        # message_timeout_s: a far backstop for one step (the last one replays the gold)
        async with EnvFactoryClient(base_url=base_url, message_timeout_s=600) as client:
            for task in tasks:
                opened = await client.reset(task_id=task.task_id)
                steps = []
                for move in oracle_messages(task):
                    action = EnvFactoryAction(
                        content=move.get("content"), tool_calls=move.get("tool_calls") or []
                    )
                    steps.append(await client.step(action))
                    if steps[-1].done:
                        break
                found[task.task_id] = (opened, steps, await client.state())
            # a policy that only talks, on the first task by OpenEnv's task index
            await client.reset(index=0)
            for _ in range(40):
                idle = await client.step(EnvFactoryAction(content=NOOP_MESSAGE))
                assert idle.observation.messages[-1]["role"] == "user"
                if idle.done:
                    break
            found["idle"] = idle
        return found

    with serving(app) as base_url:
        found = anyio.run(play, base_url)
    for task in tasks:
        opened, steps, state = found[task.task_id]
        record = rolled[task.task_id]
        assert [m["role"] for m in opened.observation.messages] == ["system", "user"]
        assert {t["function"]["name"] for t in opened.observation.tools} >= {
            a.name for a in task.gold.actions
        }
        last = steps[-1]
        assert last.done and last.reward == record.reward == 1.0
        assert last.observation.termination == record.termination == "user_stop"
        assert record.reward_parts is not None
        assert last.observation.reward_parts == record.reward_parts.model_dump()
        assert not last.observation.excluded and last.observation.task_id == task.task_id
        # tool results came back as tool messages, and no reward before the end
        assert any(s.observation.messages and s.observation.messages[0]["role"] == "tool" for s in steps)
        assert all(s.reward is None and not s.done for s in steps[:-1])
        assert isinstance(state, EnvFactoryState) and state.task_id == task.task_id
        assert state.reward == 1.0 and state.step_count == len(steps)
    idle = found["idle"]
    assert idle.done and idle.reward == 0.0
