"""A plain Python API for any trainer: one episode as ``reset`` / ``step``.

    servers = EnvFactoryServers(["retail"], transport="memory")   # or stdio, http
    env = EnvFactoryEnv(servers, task)
    obs = await env.reset()                  # {"messages": [system, user], "tools": [...]}
    obs, reward, done, info = await env.step({"role": "assistant", "tool_calls": [...]})
    ...
    await env.close(); await servers.close()

The episode itself is the host's ``run_episode``, the same code a rollout runs: the
trainer's policy is the agent. ``step`` hands the policy's message to the episode as the
agent's turn and returns what the episode says next (tool results for tool calls, the
simulated user's reply for text) when the episode asks the agent again or ends. So tool
calls run over MCP in the env's own session (``control.reset`` at ``reset``), the user
simulator answers text, and at the end the reward is the scorer's on the finished
``TrajectoryRecord`` (``info["record"]``), the very record a rollout writes for the
same conversation. Harness failures (server down, simulated user broken, time limit)
end the episode with ``reward`` None, as in a rollout: they are not the policy's doing.

The episode's time limit (``episode_timeout_s``) counts the trainer's own time between
steps, so it defaults to an hour.
"""

from __future__ import annotations

import asyncio
import json
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import anyio

from envfactory_mcp.errors import EnvFactoryError, InfrastructureError
from envfactory_mcp.host.connection import ServerConnection, Transport
from envfactory_mcp.host.episode import EpisodeConfig, openai_tools, run_episode
from envfactory_mcp.llm import ToolCall
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR, MAX_ERRORS, MAX_STEPS, REWARD_BASIS
from envfactory_mcp.sim.types import AgentTurn, Message, UserSimulator
from envfactory_mcp.tasks.model import Task

Observation = dict[str, Any]
StepResult = tuple[Observation, float | None, bool, dict[str, Any]]


RUNTIME_MCP = (2, 3)  # the servers' runtime needs mcp>=2.3; the host and adapters run on 2.0


def runtime_in_process() -> bool:
    """Whether this interpreter's mcp can serve environments in-process (``memory``
    transport). A trainer's venv may pin an older mcp (verifiers 0.4: mcp==2.0.0); there
    the servers run over ``stdio`` from an interpreter that has mcp>=2.3, named by
    ``ENVFACTORY_SERVER_PYTHON`` (``host.launch``)."""
    from importlib.metadata import version

    parts = version("mcp").split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= RUNTIME_MCP
    except (ValueError, IndexError):
        return True


def default_transport() -> Transport:
    """``memory`` where this interpreter can serve the environments, else ``stdio``."""
    return "memory" if runtime_in_process() else "stdio"


