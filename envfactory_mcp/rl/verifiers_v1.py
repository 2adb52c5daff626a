"""envfactory tasks in verifiers 0.4 (``verifiers.v1``): a taskset, an env, a harness.

    from envfactory_mcp.rl.verifiers_v1 import load_environment
    env = load_environment("retail", tasks_path="tasks.jsonl")     # a verifiers.v1 Env
    ctx = vf.ModelContext(model="...", client=vf.EvalClientConfig(base_url=..., api_key_var=...))
    async with env.serving():
        for task in env.taskset:
            episode = await env.run_episode(task, ctx)            # episode.traces[0].reward

verifiers 0.4 splits an environment into a *taskset* (tasks and their scoring), an *env*
(how one task becomes one episode: who talks to whom) and *harnesses* (the program that
plays a seat, its every model call through verifiers' interception server). This module
is a plugin of all three, the taskset id ``envfactory_verifiers`` (a top-level module of
that name re-exports this one, so verifiers finds it in a fresh process):

- ``EnvFactoryTaskset``: the tasks of one environment (``tasks_path``), each a task whose
  data names it; the seat's view carries no prompt: the user opens.
- ``EnvFactoryVerifiersEnv``: one ``EnvFactoryEnv`` episode (the reset/step core,
  ``rl.env``) per rollout. Our simulated user is the other side of the conversation:
  the env opens the assistant's interaction with the user's opening, hands each text
  reply of the assistant to the episode and answers with the user's reply, until the
  user stops (or the step cap, or too many tool errors). The episode's reward (our
  scorer's, the one ``envfactory-mcp rollout`` records for the same conversation) is
  recorded on the assistant's trace as ``envfactory``, with its parts as metrics. A
  harness failure (server down, user broken) fails the episode (``episode.errors``):
  it is not the policy's doing.
- Tool calls: the task's request interceptor answers each tool call the model commits
  (verifiers' ``/tool`` gate) by stepping the episode with it over MCP, so the model
  sees the episode's tool result, and a ``@stop`` ends the rollout when the episode is
  over. ``EnvFactoryHarness`` is the seat's default harness: a chat loop run in-process
  (verifiers allows that when every model call goes through its interception endpoint)
  that offers the environment's tools and asks the gate before each call. It needs no
  ``uv`` and no package download, unlike verifiers' bundled chat program.

Needs ``pip install 'envfactory-mcp[verifiers]'`` (verifiers 0.4 pins ``mcp==2.0.0``;
this project's generated servers need ``mcp>=2.3``, so in that venv the servers run over
``stdio`` from another interpreter, ``ENVFACTORY_SERVER_PYTHON``; see ``rl.env``). The
verifiers 0.2 adapter is ``rl.verifiers_env``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import Field

from envfactory_mcp.errors import EnvFactoryError, HarnessFailure
from envfactory_mcp.host.connection import Transport
from envfactory_mcp.rl.env import EnvFactoryEnv, EnvFactoryServers, EnvOptions, default_transport
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR, MAX_ERRORS, MAX_STEPS
from envfactory_mcp.sim.types import UserSimulator
from envfactory_mcp.tasks.model import Task, read_tasks

try:
    import verifiers.v1 as vf  # type: ignore[import-not-found,import-untyped,unused-ignore]

    if not hasattr(vf, "intercept"):  # verifiers 0.2 has another verifiers.v1
        raise ImportError("verifiers.v1 has no intercept: not verifiers 0.4")
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError(
        "envfactory_mcp.rl.verifiers_v1 needs verifiers 0.4: pip install 'envfactory-mcp[verifiers]'"
    ) from exc

TASKSET_ID = "envfactory_verifiers"
REWARD_NAME = "envfactory"
# verifiers finds a plugin by importing its id as a top-level module: the distribution
# ships ``envfactory_verifiers`` (beside ``envfactory_mcp``), which re-exports this one.

__all__ = ["EnvFactoryHarness", "EnvFactoryTaskset", "EnvFactoryVerifiersEnv", "load_environment"]


class EnvFactoryData(vf.TaskData):  # type: ignore[misc,unused-ignore]
    task_id: str
    env: str
    tools: list[dict[str, Any]] = Field(default_factory=list)
    """The offered tools (OpenAI format), set on the seat's view when the episode opens."""


class EnvFactoryTasksetConfig(vf.TasksetConfig):  # type: ignore[misc,unused-ignore]
    env: str = "retail"
    tasks_path: str | None = None
    servers_dir: str = str(DEFAULT_SERVERS_DIR)
    transport: str | None = None
    """``memory`` or ``stdio``; by default ``memory`` where this interpreter's mcp can
    serve the environments, else ``stdio``."""
    url: str | None = None
    max_tasks: int | None = None
    max_steps: int = MAX_STEPS
    max_errors: int = MAX_ERRORS
    user_model: str | None = None
    """A litellm model string for the simulated user (default: the scripted user)."""
    user_api_base: str | None = None
    allow_unverified: bool = False


