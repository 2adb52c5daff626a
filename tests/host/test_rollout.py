"""Rollouts over MCP: oracle reaches 1.0, noop 0 on writes, failures end episodes cleanly,
and runs survive a dead server and a killed host."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from llm_server import openai_server
from paths import ROOT, SERVERS_DIR
from processes import child_processes

from envfactory_mcp.host.rollout import RolloutConfig, make_user, rollout
from envfactory_mcp.llm import LiteLLMClient
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.sim.agents import LLMAgent, OracleAgent
from envfactory_mcp.sim.users import LLMUser
from envfactory_mcp.tasks.model import GoldAction, Task, write_tasks

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(40, seed=21)


@pytest.fixture
def tasks_file(tasks: list[Task], tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    write_tasks(tasks, path)
    return path


def config(tasks_file: Path, **kw: object) -> RolloutConfig:
    base = {
        "envs": ["retail"],
        "tasks_path": str(tasks_file),
        "servers_dir": str(SERVERS_DIR),
        "concurrency": 4,
    }
    return RolloutConfig(**{**base, **kw})  # type: ignore[arg-type]


def records(run_dir: Path) -> list[TrajectoryRecord]:
    lines = (run_dir / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return [TrajectoryRecord.model_validate_json(line) for line in lines]


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_the_oracle_scores_one_on_every_task(
    tasks: list[Task], tasks_file: Path, tmp_path: Path, transport: str
):
    summary = anyio.run(rollout, config(tasks_file, agent="oracle", transport=transport), tmp_path / "run")
    done = records(tmp_path / "run")
    assert sorted(r.task_id for r in done) == sorted(t.task_id for t in tasks)
    for record in done:
        assert record.termination == "user_stop" and record.reward == 1.0, (
            record.task_id,
            record.termination_detail,
        )
        assert record.final_state_hash == record.gold_state_hash
        assert record.reward_parts is not None and record.reward_parts.action_recall == 1.0
    assert summary["mean_reward"] == 1.0
    first = done[0]
    assert first.messages[0]["role"] == "user" and any(m.get("tool_calls") for m in first.messages)
    assert first.tools and first.tools[0]["type"] == "function"
    assert not any(t["function"]["name"].startswith("control.") for t in first.tools)


def test_noop_scores_zero_on_every_write_task(tasks: list[Task], tasks_file: Path, tmp_path: Path):
    anyio.run(rollout, config(tasks_file, agent="noop", transport="memory"), tmp_path / "run")
    kinds = {t.task_id: t.kind for t in tasks}
    done = records(tmp_path / "run")
    writes = [r for r in done if kinds[r.task_id] == "write"]
    assert writes and all(r.reward == 0.0 for r in writes)
    assert all(r.final_state_hash == r.initial_state_hash and r.final_diff == {} for r in writes)
    assert all(r.reward == 0.0 for r in done)  # read tasks need their claims told


def test_trials_give_pass_hat_k(tasks: list[Task], tmp_path: Path):
    path = tmp_path / "few.jsonl"
    write_tasks(tasks[:5], path)
    summary = anyio.run(rollout, config(path, agent="oracle", transport="memory", trials=3), tmp_path / "run")
    assert len(records(tmp_path / "run")) == 15
    rows = {row["k"]: row for row in summary["pass_k"]}
    assert rows[1]["pass_hat_k"] == rows[3]["pass_hat_k"] == 1.0 and rows[3]["tasks"] == 5


def test_llm_agent_and_llm_user_end_to_end(tasks: list[Task], tmp_path: Path):
    task = next(t for t in tasks if t.kind == "write" and len(t.gold.actions) >= 2)
    path = tmp_path / "one.jsonl"
    write_tasks([task], path)
    first, rest = task.gold.actions[0], task.gold.actions[1:]
    assert not first.confirm

    def call(action: GoldAction) -> list[dict[str, Any]]:
        # The policy wants the user's yes before a confirmed write: ask, then call.
        ask = [{"content": f"I'm about to {action.name.replace('_', ' ')}. Shall I go ahead?"}]
        return [
            *(ask if action.confirm else []),
            {"tool_calls": [{"name": action.name, "arguments": json.dumps(action.arguments)}]},
        ]

    agent_script = [
        *call(first),
        {"tool_calls": [{"name": first.name, "arguments": "{not json"}]},  # malformed: a tool error, and on
        *[step for a in rest for step in call(a)],
        {"content": "All done. " + " ".join(c.text for c in task.gold.claims)},
    ]
    yeses = [{"content": "Yes, please go ahead."} for a in rest if a.confirm]
    user_script = [*yeses, {"content": "Great, thank you! ###STOP###"}]
    with openai_server(agent_script) as agent_server, openai_server(user_script) as user_server:
        agent = lambda cfg, t: LLMAgent(LiteLLMClient("openai/agent-model", api_base=agent_server.base_url))
        user = lambda cfg, t: LLMUser(LiteLLMClient("openai/user-model", api_base=user_server.base_url))
        anyio.run(
            rollout,
            config(
                path,
                agent="llm",
                agent_model="openai/agent-model",
                user="llm",
                user_model="openai/user-model",
                transport="memory",
            ),
            tmp_path / "run",
            None,
            agent,
            user,
        )
        agent_requests = agent_server.requests
    (record,) = records(tmp_path / "run")
    assert record.termination == "user_stop" and record.reward == 1.0, record.termination_detail
    tool_messages = [m for m in record.messages if m["role"] == "tool"]
    assert tool_messages[1]["content"].startswith("Error:") and "JSON" in tool_messages[1]["content"]
    assert record.tool_stats[first.name].errors == 1
    assert record.usage["agent"].prompt_tokens > 0 and record.agent.model == "openai/agent-model"
    assert agent_requests[0]["tools"] and agent_requests[0]["messages"][0]["role"] == "system"


def test_a_model_endpoint_that_keeps_failing_is_a_harness_failure_and_nothing_is_lost(
    tasks: list[Task], tmp_path: Path
):
    path = tmp_path / "two.jsonl"
    write_tasks(tasks[:2], path)
    script: list[dict[str, Any]] = [
        {"status": 500},
        {"status": 500},
        {"content": "hello", "delay": 3.0},
        {"content": "hello", "delay": 3.0},
    ]
    with openai_server(script) as server:
        client = LiteLLMClient(
            "openai/flaky", api_base=server.base_url, max_retries=1, backoff_s=0.01, timeout_s=0.5
        )
        agent = lambda cfg, t: LLMAgent(client)
        cfg = config(path, agent="llm", agent_model="openai/flaky", transport="memory", concurrency=1)
        summary = anyio.run(rollout, cfg, tmp_path / "run", None, agent, make_user)
    done = records(tmp_path / "run")
    assert sorted(r.termination for r in done) == ["model_unavailable", "model_unavailable"]
    details = " ".join(r.termination_detail for r in done)
    assert "agent's model" in details and "(server)" in details and "(timeout)" in details
    assert all(r.reward is None for r in done)  # the endpoint's failure: excluded, never a 0
    assert summary["episodes"] == 2 and summary["scored"] == 0 and summary["mean_reward"] is None
    assert summary["harness_failures"]["by_reason"]["model_unavailable"] == 2


def _server_pids() -> list[int]:
    """Live processes serving the retail package (children of this test)."""
    return [pid for pid, argv in child_processes().items() if "envfactory_mcp.runtime" in argv]


class KillingOracle(OracleAgent):
    """An oracle that kills the server process on its first move (to test the host)."""

    def __init__(self, doomed: bool) -> None:
        super().__init__()
        self.doomed = doomed

    async def act(self, messages):
        if self.doomed:
            self.doomed = False
            for pid in _server_pids():
                os.kill(pid, signal.SIGKILL)
            await anyio.sleep(0.2)
        return await super().act(messages)


def test_a_server_killed_mid_episode_is_an_infrastructure_error_and_the_run_goes_on(
    tasks: list[Task], tmp_path: Path
):
    path = tmp_path / "three.jsonl"
    write_tasks(tasks[:3], path)
    doomed_task = tasks[1].task_id
    agent = lambda cfg, t: KillingOracle(t.task_id == doomed_task)
    cfg = config(path, agent="oracle", transport="stdio", concurrency=1)
    summary = anyio.run(rollout, cfg, tmp_path / "run", None, agent, make_user)
    by_task = {r.task_id: r for r in records(tmp_path / "run")}
    assert by_task[doomed_task].termination == "infrastructure_error" and by_task[doomed_task].reward is None
    others = [r for t, r in by_task.items() if t != doomed_task]
    assert len(others) == 2 and all(r.reward == 1.0 for r in others)
    assert summary["scored"] == 2  # the harness failure is excluded, not a 0
    assert _server_pids() == []


def test_kill_dash_nine_of_the_host_then_resume_gives_one_record_per_task_and_trial(
    tasks: list[Task], tmp_path: Path
):
    path = tmp_path / "tasks.jsonl"
    write_tasks(tasks, path)
    run = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "envfactory_mcp",
        "rollout",
        "retail",
        "--tasks",
        str(path),
        "-o",
        str(run),
        "--agent",
        "oracle",
        "--trials",
        "2",
        "--concurrency",
        "2",
        "--servers-dir",
        str(SERVERS_DIR),
    ]
    host = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    log = run / "trajectories.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if log.is_file() and len(log.read_bytes().splitlines()) >= 10:
            break
        time.sleep(0.05)
    os.killpg(host.pid, signal.SIGKILL)
    host.wait()
    partial = len(log.read_bytes().splitlines())
    assert 10 <= partial < 80
    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    done = records(run)
    keys = [(r.task_id, r.trial) for r in done]
    assert len(keys) == len(set(keys)) == 80
    assert all(r.reward == 1.0 for r in done)
    assert json.loads((run / "summary.json").read_text())["episodes"] == 80


def test_resuming_with_other_tasks_is_refused_and_rescore_rewrites_the_summary(
    tasks: list[Task], tmp_path: Path
):
    path = tmp_path / "few.jsonl"
    write_tasks(tasks[:3], path)
    run = tmp_path / "run"
    anyio.run(rollout, config(path, agent="oracle", transport="memory"), run)
    anyio.run(rollout, config(path, agent="oracle", transport="memory", concurrency=1), run)  # resumable key
    assert len(records(run)) == 3
    write_tasks(tasks[:4], path)
    with pytest.raises(Exception, match="tasks_sha256"):
        anyio.run(rollout, config(path, agent="oracle", transport="memory"), run)
    write_tasks(tasks[:3], path)
    (run / "summary.json").unlink()
    from envfactory_mcp.scoring.rescore import rescore

    summary = rescore(run)
    assert summary["mean_reward"] == 1.0 and json.loads((run / "summary.json").read_text())["episodes"] == 3
    assert [r.reward for r in records(run)] == [1.0, 1.0, 1.0]


def test_a_server_reached_over_streamable_http_serves_the_rollout(tasks: list[Task], tmp_path: Path):
    from servers import http_server

    path = tmp_path / "five.jsonl"
    write_tasks(tasks[:5], path)
    with http_server(SERVERS_DIR / "retail", "retail_mcp", "--control") as server:
        cfg = config(path, agent="oracle", transport="http", urls={"retail": server.url}, trials=2)
        summary = anyio.run(rollout, cfg, tmp_path / "run")
    assert summary["episodes"] == 10 and summary["mean_reward"] == 1.0


def test_a_token_protected_http_server_is_reached_with_the_token_and_the_token_is_not_stored(
    tasks: list[Task], tmp_path: Path
):
    from servers import http_server

    path = tmp_path / "two.jsonl"
    write_tasks(tasks[:2], path)
    token = "s3cret-" + "x" * 24
    with http_server(SERVERS_DIR / "retail", "retail_mcp", "--control", "--auth-token", token) as server:
        urls = {"retail": server.url}
        refused = anyio.run(
            rollout, config(path, agent="oracle", transport="http", urls=urls), tmp_path / "bare"
        )
        cfg = config(path, agent="oracle", transport="http", urls=urls, http_token=token)
        summary = anyio.run(rollout, cfg, tmp_path / "run")
    assert refused["harness_failures"]["total"] == 2  # 401 without the token: a harness failure, not a 0
    assert summary["episodes"] == 2 and summary["mean_reward"] == 1.0
    assert token not in (tmp_path / "run" / "metadata.json").read_text(encoding="utf-8")
    assert token not in repr(cfg)


class DistractedOracle(OracleAgent):
    """The oracle, plus one write to another server first (a collateral change)."""

    def __init__(self) -> None:
        super().__init__()
        self.strayed = False

    async def act(self, messages):
        if not self.strayed:
            self.strayed = True
            from envfactory_mcp.llm import ToolCall

            call = ToolCall.parse(
                "stray", "todo_api__create_todo", json.dumps({"title": "not part of the task"})
            )
            from envfactory_mcp.sim.types import AgentTurn

            return AgentTurn(tool_calls=[call])
        return await super().act(messages)


def test_several_servers_offer_namespaced_tools_and_collateral_writes_fail_the_task(
    tasks: list[Task], tmp_path: Path
):
    import shutil

    from envfactory_mcp.build import emit_verified
    from envfactory_mcp.env import assemble_env
    from envfactory_mcp.synth.resource import import_resource

    servers = tmp_path / "servers"
    shutil.copytree(SERVERS_DIR / "retail", servers / "retail")
    todo = import_resource(ROOT / "examples" / "openapi" / "todo.yaml")
    emit_verified(assemble_env(todo.spec, todo.tools_source, todo.rows), servers / todo.spec.name)
    path = tmp_path / "few.jsonl"
    write_tasks(tasks[:3], path)
    cfg = config(
        path, agent="oracle", transport="memory", envs=["retail", todo.spec.name], servers_dir=str(servers)
    )
    summary = anyio.run(rollout, cfg, tmp_path / "run")
    done = records(tmp_path / "run")
    assert summary["mean_reward"] == 1.0 and all(r.collateral_changes == [] for r in done)
    names = {t["function"]["name"] for t in done[0].tools}
    assert "retail__cancel_pending_order" in names and "todo_api__create_todo" in names
    assert all(r.reward_parts is not None and r.reward_parts.action_recall == 1.0 for r in done)
    stray = lambda cfg, t: DistractedOracle()
    anyio.run(rollout, cfg, tmp_path / "stray", None, stray, make_user)
    strayed = records(tmp_path / "stray")
    assert all(r.collateral_changes == ["todo_api"] and r.reward == 0.0 for r in strayed)
    assert all(r.reward_parts is not None and r.reward_parts.extra_calls == 1 for r in strayed)
