"""Playing and scoring cross-server evaluation episodes.

Each offered server is an ``Environment`` served in this process (``LocalServer``: the
same runtime toolbox and session databases the generated servers run, one session per
episode) or its package served over MCP (``McpServer``: stdio or in-memory, reset and
read through the control plane), so every server's state can be reset and read. The agent sees every offered
tool as ``<server>__<tool>``; the simulated user is the project's (scripted, or a model).
After the episode each server's final state hash is compared with its gold (changed for
the servers the task writes, unchanged for the rest: a changed distractor is a collateral
change), the answer is scored claim by claim (``eval.claims``), and a failed episode is
classified (``eval.taxonomy``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field

from envfactory_mcp.env import Environment
from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.eval.claims import PASS_AT, PASS_LOOSE, ClaimJudge, ClaimsResult, matches, score_claims
from envfactory_mcp.eval.claims import answer_text as _answer_text
from envfactory_mcp.eval.compose import SEP, EvalTask
from envfactory_mcp.eval.taxonomy import EpisodeFacts, classify
from envfactory_mcp.host.connection import ServerConnection, Transport
from envfactory_mcp.llm import LLMError, ToolCall
from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX, Usage
from envfactory_mcp.runtime import SessionDatabase
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.settings import CONCURRENCY, DEFAULT_SERVERS_DIR, EPISODE_TIMEOUT_S, MAX_ERRORS, MAX_STEPS
from envfactory_mcp.sim.types import Agent, Message, UserSimulator


class LocalServer:
    """One environment served in-process: sessions, tool calls, state hashes."""

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.spec = env.spec
        self.name = env.spec.name
        self.toolbox = env.toolbox()
        self.tools = {t.name: t for t in env.spec.tools}
        self.instructions = env.spec.policy
        self.sessions: dict[str, SessionDatabase] = {}

    async def reset(self, session: str) -> str:
        db = SessionDatabase(self.env.seed_image)
        self.sessions[session] = db
        return db.hash()

    async def call(self, session: str, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """``(ok, text)``: the output as JSON, or the error message."""
        import json

        db = self.sessions[session]
        outcome = self.toolbox.call(db.db, tool, arguments)
        db.mark_written(outcome.written)
        if outcome.ok:
            return True, json.dumps(outcome.output, ensure_ascii=False, sort_keys=True)
        return False, outcome.error or "The tool failed."

    async def state_hash(self, session: str) -> str:
        return self.sessions[session].hash()

    async def end(self, session: str) -> None:
        db = self.sessions.pop(session, None)
        if db is not None:
            db.close()


class McpServer:
    """One environment's server over MCP (``host.connection.ServerConnection``: stdio or
    in-memory), each episode in its own session, reset and read through the control plane."""

    def __init__(self, conn: ServerConnection, env: Environment) -> None:
        self.conn = conn
        self.spec = env.spec
        self.name = env.spec.name
        self.tools = {t.name: t for t in env.spec.tools}
        self.instructions = conn.instructions

    async def reset(self, session: str) -> str:
        return await self.conn.reset(session)

    async def call(self, session: str, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        result = await self.conn.call(tool, arguments, session)
        return not result.is_error, result.text

    async def state_hash(self, session: str) -> str:
        return await self.conn.state_hash(session)

    async def end(self, session: str) -> None:
        await self.conn.end(session)


Server = LocalServer | McpServer


class EvalResult(BaseModel):
    """One scored episode."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    trial: int = 0
    servers: list[str]  # the chain's servers
    offered: list[str]
    tools_offered: int
    relevant_tools: list[str]
    agent: str
    agent_model: str | None = None
    termination: str
    termination_detail: str = ""
    state_ok: bool
    server_states: dict[str, bool]  # server -> final state equals its gold
    collateral: list[str]
    claims: ClaimsResult
    coverage: float
    passed: bool  # state ok and coverage >= 0.75
    passed_loose: bool  # state ok and coverage >= 0.5
    failure_class: str | None = None
    failure_detail: str = ""
    policy_violations: list[str] = Field(default_factory=list)
    steps: int = 0
    tool_calls: int = 0
    usage: dict[str, Usage] = Field(default_factory=dict)  # agent, user, judge
    seconds: float = 0.0
    messages: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def excluded(self) -> bool:
        return self.termination in ("model_unavailable", "user_error", "infrastructure_error", "timeout")


