"""The gold cache asks the server as little as it can (issue 32): episodes that start
together wait for one reading of their seed state instead of each reading it, and the
trials of a task replayed already take its hash without waiting for anything."""

from __future__ import annotations

from typing import Any

import anyio

from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.tasks.model import Task


class SlowStates:
    """A server whose state reading takes a while (other episodes start meanwhile)."""

    def __init__(self) -> None:
        self.read: list[str] = []

    async def state(self, session: str) -> dict[str, Any]:
        self.read.append(session)
        await anyio.sleep(0.05)
        return {"users": [{"user_id": "u1", "session": session}]}


async def test_episodes_starting_together_read_the_seed_state_once() -> None:
    gold, server = GoldCache(), SlowStates()
    seen: dict[str, dict[str, Any]] = {}

    async def episode(n: int) -> None:
        seen[f"s{n}"] = await gold.initial_state(server, f"s{n}", "h0")  # type: ignore[arg-type]

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            for n in range(5):
                group.start_soon(episode, n)
    assert len(server.read) == 1
    assert all(state is seen[server.read[0]] for state in seen.values())
    # Another seed state is read for itself.
    other = await gold.initial_state(server, "s9", "h1")  # type: ignore[arg-type]
    assert server.read[1:] == ["s9"] and other["users"][0]["session"] == "s9"


class FailingFirst(SlowStates):
    async def state(self, session: str) -> dict[str, Any]:
        if not self.read:
            self.read.append(session)
            raise RuntimeError("the first reading fails")
        return await super().state(session)


async def test_a_reading_that_failed_is_done_again_by_the_next_episode() -> None:
    gold, server = GoldCache(), FailingFirst()
    outcomes: list[str] = []

    async def episode(n: int) -> None:
        try:
            await gold.initial_state(server, f"s{n}", "h0")  # type: ignore[arg-type]
            outcomes.append("read")
        except RuntimeError:
            outcomes.append("failed")

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            for n in range(3):
                group.start_soon(episode, n)
    assert sorted(outcomes) == ["failed", "read", "read"]
    assert len(server.read) == 2  # the failed one, then one for both others


async def test_a_task_replayed_already_is_answered_without_the_server(retail_tasks: Any) -> None:
    task: Task = retail_tasks(1, seed=3)[0]
    gold = GoldCache(hashes={task.task_id: "h-gold"})
    assert await gold.get(task, object(), "run") == "h-gold"  # type: ignore[arg-type]
    assert task.task_id not in gold.locks
