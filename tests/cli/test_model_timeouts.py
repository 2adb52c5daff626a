"""Issue 33, point 1: model timeouts as flags (--agent-timeout, --user-timeout), honoured
end to end through the real CLI against a real 127.0.0.1 OpenAI-protocol server: a model
slower than the default deadline is waited for when the flag says so, and one that never
answers ends the episode model_unavailable at the flag's time, blaming the model, not the
MCP server."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from llm_server import openai_server
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.llm import litellm_client
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.tasks.model import write_tasks

pytestmark = pytest.mark.slow
runner = CliRunner()


@pytest.fixture
def one_task(retail_tasks, tmp_path: Path) -> Path:
    path = tmp_path / "one.jsonl"
    write_tasks(retail_tasks(1, seed=9), path)
    return path


@pytest.fixture
def short_default(monkeypatch: pytest.MonkeyPatch) -> float:
    """The default deadline made short, so "slower than the default" takes seconds."""
    monkeypatch.setattr(litellm_client, "MODEL_TIMEOUT_S", 0.5)
    return 0.5


def rollout(tasks: Path, run: Path, base_url: str, *extra: str) -> tuple[int, str, list[TrajectoryRecord]]:
    args = ["rollout", "retail", "--tasks", str(tasks), "-o", str(run), "--transport", "memory",
            "--servers-dir", str(SERVERS_DIR), "--agent", "llm", "--agent-model", "openai/slow",
            "--agent-api-base", base_url, "--max-steps", "1", "--max-harness-failures", "1", *extra]  # fmt: skip
    result = runner.invoke(app, args)
    lines = (run / "trajectories.jsonl").read_text(encoding="utf-8").splitlines() if run.exists() else []
    return result.exit_code, result.output, [TrajectoryRecord.model_validate_json(line) for line in lines]


def test_a_model_slower_than_the_default_is_waited_for_with_agent_timeout(
    one_task: Path, tmp_path: Path, short_default: float
):
    slow = {"content": "Could you tell me your name?", "delay": 4 * short_default}
    # Without the flag: every attempt cut at the default, the episode is model_unavailable.
    with openai_server([], responder=lambda body: slow) as server:
        code, output, done = rollout(one_task, tmp_path / "default", server.base_url)
    assert code == 0, output
    assert [r.termination for r in done] == ["model_unavailable"], output
    assert "timeout" in done[0].termination_detail
    # With it: the reply is waited for, and the episode runs to its step limit.
    with openai_server([], responder=lambda body: slow) as server:
        code, output, done = rollout(one_task, tmp_path / "flag", server.base_url, "--agent-timeout", "30")
        asked = len(server.requests)
    assert code == 0, output
    assert [r.termination for r in done] == ["max_steps"] and asked == 1, output
    metadata = json.loads((tmp_path / "flag" / "metadata.json").read_text(encoding="utf-8"))
    assert metadata["agent_args"] == {"timeout": 30.0}  # recorded with the run


def test_a_model_that_never_answers_is_model_unavailable_at_the_flags_time(one_task: Path, tmp_path: Path):
    never = {"content": "too late", "delay": 3600}
    with openai_server([], responder=lambda body: never) as server:
        started = time.monotonic()
        code, output, done = rollout(one_task, tmp_path / "run", server.base_url, "--agent-timeout", "1")
        seconds = time.monotonic() - started
        attempts = len(server.requests)
    assert code == 0, output
    (record,) = done
    assert record.termination == "model_unavailable", output
    detail = record.termination_detail
    assert "timeout" in detail and "openai/slow" in detail and "server 'retail'" not in detail, detail
    # Each attempt was cut at the flag's second, not at the 60 s default nor the hour the
    # server would take: 4 attempts. The wall time is only a far bound (the machine may be
    # busy: issue 30): half of what four attempts at the default would take at the least.
    assert attempts == 4
    assert seconds < 4 * litellm_client.MODEL_TIMEOUT_S / 2, seconds


def test_timeout_flags_without_a_model_or_twice_are_usage_errors(one_task: Path, tmp_path: Path):
    base = ["rollout", "retail", "--tasks", str(one_task), "-o", str(tmp_path / "run")]
    result = runner.invoke(app, [*base, "--user-timeout", "5"])
    assert result.exit_code == 2 and "--user-timeout applies to a user with a model" in result.output
    result = runner.invoke(app, [*base, "--agent", "llm", "--agent-model", "openai/x", "--agent-timeout", "5",
                                 "--agent-args", '{"timeout": 9}'])  # fmt: skip
    assert result.exit_code == 2 and "--agent-timeout and timeout in --agent-args" in result.output
    result = runner.invoke(
        app, [*base, "--agent", "llm", "--agent-model", "openai/x", "--agent-timeout", "0"]
    )
    assert result.exit_code == 2 and "--agent-timeout" in result.output
    assert not (tmp_path / "run").exists()
