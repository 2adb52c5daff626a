"""Rollouts: every (task, trial) of a task file as an episode, concurrently, into a run directory.

One server process (or URL, or in-process server) per environment serves all episodes;
each episode has its own session. With several environments, every episode of a
one-server task is offered the tools of all of them (namespaced ``<server>__<tool>``,
MCP-Atlas style): the task's own server holds the goal, the others are distractors whose
state must stay untouched. A task naming several servers (``eval`` makes them) is played
on exactly those (``host.episode.offered_envs``), its gold calls going to each. Each finished episode is appended to
``runs/<run>/trajectories.jsonl`` at once, so a run killed at any point resumes with
exactly the missing (task, trial) pairs. A server that dies ends the episodes using it
with ``infrastructure_error``; the next episode starts a fresh server. A model endpoint
that is down ends an episode with ``model_unavailable``. Harness failures are never
scored; the summary counts them in ``harness_failures`` for the CLI to judge the run by.
With ``retry_failed`` a resumed run also re-runs the episodes whose last record is a
harness failure, appending the new record after the old (``RunStore.retrying``): readers
take the last record of each (task, trial), so the summary counts each episode once.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from pydantic_core import PydanticSerializationError

from envfactory_mcp.errors import EnvFactoryError, InfrastructureError
from envfactory_mcp.host.backends import run_ray

# RolloutConfig's home is host/config.py (light: the command line imports it); re-exported here.
from envfactory_mcp.host.config import AGENTS as AGENTS
from envfactory_mcp.host.config import RESERVED_MODEL_ARGS as RESERVED_MODEL_ARGS
from envfactory_mcp.host.config import USERS as USERS
from envfactory_mcp.host.config import AgentKind as AgentKind
from envfactory_mcp.host.config import ConfigError as ConfigError
from envfactory_mcp.host.config import RolloutConfig as RolloutConfig
from envfactory_mcp.host.config import RolloutTransport as RolloutTransport
from envfactory_mcp.host.config import UserKind as UserKind
from envfactory_mcp.host.episode import EpisodeConfig, offered_envs, run_episode
from envfactory_mcp.host.launch import hand_over
from envfactory_mcp.host.servers import Servers as _Servers
from envfactory_mcp.host.servers import failed_record as _failed
from envfactory_mcp.packages import RunPermission, check_served
from envfactory_mcp.ray_cluster import BACKENDS, import_ray
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.sim.types import Agent, UserSimulator
from envfactory_mcp.tasks.model import Task, read_tasks

T = TypeVar("T")
# Keys a run may change when it resumes: how it runs, not what it records. The task file
# may move (its content is checked by hash), and a run may be grown by task subsets.
RESUMABLE_KEYS = ("concurrency", "backend", "ray_address", "tasks_path", "task_ids", "max_tasks")


@functools.lru_cache(maxsize=16)
def _package_spec(servers_dir: str, env: str) -> Any:
    """The spec a package ships (for the demonstrator's tools and words for enum values),
    else, for a shipped blueprint not built there (yet), the blueprint's own."""
    from envfactory_mcp.catalog import environment_spec

    return environment_spec(Path(servers_dir), env)


def make_agent(config: RolloutConfig, task: Task) -> Agent:
    """The agent ``config.agent`` names (``AgentKind``: one branch each)."""
    from envfactory_mcp.sim import agents

    if config.agent == "oracle":
        return agents.OracleAgent()
    if config.agent in ("demonstrator", "gold-replay"):
        # The SFT source decides from the user's side and the tools' outputs only
        # (sim/planner.py); "gold-replay" follows the gold's calls, a reference that is
        # correct by construction, for tests and consistency checks.
        from envfactory_mcp.sim.demonstrator import DemonstratorAgent
        from envfactory_mcp.sim.planner import BlindDemonstrator

        spec = _package_spec(config.servers_dir, task.env)
        demonstrator: Agent = (
            BlindDemonstrator(seed=config.seed, spec=spec)
            if config.agent == "demonstrator"
            else DemonstratorAgent(seed=config.seed, spec=spec)
        )
        if not config.agent_model:
            return demonstrator
        # With a model named, its text is rewritten by it, every grounded value kept (sim/rewrite.py).
        from envfactory_mcp.llm import LiteLLMClient
        from envfactory_mcp.sim.rewrite import RewritingAgent

        client = LiteLLMClient(
            config.agent_model,
            api_base=config.agent_api_base,
            seed=config.seed,
            completion_args=config.agent_args,
        )
        return RewritingAgent(demonstrator, client, temperature=config.agent_temperature)
    if config.agent == "noop":
        return agents.NoopAgent()
    if config.agent == "random":
        return agents.RandomAgent(seed=config.seed)
    if config.agent == "llm":
        if not config.agent_model:
            raise EnvFactoryError("the llm agent needs --agent-model")
        from envfactory_mcp.llm import LiteLLMClient

        return agents.LLMAgent(
            LiteLLMClient(
                config.agent_model,
                api_base=config.agent_api_base,
                seed=config.seed,
                completion_args=config.agent_args,
            ),
            temperature=config.agent_temperature,
            max_tokens=config.agent_max_tokens,
        )
    raise EnvFactoryError(f"unknown agent {config.agent!r}: use one of {', '.join(AGENTS)}")


def make_user(config: RolloutConfig, task: Task) -> UserSimulator:
    """The simulated user ``config.user`` names (``UserKind``: one branch each)."""
    from envfactory_mcp.sim import users

    if config.user == "scripted":
        return users.ScriptedUser()
    if config.user == "llm":
        if not config.user_model:
            raise EnvFactoryError("the llm user needs --user-model")
        from envfactory_mcp.llm import LiteLLMClient

        return users.LLMUser(
            LiteLLMClient(
                config.user_model,
                api_base=config.user_api_base,
                seed=config.seed,
                completion_args=config.user_args,
            ),
            temperature=config.user_temperature,
            max_tokens=config.user_max_tokens,
        )
    raise EnvFactoryError(f"unknown user {config.user!r}: use one of {', '.join(USERS)}")


def load_tasks(config: RolloutConfig, read: list[Task] | None = None) -> list[Task]:
    """The tasks ``config`` rolls out (``read``: ``config.tasks_path`` as the caller just read it)."""
    tasks = read_tasks(config.tasks_path) if read is None else list(read)
    unknown = sorted({s for t in tasks for s in t.servers} - set(config.envs))
    if unknown:
        raise EnvFactoryError(
            f"{config.tasks_path} has tasks for {', '.join(unknown)}, which this rollout does not serve"
        )
    odd = [t.task_id for t in tasks if not t.servers or t.servers[0] != t.env]
    if odd:
        raise EnvFactoryError(
            f"{config.tasks_path}: tasks whose servers do not start with their env: {', '.join(odd[:3])}"
        )
    if config.task_ids is not None:
        known = {t.task_id for t in tasks}
        absent = [task_id for task_id in config.task_ids if task_id not in known]
        if absent:
            raise EnvFactoryError(
                f"--task-ids: {', '.join(absent[:5])}{' ...' if len(absent) > 5 else ''} not in "
                f"{config.tasks_path} (its first ids: {', '.join(t.task_id for t in tasks[:3])})"
            )
        wanted = set(config.task_ids)
        tasks = [t for t in tasks if t.task_id in wanted]
    return tasks[: config.max_tasks] if config.max_tasks else tasks


async def rollout(
    config: RolloutConfig,
    run_dir: Path,
    progress: Callable[[int, int], None] | None = None,
    agent_factory: Callable[[RolloutConfig, Task], Agent] = make_agent,
    user_factory: Callable[[RolloutConfig, Task], UserSimulator] = make_user,
    *,
    tasks: list[Task] | None = None,
    checked: list[RunPermission] | None = None,
) -> dict[str, Any]:
    """Run every missing (task, trial) of ``config`` into ``run_dir``; returns the summary.

    ``tasks``: ``config.tasks_path`` as the caller read it; ``checked``: what
    ``check_served`` gave the caller for ``config`` (both are otherwise done here; the
    command line does them first, to refuse before anything else, issue 32)."""
    from envfactory_mcp.records.store import RunStore

    run_id = run_dir.name
    if config.backend not in BACKENDS:
        raise EnvFactoryError(f"unknown backend {config.backend!r}: use one of {', '.join(BACKENDS)}")
    if config.backend == "ray":
        import_ray()  # refused before any run directory exists
    # Refused before any run directory exists (the launchers refuse too, as a backstop).
    if checked is None:
        checked = check_served(
            Path(config.servers_dir),
            config.envs,
            allow_unverified=config.allow_unverified,
            trust=config.trust,
        )
    tasks = load_tasks(config, tasks)
    # The servers' first starts take these permissions instead of checking their packages again.
    withdraw = hand_over(
        Path(config.servers_dir), checked, allow_unverified=config.allow_unverified, trust=config.trust
    )
    try:
        with RunStore.open(run_dir, _metadata(config, run_dir), resumable_keys=RESUMABLE_KEYS) as store:
            return await _roll(config, run_id, tasks, store, progress, agent_factory, user_factory)
    finally:
        withdraw()


def run_interruptibly(func: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``anyio.run(func, *args)`` where Ctrl-C (SIGINT) cancels ``func`` through an anyio
    cancel scope, so every task (episodes, server owners) unwinds as anyio expects and
    the servers are shut down, then raises ``KeyboardInterrupt``. (asyncio's own handler
    cancels the main task natively, which a server connection being opened at that moment
    can turn into an unrelated RuntimeError instead.) Finished episodes are on disk."""
    import signal

    async def main() -> T:
        interrupted = False
        outcome: list[T] = []
        errors: list[BaseException] = []
        scope = anyio.CancelScope()

        async def watch() -> None:
            nonlocal interrupted
            with anyio.open_signal_receiver(signal.SIGINT) as signals:
                async for _ in signals:
                    interrupted = True
                    scope.cancel()
                    return

        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            try:
                with scope:
                    outcome.append(await func(*args))
            except BaseException as exc:  # noqa: BLE001 - raised below, outside the task group
                errors.append(exc)
            group.cancel_scope.cancel()  # the watcher
        if interrupted:
            raise KeyboardInterrupt
        if errors:
            raise errors[0]
        return outcome[0]

    return anyio.run(main)


def _metadata(config: RolloutConfig, run_dir: Path) -> dict[str, Any]:
    """``config.metadata``, keeping the relative ``servers_dir`` of a run started before
    paths were stored absolute when it names the same folder (so such a run resumes)."""
    import json

    from envfactory_mcp.records.store import METADATA, recorded_path

    metadata = config.metadata(run_dir.name)
    try:
        stored = json.loads((run_dir / METADATA).read_text(encoding="utf-8"))["servers_dir"]
    except (OSError, ValueError, KeyError, TypeError):
        return metadata
    if (
        isinstance(stored, str)
        and not Path(stored).is_absolute()
        and recorded_path(run_dir, stored).resolve() == Path(metadata["servers_dir"])
    ):
        metadata["servers_dir"] = stored
    return metadata


async def _roll(
    config: RolloutConfig,
    run_id: str,
    tasks: list[Task],
    store: Any,
    progress: Callable[[int, int], None] | None,
    agent_factory: Callable[[RolloutConfig, Task], Agent],
    user_factory: Callable[[RolloutConfig, Task], UserSimulator],
) -> dict[str, Any]:
    done = store.done_keys()
    if config.retry_failed:
        selected = {(task.task_id, trial) for trial in range(config.trials) for task in tasks}
        retried = store.failed_keys() & selected
        store.retrying(retried)
        done -= retried
    todo = [
        (task, trial) for trial in range(config.trials) for task in tasks if (task.task_id, trial) not in done
    ]
    rng = random.Random(f"order:{config.seed}")
    rng.shuffle(todo)  # trials of one task spread over time, so a slow task does not stall a block
    if config.backend == "ray":
        await run_ray(config, run_id, tasks, todo, store, progress, agent_factory, user_factory)
        return _summarize(store, run_id)
    servers = _Servers(config)
    gold = GoldCache()
    episode_config = EpisodeConfig(
        run_id=run_id,
        seed=config.seed,
        max_steps=config.max_steps,
        max_errors=config.max_errors,
        timeout_s=config.episode_timeout_s,
        reward_basis=config.reward_basis,
    )
    limiter = anyio.CapacityLimiter(max(1, config.concurrency))
    finished = 0

    async def one(task: Task, trial: int) -> None:
        nonlocal finished
        async with limiter:
            agent, user = agent_factory(config, task), user_factory(config, task)
            try:
                conn = await servers.get(task.env)
                others = [await servers.get(env) for env in offered_envs(task, config.envs)]
            except InfrastructureError as exc:
                record = _failed(task, trial, run_id, config, agent, user, str(exc))
            else:
                record = await run_episode(
                    task, trial, agent, user, conn, episode_config, gold, others=others
                )
            try:
                await store.aappend(record)
            except PydanticSerializationError as exc:
                # Something in the episode (a model's lone surrogate, decoded by a later
                # stage) cannot be written as JSON: this episode is lost, not the run.
                detail = f"the episode's record cannot be written as JSON: {exc}"
                await store.aappend(_failed(task, trial, run_id, config, agent, user, detail))
            finished += 1
            if progress is not None:
                progress(finished, len(todo))

    async with anyio.create_task_group() as owners:
        for conn in servers.conns.values():
            owners.start_soon(conn.owner)
        try:
            async with anyio.create_task_group() as group:
                for task, trial in todo:
                    group.start_soon(one, task, trial)
        finally:
            with anyio.CancelScope(shield=True):
                for conn in servers.conns.values():
                    await conn.shutdown()
    return _summarize(store, run_id)


def _summarize(store: Any, run_id: str) -> dict[str, Any]:
    from envfactory_mcp.scoring.passk import run_summary

    # The records as appended (fsynced) or read on open, not read back (RunStore.summary_records).
    summary = run_summary(store.summary_records(), run_id)
    store.write_summary(summary)
    return summary
