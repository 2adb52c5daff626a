"""Issue 19: per-episode requests cut without losing isolation. An episode that ended with
every request answered keeps its session; the next episode on the connection resets and
reuses it and sees none of the previous episode's writes; one offered several servers,
or one that failed, ends its own. The final state hash is the one the scripted user's
last check read (or the reset answered), when only reads came since. Real stdio server,
real oracle episodes."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from paths import SERVERS_DIR

from envfactory_mcp.host.connection import CallResult, ServerConnection
from envfactory_mcp.host.episode import EpisodeConfig, run_episode
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.scoring.reward import agent_calls
from envfactory_mcp.sim.agents import OracleAgent
from envfactory_mcp.sim.users import ScriptedUser
from envfactory_mcp.tasks.model import Task


class Counting(ServerConnection):
    """A real connection that counts what it sends, by request and session."""

    def __init__(self) -> None:
        super().__init__("retail", "stdio", SERVERS_DIR)
        self.sent: Counter[str] = Counter()
        self.sessions: list[str] = []

    async def _request(
        self,
        tool: str,
        arguments: dict[str, Any],
        session: str,
        starts_session: bool = False,
        arguments_json: str | None = None,
    ) -> Any:
        self.sent[tool if tool.startswith("control.") else "call"] += 1
        if tool == "control.reset" and "/gold/" not in session:
            self.sessions.append(session)
        return await super()._request(tool, arguments, session, starts_session, arguments_json)


def hash_reads(task: Task, messages: list[dict[str, Any]], read_only: set[str]) -> int:
    """How many state hashes the scripted user's goal checks need in one episode: one at
    each user reply after every required call was made, when a call that may change the
    state (any but a read-only tool's) came since the last read (the reset's included)."""
    called: set[str] = set()
    reads, changed = 0, False
    for message in messages[1:]:  # the opening message is no reply
        if message.get("role") == "assistant":
            for name, _ in agent_calls([message]):
                called.add(name.rsplit("__", 1)[-1])
                changed = changed or name.rsplit("__", 1)[-1] not in read_only
        elif message.get("role") == "user" and changed and set(task.gold.required_calls) <= called:
            reads, changed = reads + 1, False
    return reads


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return [t for t in retail_tasks(12, seed=5) if t.gold.actions][:4]


async def test_kept_sessions_are_reused_from_the_seed_and_no_episode_ends_one(tasks: list[Task]) -> None:
    config, gold = EpisodeConfig(run_id="reuse"), GoldCache()
    async with Counting() as conn:
        for task in tasks:  # gold replays first, so what follows counts episodes alone
            await gold.get(task, conn, config.run_id)
        conn.sent.clear()
        records = [
            await run_episode(task, trial, OracleAgent(), ScriptedUser(), conn, config, gold)
            for trial in range(2)
            for task in tasks
        ]
        # Every episode wrote (gold actions) and scored 1 from the seed: a reused session
        # was reset, nothing of the episode before it was left.
        assert [r.reward for r in records] == [1.0] * len(records)
        assert all(r.initial_state_hash == tasks[0].initial_state.state_hash for r in records)
        assert len(set(conn.sessions)) == 1  # one session, kept and reused by every episode
        episodes = len(records)
        assert conn.sent["control.end_session"] == 0
        assert conn.sent["control.reset"] == episodes
        # The user's check that the goal is met reads the state hash at a reply once every
        # required call was made, and only when a call that may change the state came
        # since the last read (the reset answers with one; a read-only tool of a package
        # the host runs changes nothing); the episode's final read reuses the last.
        read_only = {t.name for t in conn.tools if t.read_only}
        assert read_only
        reads = sum(
            hash_reads(task, record.messages, read_only)
            for task, record in zip(tasks * 2, records, strict=True)
        )
        assert episodes <= reads < conn.sent["call"]  # fewer reads than calls: the unchanged are reused
        assert conn.sent["control.state_hash"] == reads
        assert all(r.final_state_hash == r.gold_state_hash for r in records)
        # Kept sessions are still open on the server: the next reset is the only way in,
        # and shutting down ends them.
        kept = conn.sessions[-1]
        assert await conn.state_hash(kept) == records[-1].final_state_hash
        conn.sent.clear()
        await conn._end_reusable()
        assert conn.sent["control.end_session"] == 1


class FailingCalls(Counting):
    """A connection whose tool calls fail as a broken server's would."""

    async def call(self, tool: str, arguments: dict[str, Any], session: str) -> CallResult:
        from envfactory_mcp.errors import InfrastructureError

        raise InfrastructureError("the server went away (test)")


async def test_a_failed_episode_ends_its_session_instead_of_keeping_it(tasks: list[Task]) -> None:
    config, gold = EpisodeConfig(run_id="fail"), GoldCache()
    async with FailingCalls() as conn:
        gold.hashes[tasks[0].task_id] = tasks[0].gold.final_state_hash  # no replay: its calls fail
        record = await run_episode(tasks[0], 0, OracleAgent(), ScriptedUser(), conn, config, gold)
        assert record.termination == "infrastructure_error"
        assert conn.sent["control.end_session"] == 1
        assert conn.reuse_session() is None


async def test_an_episode_offered_several_servers_ends_its_sessions(tasks: list[Task]) -> None:
    config, gold = EpisodeConfig(run_id="multi"), GoldCache()
    async with Counting() as conn, Counting() as other:
        record = await run_episode(
            tasks[0], 0, OracleAgent(), ScriptedUser(), conn, config, gold, others=[other]
        )
        assert record.termination == "user_stop"
        assert conn.sent["control.end_session"] == 2  # the gold replay's and the episode's
        assert other.sent["control.end_session"] == 1
        assert conn.reuse_session() is None
