"""The host survives a hostile model (issue 11, item 5).

Tool-call arguments a server connection cannot carry (nested hundreds of levels deep, a
lone surrogate) are answered to the agent as a tool error and never sent, so the
connection every other episode shares stays up. An episode whose server session was
lost (the connection was reopened: a fresh server without its database) is a harness
failure, never scored on a fresh database."""

from __future__ import annotations

import math
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from chat import solving_script
from llm_server import openai_server
from paths import SERVERS_DIR
from processes import child_processes

from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.host.arguments import ArgumentLimits, check_arguments
from envfactory_mcp.host.connection import ServerConnection
from envfactory_mcp.host.episode import EpisodeConfig, run_episode
from envfactory_mcp.host.rollout import RolloutConfig, make_user, rollout
from envfactory_mcp.llm import LiteLLMClient
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.sim.agents import LLMAgent, OracleAgent
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.sim.users import ScriptedUser
from envfactory_mcp.tasks.model import Task, write_tasks


def nested(depth: int, leaf: object = "#W0000000") -> object:
    """``leaf`` inside ``depth`` objects, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(8, seed=21)


# ------------------------------------------------------------------ the check itself


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"order_id": nested(400)}, "nested more than 32 levels deep"),
        ({"order_id": nested(32)}, "nested more than 32 levels deep"),  # 33 with the arguments object
        ({"order_id": nested(31)}, None),
        ({"items": [[[[["x"]]]]]}, None),
        ({"order_id": "#W\ud800"}, "lone surrogate"),
        ({"amount": math.nan}, "NaN"),
        ({"amount": -math.inf}, "an infinity"),
        ({"note": "x" * (1 << 20)}, "bytes of JSON, more than the 1,048,576"),
        ({"note": "é" * 600_000}, "bytes of JSON"),  # counted in UTF-8 bytes, not characters
        ({"blob": b"raw"}, "not JSON"),
        (["order_id"], "not a JSON object"),
        ({}, None),
        ({"order_id": "#W0000001", "item_ids": ["1", "2"], "address": {"zip": "10001"}}, None),
    ],
)
def test_check_arguments_says_what_cannot_be_sent(arguments: object, says: str | None):
    problem = check_arguments(arguments)
    if says is None:
        assert problem is None
    else:
        assert problem is not None and says in problem, problem


def test_check_arguments_never_recurses_and_stops_at_a_cycle():
    # json.dumps (or a recursive walk) would overflow the stack on this
    assert check_arguments({"x": nested(200_000)}) == "nested more than 32 levels deep"
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    assert check_arguments(cyclic) == "nested more than 32 levels deep"  # it returns: no endless walk
    assert check_arguments({"x": nested(50)}, ArgumentLimits(max_depth=64)) is None


# ------------------------------------------------------------------ one shared connection

HOSTILE_ARGUMENTS: dict[str, dict[str, Any]] = {
    "nested 400 deep": {"order_id": nested(400)},  # the MCP client refuses to serialise it
    "nested 250 deep": {"order_id": nested(250)},  # a stdio server drops it without an answer
    "a lone surrogate": {"order_id": "#W\ud800"},  # kills the stdio writer, crashes the validator
}


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_arguments_a_connection_cannot_carry_cost_the_call_not_the_connection(
    tasks: list[Task], transport: str
):
    conn = ServerConnection("retail", transport, SERVERS_DIR, call_timeout_s=5)  # type: ignore[arg-type]
    async with conn:
        # A task's first write (only reads come before it, so it takes on the seed); which
        # tasks hold which writes follows the generator.
        writes = {t.name for t in conn.tools if not t.read_only}
        write = next(a for t in tasks for a in t.gold.actions if a.name in writes)
        seed = await conn.reset("bystander")
        assert not (await conn.call(write.name, write.arguments, "bystander")).is_error
        written = await conn.state_hash("bystander")
        assert written != seed
        await conn.reset("hostile")
        for name, arguments in HOSTILE_ARGUMENTS.items():
            with anyio.fail_after(20):
                result = await conn.call("get_order_details", arguments, "hostile")
            assert result.is_error, name
            assert result.text.startswith("Invalid arguments for get_order_details:"), (name, result.text)
            assert "(not sent)" in result.text, (name, result.text)
        # The same server process still holds the bystander's session, write included.
        assert conn.opened == 1
        assert await conn.state_hash("bystander") == written


# ------------------------------------------------------------------ a hostile reply in a rollout


class Stage:
    """Choreography shared by the episodes of one rollout (plain flags: polled, bounded)."""

    def __init__(self, bystanders: int) -> None:
        self.bystanders = bystanders
        self.parked = 0  # bystanders whose every write is done, waiting to close
        self.released = False  # the hostile call has been answered (or its episode ended)

    async def until(self, condition: Callable[[], bool], seconds: float = 60.0) -> None:
        with anyio.move_on_after(seconds):
            while not condition():
                await anyio.sleep(0.01)


class ParkedOracle(OracleAgent):
    """The oracle, holding its closing words until the hostile call was answered: its
    writes are in its session on the shared connection while the hostile call is made."""

    def __init__(self, stage: Stage) -> None:
        super().__init__()
        self.stage = stage

    async def act(self, messages: list[Message]) -> AgentTurn:
        assert self._task is not None
        if self._next == len(self._task.gold.actions) and not self.stage.released:
            self.stage.parked += 1
            await self.stage.until(lambda: self.stage.released)
        return await super().act(messages)


class HostileLLMAgent(LLMAgent):
    """An LLM agent whose first reply (scripted on the 127.0.0.1 server) is hostile; it
    sends it once every bystander is parked, and releases them once it was answered."""

    def __init__(self, client: LiteLLMClient, stage: Stage) -> None:
        super().__init__(client)
        self.stage = stage

    async def act(self, messages: list[Message]) -> AgentTurn:
        if any(m["role"] == "tool" for m in messages):
            self.stage.released = True
        else:
            await self.stage.until(lambda: self.stage.parked >= self.stage.bystanders)
        return await super().act(messages)


HOSTILE_REPLIES = {
    "nested 400 deep": '{"order_id": ' + '{"a": ' * 400 + '"#W0000000"' + "}" * 400 + "}",
    "a lone surrogate": '{"order_id": "#W\\ud800"}',  # the JSON escape: parsed, it is a lone surrogate
}


def records(run_dir: Path) -> list[TrajectoryRecord]:
    lines = (run_dir / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return [TrajectoryRecord.model_validate_json(line) for line in lines]


@pytest.mark.slow
@pytest.mark.parametrize("hostile", sorted(HOSTILE_REPLIES))
@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_one_hostile_model_reply_fails_only_its_own_call_and_the_other_episodes_score_normally(
    tasks: list[Task], tmp_path: Path, transport: str, hostile: str
):
    chosen = tasks[:5]
    victim = chosen[0]
    path = tmp_path / "tasks.jsonl"
    write_tasks(chosen, path)
    stage = Stage(bystanders=len(chosen) - 1)
    script = [
        {"tool_calls": [{"name": "get_order_details", "arguments": HOSTILE_REPLIES[hostile]}]},
        *solving_script(victim),
    ]
    with openai_server(script) as server:
        client = LiteLLMClient("openai/hostile", api_base=server.base_url, max_retries=0)

        def agent(cfg: RolloutConfig, task: Task) -> Any:
            return HostileLLMAgent(client, stage) if task.task_id == victim.task_id else ParkedOracle(stage)

        def progress(done: int, total: int) -> None:
            stage.released = True  # an episode ended: nobody waits any longer

        cfg = RolloutConfig(
            envs=["retail"],
            tasks_path=str(path),
            servers_dir=str(SERVERS_DIR),
            transport=transport,  # type: ignore[arg-type]
            agent="llm",
            agent_model="openai/hostile",  # recorded; the factory below plays it
            concurrency=len(chosen),  # every episode in flight at once, on one connection
        )

        async def bounded() -> dict[str, Any]:
            with anyio.fail_after(180):
                return await rollout(cfg, tmp_path / "run", progress, agent, make_user)

        summary = anyio.run(bounded)
    by_task = {r.task_id: r for r in records(tmp_path / "run")}
    assert len(by_task) == len(chosen)
    assert stage.parked == len(chosen) - 1  # the bystanders really were mid-episode
    for task in chosen[1:]:
        record = by_task[task.task_id]
        assert record.termination == "user_stop" and record.reward == 1.0, (
            record.task_id,
            record.termination,
            record.termination_detail,
        )
    hostile_record = by_task[victim.task_id]
    assert hostile_record.termination != "infrastructure_error", hostile_record.termination_detail
    first_tool = next(m for m in hostile_record.messages if m["role"] == "tool")
    assert first_tool["content"].startswith("Error: Invalid arguments for get_order_details:")
    reason = "lone surrogate" if hostile == "a lone surrogate" else "nested more than 32 levels deep"
    assert reason in first_tool["content"] and "(not sent)" in first_tool["content"]
    # The agent's mistake: answered, counted, scored (here it went on to solve the task).
    assert hostile_record.tool_stats["get_order_details"].errors == 1
    assert hostile_record.termination == "user_stop" and hostile_record.reward == 1.0, (
        hostile_record.termination_detail
    )
    assert summary["harness_failures"]["total"] == 0


# ------------------------------------------------------------------ a session lost to a reconnect


def _server_pids() -> list[int]:
    return [pid for pid, argv in child_processes().items() if "envfactory_mcp.runtime" in argv]


class ReconnectingOracle(OracleAgent):
    """The oracle, which at one point kills the stdio server and waits for the host to
    reopen the connection the way a rollout does (the next request fails, the next
    episode's ``ensure()`` starts a fresh server), then carries on in the same session."""

    def __init__(self, conn: ServerConnection, when: str) -> None:
        super().__init__()
        self.conn, self.when, self.done = conn, when, False

    def _now(self, messages: list[Message]) -> bool:
        assert self._task is not None
        if self.when == "before the closing words":
            return self._next == len(self._task.gold.actions)
        writes = {t.name for t in self.conn.tools if not t.read_only}
        return self._next > 0 and self._task.gold.actions[self._next - 1].name in writes

    async def act(self, messages: list[Message]) -> AgentTurn:
        if not self.done and self._now(messages):
            self.done = True
            doomed = _server_pids()
            assert doomed
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
            assert self.conn.opened == 2 and set(_server_pids()).isdisjoint(doomed)
        return await super().act(messages)


@pytest.mark.slow
@pytest.mark.parametrize("when", ["after its first write", "before the closing words"])
async def test_an_episode_whose_session_was_lost_to_a_reconnect_is_a_harness_failure_not_a_score(
    tasks: list[Task], when: str
):
    # a task that writes (which one follows the generator: drawn by that), and the next one
    index = next(i for i, t in enumerate(tasks[:-1]) if any(a.confirm for a in t.gold.actions))
    task, after = tasks[index], tasks[index + 1]
    conn = ServerConnection("retail", "stdio", SERVERS_DIR, call_timeout_s=10)
    config = EpisodeConfig(run_id="reconnect", max_steps=40)
    gold = GoldCache()
    with anyio.fail_after(120):
        async with anyio.create_task_group() as owner:
            owner.start_soon(conn.owner)
            try:
                await conn.ensure()
                lost = await run_episode(
                    task, 0, ReconnectingOracle(conn, when), ScriptedUser(), conn, config, gold
                )
                # The run goes on: the next episode, on the reopened server, scores normally.
                await conn.ensure()
                next_one = await run_episode(after, 0, OracleAgent(), ScriptedUser(), conn, config, gold)
            finally:
                with anyio.CancelScope(shield=True):
                    await conn.shutdown()
    assert lost.termination == "infrastructure_error", (
        lost.termination,
        lost.reward,
        lost.termination_detail,
    )
    assert "was lost" in lost.termination_detail and "reopened" in lost.termination_detail
    assert lost.reward is None and lost.reward_parts is None and lost.final_state_hash is None
    # Nothing of the harness's failure was put on the agent: no tool errors in its transcript.
    assert not [m for m in lost.messages if m["role"] == "tool" and m["content"].startswith("Error:")]
    assert sum(stats.errors for stats in lost.tool_stats.values()) == 0
    assert next_one.termination == "user_stop" and next_one.reward == 1.0, next_one.termination_detail
    assert _server_pids() == []