class EnvFactoryTask(vf.Task[EnvFactoryData]):  # type: ignore[misc,unused-ignore]
    """A task; the seat's copy holds the rollout's episode (``episode``)."""

    episode: EnvFactoryEnv | None = None

    @vf.intercept  # type: ignore[untyped-decorator,unused-ignore]
    async def envfactory_tool_result(self, request: vf.Request) -> vf.Request | None:
        """The episode's result for a tool call the model committed (asked at the gate
        with an empty result; later requests see the result pinned)."""
        episode = self.episode
        probe = request.messages[-1] if request.messages else None
        if episode is None or not isinstance(probe, vf.ToolMessage) or probe.content:
            return None
        call, text = _find_call(request.messages, probe.tool_call_id)
        if call is None:
            return None
        if episode.record is not None:  # over (the @stop ends the rollout)
            content = "error: the episode is over"
        else:
            move = {
                "role": "assistant",
                "content": text,
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                ],
            }
            obs, _, _, _ = await episode.step(move)
            results = [m for m in obs["messages"] if m.get("role") == "tool"]
            content = str(results[-1].get("content") or "") if results else "error: no result"
        answer = probe.model_copy(update={"content": content})
        return request.model_copy(update={"messages": [*request.messages[:-1], answer]})

    @vf.stop  # type: ignore[untyped-decorator,unused-ignore]
    def envfactory_episode_over(self, request: vf.Request) -> bool:
        """The episode ended inside a tool step (step cap, too many tool errors)."""
        return self.episode is not None and self.episode.record is not None


def _find_call(messages: list[Any], call_id: str) -> tuple[Any, str | None]:
    """The assistant's tool call ``call_id`` and the text it came with (given to the
    episode with the message's first call only)."""
    for message in reversed(messages):
        if isinstance(message, vf.AssistantMessage):
            for index, call in enumerate(message.tool_calls or []):
                if call.id == call_id:
                    return call, (message.content or None) if index == 0 else None
    return None, None


class EnvFactoryTaskset(vf.Taskset[EnvFactoryTask, EnvFactoryTasksetConfig]):  # type: ignore[misc,unused-ignore]
    def __init__(self, config: EnvFactoryTasksetConfig) -> None:
        super().__init__(config)
        if config.tasks_path is None:
            raise EnvFactoryError("the envfactory taskset needs tasks_path (a tasks.jsonl)")
        tasks = [t for t in read_tasks(config.tasks_path) if t.env == config.env]
        self.tasks = tasks[: config.max_tasks] if config.max_tasks else tasks
        if not self.tasks:
            raise EnvFactoryError(f"no tasks for {config.env!r} in {config.tasks_path}")
        self.by_id = {t.task_id: t for t in self.tasks}

    def load(self) -> Iterator[EnvFactoryTask]:
        for task in self.tasks:
            data = EnvFactoryData(id=task.task_id, name=task.task_id, task_id=task.task_id, env=task.env)
            yield EnvFactoryTask(data, self.config.task)


