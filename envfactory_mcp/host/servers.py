"""What a rollout's episodes share, whatever runs them (``rollout``, or the workers of
``backends``): one connection per environment, and the record of an episode that never
ran. Apart from both so that neither imports the other (issue 30)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from envfactory_mcp.host.connection import ServerConnection, Transport
from envfactory_mcp.records.trajectory import Participant, TrajectoryRecord
from envfactory_mcp.sim.types import Agent, UserSimulator
from envfactory_mcp.tasks.model import Task


class RolloutSettings(Protocol):
    """What of a ``rollout.RolloutConfig`` these need (read only: the config is frozen)."""

    @property
    def envs(self) -> list[str]: ...

    @property
    def transport(self) -> Transport: ...

    @property
    def servers_dir(self) -> str: ...

    @property
    def urls(self) -> dict[str, str]: ...

    @property
    def allow_unverified(self) -> bool: ...

    @property
    def trust(self) -> bool: ...

    @property
    def http_token(self) -> str | None: ...

    @property
    def seed(self) -> int: ...

    @property
    def agent_model(self) -> str | None: ...

    @property
    def user_model(self) -> str | None: ...


class Servers:
    """One connection per environment, each owned by its own task (see ``ServerConnection``)."""

    def __init__(self, config: RolloutSettings) -> None:
        self.conns = {
            env: ServerConnection(
                env,
                config.transport,
                Path(config.servers_dir),
                url=config.urls.get(env),
                allow_unverified=config.allow_unverified,
                trust=config.trust,
                http_token=config.http_token,
            )
            for env in config.envs
        }

    async def get(self, env: str) -> ServerConnection:
        conn = self.conns[env]
        await conn.ensure()
        return conn


def failed_record(
    task: Task,
    trial: int,
    run_id: str,
    config: RolloutSettings,
    agent: Agent,
    user: UserSimulator,
    detail: str,
) -> TrajectoryRecord:
    return TrajectoryRecord(
        run_id=run_id,
        env=task.env,
        servers=task.servers,
        task_id=task.task_id,
        trial=trial,
        seed=config.seed,
        agent=Participant(kind=agent.name, model=config.agent_model),
        user=Participant(kind=user.name, model=config.user_model),
        messages=[],
        tools=[],
        termination="infrastructure_error",
        termination_detail=detail[:1000],
        reward=None,
        gold_state_hash=task.gold.final_state_hash,
    )
