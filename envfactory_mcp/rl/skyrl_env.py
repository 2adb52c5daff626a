"""An envfactory task as a SkyRL gym environment (``skyrl_gym`` 0.4's ``BaseTextEnv``).

    import skyrl_gym
    from envfactory_mcp.rl.skyrl_env import register
    register()                                  # id "envfactory"
    env = skyrl_gym.make("envfactory", env_config={"servers_dir": ...},
                         extras={"tasks_path": "tasks.jsonl", "task_id": "..."})
    prompt, meta = env.init(row_prompt)         # our system prompt and the user's opening
    out = env.step(decoded_text)                # observations, reward, done, metadata

SkyRL is text in, text out and synchronous: ``step`` takes the policy's decoded text
(tool calls as ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks, the
Hermes / Qwen form; see ``rl.text_actions``) and steps one ``EnvFactoryEnv`` episode on
a private event loop thread. Tool results come back as ``tool`` messages, the simulated
user's replies as ``user`` messages; the reward is 0 until the episode ends, then the
scorer's (the reward a rollout records for the same conversation; a harness failure
scores 0 with ``metadata["excluded"]`` true). ``metadata["tools"]`` at ``init`` holds
the offered tools (OpenAI format) for the chat template.

Needs ``pip install 'envfactory-mcp[skyrl]'`` (CPU only).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.rl.env import EnvFactoryEnv, EnvFactoryServers, EnvOptions
from envfactory_mcp.rl.text_actions import parse_text_action, shared_loop
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR, MAX_ERRORS, MAX_STEPS
from envfactory_mcp.tasks.model import Task, read_tasks

try:
    from skyrl_gym.envs.base_text_env import (  # type: ignore[import-not-found,import-untyped,unused-ignore]
        BaseTextEnv,
        BaseTextEnvStepOutput,
    )
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError(
        "envfactory_mcp.rl.skyrl_env needs skyrl-gym: pip install 'envfactory-mcp[skyrl]'"
    ) from exc

ENV_ID = "envfactory"
ENTRY_POINT = "envfactory_mcp.rl.skyrl_env:EnvFactorySkyRLEnv"

_SERVERS: dict[tuple[str, str, str, bool], EnvFactoryServers] = {}


@cache
def _tasks(tasks_path: str) -> dict[str, Task]:
    return {t.task_id: t for t in read_tasks(tasks_path)}


def _get(config: Any, key: str, default: Any = None) -> Any:
    if config is None:
        return default
    if isinstance(config, dict):
        return config.get(key, default)
    return getattr(config, key, default) if not hasattr(config, "get") else config.get(key, default)


def servers_for(env: str, transport: str, servers_dir: str, allow_unverified: bool) -> EnvFactoryServers:
    """The process's shared connections to ``env`` (opened on the loop thread on first use)."""
    key = (env, transport, servers_dir, allow_unverified)
    if key not in _SERVERS:
        _SERVERS[key] = EnvFactoryServers(
            [env],
            transport=transport,  # type: ignore[arg-type]
            servers_dir=servers_dir,
            allow_unverified=allow_unverified,
        )
    return _SERVERS[key]


class EnvFactorySkyRLEnv(BaseTextEnv):  # type: ignore[misc,valid-type,unused-ignore]
    """One envfactory episode per instance (SkyRL makes one per trajectory).

    ``env_config``: ``servers_dir``, ``transport`` (``memory``, ``stdio``),
    ``allow_unverified``, ``max_steps``, ``max_errors``. ``extras`` (the dataset row's):
    ``task_id`` with ``tasks_path`` (in the row or the config), or ``task`` (the task as
    a dict)."""

    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None) -> None:
        super().__init__()
        extras = extras or {}
        if extras.get("task") is not None:
            raw = extras["task"]
            task = raw if isinstance(raw, Task) else Task.model_validate(raw)
        else:
            tasks_path = extras.get("tasks_path") or _get(env_config, "tasks_path")
            task_id = extras.get("task_id") or (extras.get("extra_info") or {}).get("task_id")
            if not tasks_path or not task_id:
                raise EnvFactoryError("the envfactory SkyRL env needs extras task_id and tasks_path, or task")
            found = _tasks(str(Path(tasks_path).resolve())).get(str(task_id))
            if found is None:
                raise EnvFactoryError(f"no task {task_id!r} in {tasks_path}")
            task = found
        self.task = task
        self.max_turns = int(_get(env_config, "max_steps", MAX_STEPS))
        servers = servers_for(
            task.env,
            str(_get(env_config, "transport", "memory")),
            str(_get(env_config, "servers_dir", DEFAULT_SERVERS_DIR)),
            bool(_get(env_config, "allow_unverified", False)),
        )
        options = EnvOptions(
            run_id=f"skyrl-{task.env}",
            max_steps=self.max_turns,
            max_errors=int(_get(env_config, "max_errors", MAX_ERRORS)),
        )
        self.episode = EnvFactoryEnv(servers, task, options=options)
        self.tools: list[dict[str, Any]] = []
        self.reward_parts: dict[str, Any] | None = None
        self.termination: str | None = None

    def init(self, prompt: Any = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Start the episode: our system prompt and the user's opening replace the row's."""
        obs = shared_loop().run(self.episode.reset())
        self.turns, self.tools = 0, obs["tools"]
        return [dict(m) for m in obs["messages"]], {"tools": obs["tools"], "task_id": self.task.task_id}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        if self.episode.record is not None:  # ended at init (a harness failure)
            record = self.episode.record
            return self._out([], None, True, {"termination": record.termination, "record": record}, action)
        obs, reward, done, info = shared_loop().run(self.episode.step(parse_text_action(action)))
        return self._out(obs["messages"], reward, done, info, action)

    def _out(
        self, messages: list[Any], reward: float | None, done: bool, info: dict[str, Any], action: str
    ) -> BaseTextEnvStepOutput:
        record = info.get("record")
        metadata: dict[str, Any] = {"termination": info.get("termination")}
        if done:
            self.termination = info.get("termination")
            self.reward_parts = info.get("reward_parts")
            metadata.update(
                reward_parts=self.reward_parts,
                excluded=bool(record is not None and record.excluded),
                task_id=self.task.task_id,
            )
        return BaseTextEnvStepOutput(
            observations=[{k: v for k, v in dict(m).items() if v is not None} for m in messages],
            reward=float(reward) if reward is not None else 0.0,
            done=done,
            metadata=metadata,
            postprocessed_action=action,
        )

    def get_metrics(self) -> dict[str, Any]:
        return {"steps": self.turns}

    def close(self) -> None:
        shared_loop().run(self.episode.close())


def register(env_id: str = ENV_ID) -> None:
    """Register the environment with skyrl_gym (idempotent)."""
    import skyrl_gym  # type: ignore[import-not-found,import-untyped,unused-ignore]

    if env_id not in skyrl_gym.registry:
        skyrl_gym.register(id=env_id, entry_point=ENTRY_POINT)


async def close_servers() -> None:
    """Close the shared connections (call on the loop thread: ``shared_loop().run(...)``)."""
    for servers in _SERVERS.values():
        await servers.close()
    _SERVERS.clear()
