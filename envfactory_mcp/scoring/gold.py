"""Gold replay: the state a task's gold actions reach, replayed on the server being scored.

The gold final state hash stored in a task was made by the task generator; the server an
episode runs on is the judge of what the gold actions do there (a rebuilt package, a
remote server, another seed). So each run replays every task's gold actions once, on a
fresh session of the same server, and scores episodes against that hash. The server is
anything that offers the control plane's calls (``GoldServer``; the host's
``ServerConnection`` does).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.tasks.model import Task


class CallOutcome(Protocol):
    @property
    def is_error(self) -> bool: ...

    @property
    def text(self) -> str: ...


class GoldServer(Protocol):
    """What gold replay needs of a server: sessions, tool calls and the state's hash."""

    async def reset(self, session: str) -> str: ...

    async def call(self, tool: str, arguments: dict[str, Any], session: str) -> CallOutcome: ...

    async def state_hash(self, session: str) -> str: ...

    async def state(self, session: str) -> dict[str, Any]: ...

    async def end(self, session: str) -> None: ...


@dataclass
class GoldCache:
    """Gold final state per task, replayed once per run on a fresh session of the server.

    A gold action that fails on the server is an ``InfrastructureError`` (the server is not
    the one the task was made for): the episode is a harness failure, never scored."""

    hashes: dict[str, str] = field(default_factory=dict)
    states: dict[str, dict[str, Any]] = field(default_factory=dict)  # initial states, by hash
    locks: dict[str, anyio.Lock] = field(default_factory=dict)  # trials of one task wait for one replay
    state_locks: dict[str, anyio.Lock] = field(default_factory=dict)  # episodes wait for one seed reading

    async def initial_state(self, conn: GoldServer, session: str, state_hash: str) -> dict[str, Any]:
        """The state behind ``state_hash`` (every episode starts from the same seed: read it once).

        Episodes that start together wait for the first one's reading instead of each
        reading the whole seed state too (issue 32: the first episodes of a rollout start
        at once, and retail's seed state is 0.7 MB of JSON to dump, send and parse)."""
        known = self.states.get(state_hash)
        if known is not None:
            return known
        async with self.state_locks.setdefault(state_hash, anyio.Lock()):
            if state_hash not in self.states:
                self.states[state_hash] = await conn.state(session)
        return self.states[state_hash]

    async def get(self, task: Task, conn: GoldServer, run_id: str) -> str:
        known = self.hashes.get(task.task_id)
        if known is not None:  # replayed already: no lock to take (and no pass of the event loop)
            return known
        async with self.locks.setdefault(task.task_id, anyio.Lock()):
            return await self._replay(task, conn, run_id)

    async def _replay(self, task: Task, conn: GoldServer, run_id: str) -> str:
        if task.task_id not in self.hashes:
            session = f"{run_id}/gold/{task.task_id}/{secrets.token_urlsafe(16)}"  # unguessable key
            await conn.reset(session)
            for action in task.gold.actions:
                result = await conn.call(action.name, action.arguments, session)
                if result.is_error:
                    raise InfrastructureError(
                        f"gold action {action.name} of {task.task_id} fails on this server: {result.text}"
                    )
            self.hashes[task.task_id] = await conn.state_hash(session)
            await conn.end(session)
        return self.hashes[task.task_id]
