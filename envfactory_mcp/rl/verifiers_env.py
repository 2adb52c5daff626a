"""An envfactory environment as a ``verifiers`` multi-turn tool environment.

    import verifiers as vf  # type: ignore[import-not-found,unused-ignore]
    env = vf.load_environment("envfactory_mcp.rl.verifiers_env", ...)   # or:
    from envfactory_mcp.rl.verifiers_env import load_environment
    env = load_environment(env="retail", tasks_path="tasks.jsonl")
    results = env.evaluate_sync(client=vf.ClientConfig(...), model="...")

Each dataset row is one task: ``prompt`` is the environment's policy (system) and the
task's opening user message, ``info`` names the task. A rollout is one ``EnvFactoryEnv``
episode: ``setup_state`` resets a session on the environment's server, ``env_response``
steps the episode with the model's message (tool calls run over MCP and come back as
tool messages; text goes to the simulated user, whose reply comes back as a user
message), and the episode's end (the user's stop token, the step cap, too many tool
errors) ends the rollout through ``final_env_response``. The reward function returns the
episode's reward from our scorer (``state["envfactory"]`` holds the termination, reward
parts and the full ``TrajectoryRecord``). A harness failure (server down, user broken)
is reported as the rollout's ``error`` (``vf.InfraError``) and scores 0, so a trainer can
drop it; it is not the policy's doing.

Needs ``pip install envfactory-mcp[rl]``. Tested with verifiers 0.2.0: later releases pin
``mcp`` to 1.x or 2.0.0, which this project's servers (``mcp>=2.3``) cannot use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.host.connection import Transport
from envfactory_mcp.rl.env import EnvFactoryEnv, EnvFactoryServers, EnvOptions, describe_server
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR, MAX_ERRORS, MAX_STEPS, REWARD_BASIS
from envfactory_mcp.sim.types import UserSimulator
from envfactory_mcp.tasks.model import Task, read_tasks

try:
    import verifiers as vf  # type: ignore[import-not-found,import-untyped,unused-ignore]
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError(
        "envfactory_mcp.rl.verifiers_env needs the verifiers package: pip install 'envfactory-mcp[rl]'"
    ) from exc

STATE_KEY = "envfactory"


def _to_openai(message: Any) -> dict[str, Any]:
    """A verifiers message (pydantic) as an OpenAI chat message dict."""
    data = message.model_dump(exclude_none=True) if hasattr(message, "model_dump") else dict(message)
    calls = data.get("tool_calls")
    if calls:
        data["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c.get("arguments", "")},
            }
            for c in calls
        ]
    return {k: v for k, v in data.items() if k in ("role", "content", "tool_calls")}


def _to_verifiers(message: dict[str, Any]) -> Any:
    role, content = message.get("role"), message.get("content") or ""
    if role == "tool":
        return vf.ToolMessage(tool_call_id=str(message.get("tool_call_id")), content=content)
    if role == "system":
        return vf.SystemMessage(content=content)
    return vf.UserMessage(content=content)


class EnvFactoryVerifiersEnv(vf.MultiTurnEnv):
    """Tasks of one envfactory environment as a verifiers multi-turn tool environment."""

    def __init__(
        self,
        tasks: list[Task],
        servers: EnvFactoryServers,
        system_prompt: str,
        tools: list[dict[str, Any]],
        options: EnvOptions,
        user_factory: Any = None,
        **kwargs: Any,
    ) -> None:
        from datasets import Dataset  # type: ignore[import-not-found,import-untyped,unused-ignore]

        self.tasks = {t.task_id: t for t in tasks}
        self.servers = servers
        self.options = options
        self.user_factory = user_factory
        rows = [
            {
                "prompt": [
                    {"role": "system", "content": system_prompt},
                    {"role": "user", "content": t.user_scenario.opening_message},
                ],
                "answer": t.gold.final_state_hash,
                "info": {"task_id": t.task_id, "env": t.env},
            }
            for t in tasks
        ]
        tool_defs = [
            vf.Tool(
                name=t["function"]["name"],
                description=t["function"]["description"],
                parameters=t["function"]["parameters"],
            )
            for t in tools
        ]

        async def envfactory_reward(state: Any) -> float:
            """The episode's reward from envfactory's scorer (0 for a harness failure)."""
            reward = (state.get(STATE_KEY) or {}).get("reward")
            return float(reward) if reward is not None else 0.0

        super().__init__(
            dataset=Dataset.from_list(rows),
            eval_dataset=Dataset.from_list(rows),
            rubric=vf.Rubric(funcs=[envfactory_reward]),
            tool_defs=tool_defs,
            max_turns=-1,  # the episode decides (options.max_steps), as in a rollout
            **kwargs,
        )

    async def setup_state(self, state: Any) -> Any:
        info = state.get("info") or {}
        task = self.tasks.get(str(info.get("task_id")))
        if task is None:
            raise vf.InfraError(f"unknown task {info.get('task_id')!r}")
        user: UserSimulator | None = self.user_factory(task) if self.user_factory else None
        episode = EnvFactoryEnv(self.servers, task, user=user, options=self.options)
        obs = await episode.reset()
        state[STATE_KEY] = {"episode": episode, "reward": None, "termination": None}
        if episode.record is not None:  # the episode could not start: a harness failure
            self._finish(state, episode.record.termination, None, {"record": episode.record})
            return state
        if obs["messages"]:  # the opening as this episode's user said it
            state["prompt"] = [_to_verifiers(m) for m in obs["messages"]]
        return state

    async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
        slot = state[STATE_KEY]
        episode: EnvFactoryEnv = slot["episode"]
        if episode.record is not None:  # ended at reset (a harness failure)
            self._finish(state, episode.record.termination, None, {"record": episode.record})
            return []
        obs, reward, done, info = await episode.step(_to_openai(messages[-1]))
        reply = [_to_verifiers(m) for m in obs["messages"]]
        if done:
            self._finish(state, info["termination"], reward, info)
            state["final_env_response"] = reply
        return reply

    def _finish(
        self, state: Any, termination: str | None, reward: float | None, info: dict[str, Any]
    ) -> None:
        record = info.get("record")
        state[STATE_KEY].update(
            reward=reward,
            termination=termination,
            reward_parts=info.get("reward_parts"),
            record=record,
        )
        if record is not None and record.excluded:
            state["error"] = vf.InfraError(f"{record.termination}: {record.termination_detail}")

    @vf.stop
    async def episode_over(self, state: Any) -> bool:
        slot = state.get(STATE_KEY) or {}
        episode = slot.get("episode")
        if episode is not None and episode.record is not None and slot.get("termination") is None:
            self._finish(state, episode.record.termination, None, {"record": episode.record})
        return slot.get("termination") is not None

    @vf.cleanup
    async def close_episode(self, state: Any) -> None:
        slot = state.get(STATE_KEY) or {}
        episode = slot.pop("episode", None)
        if episode is not None:
            await episode.close()

    @vf.teardown
    async def close_servers(self) -> None:
        await self.servers.close()


def load_environment(
    env: str = "retail",
    tasks_path: str | None = None,
    tasks: list[Task] | None = None,
    transport: Transport = "memory",
    servers_dir: str = str(DEFAULT_SERVERS_DIR),
    url: str | None = None,
    max_tasks: int | None = None,
    max_steps: int = MAX_STEPS,
    max_errors: int = MAX_ERRORS,
    reward_basis: tuple[str, ...] = REWARD_BASIS,
    user_model: str | None = None,
    user_api_base: str | None = None,
    allow_unverified: bool = False,
    **kwargs: Any,
) -> EnvFactoryVerifiersEnv:
    """The tasks of ``env`` (from ``tasks_path`` or ``tasks``) as a verifiers environment.

    The simulated user is the scripted one, or a model (``user_model``, a litellm model
    string, with ``user_api_base``). Other keyword arguments go to ``vf.MultiTurnEnv``."""
    if tasks is None:
        if tasks_path is None:
            raise EnvFactoryError("load_environment needs tasks_path (a tasks.jsonl) or tasks")
        tasks = read_tasks(tasks_path)
    tasks = (
        [t for t in tasks if t.env == env][:max_tasks] if max_tasks else [t for t in tasks if t.env == env]
    )
    if not tasks:
        raise EnvFactoryError(f"no tasks for {env!r}")
    urls = {env: url} if url else {}
    instructions, tools = describe_server(
        env, transport, Path(servers_dir), url=url, allow_unverified=allow_unverified
    )
    servers = EnvFactoryServers(
        [env], transport=transport, servers_dir=servers_dir, urls=urls, allow_unverified=allow_unverified
    )
    user_factory = None
    if user_model:
        from envfactory_mcp.llm import LiteLLMClient
        from envfactory_mcp.sim.users import LLMUser

        def user_factory(task: Task) -> UserSimulator:
            return LLMUser(LiteLLMClient(user_model, api_base=user_api_base))

    options = EnvOptions(
        run_id=f"verifiers-{env}",
        max_steps=max_steps,
        max_errors=max_errors,
        reward_basis=tuple(reward_basis),
    )
    return EnvFactoryVerifiersEnv(
        tasks, servers, instructions, tools, options, user_factory=user_factory, **kwargs
    )
