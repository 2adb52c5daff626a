"""Harness failures are never scored: a model endpoint that is down (the agent's or the
user's) ends the episode as ``model_unavailable``, a model that answers unusably is still
the agent's failure, and the summary counts every harness failure by reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from chat import solving_script
from llm_server import down_base_url, openai_server
from paths import SERVERS_DIR

from envfactory_mcp.host.rollout import RolloutConfig, make_agent, make_user, rollout
from envfactory_mcp.llm import LiteLLMClient
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.sim.agents import LLMAgent
from envfactory_mcp.sim.users import LLMUser
from envfactory_mcp.tasks.model import Task, write_tasks

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(6, seed=21)


def task_file(tasks: list[Task], path: Path) -> Path:
    write_tasks(tasks, path)
    return path


def config(path: Path, **kw: object) -> RolloutConfig:
    base = {
        "envs": ["retail"],
        "tasks_path": str(path),
        "servers_dir": str(SERVERS_DIR),
        "transport": "memory",
    }
    return RolloutConfig(**{**base, **kw})  # type: ignore[arg-type]


def records(run_dir: Path) -> list[TrajectoryRecord]:
    lines = (run_dir / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return [TrajectoryRecord.model_validate_json(line) for line in lines]


def test_an_agent_endpoint_that_goes_down_mid_run_leaves_unscored_episodes(tasks: list[Task], tmp_path: Path):
    task = next(t for t in tasks if t.kind == "write")
    path = task_file([task], tmp_path / "one.jsonl")
    with openai_server(solving_script(task)) as server:

        def stop_the_endpoint(done: int, total: int) -> None:
            if done == 1:  # the first episode is recorded: now the endpoint goes away
                server.shutdown()
                server.server_close()

        client = LiteLLMClient("openai/agent", api_base=server.base_url, max_retries=1, backoff_s=0.01)
        agent = lambda cfg, t: LLMAgent(client)
        cfg = config(path, agent="llm", agent_model="openai/agent", trials=3, concurrency=1)
        summary = anyio.run(rollout, cfg, tmp_path / "run", stop_the_endpoint, agent, make_user)
    done = sorted(records(tmp_path / "run"), key=lambda r: r.termination)
    assert [r.termination for r in done] == ["model_unavailable", "model_unavailable", "user_stop"]
    first, down = done[-1], done[:2]
    assert first.reward == 1.0
    assert all(r.reward is None and r.reward_parts is None for r in down)
    assert all(
        r.termination_detail.startswith("agent's model") and "(connection)" in r.termination_detail
        for r in down
    )
    assert summary["scored"] == 1 and summary["mean_reward"] == 1.0  # the outage is not a 0
    failures = summary["harness_failures"]
    assert failures["total"] == 2 and failures["share"] == pytest.approx(2 / 3, abs=1e-6)
    assert failures["by_reason"] == {
        "infrastructure_error": 0,
        "model_unavailable": 2,
        "timeout": 0,
        "user_error": 0,
    }
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["harness_failures"] == failures


def test_a_user_endpoint_that_is_down_is_a_harness_failure_too(tasks: list[Task], tmp_path: Path):
    path = task_file(tasks[:1], tmp_path / "one.jsonl")
    user = lambda cfg, t: LLMUser(LiteLLMClient("openai/user", api_base=down_base_url(), max_retries=0))
    summary = anyio.run(rollout, config(path, agent="oracle"), tmp_path / "run", None, make_agent, user)
    (record,) = records(tmp_path / "run")
    assert record.termination == "model_unavailable" and record.reward is None
    assert (
        record.termination_detail.startswith("user's model") and "(connection)" in record.termination_detail
    )
    assert summary["scored"] == 0 and summary["harness_failures"]["total"] == 1


def test_a_model_that_answers_unusably_is_the_agents_failure_and_scored(tasks: list[Task], tmp_path: Path):
    path = task_file(tasks[:3], tmp_path / "three.jsonl")
    no_choices = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}
    too_long = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    script: list[dict[str, Any]] = [
        {"status": 400},
        {"status": 200, "body": no_choices},
        {"status": 400, "body": too_long},
    ]
    with openai_server(script) as server:
        client = LiteLLMClient("openai/agent", api_base=server.base_url, max_retries=3, backoff_s=0.01)
        agent = lambda cfg, t: LLMAgent(client)
        summary = anyio.run(
            rollout,
            config(path, agent="llm", agent_model="openai/agent", concurrency=1),
            tmp_path / "run",
            None,
            agent,
            make_user,
        )
    done = records(tmp_path / "run")
    assert sorted(r.termination for r in done) == ["agent_error", "agent_error", "context_window_exceeded"]
    assert all(r.reward == 0.0 for r in done)  # the model's own failure: scored 0, not excluded
    assert summary["scored"] == 3 and summary["harness_failures"]["total"] == 0
