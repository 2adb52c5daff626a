"""rollout's model options and harness-failure judgement, through the command line:
sampling options reach the model's request and the run's metadata, the episode timeout
is a flag, and a run with too many unscored episodes exits non-zero, loudly."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from llm_server import down_base_url, openai_server
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.tasks.model import Task, write_tasks

pytestmark = pytest.mark.slow
runner = CliRunner()


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(40, seed=21)  # a read task among them (the first is the 31st)


def rollout_args(tasks_path: Path, run: Path, *extra: str) -> list[str]:
    return [
        "rollout", "retail", "--tasks", str(tasks_path), "-o", str(run), "--transport", "memory",
        "--servers-dir", str(SERVERS_DIR), *extra,
    ]  # fmt: skip


def records(run_dir: Path) -> list[TrajectoryRecord]:
    lines = (run_dir / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return [TrajectoryRecord.model_validate_json(line) for line in lines]


def test_sampling_options_reach_both_models_and_the_metadata(tasks: list[Task], tmp_path: Path):
    read_task = next(t for t in tasks if t.kind == "read")  # the user may stop it at once
    path = tmp_path / "one.jsonl"
    write_tasks([read_task], path)
    run = tmp_path / "run"
    with (
        openai_server([{"content": "Hello, how can I help?"}]) as agent,
        openai_server([{"content": "Never mind. ###STOP###"}]) as user,
    ):
        options = [
            "--agent", "llm", "--agent-model", "openai/agent", "--agent-api-base", agent.base_url,
            "--temperature", "0.3", "--max-tokens", "77",
            "--user", "llm", "--user-model", "openai/user", "--user-api-base", user.base_url,
            "--user-temperature", "0.9", "--user-max-tokens", "55",
        ]  # fmt: skip
        result = runner.invoke(app, rollout_args(path, run, *options))
        agent_body, user_body = agent.requests[0], user.requests[0]
    assert result.exit_code == 0, result.output
    assert (agent_body["temperature"], agent_body["max_tokens"]) == (0.3, 77)
    assert (user_body["temperature"], user_body["max_tokens"]) == (0.9, 55)
    (record,) = records(run)
    assert record.termination == "user_stop" and record.reward == 0.0  # scored: nothing was answered
    metadata = json.loads((run / "metadata.json").read_text(encoding="utf-8"))
    assert (metadata["agent_temperature"], metadata["agent_max_tokens"]) == (0.3, 77)
    assert (metadata["user_temperature"], metadata["user_max_tokens"]) == (0.9, 55)
    assert metadata["episode_timeout_s"] == 600.0
    changed = [o if o != "0.3" else "0.5" for o in options]
    refused = runner.invoke(app, rollout_args(path, run, *changed))
    assert refused.exit_code == 1 and "agent_temperature" in refused.output


def test_sampling_options_of_a_scripted_participant_are_refused(tasks: list[Task], tmp_path: Path):
    path = tmp_path / "one.jsonl"
    write_tasks(tasks[:1], path)
    result = runner.invoke(app, rollout_args(path, tmp_path / "run", "--temperature", "0.2"))
    assert result.exit_code == 2 and "--temperature apply to an llm agent only" in result.output  # usage
    assert not (tmp_path / "run").exists()


def test_a_slow_model_times_out_at_the_episode_timeout_and_is_counted_not_scored(
    tasks: list[Task], tmp_path: Path
):
    path = tmp_path / "one.jsonl"
    write_tasks(tasks[:1], path)
    run = tmp_path / "run"
    with openai_server([{"content": "finally", "delay": 30}]) as slow:
        options = ["--agent", "llm", "--agent-model", "openai/slow", "--agent-api-base", slow.base_url]
        started = time.monotonic()
        result = runner.invoke(app, rollout_args(path, run, *options, "--episode-timeout", "1"))
        elapsed = time.monotonic() - started
    assert elapsed < 15  # the episode's limit, not the client's 60 s per attempt, ended it
    (record,) = records(run)
    assert record.termination == "timeout" and record.reward is None
    assert "1 s" in record.termination_detail
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["scored"] == 0 and summary["mean_reward"] is None
    assert summary["harness_failures"]["by_reason"]["timeout"] == 1
    assert json.loads((run / "metadata.json").read_text(encoding="utf-8"))["episode_timeout_s"] == 1.0
    assert "warning:" in result.output and "timeout: 1" in result.output
    assert result.exit_code == 1  # 100% of the run unscored is above the default 10%


def test_an_endpoint_that_is_down_fails_the_run_above_the_harness_failure_threshold(
    tasks: list[Task], tmp_path: Path
):
    path = tmp_path / "two.jsonl"
    write_tasks(tasks[:2], path)
    run = tmp_path / "run"
    options = ["--agent", "llm", "--agent-model", "openai/down", "--agent-api-base", down_base_url()]
    result = runner.invoke(app, rollout_args(path, run, *options))
    assert result.exit_code == 1
    assert "2 of 2 episodes (100%) were harness failures (model_unavailable: 2)" in result.output
    assert "harness failures above --max-harness-failures 0.1" in result.output
    done = records(run)
    assert [r.termination for r in done] == ["model_unavailable"] * 2 and all(r.reward is None for r in done)
    # The threshold judges the run, it is not part of its configuration: a resume may change it.
    tolerated = runner.invoke(app, rollout_args(path, run, *options, "--max-harness-failures", "1"))
    assert tolerated.exit_code == 0, tolerated.output
    assert "2 of 2 episodes (100%) were harness failures" in tolerated.output and len(records(run)) == 2
