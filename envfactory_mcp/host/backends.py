"""Where a rollout's episodes run: this process (``local``, the default) or a Ray cluster.

``local`` is ``rollout._roll``: one event loop, one server per environment, ``concurrency``
episodes at once. ``ray`` keeps the run directory here, in the driver, and spreads the
episodes over a Ray cluster (``pip install envfactory-mcp[ray]``):

* one *episode worker* (a Ray async actor, one CPU) per CPU of the cluster, each running
  up to ``concurrency`` episodes at once on its own event loop, with its own servers
  started where it runs (a stdio subprocess, or in-process for ``memory``; ``http``
  reaches the given URLs from there) and its own gold cache; the servers directory must
  be at the same path on every node (a shared disk, or the same checkout);
* the driver hands out the missing (task, trial) pairs in the local backend's order and
  appends each record to ``trajectories.jsonl`` as its episode comes back (the same
  ``RunStore``: one fsynced line per episode), so a driver killed at any point loses only
  the episodes in flight and the same command resumes with exactly the missing pairs;
* an episode is the same ``run_episode`` call with the same ``EpisodeConfig`` as the local
  backend, so its record is the same (timings aside); a worker lost with its node is a
  harness failure (``infrastructure_error``), never a score.

``address`` is Ray's: ``None`` starts a private local cluster for the run (and stops it
at the end), ``auto`` joins the cluster this machine is part of (``ray start``), a
``host:port`` joins that one.

``ray_session``, ``workers_ended`` and ``spread_over_workers`` are the same plumbing for
``synthesize --from-list ... --backend ray`` (``synth.model.synthesize_ray``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

import anyio
from pydantic_core import PydanticSerializationError

from envfactory_mcp.ray_cluster import import_ray

if TYPE_CHECKING:
    from envfactory_mcp.sim.types import Agent, UserSimulator
    from envfactory_mcp.tasks.model import Task

AgentFactory = Callable[[Any, "Task"], "Agent"]
UserFactory = Callable[[Any, "Task"], "UserSimulator"]


class EpisodeWorker:
    """Runs episodes where it lives (a Ray actor); servers start on first use."""

    def __init__(
        self,
        config: Any,  # a rollout.RolloutConfig (not imported: rollout imports this module)
        run_id: str,
        tasks: list[Task],
        agent_factory: AgentFactory,
        user_factory: UserFactory,
    ) -> None:
        from envfactory_mcp.host.episode import EpisodeConfig
        from envfactory_mcp.scoring.gold import GoldCache

        self.config, self.run_id = config, run_id
        self.tasks = {t.task_id: t for t in tasks}
        self.agent_factory, self.user_factory = agent_factory, user_factory
        self.gold = GoldCache()
        self.episode_config = EpisodeConfig(
            run_id=run_id,
            seed=config.seed,
            max_steps=config.max_steps,
            max_errors=config.max_errors,
            timeout_s=config.episode_timeout_s,
            reward_basis=config.reward_basis,
        )
        self.servers: Any = None
        self.owners: list[asyncio.Task[None]] = []

    async def _get(self, env: str) -> Any:
        from envfactory_mcp.host.servers import Servers as _Servers

        if self.servers is None:
            self.servers = _Servers(self.config)
            loop = asyncio.get_running_loop()
            self.owners = [loop.create_task(conn.owner()) for conn in self.servers.conns.values()]
        return await self.servers.get(env)

    async def run(self, task_id: str, trial: int) -> str:
        """One episode; its record as JSON (what the driver appends)."""
        from envfactory_mcp.errors import InfrastructureError
        from envfactory_mcp.host.episode import offered_envs, run_episode
        from envfactory_mcp.host.servers import failed_record as _failed

        config, task = self.config, self.tasks[task_id]
        agent, user = self.agent_factory(config, task), self.user_factory(config, task)
        try:
            conn = await self._get(task.env)
            others = [await self._get(env) for env in offered_envs(task, config.envs)]
        except InfrastructureError as exc:
            record = _failed(task, trial, self.run_id, config, agent, user, str(exc))
        else:
            record = await run_episode(
                task, trial, agent, user, conn, self.episode_config, self.gold, others=others
            )
        try:
            return record.model_dump_json()
        except PydanticSerializationError as exc:
            detail = f"the episode's record cannot be written as JSON: {exc}"
            return _failed(task, trial, self.run_id, config, agent, user, detail).model_dump_json()

    async def ping(self) -> str:
        import socket

        return socket.gethostname()

    async def shutdown(self) -> None:
        if self.servers is not None:
            for conn in self.servers.conns.values():
                await conn.shutdown()
            for owner in self.owners:
                await owner


async def run_ray(
    config: Any,  # a rollout.RolloutConfig (not imported: rollout imports this module)
    run_id: str,
    tasks: list[Task],
    todo: list[tuple[Task, int]],
    store: Any,
    progress: Callable[[int, int], None] | None,
    agent_factory: AgentFactory,
    user_factory: UserFactory,
) -> None:
    """Run ``todo`` on a Ray cluster, appending each record to ``store`` as it returns."""
    from envfactory_mcp.host.servers import failed_record as _failed
    from envfactory_mcp.records.trajectory import TrajectoryRecord

    ray = import_ray()
    workers: list[Any] = []
    with ray_session(config.ray_address):
        async with workers_ended(ray, workers):
            if not todo:
                return
            cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
            per_worker = max(1, config.concurrency)
            count = max(1, min(cpus, -(-len(todo) // per_worker)))  # no more workers than work
            actor = ray.remote(num_cpus=1, max_concurrency=per_worker, max_restarts=0)(EpisodeWorker)
            shared = ray.put(tasks)
            workers += [
                actor.remote(config, run_id, shared, agent_factory, user_factory) for _ in range(count)
            ]
            finished = 0

            async def one(index: int, pair: tuple[Task, int]) -> None:
                nonlocal finished
                task, trial = pair
                try:
                    line = await workers[index].run.remote(task.task_id, trial)
                    record = TrajectoryRecord.model_validate_json(line)
                except ray.exceptions.RayError as exc:
                    agent, user = agent_factory(config, task), user_factory(config, task)
                    record = _failed(task, trial, run_id, config, agent, user, f"ray worker lost: {exc}")
                await store.aappend(record)
                finished += 1
                if progress is not None:
                    progress(finished, len(todo))

            await spread_over_workers(count, per_worker, todo, one)


@contextlib.contextmanager
def ray_session(address: str | None) -> Iterator[Any]:
    """Ray, connected to the cluster at ``address`` (a private local one when None) unless
    this process already is; disconnected at the end if it was connected here."""
    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            logging_level="warning",
            configure_logging=True,
        )
    try:
        yield ray
    finally:
        if started_here:
            ray.shutdown()


@contextlib.asynccontextmanager
async def workers_ended(ray: Any, workers: list[Any]) -> Any:
    """Shut ``workers`` (filled in the block) down and kill them at the end of the block."""
    try:
        yield
    finally:
        with anyio.CancelScope(shield=True):
            for worker in workers:
                # a lost worker has nothing left to close
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.wrap_future(worker.shutdown.remote().future()), 30)
                ray.kill(worker)


async def spread_over_workers(
    count: int,
    per_worker: int,
    items: list[Any],
    call: Callable[[int, Any], Awaitable[None]],
) -> None:
    """``call(worker index, item)`` for every item, in order, at most ``per_worker`` at once on
    each of ``count`` workers, each item to the least loaded worker (ties in turn)."""
    limiter = anyio.CapacityLimiter(count * per_worker)
    turn = itertools.cycle(range(count))
    load = [0] * count

    async def one(item: Any) -> None:
        async with limiter:
            index = min(range(count), key=lambda i: (load[i], next(turn) != i))
            load[index] += 1
            try:
                await call(index, item)
            finally:
                load[index] -= 1

    async with anyio.create_task_group() as group:
        for item in items:
            group.start_soon(one, item)