@dataclass(frozen=True)
class EpisodeSettings:
    max_steps: int = MAX_STEPS
    max_errors: int = MAX_ERRORS
    timeout_s: float = EPISODE_TIMEOUT_S
    keep_messages: bool = True


def offered_tools(task: EvalTask, servers: dict[str, Server]) -> list[dict[str, Any]]:
    """The tools the agent sees, OpenAI function format, namespaced ``<server>__<tool>``."""
    return [
        {
            "type": "function",
            "function": {
                "name": f"{name}{SEP}{tool.name}",
                "description": tool.description,
                "parameters": tool.input_schema,
            },
        }
        for name in task.offered
        for tool in servers[name].spec.tools
    ]


def system_prompt(task: EvalTask, servers: dict[str, Server]) -> str:
    return "\n\n".join(f"## {n}\n\n{servers[n].instructions}".rstrip() for n in task.offered)


class _View:
    def __init__(self, ep: _Episode) -> None:
        self.ep = ep

    async def goal_met(self) -> bool:
        ep = self.ep
        for server, gold in ep.task.gold_hashes.items():
            if await ep.servers[server].state_hash(ep.session) != gold:
                return False
        answer = _answer_text(ep.messages)
        return all(matches(c, answer) for c in ep.task.claims)

    def writes_done(self) -> int:
        return self.ep.writes


@dataclass
class _Episode:
    task: EvalTask
    servers: dict[str, Server]
    session: str
    messages: list[Message]
    writes: int = 0
    steps: int = 0
    calls: int = 0


async def _execute(ep: _Episode, call: ToolCall) -> tuple[str, bool]:
    if call.arguments is None:
        return f"{TOOL_ERROR_PREFIX} malformed arguments for {call.name}: {call.error}", True
    server, _, tool = call.name.partition(SEP)
    if server not in ep.task.offered or tool not in ep.servers[server].tools:
        return f"{TOOL_ERROR_PREFIX} Unknown tool {call.name!r}.", True
    ok, text = await ep.servers[server].call(ep.session, tool, call.arguments)
    if ok and ep.servers[server].tools[tool].effect == "write":
        ep.writes += 1
    return (text, False) if ok else (f"{TOOL_ERROR_PREFIX} {text}", True)


def _model_failure(exc: LLMError, who: str) -> tuple[str, str]:
    if exc.endpoint_failed:
        return "model_unavailable", f"{who}: {exc}"
    if exc.kind == "context_window":
        return "context_window_exceeded", str(exc)
    return ("agent_error" if who == "agent" else "user_error"), str(exc)


async def _loop(
    ep: _Episode, agent: Agent, user: UserSimulator, settings: EpisodeSettings, usage: dict[str, Usage]
) -> tuple[str, str]:
    view = _View(ep)
    errors = 0
    while True:
        if ep.steps >= settings.max_steps:
            return "max_steps", f"{settings.max_steps} agent steps"
        ep.steps += 1
        try:
            turn = await agent.act(list(ep.messages))
        except LLMError as exc:
            return _model_failure(exc, "agent")
        if turn.usage is not None:
            usage["agent"].add(turn.usage.prompt_tokens, turn.usage.completion_tokens, turn.cost_usd)
        ep.messages.append(turn.as_message())
        if turn.tool_calls:
            for call in turn.tool_calls:
                ep.calls += 1
                content, failed = await _execute(ep, call)
                ep.messages.append(
                    {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}
                )
                errors = errors + 1 if failed else 0
                if errors >= settings.max_errors:
                    return "too_many_errors", f"{errors} tool errors in a row"
            continue
        try:
            reply = await user.reply(list(ep.messages), view)
        except LLMError as exc:
            return _model_failure(exc, "user")
        if reply.usage is not None:
            usage["user"].add(reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.cost_usd)
        ep.messages.append({"role": "user", "content": reply.content})
        if reply.stop_token:
            return "user_stop", reply.stop_token