class EnvFactoryEnvConfig(vf.EnvConfig):  # type: ignore[misc,unused-ignore]
    assistant: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The policy's seat (its harness: the taskset's, ``EnvFactoryHarness``)."""


class EnvFactoryVerifiersEnv(vf.Env[EnvFactoryEnvConfig]):  # type: ignore[misc,unused-ignore]
    """One envfactory episode per rollout: the simulated user against the assistant."""

    servers: EnvFactoryServers | None = None

    async def start(self) -> None:
        config: EnvFactoryTasksetConfig = self.taskset.config
        transport: Transport = config.transport or default_transport()  # type: ignore[assignment]
        self.servers = EnvFactoryServers(
            [config.env],
            transport=transport,
            servers_dir=config.servers_dir,
            urls={config.env: config.url} if config.url else None,
            allow_unverified=config.allow_unverified,
        )
        self.options = EnvOptions(
            run_id=f"verifiers-{config.env}", max_steps=config.max_steps, max_errors=config.max_errors
        )

    async def stop(self) -> None:
        if self.servers is not None:
            await self.servers.close()
            self.servers = None

    def _user(self, task: Task) -> UserSimulator | None:
        config: EnvFactoryTasksetConfig = self.taskset.config
        if not config.user_model:
            return None  # the scripted user
        from envfactory_mcp.llm import LiteLLMClient
        from envfactory_mcp.sim.users import LLMUser

        return LLMUser(LiteLLMClient(config.user_model, api_base=config.user_api_base))

    async def run(self, task: Any, agents: Any) -> None:
        if self.servers is None:
            raise EnvFactoryError("the env is not serving: run episodes inside env.serving()")
        ours = self.taskset.by_id[task.data.task_id]
        episode = EnvFactoryEnv(self.servers, ours, user=self._user(ours), options=self.options)
        try:
            obs = await episode.reset()
            if episode.record is not None:
                raise HarnessFailure(episode.record)
            system = next((m["content"] for m in obs["messages"] if m["role"] == "system"), None)
            opening = [m for m in obs["messages"] if m["role"] == "user"][-1]["content"]
            seat = type(task)(
                task.data.model_copy(update={"prompt": None, "system_prompt": system, "tools": obs["tools"]}),
                task.config,
            )
            seat.episode = episode
            reward: float | None = None
            async with agents.assistant.interaction(seat) as chat:
                segment = await chat.turn(opening)
                while episode.record is None and not segment.terminated:
                    obs, reward, done, _ = await episode.step(
                        {"role": "assistant", "content": segment.last_reply}
                    )
                    if done:
                        break
                    users = [m for m in obs["messages"] if m["role"] == "user"]
                    segment = await chat.turn(str(users[-1]["content"]) if users else "")
            record = episode.record
            if record is None:
                raise EnvFactoryError(
                    f"verifiers ended the exchange ({chat.trace.stop_condition}) before the episode ended"
                )
            if record.excluded:
                raise HarnessFailure(record)
            reward = record.reward
            trace = chat.trace
            trace.record_reward(REWARD_NAME, float(reward or 0.0))
            for name, value in (record.reward_parts.model_dump() if record.reward_parts else {}).items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    trace.record_metric(f"{REWARD_NAME}_{name}", float(value))
            trace.record_metric(f"{REWARD_NAME}_steps", float(record.steps))
        finally:
            await episode.close()


class EnvFactoryHarnessConfig(vf.HarnessConfig):  # type: ignore[misc,unused-ignore]
    id: str = TASKSET_ID


class EnvFactoryHarness(vf.Harness[EnvFactoryHarnessConfig]):  # type: ignore[misc,unused-ignore]
    """A chat loop in-process: every model call through verifiers' interception
    endpoint, with the environment's tools; each tool call asked at the rollout's gate
    (the task's interceptor answers it from the episode)."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    SUPPORTS_TOOL_INTERCEPTION = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: Any,
        tool_interception_url: str | None = None,
    ) -> Any:
        import httpx
        from openai import AsyncOpenAI
        from verifiers.v1.dialects.chat import (  # type: ignore[import-not-found,import-untyped,unused-ignore]
            message_to_wire,
        )

        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt:
            messages += [message_to_wire(m) for m in prompt]
        tools = getattr(data, "tools", None) or getattr(trace.task.data, "tools", None) or []
        client: Any = AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0)
        async with httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0)) as gate:
            while True:
                kwargs: dict[str, Any] = {"tools": tools} if tools else {}
                completion = await client.chat.completions.create(
                    model=ctx.model, messages=messages, **kwargs
                )
                move: dict[str, Any] = completion.choices[0].message.model_dump(exclude_none=True)
                messages.append(move)
                if not move.get("tool_calls"):
                    break
                for call in move["tool_calls"]:
                    function = call.get("function") or {}
                    name, raw = str(function.get("name")), function.get("arguments") or "{}"
                    content = "error: this tool runs only inside the environment's episode"
                    if tool_interception_url:
                        try:
                            arguments = json.loads(raw)
                        except json.JSONDecodeError:
                            arguments = raw
                        response = await gate.post(
                            tool_interception_url,
                            headers={"Authorization": f"Bearer {secret}"},
                            json={"tool_call_id": call["id"], "name": name, "arguments": arguments},
                        )
                        response.raise_for_status()
                        decision = response.json()
                        if decision["action"] == "stop":
                            return vf.ProgramResult(
                                exit_code=0, stdout="", stderr=str(decision.get("reason"))
                            )
                        if decision["action"] == "deny":
                            content = _text(decision["message"].get("content"))
                    messages.append(
                        {"role": "tool", "tool_call_id": call["id"], "name": name, "content": content}
                    )
        await client.close()
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def load_environment(
    env: str = "retail",
    tasks_path: str | None = None,
    servers_dir: str | Path = DEFAULT_SERVERS_DIR,
    transport: Transport | None = None,
    url: str | None = None,
    max_tasks: int | None = None,
    max_steps: int = MAX_STEPS,
    max_errors: int = MAX_ERRORS,
    user_model: str | None = None,
    user_api_base: str | None = None,
    allow_unverified: bool = False,
    **env_config: Any,
) -> Any:
    """The tasks of ``env`` (from ``tasks_path``) as a verifiers 0.4 ``Env``: our simulated
    user, our reward, the environment's tools. Other keyword arguments go to the env's
    config (``vf.EnvConfig``: timeouts, retries, the ``assistant`` seat)."""
    taskset = {
        "id": TASKSET_ID,
        "env": env,
        "tasks_path": tasks_path,
        "servers_dir": str(servers_dir),
        "transport": transport,
        "url": url,
        "max_tasks": max_tasks,
        "max_steps": max_steps,
        "max_errors": max_errors,
        "user_model": user_model,
        "user_api_base": user_api_base,
        "allow_unverified": allow_unverified,
    }
    config = vf.resolve_env_config({"taskset": taskset, **env_config})
    return vf.load_environment(config)
