"""LLM calibration end to end: litellm over real HTTP to a local server with scripted replies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from llm_server import down_base_url, openai_server
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.env import Environment
from envfactory_mcp.llm import LiteLLMClient
from envfactory_mcp.llm.litellm_client import load_litellm
from envfactory_mcp.tasks.calibrate import (
    LeakRules,
    check_message,
    leak_problems,
    leak_rules_for,
    llm_prompt,
    recalibrate_with_llm,
)
from envfactory_mcp.tasks.model import Task, read_tasks

pytestmark = pytest.mark.slow
SEED = 5
MODEL = "openai/scripted-model"


@pytest.fixture(scope="module")
def task(retail_tasks) -> Task:
    (only,) = retail_tasks(1, seed=SEED)
    return only


def must_strings(task: Task) -> str:
    return " ".join(m for f in task.user_scenario.known_info if f.in_opening for m in f.must)


def scripted_clean_reply(task: Task) -> str:
    return f"Hello! I need some help with this: {must_strings(task)}. Thanks a lot."


def test_a_leaking_rewrite_is_rejected_and_the_clean_retry_is_kept(
    retail_env: Environment, task: Task, tmp_path: Path
):
    leaky_tool = task.gold.actions[-1].name
    clean = scripted_clean_reply(task)
    rules = leak_rules_for(
        retail_env.spec, task.user_scenario.known_info, [(a.name, a.arguments) for a in task.gold.actions]
    )
    assert check_message(clean, task.user_scenario.known_info, rules) == []  # the script itself is sound
    replies = [
        {"content": f"Please run {leaky_tool} for me. {must_strings(task)}", "usage": usage(100, 20)},
        {"content": clean, "usage": usage(300, 30)},
    ]
    with openai_server(replies) as server:
        result = CliRunner().invoke(
            app,
            [
                "tasks",
                "retail",
                "--n",
                "1",
                "--seed",
                str(SEED),
                "--calibrate",
                MODEL,
                "--api-base",
                server.base_url,
                "-o",
                str(tmp_path / "tasks.jsonl"),
            ],
        )
        requests = server.requests
    assert result.exit_code == 0, result.output
    assert "1 of 1 tasks rewritten" in result.output and "400 prompt + 50 completion tokens" in result.output
    (written,) = read_tasks(tmp_path / "tasks.jsonl")
    calibration = written.user_scenario.calibration
    assert written.user_scenario.opening_message == clean
    assert calibration.method == f"llm:{MODEL}" and len(calibration.rejected) == 1
    # Both attempts are paid for, the rejected one too; this model has no known price.
    assert (calibration.prompt_tokens, calibration.completion_tokens, calibration.cost_usd) == (400, 50, None)
    assert leaks_in_prompt(requests[0]["messages"], rules) == []
    assert f"names the tool {leaky_tool!r}" in calibration.rejected[0]
    assert len(requests) == 2 and requests[0]["model"] == "scripted-model"
    feedback = requests[1]["messages"][-1]["content"]
    assert "rejected" in feedback and leaky_tool in feedback
    assert written.gold == task.gold  # calibration never touches the gold


def usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def leaks_in_prompt(messages: list[dict[str, Any]], rules: LeakRules) -> list[str]:
    """Tool names, parameter keys and hidden ids found in a prompt (its bullet list of
    facts is not a leak: only the user's message may not list steps)."""
    text = "\n".join(str(m["content"]) for m in messages)
    return [p for p in leak_problems(text, rules) if p != "lists numbered steps"]


def test_the_prompt_names_no_tool_parameter_key_or_hidden_id(retail_env: Environment, retail_tasks):
    made = retail_tasks(30, seed=SEED)
    seen_optional = 0
    for each in made:
        scenario = each.user_scenario
        rules = leak_rules_for(
            retail_env.spec, scenario.known_info, [(a.name, a.arguments) for a in each.gold.actions]
        )
        assert rules.tool_names and rules.param_keys
        prompt = llm_prompt(scenario.known_info, scenario.reason_for_call.split("; "), scenario.persona)
        assert leaks_in_prompt(prompt, rules) == [], each.task_id
        assert all(m in prompt[1]["content"] for f in scenario.known_info if f.in_opening for m in f.must)
        seen_optional += sum(1 for f in scenario.known_info if not f.in_opening)
    assert seen_optional  # facts the user may mention are in the prompt too, by plain labels


def test_a_known_price_is_summed_over_every_attempt(task: Task, retail_env: Environment):
    priced = "openai/gpt-4o-mini"  # in litellm's local price list; the request still goes to 127.0.0.1
    replies = [
        {"content": "1. Find it\n2. Fix it", "usage": usage(1000, 100)},
        {"content": scripted_clean_reply(task), "usage": usage(2000, 200)},
    ]
    with openai_server(replies) as server:
        client = LiteLLMClient(priced, api_base=server.base_url, max_retries=0)
        outcome = anyio.run(recalibrate_with_llm, [task], retail_env.spec, client, 1)
    calibration = outcome.tasks[0].user_scenario.calibration
    price = load_litellm().model_cost["gpt-4o-mini"]
    expected = 3000 * price["input_cost_per_token"] + 300 * price["output_cost_per_token"]
    assert outcome.rewritten == 1 and len(calibration.rejected) == 1
    assert (calibration.prompt_tokens, calibration.completion_tokens) == (3000, 300)
    assert calibration.cost_usd == pytest.approx(expected) and outcome.cost_usd == pytest.approx(expected)


def test_rewrites_that_keep_failing_leave_the_offline_message(task: Task, retail_env: Environment):
    replies = [{"content": "1. Find the user\n2. Cancel it"}, {"content": "I want help."}]
    with openai_server(replies) as server:
        client = LiteLLMClient(MODEL, api_base=server.base_url, max_retries=0)
        outcome = anyio.run(recalibrate_with_llm, [task], retail_env.spec, client, 2)
    (kept,) = outcome.tasks
    assert (outcome.rewritten, outcome.rejected, outcome.endpoint_errors) == (0, 1, 0)
    assert kept.user_scenario.opening_message == task.user_scenario.opening_message
    rejected = kept.user_scenario.calibration.rejected
    assert len(rejected) == 2 and "numbered steps" in rejected[0] and "drops" in rejected[1]
    assert kept.user_scenario.calibration.method == "offline"
    spent = kept.user_scenario.calibration
    assert (spent.prompt_tokens, spent.completion_tokens) == (22, 14)  # two rejected replies, default usage


def test_a_rewrite_in_codes_or_a_form_is_sent_back_with_the_reasons(task: Task, retail_env: Environment):
    """The model is held to the realiser's standard: a generator word or a "Label: value"
    sentence is refused, the reasons go back over the OpenAI protocol, the clean retry is kept."""
    clean = scripted_clean_reply(task)
    replies = [
        {"content": f"Hi. Status: pending_review. {must_strings(task)}. Insurance: no."},
        {"content": clean},
    ]
    with openai_server(replies) as server:
        client = LiteLLMClient(MODEL, api_base=server.base_url, max_retries=0)
        outcome = anyio.run(recalibrate_with_llm, [task], retail_env.spec, client, 1)
        requests = server.requests
    (kept,) = outcome.tasks
    assert outcome.rewritten == 1 and kept.user_scenario.opening_message == clean
    (rejected,) = kept.user_scenario.calibration.rejected
    assert "'pending_review' as a code" in rejected and "reads as a form ('Insurance: no.')" in rejected
    system = requests[0]["messages"][0]["content"]
    assert "Label: value" in system and "situation" in system and "underscores" in system
    feedback = requests[1]["messages"][-1]["content"]
    assert "pending_review" in feedback and "Insurance: no." in feedback


def test_an_endpoint_that_keeps_failing_loses_no_task(task: Task, retail_env: Environment):
    with openai_server([{"status": 500}, {"status": 500}]) as server:
        client = LiteLLMClient(MODEL, api_base=server.base_url, max_retries=1, backoff_s=0.01)
        outcome = anyio.run(recalibrate_with_llm, [task], retail_env.spec, client, 2)
    (kept,) = outcome.tasks
    assert kept.user_scenario.opening_message == task.user_scenario.opening_message
    assert "model error" in kept.user_scenario.calibration.rejected[0]
    assert (outcome.rewritten, outcome.rejected, outcome.endpoint_errors) == (0, 0, 1)
    assert "(server)" in outcome.errors[0]


def test_tasks_with_the_endpoint_down_exit_non_zero_and_say_how_many_kept_offline(task: Task, tmp_path: Path):
    out = tmp_path / "tasks.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "tasks",
            "retail",
            "--n",
            "1",
            "--seed",
            str(SEED),
            "--calibrate",
            MODEL,
            "--api-base",
            down_base_url(),
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 1
    assert "1 of 1 tasks kept the offline message because the model endpoint failed" in result.output
    assert "(connection)" in result.output
    (kept,) = read_tasks(out)  # nothing is lost: the tasks are written with their offline message
    assert kept.user_scenario.opening_message == task.user_scenario.opening_message
    assert kept.user_scenario.calibration.method == "offline"
    assert kept.user_scenario.calibration.rejected[0].startswith("model error:")
