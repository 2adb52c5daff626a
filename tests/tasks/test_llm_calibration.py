"""LLM calibration end to end: litellm over real HTTP to a local server with scripted replies."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from llm_server import openai_server
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.env import Environment
from envfactory_mcp.llm import LiteLLMClient
from envfactory_mcp.tasks.calibrate import check_message, leak_rules_for, recalibrate_with_llm
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import Task, read_tasks

pytestmark = pytest.mark.slow
SEED = 5
MODEL = "openai/scripted-model"


@pytest.fixture(scope="module")
def task(retail_env: Environment) -> Task:
    (only,), _ = generate_tasks(retail_env, 1, seed=SEED)
    return only


def must_strings(task: Task) -> str:
    return " ".join(m for f in task.user_scenario.known_info if f.in_opening for m in f.must)


def scripted_clean_reply(task: Task) -> str:
    return f"Hello! I need some help with this: {must_strings(task)}. Thanks a lot."


def test_a_leaking_rewrite_is_rejected_and_the_clean_retry_is_kept(retail_env: Environment, task: Task, tmp_path: Path):
    leaky_tool = task.gold.actions[-1].name
    clean = scripted_clean_reply(task)
    rules = leak_rules_for(retail_env.spec, task.user_scenario.known_info, [(a.name, a.arguments) for a in task.gold.actions])
    assert check_message(clean, task.user_scenario.known_info, rules) == []  # the script itself is sound
    replies = [{"content": f"Please run {leaky_tool} for me. {must_strings(task)}"}, {"content": clean}]
    with openai_server(replies) as server:
        result = CliRunner().invoke(
            app,
            ["tasks", "retail", "--n", "1", "--seed", str(SEED), "--calibrate", MODEL, "--api-base", server.base_url,
             "-o", str(tmp_path / "tasks.jsonl")],
        )
        requests = server.requests
    assert result.exit_code == 0, result.output
    (written,) = read_tasks(tmp_path / "tasks.jsonl")
    calibration = written.user_scenario.calibration
    assert written.user_scenario.opening_message == clean
    assert calibration.method == f"llm:{MODEL}" and len(calibration.rejected) == 1
    assert f"names the tool {leaky_tool!r}" in calibration.rejected[0]
    assert len(requests) == 2 and requests[0]["model"] == "scripted-model"
    feedback = requests[1]["messages"][-1]["content"]
    assert "rejected" in feedback and leaky_tool in feedback
    assert written.gold == task.gold  # calibration never touches the gold


def test_rewrites_that_keep_failing_leave_the_offline_message(task: Task, retail_env: Environment):
    replies = [{"content": "1. Find the user\n2. Cancel it"}, {"content": "I want help."}]
    with openai_server(replies) as server:
        client = LiteLLMClient(MODEL, api_base=server.base_url, max_retries=0)
        (kept,) = anyio.run(recalibrate_with_llm, [task], retail_env.spec, client, 2)
    assert kept.user_scenario.opening_message == task.user_scenario.opening_message
    rejected = kept.user_scenario.calibration.rejected
    assert len(rejected) == 2 and "numbered steps" in rejected[0] and "drops" in rejected[1]
    assert kept.user_scenario.calibration.method == "offline"


def test_an_endpoint_that_keeps_failing_loses_no_task(task: Task, retail_env: Environment):
    with openai_server([{"status": 500}, {"status": 500}]) as server:
        client = LiteLLMClient(MODEL, api_base=server.base_url, max_retries=1, backoff_s=0.01)
        (kept,) = anyio.run(recalibrate_with_llm, [task], retail_env.spec, client, 2)
    assert kept.user_scenario.opening_message == task.user_scenario.opening_message
    assert "model error" in kept.user_scenario.calibration.rejected[0]
