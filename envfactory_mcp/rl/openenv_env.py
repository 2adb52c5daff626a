"""An envfactory environment as an OpenEnv environment (``openenv.core``'s ``Environment``,
served by OpenEnv's own HTTP/WebSocket server, driven by its ``EnvClient``).

    # the environment server (one process; uvicorn, or any ASGI server)
    from envfactory_mcp.rl.openenv_env import make_app
    app = make_app("retail", tasks_path="tasks.jsonl")      # openenv's create_app
    #   or: python -m envfactory_mcp.rl.openenv_env --env retail --tasks tasks.jsonl --port 8000

    # the trainer
    from envfactory_mcp.rl.openenv_env import EnvFactoryAction, EnvFactoryClient
    async with EnvFactoryClient(base_url="http://127.0.0.1:8000") as client:
        result = await client.reset(task_id="...")        # or index=3 (OpenEnv's task API)
        result.observation.messages, result.observation.tools
        result = await client.step(EnvFactoryAction(tool_calls=[...]))   # or content="..."

Each OpenEnv session (one WebSocket) is one ``EnvFactoryEnv`` episode over the reset/step
core (``rl.env``): ``reset`` opens a fresh MCP session on the task's server and returns
the policy (system) and the simulated user's opening with the offered tools (OpenAI
format); ``step`` takes the policy's assistant message (text, or tool calls with JSON
arguments) and returns the new messages: tool results, or the simulated user's reply.
``reward`` is None until the episode ends, then the scorer's (the reward ``envfactory-mcp
rollout`` records for the same conversation), with ``termination`` and ``reward_parts``
on the observation (and in its ``metadata``); a harness failure (server down, user
broken) ends the episode with reward None and ``excluded`` true. The tasks are listed through
OpenEnv's task API (``list_tasks``, ``get_task``; ``reset(index=...)``).

Needs ``pip install 'envfactory-mcp[openenv]'``: ``openenv-core`` 0.3. ``openenv`` 0.4 and
later (0.10.0 today) require ``fastmcp<4``, which requires ``mcp<2``: no resolver can put
them beside this project's client (``mcp>=2.0``); their ``openenv.core`` API (the classes
used here) is the same.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.host.connection import Transport
from envfactory_mcp.rl.env import (
    EnvFactoryEnv,
    EnvFactoryServers,
    EnvOptions,
    default_transport,
    describe_server,
)
from envfactory_mcp.rl.text_actions import shared_loop
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR, MAX_ERRORS, MAX_STEPS
from envfactory_mcp.sim.types import UserSimulator
from envfactory_mcp.tasks.model import Task, read_tasks

try:
    from openenv.core.client_types import StepResult  # type: ignore[import-not-found,import-untyped,unused-ignore]
    from openenv.core.env_client import EnvClient  # type: ignore[import-not-found,import-untyped,unused-ignore]
    from openenv.core.env_server.interfaces import (  # type: ignore[import-not-found,import-untyped,unused-ignore]
        Environment,
    )
    from openenv.core.env_server.types import (  # type: ignore[import-not-found,import-untyped,unused-ignore]
        Action,
        Observation,
        State,
    )
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError(
        "envfactory_mcp.rl.openenv_env needs OpenEnv: pip install 'envfactory-mcp[openenv]'"
    ) from exc

SPLIT = "tasks"


class EnvFactoryAction(Action):  # type: ignore[misc,unused-ignore]
    """The policy's turn: an OpenAI assistant message (text, or tool calls whose
    ``function.arguments`` is a JSON string, as a model emits it)."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)


class EnvFactoryObservation(Observation):  # type: ignore[misc,unused-ignore]
    """The new messages (OpenAI format) since the policy's last turn; at ``reset`` also
    the system prompt and the offered tools."""

    messages: list[dict[str, Any]] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    task_id: str | None = None
    # At the end (fields, not ``metadata``: openenv-core 0.3 does not send metadata).
    termination: str | None = None
    termination_detail: str | None = None
    reward_parts: dict[str, Any] | None = None
    excluded: bool = False


class EnvFactoryState(State):  # type: ignore[misc,unused-ignore]
    task_id: str | None = None
    env: str | None = None
    termination: str | None = None
    reward: float | None = None