class EnvFactoryServers:
    """Connections to environment servers, shared by many ``EnvFactoryEnv`` (each episode
    has its own session on them). Opened lazily on first use in the running event loop;
    ``close()`` (or ``async with``) shuts them down. ``memory`` needs this interpreter to
    have mcp>=2.3 (``runtime_in_process``); with an older mcp use ``stdio`` and
    ``ENVFACTORY_SERVER_PYTHON``."""

    def __init__(
        self,
        envs: Sequence[str],
        transport: Transport = "memory",
        servers_dir: str | Path = DEFAULT_SERVERS_DIR,
        urls: dict[str, str] | None = None,
        allow_unverified: bool = False,
        trust: bool = False,
        http_token: str | None = None,
    ) -> None:
        if transport == "memory" and not runtime_in_process():
            raise EnvFactoryError(
                "this interpreter's mcp is older than 2.3 and cannot serve environments in-process:"
                " use transport='stdio' with ENVFACTORY_SERVER_PYTHON naming an interpreter that has"
                " envfactory-mcp and mcp>=2.3"
            )
        self.conns = {
            env: ServerConnection(
                env,
                transport,
                Path(servers_dir),
                url=(urls or {}).get(env),
                allow_unverified=allow_unverified,
                trust=trust,
                http_token=http_token,
            )
            for env in envs
        }
        self.gold = GoldCache()  # gold final states, replayed once per task for all episodes
        self._owners: dict[str, asyncio.Task[None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    async def get(self, env: str) -> ServerConnection:
        """The open connection to ``env`` (opened, or reopened after a failure, on demand)."""
        conn = self.conns.get(env)
        if conn is None:
            raise EnvFactoryError(f"no server {env!r} here: serving {', '.join(self.conns)}")
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (a trainer's second asyncio.run): reconnect
            self._loop, self._owners = loop, {}
            self.conns = {name: _fresh(c) for name, c in self.conns.items()}
            self.gold = GoldCache()
            conn = self.conns[env]
        if env not in self._owners:
            # The MCP client must be entered and left in one task: a task owns it.
            self._owners[env] = asyncio.get_running_loop().create_task(conn.owner())
        await conn.ensure()
        return conn

    async def close(self) -> None:
        if self._loop is not asyncio.get_running_loop():
            return  # their loop is gone, and with it the connections
        for env, owner in list(self._owners.items()):
            await self.conns[env].shutdown()
            await owner
        self._owners.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def describe_server(
    env: str, transport: Transport, servers_dir: Path, url: str | None = None, **conn: Any
) -> tuple[str, list[dict[str, Any]]]:
    """The environment's policy text and offered tools (OpenAI format), read from its
    server once, in a thread of its own (the caller may be inside an event loop)."""
    found: dict[str, Any] = {}

    async def read() -> None:
        async with ServerConnection(env, transport, servers_dir, url=url, **conn) as server:
            found["instructions"], found["tools"] = server.instructions, openai_tools([server])

    def run() -> None:
        try:
            anyio.run(read)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            found["error"] = exc

    thread = threading.Thread(target=run, name=f"describe-{env}")
    thread.start()
    thread.join()
    if "error" in found:
        raise found["error"]
    return found["instructions"], found["tools"]


def _fresh(conn: ServerConnection) -> ServerConnection:
    """A new, unopened connection like ``conn``."""
    return ServerConnection(
        conn.server,
        conn.transport,
        conn.servers_dir,
        url=conn.url,
        call_timeout_s=conn.call_timeout_s,
        allow_unverified=conn.allow_unverified,
        http_token=conn.http_token,
        trust=conn.trust,
    )


def agent_turn(message: Message | str) -> AgentTurn:
    """The policy's message as the agent's turn: a string is text; a dict is an OpenAI
    assistant message whose ``tool_calls`` carry ``arguments`` as a JSON string (as a
    model emits them, malformed ones included: the episode answers those with a tool
    error) or as an object."""
    if isinstance(message, str):
        return AgentTurn(content=message)
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep the text
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    calls = []
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function", call)
        arguments = function.get("arguments", "")
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        calls.append(ToolCall.parse(str(call.get("id") or f"call_{index}"), str(function.get("name")), raw))
    return AgentTurn(content=content if isinstance(content, str) else None, tool_calls=calls)


class _Policy:
    """The agent of the episode: each ``act`` hands the conversation out and waits for the
    trainer's next message."""

    def __init__(self, name: str, model: str | None) -> None:
        self.name = name
        self.model = model  # recorded as the agent's model
        self.system_prompt = ""
        self.tools: list[dict[str, Any]] = []
        self.asks: asyncio.Queue[list[Message]] = asyncio.Queue()
        self.turns: asyncio.Queue[AgentTurn] = asyncio.Queue()

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self.tools, self.system_prompt = tools, system_prompt

    async def act(self, messages: list[Message]) -> AgentTurn:
        await self.asks.put(messages)
        return await self.turns.get()

    @property
    def client(self) -> Any:  # run_episode records ``agent.client.model``
        return self


@dataclass(frozen=True)
class EnvOptions:
    run_id: str = "online"
    seed: int = 0
    max_steps: int = MAX_STEPS
    max_errors: int = MAX_ERRORS
    episode_timeout_s: float = 3600.0
    reward_basis: tuple[str, ...] = REWARD_BASIS


class EnvFactoryEnv:
    """One episode of ``task`` on ``server`` at a time (``reset`` starts a new one).

    ``server`` is an ``EnvFactoryServers`` (shared; the task's env is served there) or an
    open ``ServerConnection``. ``user`` is the simulated user (default: the scripted one;
    ``sim.users.LLMUser`` for a model). ``trial`` numbers the record."""

    def __init__(
        self,
        server: EnvFactoryServers | ServerConnection,
        task: Task,
        user: UserSimulator | Callable[[Task], UserSimulator] | None = None,
        options: EnvOptions | None = None,
        trial: int = 0,
        agent_name: str = "policy",
        agent_model: str | None = None,
    ) -> None:
        self.server, self.task, self.trial = server, task, trial
        self.options = options or EnvOptions()
        self._user = user
        self._agent_name, self._agent_model = agent_name, agent_model
        self._episode: asyncio.Task[TrajectoryRecord] | None = None
        self._policy: _Policy | None = None
        self._seen = 0
        self.record: TrajectoryRecord | None = None
        self.tools: list[dict[str, Any]] = []
        self.system_prompt = ""

    def _make_user(self) -> UserSimulator:
        if self._user is None:
            from envfactory_mcp.sim.users import ScriptedUser

            return ScriptedUser()
        if callable(self._user) and not hasattr(self._user, "reply"):
            return self._user(self.task)
        return self._user  # type: ignore[return-value]

    async def _conn(self) -> tuple[ServerConnection, GoldCache]:
        if isinstance(self.server, EnvFactoryServers):
            return await self.server.get(self.task.env), self.server.gold
        return self.server, _gold_for(self.server)

    async def reset(self) -> Observation:
        """Start a new episode (a fresh session from the seed); the observation holds the
        system prompt (the policy) and the user's opening, and the tools offered."""
        await self.close()
        self.record, self._seen = None, 0
        conn, gold = await self._conn()
        policy = self._policy = _Policy(self._agent_name, self._agent_model)
        config = EpisodeConfig(
            run_id=self.options.run_id,
            seed=self.options.seed,
            max_steps=self.options.max_steps,
            max_errors=self.options.max_errors,
            timeout_s=self.options.episode_timeout_s,
            reward_basis=self.options.reward_basis,
        )
        self._episode = asyncio.get_running_loop().create_task(
            run_episode(self.task, self.trial, policy, self._make_user(), conn, config, gold)
        )
        obs, _, done, _ = await self._advance()
        self.tools, self.system_prompt = policy.tools, policy.system_prompt
        head = [{"role": "system", "content": policy.system_prompt}] if not done else []
        return {"messages": head + obs["messages"], "tools": policy.tools}

    async def step(self, message: Message | str) -> StepResult:
        """The policy's turn in; out: the new messages (tool results, or the user's reply),
        the reward (None until the end, and for a harness failure), whether the episode is
        over, and ``info`` (``termination``, and at the end ``record`` and ``reward_parts``)."""
        policy, episode = self._policy, self._episode
        if policy is None or episode is None:
            raise EnvFactoryError("step() before reset()")
        if episode.done() and self.record is not None:
            raise EnvFactoryError("the episode is over: reset() for a new one")
        await policy.turns.put(agent_turn(message))
        self._seen += 1  # the policy's own message is not observed back
        return await self._advance()

    async def _advance(self) -> StepResult:
        """Wait until the episode asks the policy again or ends."""
        assert self._policy is not None and self._episode is not None
        ask = asyncio.ensure_future(self._policy.asks.get())
        await asyncio.wait({ask, self._episode}, return_when=asyncio.FIRST_COMPLETED)
        if ask.done():
            messages = ask.result()
            new, self._seen = messages[self._seen :], len(messages)
            return {"messages": new}, None, False, {"termination": None}
        ask.cancel()
        record = self.record = self._episode.result()
        new = [dict(m) for m in record.messages[self._seen :]]
        self._seen = len(record.messages)
        info = {
            "termination": record.termination,
            "termination_detail": record.termination_detail,
            "reward_parts": record.reward_parts.model_dump() if record.reward_parts else None,
            "record": record,
        }
        return {"messages": new}, record.reward, True, info

    async def close(self) -> None:
        """Abandon an episode in progress (its session ends with the server's idle timeout)."""
        episode, self._episode = self._episode, None
        if episode is not None and not episode.done():
            episode.cancel()
            with anyio.CancelScope(shield=True):
                try:
                    await episode
                except (asyncio.CancelledError, InfrastructureError):
                    pass


_GOLD: weakref.WeakKeyDictionary[ServerConnection, GoldCache] = weakref.WeakKeyDictionary()


def _gold_for(conn: ServerConnection) -> GoldCache:
    """One gold cache per connection (the gold replay runs once per task on it)."""
    gold = _GOLD.get(conn)
    if gold is None:
        gold = _GOLD[conn] = GoldCache()
    return gold