async def run_episode(
    task: EvalTask,
    agent: Agent,
    user: UserSimulator,
    servers: dict[str, Server],
    judge: ClaimJudge | None = None,
    settings: EpisodeSettings = EpisodeSettings(),
    trial: int = 0,
) -> EvalResult:
    """Play ``task`` once and score it."""
    started = time.perf_counter()
    session = f"eval/{task.task_id}/{trial}/{secrets.token_urlsafe(8)}"
    tools = offered_tools(task, servers)
    usage = {"agent": Usage(), "user": Usage(), "judge": Usage()}
    ep = _Episode(task=task, servers=servers, session=session, messages=[])
    reason, detail = "", ""  # every way out of the try below sets both
    finals: dict[str, str] = {}
    try:
        for name in task.offered:
            initial = await servers[name].reset(session)
            if initial != task.initial_hashes[name]:
                raise InfrastructureError(
                    f"{name}: the seed state is not the eval set's (the server changed)"
                )
        with anyio.fail_after(settings.timeout_s):
            agent.start(task.task, tools, system_prompt(task, servers))
            ep.messages.append({"role": "user", "content": user.start(task.task)})
            reason, detail = await _loop(ep, agent, user, settings, usage)
    except TimeoutError:
        reason, detail = "timeout", f"the episode ran past {settings.timeout_s:g} s"
    except LLMError as exc:
        reason, detail = _model_failure(exc, "user")
    except InfrastructureError as exc:
        reason, detail = "infrastructure_error", str(exc)
    if reason != "infrastructure_error":
        try:
            with anyio.fail_after(60):
                finals = {name: await servers[name].state_hash(session) for name in task.offered}
        except (InfrastructureError, TimeoutError) as exc:
            reason, detail = "infrastructure_error", f"reading the final states failed: {exc}"
    with anyio.move_on_after(10):
        for name in task.offered:
            try:
                await servers[name].end(session)
            except InfrastructureError:
                pass  # the session dies with its server
    server_states = {name: finals.get(name) == task.gold_hashes[name] for name in task.offered}
    collateral = [
        name
        for name in task.offered
        if name not in task.task.servers and name in finals and finals[name] != task.initial_hashes[name]
    ]
    claims = await score_claims(task.claims, ep.messages, judge)
    usage["judge"].add(claims.judge_prompt_tokens, claims.judge_completion_tokens, claims.judge_cost_usd)
    violations = _violations(ep.messages, task, servers)
    state_ok = all(server_states.values())
    excluded = reason in ("model_unavailable", "user_error", "infrastructure_error", "timeout")
    passed = state_ok and claims.coverage >= PASS_AT and not excluded
    result = EvalResult(
        task_id=task.task_id,
        trial=trial,
        servers=task.task.servers,
        offered=task.offered,
        tools_offered=len(tools),
        relevant_tools=task.relevant_tools,
        agent=agent.name,
        agent_model=getattr(getattr(agent, "client", None), "model", None),
        termination=reason,
        termination_detail=detail[:1000],
        state_ok=state_ok,
        server_states=server_states,
        collateral=collateral,
        claims=claims,
        coverage=claims.coverage,
        passed=passed,
        passed_loose=state_ok and claims.coverage >= PASS_LOOSE and not excluded,
        policy_violations=violations,
        steps=ep.steps,
        tool_calls=ep.calls,
        usage=usage,
        seconds=round(time.perf_counter() - started, 6),
        messages=ep.messages if settings.keep_messages else [],
    )
    if not passed and not excluded:
        result.failure_class, result.failure_detail = classify(
            EpisodeFacts(
                messages=ep.messages,
                relevant_tools=task.relevant_tools,
                termination=reason,
                state_ok=state_ok,
                collateral=collateral,
                policy_violations=violations,
                coverage=claims.coverage,
            )
        )
    return result