class EnvFactoryOpenEnv(Environment):  # type: ignore[misc,unused-ignore]
    """One OpenEnv session: an ``EnvFactoryEnv`` episode on a task of ``tasks``."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session has its own MCP session

    def __init__(
        self,
        servers: EnvFactoryServers,
        tasks: list[Task],
        options: EnvOptions | None = None,
        user_factory: Callable[[Task], UserSimulator] | None = None,
    ) -> None:
        super().__init__()
        if not tasks:
            raise EnvFactoryError("an OpenEnv environment needs at least one task")
        self.servers, self.tasks = servers, tasks
        self.by_id = {t.task_id: t for t in tasks}
        self.options = options or EnvOptions(run_id="openenv")
        self.user_factory = user_factory
        self.episode: EnvFactoryEnv | None = None
        self._state = EnvFactoryState()
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- OpenEnv's task API (metadata only)

    def list_splits(self) -> list[str]:
        return [SPLIT]

    def list_tasks(self, split: str = SPLIT) -> list[dict[str, Any]]:
        return [self.get_task(split, i) for i in range(len(self.tasks))]

    def num_tasks(self, split: str = SPLIT) -> int:
        return len(self.tasks) if split == SPLIT else 0

    def get_task(self, split: str, index: int) -> dict[str, Any]:
        if split != SPLIT:
            raise IndexError(f"no split {split!r}: the split is {SPLIT!r}")
        task = self.tasks[index]
        return {"id": task.task_id, "index": index, "env": task.env}

    # -- episodes

    def _pick(self, task_id: str | None, index: int | None, seed: int | None) -> Task:
        if task_id is not None:
            task = self.by_id.get(str(task_id))
            if task is None:
                raise EnvFactoryError(f"no task {task_id!r} here")
            return task
        if index is not None:
            return self.tasks[int(index)]
        return self.tasks[(seed or 0) % len(self.tasks)]

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        index: int | None = None,
        **kwargs: Any,
    ) -> EnvFactoryObservation:
        """A new episode of the task named by ``task_id`` (or at ``index``; else the
        ``seed``-th task, the first by default)."""
        task = self._pick(task_id, index, seed)
        if self.episode is not None:
            await self.episode.close()
        self._loop = asyncio.get_running_loop()
        user = self.user_factory(task) if self.user_factory else None
        episode = self.episode = EnvFactoryEnv(self.servers, task, user=user, options=self.options)
        obs = await episode.reset()
        self._state = EnvFactoryState(episode_id=episode_id, step_count=0, task_id=task.task_id, env=task.env)
        meta = {"task_id": task.task_id, "env": task.env}
        if episode.record is not None:  # could not start: a harness failure
            return self._end(obs["messages"], None, meta)
        return EnvFactoryObservation(
            messages=obs["messages"], tools=obs["tools"], task_id=task.task_id, metadata=meta
        )

    async def step_async(
        self, action: EnvFactoryAction, timeout_s: float | None = None, **kwargs: Any
    ) -> EnvFactoryObservation:
        episode = self.episode
        if episode is None:
            raise EnvFactoryError("step() before reset()")
        message: dict[str, Any] = {"role": "assistant", "content": action.content}
        if action.tool_calls:
            message["tool_calls"] = action.tool_calls
        obs, reward, done, _ = await episode.step(message)
        self._state.step_count += 1
        meta = {"task_id": episode.task.task_id, "env": episode.task.env}
        if done:
            return self._end(obs["messages"], reward, meta)
        return EnvFactoryObservation(messages=obs["messages"], task_id=episode.task.task_id, metadata=meta)

    def _end(
        self, messages: list[dict[str, Any]], reward: float | None, meta: dict[str, Any]
    ) -> EnvFactoryObservation:
        record = self.episode.record if self.episode else None
        end: dict[str, Any] = {
            "termination": str(record.termination) if record else None,
            "termination_detail": record.termination_detail if record else None,
            "reward_parts": record.reward_parts.model_dump() if record and record.reward_parts else None,
            "excluded": bool(record.excluded) if record else True,
        }
        self._state.termination, self._state.reward = end["termination"], reward
        return EnvFactoryObservation(
            messages=messages,
            done=True,
            reward=reward,
            task_id=meta["task_id"],
            metadata=meta | end,
            **end,
        )

    # The server calls the async forms; the sync ones run them on the process's loop thread.

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> EnvFactoryObservation:
        return shared_loop().run(self.reset_async(seed=seed, episode_id=episode_id, **kwargs))

    def step(
        self, action: EnvFactoryAction, timeout_s: float | None = None, **kwargs: Any
    ) -> EnvFactoryObservation:
        return shared_loop().run(self.step_async(action, timeout_s=timeout_s))

    @property
    def state(self) -> EnvFactoryState:
        return self._state

    def close(self) -> None:
        """Abandon an episode in progress (called from the server's executor thread)."""
        episode, loop = self.episode, self._loop
        self.episode = None
        if episode is None or loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            loop.create_task(episode.close())
        else:
            asyncio.run_coroutine_threadsafe(episode.close(), loop)


class EnvFactoryClient(EnvClient):  # type: ignore[misc,unused-ignore]
    """OpenEnv's ``EnvClient`` with envfactory's typed action, observation and state."""

    def _step_payload(self, action: EnvFactoryAction | dict[str, Any]) -> dict[str, Any]:
        if isinstance(action, dict):
            return action
        data: dict[str, Any] = action.model_dump(exclude={"metadata"})
        return data

    def _parse_result(self, payload: dict[str, Any]) -> Any:
        fields = dict(payload.get("observation") or {})
        fields.setdefault("metadata", payload.get("metadata") or {})
        observation = EnvFactoryObservation(
            **fields, done=bool(payload.get("done")), reward=payload.get("reward")
        )
        return StepResult(
            observation=observation, reward=payload.get("reward"), done=bool(payload.get("done"))
        )

    def _parse_state(self, payload: dict[str, Any]) -> EnvFactoryState:
        return EnvFactoryState(**payload)


def make_app(
    env: str,
    tasks_path: str | None = None,
    tasks: list[Task] | None = None,
    transport: Transport | None = None,
    servers_dir: str | Path = DEFAULT_SERVERS_DIR,
    url: str | None = None,
    max_steps: int = MAX_STEPS,
    max_errors: int = MAX_ERRORS,
    max_concurrent_envs: int = 8,
    allow_unverified: bool = False,
    user_model: str | None = None,
    user_api_base: str | None = None,
) -> Any:
    """OpenEnv's FastAPI app (``create_app``) serving the tasks of ``env``: each session
    an episode. The simulated user is the scripted one, or a model (``user_model``, a
    litellm model string, with ``user_api_base``)."""
    from openenv.core.env_server.http_server import (  # type: ignore[import-not-found,import-untyped,unused-ignore]
        create_app,
    )

    if tasks is None:
        if tasks_path is None:
            raise EnvFactoryError("make_app needs tasks_path (a tasks.jsonl) or tasks")
        tasks = read_tasks(tasks_path)
    tasks = [t for t in tasks if t.env == env]
    if not tasks:
        raise EnvFactoryError(f"no tasks for {env!r}")
    transport = transport or default_transport()
    if url is None:  # fail at start, not in the first session, when the server is missing
        describe_server(env, transport, Path(servers_dir), allow_unverified=allow_unverified)
    servers = EnvFactoryServers(
        [env],
        transport=transport,
        servers_dir=servers_dir,
        urls={env: url} if url else None,
        allow_unverified=allow_unverified,
    )
    options = EnvOptions(run_id=f"openenv-{env}", max_steps=max_steps, max_errors=max_errors)
    user_factory: Callable[[Task], UserSimulator] | None = None
    if user_model:
        from envfactory_mcp.llm import LiteLLMClient
        from envfactory_mcp.sim.users import LLMUser

        def user_factory(task: Task) -> UserSimulator:
            return LLMUser(LiteLLMClient(user_model, api_base=user_api_base))

    def factory() -> EnvFactoryOpenEnv:
        return EnvFactoryOpenEnv(servers, tasks, options, user_factory=user_factory)

    app = create_app(
        factory,
        EnvFactoryAction,
        EnvFactoryObservation,
        env_name=f"envfactory-{env}",
        max_concurrent_envs=max_concurrent_envs,
    )
    app.router.on_shutdown.append(servers.close)  # the MCP connections end with the server
    return app


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - a server entry point
    parser = argparse.ArgumentParser(description="Serve envfactory tasks as an OpenEnv environment")
    parser.add_argument("--env", required=True)
    parser.add_argument("--tasks", required=True, help="a tasks.jsonl")
    parser.add_argument("--servers-dir", default=str(DEFAULT_SERVERS_DIR))
    parser.add_argument("--transport", default=None, choices=["memory", "stdio"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--max-concurrent-envs", type=int, default=8)
    args = parser.parse_args(argv)
    import uvicorn

    app = make_app(
        args.env,
        tasks_path=args.tasks,
        servers_dir=args.servers_dir,
        transport=args.transport,
        max_concurrent_envs=args.max_concurrent_envs,
    )
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":  # pragma: no cover
    main()
