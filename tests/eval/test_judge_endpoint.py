"""The LLM agent and the claims judge end to end through litellm and real HTTP to a local
server speaking the OpenAI chat-completions protocol (tests/llm_server.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_server import openai_server
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.eval.compose import EvalTask, write_eval_set

pytestmark = pytest.mark.slow  # litellm's import and HTTP round trips: about 12 s


def test_llm_agent_and_judge_over_http(eval_tasks: list[EvalTask], tmp_path: Path) -> None:
    task = next(t for t in eval_tasks if not t.writes and len(t.claims) >= 2)
    calls = [
        {"tool_calls": [{"name": f"{a.server}__{a.name}", "arguments": json.dumps(a.arguments)}]}
        for a in task.task.gold.actions
    ]
    # The agent looks everything up, then answers without the exact values: the exact
    # checks find nothing, so every claim goes to the judge.
    answers = [{"content": "It is all sorted, you will hear from the carrier soon."}] * 8
    verdicts = [
        {"content": json.dumps({"verdict": "partially_fulfilled", "reason": f"vague about claim {i}"})}
        for i in range(len(task.claims))
    ]
    write_eval_set([task], tmp_path / "set.jsonl")
    with openai_server(calls + answers) as agent, openai_server(verdicts) as judge:
        done = CliRunner().invoke(
            app,
            [
                "eval",
                "--envs",
                ",".join(task.offered),
                "--tasks",
                str(tmp_path / "set.jsonl"),
                "--agent",
                "llm",
                "--agent-model",
                "openai/scripted-agent",
                "--agent-api-base",
                agent.base_url,
                "--judge-model",
                "openai/scripted-judge",
                "--judge-api-base",
                judge.base_url,
                "--max-steps",
                "12",
                "-o",
                str(tmp_path / "out"),
            ],
        )
        judged = len(judge.requests)
        first_prompt = judge.requests[0]["messages"][-1]["content"]
        offered = {t["function"]["name"] for t in agent.requests[0]["tools"]}
    assert done.exit_code == 0, done.output
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    episode = results["episodes"][0]
    assert episode["termination"] == "user_stop", episode["termination_detail"]
    assert episode["state_ok"] is True
    assert judged == len(task.claims)
    assert [s["method"] for s in episode["claims"]["scores"]] == ["judge"] * len(task.claims)
    assert episode["claims"]["scores"][0]["reason"] == "vague about claim 0"
    assert episode["coverage"] == 0.5 and not episode["passed"] and episode["passed_loose"]
    assert episode["failure_class"] == "task_misunderstanding"
    assert "Claim: " in first_prompt and "hear from the carrier" in first_prompt
    assert offered == {f"{s}__{t}" for s in task.offered for t in _tools(s)}
    usage = results["summary"]["usage"]
    assert usage["judge"]["prompt_tokens"] == 11 * len(task.claims)
    assert usage["agent"]["prompt_tokens"] > 0 and episode["usage"]["agent"]["completion_tokens"] > 0
    assert "judge" in done.output and "pass@0.5 1.000" in done.output


def _tools(server: str) -> list[str]:
    from envfactory_mcp.eval.demo_envs import billing_spec, crm_spec, notes_spec, shipping_spec

    spec = {"crm": crm_spec, "billing": billing_spec, "shipping": shipping_spec}.get(server)
    return [t["name"] for t in (spec() if spec else notes_spec(server))["tools"]]