def _violations(messages: list[Message], task: EvalTask, servers: dict[str, Server]) -> list[str]:
    """Policy violations, server by server (each judged on its own calls, names plain)."""
    found: list[str] = []
    for name in task.offered:
        spec = servers[name].spec
        rules = spec.policy_rules
        if not (rules.confirm or rules.authentication or rules.refusals):
            continue
        prefix = f"{name}{SEP}"
        mine: list[Message] = []
        ids: set[str] = set()
        for m in messages:
            if m.get("role") == "assistant" and m.get("tool_calls"):
                calls = [c for c in m["tool_calls"] if c["function"]["name"].startswith(prefix)]
                ids.update(str(c["id"]) for c in calls)
                m = {
                    **m,
                    "tool_calls": [
                        {
                            **c,
                            "function": {**c["function"], "name": c["function"]["name"].removeprefix(prefix)},
                        }
                        for c in calls
                    ],
                }
                if not m["tool_calls"]:
                    del m["tool_calls"]
            elif m.get("role") == "tool" and str(m.get("tool_call_id")) not in ids:
                continue
            mine.append(m)
        found.extend(f"{name}: {v}" for v in policy_violations(mine, spec))
    return found


AgentFactory = Callable[[EvalTask], Agent]
UserFactory = Callable[[EvalTask], UserSimulator]


async def run_eval(
    tasks: list[EvalTask],
    envs: list[Environment],
    agent_factory: AgentFactory,
    user_factory: UserFactory,
    judge_factory: Callable[[], ClaimJudge | None] = lambda: None,
    trials: int = 1,
    concurrency: int = CONCURRENCY,
    settings: EpisodeSettings = EpisodeSettings(),
    progress: Callable[[int, int], None] | None = None,
    transport: Transport | Literal["local"] = "local",
    servers_dir: Path = DEFAULT_SERVERS_DIR,
    allow_unverified: bool = False,
    trust: bool = False,
) -> list[EvalResult]:
    """Every (task, trial), ``concurrency`` at a time; results in task order.

    ``transport`` ``local`` serves each environment in this process (``LocalServer``);
    ``stdio`` or ``memory`` serve the packages in ``servers_dir`` over MCP, one
    connection per server shared by every episode (``McpServer``)."""
    names = {e.spec.name for e in envs}
    missing = sorted({s for t in tasks for s in t.offered} - names)
    if missing:
        from envfactory_mcp.errors import EnvFactoryError

        raise EnvFactoryError(f"the eval set needs servers that are not loaded: {', '.join(missing)}")
    async with AsyncExitStack() as stack:
        servers: dict[str, Server] = {}
        for env in envs:
            if transport == "local":
                servers[env.spec.name] = LocalServer(env)
                continue
            conn = ServerConnection(
                env.spec.name, transport, servers_dir, allow_unverified=allow_unverified, trust=trust
            )
            await stack.enter_async_context(conn)
            servers[env.spec.name] = McpServer(conn, env)
        return await _play_all(
            tasks,
            servers,
            agent_factory,
            user_factory,
            judge_factory,
            trials,
            concurrency,
            settings,
            progress,
        )


async def _play_all(
    tasks: list[EvalTask],
    servers: dict[str, Server],
    agent_factory: AgentFactory,
    user_factory: UserFactory,
    judge_factory: Callable[[], ClaimJudge | None],
    trials: int,
    concurrency: int,
    settings: EpisodeSettings,
    progress: Callable[[int, int], None] | None,
) -> list[EvalResult]:
    todo = [(t, k) for t in tasks for k in range(trials)]
    results: list[EvalResult | None] = [None] * len(todo)
    limiter = anyio.CapacityLimiter(max(1, concurrency))
    done = 0

    async def one(i: int, task: EvalTask, trial: int) -> None:
        nonlocal done
        async with limiter:
            results[i] = await run_episode(
                task, agent_factory(task), user_factory(task), servers, judge_factory(), settings, trial
            )
            done += 1
            if progress is not None:
                progress(done, len(todo))

    async with anyio.create_task_group() as group:
        for i, (task, trial) in enumerate(todo):
            group.start_soon(one, i, task, trial)
    return [r for r in results if r is not None]
