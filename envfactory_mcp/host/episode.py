"""One episode: a simulated user and an agent talk while the agent calls tools over MCP.

The loop: the user opens; the agent acts (tool calls are executed over MCP in the
episode's own session and answered with tool messages, tool errors included, until the
agent writes text); the user replies; and so on, until a stop token, the step cap, too
many tool errors in a row, a model failure, a server failure or the time limit. Then
the final state is read and scored against the gold state (gold actions replayed on a
fresh session of the same server) and the claims. Nothing here raises for what the
agent, the user or the server does: every outcome is a ``TrajectoryRecord``.

This is the package's one turn loop (``_loop``; ``tests/test_one_loop.py`` says so):
rollouts, evaluation (``eval``), the Ray backend and the RL environment all play their
episodes through ``run_episode``. A task naming several servers (``Task.servers``: the
servers it is played on, its own first; ``gold.actions[].server`` says where each gold
call goes) is played on exactly those, every tool offered as ``<server>__<tool>``; its
state is every offered server's, one hash (``combined_hash``) over the per-server hashes,
which are kept in the record (``server_hashes``); each server's gold is its own gold
actions replayed on it, and an offered server no gold action uses must stay untouched.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.host.connection import ServerConnection
from envfactory_mcp.llm import LLMError, ToolCall
from envfactory_mcp.records.trajectory import (
    TOOL_ERROR_PREFIX,
    Participant,
    ToolStats,
    TrajectoryRecord,
    Usage,
)
from envfactory_mcp.runtime import diff_states
from envfactory_mcp.scoring.claims import claims_communicated
from envfactory_mcp.scoring.free_text import text_columns
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.scoring.grounding import NAMESPACE_SEPARATOR
from envfactory_mcp.scoring.rescore import score_record
from envfactory_mcp.scoring.reward import called_names, state_means_gold
from envfactory_mcp.settings import EPISODE_TIMEOUT_S, MAX_ERRORS, MAX_STEPS, REWARD_BASIS
from envfactory_mcp.sim.types import Agent, AgentTurn, Message, UserSimulator
from envfactory_mcp.tasks.model import Task


@dataclass(frozen=True)
class EpisodeConfig:
    run_id: str
    seed: int = 0
    max_steps: int = MAX_STEPS  # agent turns (a turn is one model response, with or without tool calls)
    max_errors: int = MAX_ERRORS  # tool errors in a row before the episode ends
    timeout_s: float = EPISODE_TIMEOUT_S
    reward_basis: tuple[str, ...] = REWARD_BASIS


class _View:
    """What the simulated user may ask the host (``sim.types.EpisodeView``)."""

    def __init__(self, episode: _Episode) -> None:
        self.episode = episode

    async def goal_met(self) -> bool:
        ep = self.episode
        # The user also wants to hear the outcome (claims) and to be handed over when
        # that was the point (a transfer changes nothing in the database). The required
        # calls are checked first; on one server then its hash (known without asking when
        # no call came since the last check), and the claims, which read every message,
        # only for a state that can still be the gold one. The answer is the same in any
        # order.
        called = {name.rsplit("__", 1)[-1] for name in called_names(ep.messages)}
        if any(tool not in called for tool in ep.task.gold.required_calls):
            return False
        if not ep.multi:
            known = ep.final_hash_known()
            own = state = known if known is not None else await ep.conn.state_hash(ep.session)
            ep.hash_seen = (ep.calls_sent, state)
            if state != ep.gold_hash and not self._by_meaning(own, ep.initial_hash):
                return False
            if claims_communicated(ep.task.gold.claims, ep.messages, ep.conn.spec)[1]:
                return False
            if state == ep.gold_hash:
                return True
        else:
            if claims_communicated(ep.task.gold.claims, ep.messages, ep.conn.spec)[1]:
                return False
            hashes = await ep.server_hashes()
            state = combined_hash(hashes)
            ep.hash_seen = (ep.calls_sent, state)
            if state == ep.gold_hash:
                return True
            own_or_none = ep.own_hash(hashes)
            if own_or_none is None:
                return False  # another server is not in its gold state: no meaning saves that
            own = own_or_none
            if not self._by_meaning(own, ep.initial_hashes[ep.conn.server]):
                return False
        assert ep.initial_state is not None  # _by_meaning said so
        final = await ep.conn.state(ep.session)
        diff = diff_states(ep.initial_state, final, _row_keys(ep.conn, ep.initial_state, final))
        return state_means_gold(diff, ep.task.gold.diff, ep.conn.spec)

    def _by_meaning(self, own: str, own_initial: str | None) -> bool:
        """Whether the own server's state, not its gold hash, may still mean the gold one:
        free text in the agent's own words changes the hash, not the meaning, so the
        changes themselves are compared where the spec has free-text columns and the gold
        diff is known."""
        ep = self.episode
        if own == own_initial or ep.initial_state is None or ep.gold_hash != ep.task.gold.final_state_hash:
            return False
        return bool(text_columns(ep.conn.spec))

    def writes_done(self) -> int:
        return self.episode.writes_done


@dataclass
class _Episode:
    task: Task
    conn: ServerConnection
    session: str
    gold_hash: str
    routes: dict[str, _Route] = field(default_factory=dict)
    initial_hash: str | None = None
    initial_state: dict[str, Any] | None = None
    messages: list[Message] = field(default_factory=list)
    writes_done: int = 0
    calls_sent: int = 0  # tool calls that may have changed the state (``_execute``)
    hash_seen: tuple[int, str] | None = None  # (calls_sent, the state hash then): the reset's, goal_met's
    tool_stats: dict[str, ToolStats] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=lambda: {"agent": Usage(), "user": Usage()})
    timings: dict[str, float] = field(default_factory=lambda: {"agent_s": 0.0, "user_s": 0.0, "tools_s": 0.0})
    steps: int = 0
    # A task played on several servers: every offered server's state is the episode's.
    multi: list[ServerConnection] = field(default_factory=list)
    initial_hashes: dict[str, str] = field(default_factory=dict)  # multi: each server's seed state
    gold_hashes: dict[str, str] = field(default_factory=dict)  # multi: each server's gold state
    gold_servers: frozenset[str] = frozenset()  # multi: the servers its gold actions use

    async def server_hashes(self) -> dict[str, str]:
        return {c.server: await c.state_hash(self.session) for c in self.multi}

    def own_hash(self, hashes: dict[str, str]) -> str | None:
        """Multi-server: the task's own server's hash when every other server is in its
        gold state (only then may the own server's changes be compared by meaning)."""
        own = self.conn.server
        if any(h != self.gold_hashes.get(s) for s, h in hashes.items() if s != own):
            return None
        return hashes[own]

    def final_hash_known(self) -> str | None:
        """The state hash last read (the reset's, or the user's last check), when no call
        that may change the state came after it (``_execute``; the episode's session is
        its own: nothing else writes it)."""
        if self.hash_seen is not None and self.hash_seen[0] == self.calls_sent:
            return self.hash_seen[1]
        return None


class _Stop(Exception):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(detail)
        self.reason, self.detail = reason, detail


def combined_hash(hashes: Mapping[str, str]) -> str:
    """The state of several servers as one hash: the sha256 of a versioned header and one
    ``<server> <hash>`` line per server, in name order. Equal exactly when every server's
    state is equal (the servers named being the same)."""
    text = "envfactory-servers-v1\n" + "".join(f"{name} {hashes[name]}\n" for name in sorted(hashes))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_multi_server(task: Task) -> bool:
    """Whether ``task`` is played on several servers (``Task.servers``) rather than on its
    own server with whatever else a rollout offers beside it."""
    return len(task.servers) > 1


def offered_envs(task: Task, envs: list[str]) -> list[str]:
    """The servers offered beside ``task.env``: a multi-server task's own others, in its
    order; for a one-server task every other environment of the run (distractors)."""
    if is_multi_server(task):
        return [s for s in task.servers if s != task.env]
    return [env for env in envs if env != task.env]


def gold_by_server(task: Task) -> dict[str, Task]:
    """A multi-server task's gold as one task per server its gold actions use (the task's own
    server always), each holding only the actions sent there: what ``GoldCache`` replays."""
    servers = list(dict.fromkeys([task.env, *(a.server for a in task.gold.actions)]))
    return {
        server: task.model_copy(
            update={
                "task_id": f"{task.task_id}@{server}",
                "gold": task.gold.model_copy(
                    update={"actions": [a for a in task.gold.actions if a.server == server]}
                ),
            }
        )
        for server in servers
    }


def offered_name(server: str, tool: str, namespaced: bool) -> str:
    """The name an agent sees: ``<server>__<tool>`` when several servers are offered."""
    return f"{server}{NAMESPACE_SEPARATOR}{tool}" if namespaced else tool


def openai_tools(conns: list[ServerConnection]) -> list[dict[str, Any]]:
    """The tools the agent is offered, in OpenAI function format (control tools never)."""
    namespaced = len(conns) > 1
    return [
        {
            "type": "function",
            "function": {
                "name": offered_name(c.server, t.name, namespaced),
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for c in conns
        for t in c.tools
    ]


@dataclass(frozen=True)
class _Route:
    conn: ServerConnection
    tool: str
    read_only: bool


async def run_episode(
    task: Task,
    trial: int,
    agent: Agent,
    user: UserSimulator,
    conn: ServerConnection,
    config: EpisodeConfig,
    gold: GoldCache,
    on_turn: Callable[[], None] | None = None,
    others: list[ServerConnection] | None = None,
) -> TrajectoryRecord:
    """One episode of ``task`` on ``conn`` (its server). ``others`` are servers offered as
    well (MCP-Atlas style distractors): their tools are offered too, every name becomes
    ``<server>__<tool>``, and any change to their state counts against the episode.
    For a multi-server task (``is_multi_server``) ``others`` are its other servers, in its
    order (``offered_envs``)."""
    started = time.perf_counter()
    multi = is_multi_server(task)
    if multi and [conn.server, *(o.server for o in others or [])] != [task.env, *offered_envs(task, [])]:
        raise ValueError(f"task {task.task_id} is played on {task.servers}, not on the servers given")
    # A session a finished episode kept on this server (reset below, as any), or a new
    # unguessable key; an episode offered several servers uses its own.
    reused = None if others else conn.reuse_session()
    session = reused or f"{config.run_id}/{task.task_id}/{trial}/{secrets.token_urlsafe(16)}"
    offered = [conn, *(others or [])]
    namespaced = len(offered) > 1
    tools = openai_tools(offered)
    routes = {
        offered_name(c.server, t.name, namespaced): _Route(c, t.name, t.read_only)
        for c in offered
        for t in c.tools
    }
    other_hashes: dict[str, str] = {}
    server_hashes: dict[str, str] = {}
    collateral: list[str] = []
    ep: _Episode | None = None
    initial_state: dict[str, Any] | None = None
    reason, detail = "", ""  # every way out of the try below sets both
    final_hash: str | None = None
    final_diff: dict[str, Any] | None = None
    initial_hash: str | None = None
    gold_hash = task.gold.final_state_hash
    try:
        with anyio.fail_after(config.timeout_s):
            if multi:
                ep, initial_hash = await _start_multi(task, offered, session, gold, config, routes)
                gold_hash, other_hashes = ep.gold_hash, dict(ep.initial_hashes)
            else:
                gold_hash = await gold.get(task, conn, config.run_id)
                ep = _Episode(task=task, conn=conn, session=session, gold_hash=gold_hash, routes=routes)
                initial_hash = await conn.reset(session)
                ep.hash_seen = (ep.calls_sent, initial_hash)  # the reset answers with the state's hash
                for other in others or []:
                    other_hashes[other.server] = await other.reset(session)
            if initial_hash != task.initial_state.state_hash:
                where = f"servers {', '.join(task.servers)}'" if multi else "server's"
                raise InfrastructureError(
                    f"the {where} initial state {initial_hash[:12]} is not the task's {task.initial_state.state_hash[:12]}"
                    + (
                        f" (the task's hashes follow state hash version {task.state_hash_version}, this "
                        "server's another: make the tasks again)"
                        if task.stale_hashes
                        else " (the environment changed since the tasks were made)"
                    )
                )
            # The task's own server's seed state (a multi-server task's changes elsewhere are
            # judged by hash only).
            own_initial = ep.initial_hashes[conn.server] if multi else initial_hash
            initial_state = await gold.initial_state(conn, session, own_initial)
            ep.initial_hash, ep.initial_state = initial_hash, initial_state
            try:
                agent.start(task, tools, _system_prompt(offered))
                opening = user.start(task)
            except LLMError as exc:
                raise _Stop(*model_failure(exc, "user")) from exc
            ep.messages.append({"role": "user", "content": opening})
            reason, detail = await _loop(ep, agent, user, config, on_turn)
    except _Stop as stop:
        reason, detail = stop.reason, stop.detail
    except InfrastructureError as exc:
        reason, detail = "infrastructure_error", str(exc)
    except TimeoutError:
        reason, detail = "timeout", f"the episode ran past {config.timeout_s:g} s"
    if ep is not None and reason not in ("infrastructure_error", "timeout"):
        # Each request below is bounded by its connection's call timeout (a far backstop:
        # a busy machine is slow, not broken), so the reading needs no deadline of its own.
        try:
            own_final: str | None
            if multi:
                server_hashes = await ep.server_hashes()
                final_hash = combined_hash(server_hashes)
                own_final = ep.own_hash(server_hashes)  # None: the diff is not read
            else:
                known = ep.final_hash_known()
                if known is not None:
                    conn.check_session(session)  # a session lost since is not scored on what was read
                own_final = final_hash = known or await conn.state_hash(session)
            if final_hash == initial_hash:
                final_diff = {}
            elif final_hash == gold_hash == task.gold.final_state_hash:
                final_diff = task.gold.diff  # the same state as the oracle's: the same diff
            elif initial_state is not None and own_final is not None:
                final_state = await conn.state(session)
                final_diff = diff_states(
                    initial_state, final_state, _row_keys(conn, initial_state, final_state)
                )
            for other in others or []:
                if multi and other.server in ep.gold_servers:
                    continue  # its changes are the task's, judged by the state
                now = server_hashes.get(other.server) or await other.state_hash(session)
                if now != other_hashes.get(other.server):
                    collateral.append(other.server)
        except (InfrastructureError, TimeoutError) as exc:
            reason, detail = "infrastructure_error", f"reading the final state failed: {exc}"
    if ep is not None and not others and reason not in ("infrastructure_error", "timeout"):
        conn.keep_for_reuse(session)  # every request was answered: the next episode resets it
    elif ep is not None or reused is not None:
        with anyio.move_on_after(10):
            for each in offered:
                await each.end(session)
    messages = ep.messages if ep else []
    record = TrajectoryRecord(
        run_id=config.run_id,
        env=task.env,
        servers=task.servers,
        task_id=task.task_id,
        trial=trial,
        seed=config.seed,
        agent=Participant(kind=agent.name, model=getattr(getattr(agent, "client", None), "model", None)),
        user=Participant(kind=user.name, model=getattr(getattr(user, "client", None), "model", None)),
        messages=messages,
        tools=tools,
        termination=reason,
        termination_detail=detail[:1000],
        reward=None,
        initial_state_hash=initial_hash,
        final_state_hash=final_hash,
        gold_state_hash=gold_hash,
        final_diff=final_diff,
        collateral_changes=collateral,
        server_hashes=server_hashes,
        steps=ep.steps if ep else 0,
        tool_stats=ep.tool_stats if ep else {},
        usage=ep.usage if ep else {},
        timings={**(ep.timings if ep else {}), "total_s": time.perf_counter() - started},
    )
    specs = {c.server: c.spec for c in offered}  # each call judged by its own server's policy
    return score_record(record, task, config.reward_basis, spec=conn.spec, specs=specs)


async def _start_multi(
    task: Task,
    offered: list[ServerConnection],
    session: str,
    gold: GoldCache,
    config: EpisodeConfig,
    routes: dict[str, _Route],
) -> tuple[_Episode, str]:
    """A multi-server episode's start: every offered server reset in ``session``, each
    server's gold replayed on it (a server no gold action uses keeps its seed), the
    combined initial and gold hashes."""
    initial = {c.server: await c.reset(session) for c in offered}
    golds = gold_by_server(task)
    by_name = {c.server: c for c in offered}
    unknown = sorted(set(golds) - set(by_name))
    if unknown:
        raise InfrastructureError(
            f"task {task.task_id}'s gold calls {', '.join(unknown)}, which is not offered"
        )
    final = dict(initial)
    for server, part in golds.items():
        final[server] = await gold.get(part, by_name[server], config.run_id)
    ep = _Episode(
        task=task,
        conn=offered[0],
        session=session,
        gold_hash=combined_hash(final),
        routes=routes,
        multi=list(offered),
        initial_hashes=initial,
        gold_hashes=final,
        gold_servers=frozenset(golds),
    )
    return ep, combined_hash(initial)


def _system_prompt(conns: list[ServerConnection]) -> str:
    """The policy the agent follows: its server's instructions, each under a heading when
    several servers are offered."""
    if len(conns) == 1:
        return conns[0].instructions
    return "\n\n".join(f"## {c.server}\n\n{c.instructions}".rstrip() for c in conns)


async def _loop(
    ep: _Episode,
    agent: Agent,
    user: UserSimulator,
    config: EpisodeConfig,
    on_turn: Callable[[], None] | None,
) -> tuple[str, str]:
    view = _View(ep)
    errors_in_row = 0
    while True:
        if ep.steps >= config.max_steps:
            return "max_steps", f"{config.max_steps} agent steps"
        ep.steps += 1
        t0 = time.perf_counter()
        try:
            turn = await agent.act(list(ep.messages))
        except LLMError as exc:
            return model_failure(exc, "agent")
        finally:
            ep.timings["agent_s"] += time.perf_counter() - t0
        _add_usage(ep.usage["agent"], turn)
        ep.messages.append(turn.as_message())
        if on_turn is not None:
            on_turn()
        if turn.tool_calls:
            for call in turn.tool_calls:
                content, failed = await _execute(ep, call)
                ep.messages.append(
                    {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}
                )
                errors_in_row = errors_in_row + 1 if failed else 0
                if errors_in_row >= config.max_errors:
                    return "too_many_errors", f"{errors_in_row} tool errors in a row"
            continue
        t0 = time.perf_counter()
        try:
            reply = await user.reply(list(ep.messages), view)
        except LLMError as exc:
            return model_failure(exc, "user")
        finally:
            ep.timings["user_s"] += time.perf_counter() - t0
        tokens = reply.usage
        ep.usage["user"].add(
            tokens.prompt_tokens if tokens else 0, tokens.completion_tokens if tokens else 0, reply.cost_usd
        )
        ep.messages.append({"role": "user", "content": reply.content})
        token = reply.stop_token
        if token is not None:
            return "user_stop", token


def model_failure(exc: LLMError, who: Literal["agent", "user"]) -> tuple[str, str]:
    """The termination reason and detail for a model that failed after its retries.

    An endpoint that could not answer (down, overloaded, too slow, refusing access) is
    the harness's failure, ``model_unavailable``, whoever's model it was: scoring it 0
    would blame the agent for an outage. A model that did answer but unusably is the
    agent's failure (``agent_error``, scored) or, for the simulated user, ``user_error``
    (the user is part of the harness); the agent outgrowing its context window is
    ``context_window_exceeded``."""
    detail = f"{who}'s model: {exc}"
    if exc.endpoint_failed:
        return "model_unavailable", detail
    if who == "agent":
        return ("context_window_exceeded" if exc.kind == "context_window" else "agent_error"), detail
    return "user_error", detail


async def _execute(ep: _Episode, call: ToolCall) -> tuple[str, bool]:
    """Run one tool call; returns (content for the tool message, whether it failed)."""
    stats = ep.tool_stats.get(call.name)
    if stats is None:  # (not ``setdefault``: a model built per call for nothing)
        stats = ep.tool_stats[call.name] = ToolStats()
    stats.calls += 1
    route = ep.routes.get(call.name)
    if route is None:
        stats.errors += 1
        return (
            f"{TOOL_ERROR_PREFIX} unknown tool {call.name!r}. Available tools: {', '.join(sorted(ep.routes))}.",
            True,
        )
    if call.arguments is None:
        stats.errors += 1
        return f"{TOOL_ERROR_PREFIX} {call.error or 'arguments are not a JSON object'}", True
    t0 = time.perf_counter()
    # A read-only tool of a package this host runs (stdio or in process: envfactory's
    # runtime, which rolls every read back and lets a read tool write nothing) leaves the
    # state as it was when it answers without an error, so the state hash last read still
    # holds (``final_hash_known``); any other call, or a read that failed (a lost session
    # answers with an error), may have changed it, or shows something did.
    unchanging = route.read_only and route.conn.transport != "http"
    if not unchanging:
        ep.calls_sent += 1
    try:
        result = await route.conn.call(route.tool, call.arguments, ep.session)
    finally:
        ep.timings["tools_s"] += time.perf_counter() - t0
    if result.is_error:
        if unchanging:
            ep.calls_sent += 1
        stats.errors += 1
        return f"{TOOL_ERROR_PREFIX} {result.text}", True
    if not route.read_only:
        ep.writes_done += 1
    return result.text, False


def _row_keys(conn: ServerConnection, *states: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Primary keys from the package's spec; for a remote server, the whole row."""
    keys: dict[str, tuple[str, ...]] = {}
    for state in states:
        for table, rows in state.items():
            if table not in keys and (conn.primary_keys.get(table) or rows):
                keys[table] = conn.primary_keys.get(table) or tuple(sorted(rows[0]))
    return keys


def _add_usage(usage: Usage, turn: AgentTurn) -> None:
    tokens = turn.usage
    usage.add(tokens.prompt_tokens if tokens else 0, tokens.completion_tokens if tokens else 0, turn.cost_usd)
