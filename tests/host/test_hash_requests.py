"""A state hash is asked for only when the state may have moved (issue 32).

The reset answers with the state's hash, and a read-only tool of a package the host runs
itself changes nothing when it answers without an error (envfactory's runtime rolls every
read back), so the user's checks and the final reading reuse the last hash read until a
call that may change the state. The records must be exactly those of a host that asks
every time, and a session lost after the last read must still be a harness failure."""

from __future__ import annotations

import dataclasses
import os
import signal
from typing import Any

import anyio
import pytest
from paths import SERVERS_DIR
from processes import child_processes

from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.host.connection import ServerConnection
from envfactory_mcp.host.episode import EpisodeConfig, run_episode
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.sim.agents import OracleAgent
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.sim.users import ScriptedUser
from envfactory_mcp.tasks.model import Task


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(8, seed=21)


class CountingConnection(ServerConnection):
    """A stdio connection that counts the state hashes asked for outside gold replays."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hashes_asked = 0

    async def state_hash(self, session: str) -> str:
        if "/gold/" not in session:
            self.hashes_asked += 1
        return await super().state_hash(session)


def comparable(record: TrajectoryRecord) -> dict[str, Any]:
    data = record.model_dump(mode="json")
    data.pop("timings")
    return data


async def play(tasks: list[Task], every_call_may_write: bool) -> tuple[list[dict[str, Any]], int]:
    conn = CountingConnection("retail", "stdio", SERVERS_DIR)
    config = EpisodeConfig(run_id="hashes", max_steps=40)
    records = []
    async with conn:
        if every_call_may_write:  # as a remote server's tools are taken: any call may write
            conn.tools = [dataclasses.replace(t, read_only=False) for t in conn.tools]
        assert any(t.read_only for t in conn.tools) or every_call_may_write
        gold = GoldCache()
        for task in tasks:
            record = await run_episode(task, 0, OracleAgent(), ScriptedUser(), conn, config, gold)
            records.append(comparable(record))
    return records, conn.hashes_asked


async def test_reads_ask_for_no_state_hash_and_the_records_are_those_of_asking_every_time(
    tasks: list[Task],
):
    with anyio.fail_after(300):
        lean, asked_lean = await play(tasks, every_call_may_write=False)
        every, asked_every = await play(tasks, every_call_may_write=True)
    assert [r["reward"] for r in lean] == [1.0] * len(tasks)
    assert lean == every
    assert asked_lean < asked_every, (asked_lean, asked_every)


class ReadOnlyAgent:
    """Looks the user up (reads only), then stops."""

    name = "read-only"

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self.task, self.turn = task, 0
        self.read = next(a for a in task.gold.actions if a.name.startswith(("find_", "get_")))

    async def act(self, messages: list[Message]) -> AgentTurn:
        from envfactory_mcp.llm import ToolCall

        self.turn += 1
        if self.turn <= 2:
            return AgentTurn(
                tool_calls=[ToolCall.parse(f"c{self.turn}", self.read.name, _json(self.read.arguments))]
            )
        return AgentTurn(content="Done.")


def _json(arguments: dict[str, Any]) -> str:
    import json

    return json.dumps(arguments)


async def test_an_episode_of_reads_alone_asks_for_no_state_hash_at_all(tasks: list[Task]):
    conn = CountingConnection("retail", "stdio", SERVERS_DIR)
    config = EpisodeConfig(run_id="reads", max_steps=10)
    with anyio.fail_after(120):
        async with conn:
            record = await run_episode(
                tasks[0], 0, ReadOnlyAgent(), ScriptedUser(), conn, config, GoldCache()
            )
    assert record.termination not in ("infrastructure_error", "timeout"), record.termination_detail
    assert sum(s.calls for s in record.tool_stats.values()) == 2
    assert record.final_state_hash == record.initial_state_hash
    assert conn.hashes_asked == 0


def _server_pids() -> list[int]:
    return [pid for pid, argv in child_processes().items() if "envfactory_mcp.runtime" in argv]


class KillAfterLastRead(OracleAgent):
    """The oracle, which once its last gold call (a read) is answered kills the server and
    has the connection reopened before its closing words."""

    def __init__(self, conn: ServerConnection) -> None:
        super().__init__()
        self.conn, self.done = conn, False

    async def act(self, messages: list[Message]) -> AgentTurn:
        assert self._task is not None
        if not self.done and self._next == len(self._task.gold.actions):
            self.done = True
            doomed = _server_pids()
            for pid in doomed:
                os.kill(pid, signal.SIGKILL)
            with anyio.fail_after(30):
                while True:
                    try:
                        await self.conn.state_hash("another-episode")
                    except InfrastructureError:
                        break
                    await anyio.sleep(0.05)
                await self.conn.ensure()
            assert self.conn.opened == 2
        return await super().act(messages)


@pytest.mark.slow
async def test_a_session_lost_after_its_last_read_is_still_a_harness_failure(tasks: list[Task]):
    conn = ServerConnection("retail", "stdio", SERVERS_DIR, call_timeout_s=10)
    with anyio.fail_after(120):
        async with anyio.create_task_group() as owner:
            owner.start_soon(conn.owner)
            try:
                await conn.ensure()
                reads = {t.name for t in conn.tools if t.read_only}
                task = next(t for t in tasks if len(t.gold.actions) > 1 and t.gold.actions[-1].name in reads)
                lost = await run_episode(
                    task,
                    0,
                    KillAfterLastRead(conn),
                    ScriptedUser(),
                    conn,
                    EpisodeConfig(run_id="lost"),
                    GoldCache(),
                )
            finally:
                with anyio.CancelScope(shield=True):
                    await conn.shutdown()
    assert lost.termination == "infrastructure_error", (lost.termination, lost.termination_detail)
    assert "was lost" in lost.termination_detail
    assert lost.reward is None and lost.final_state_hash is None
