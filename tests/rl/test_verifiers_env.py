"""The verifiers adapter with the real ``verifiers`` package: retail tasks rolled out by
verifiers against a local OpenAI-protocol model server (tests/llm_server.py) score with
our rewards. Needs the ``rl`` extra (``pip install -e '.[test,rl]'``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import openai_server
from paths import SERVERS_DIR

from envfactory_mcp.sim.agents import NOOP_MESSAGE, closing_message, confirmation_request
from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks

pytestmark = pytest.mark.slow  # builds retail and its tasks


@pytest.fixture(scope="module")
def vf() -> Any:
    """``verifiers``, imported when a test of this module runs, not when it is collected
    (about 3 s in each xdist worker, which the fast tier would pay for nothing)."""
    vf = pytest.importorskip("verifiers", reason="the rl extra is not installed: pip install -e '.[test,rl]'")
    if not str(getattr(vf, "__version__", "")).startswith("0.2"):
        # verifiers 0.4 (a trainer's venv) has its own plugin: tests/rl/test_verifiers_v1.py
        pytest.skip(f"this adapter is for verifiers 0.2 (the rl extra); installed: {vf.__version__}")
    return vf


@pytest.fixture(scope="module")
def tasks_file(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(4, seed=21)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks([t for t in made if t.gold.actions][:2], path)
    return path


def oracle_script(task: Task) -> list[dict[str, object]]:
    """The oracle's turns: each gold call, after a request for the user's yes when the
    policy wants one, then the closing words."""
    turns: list[dict[str, object]] = []
    for a in task.gold.actions:
        if a.confirm:
            turns.append({"content": confirmation_request(a)})
        turns.append({"tool_calls": [{"name": a.name, "arguments": json.dumps(a.arguments)}]})
    return [*turns, {"content": closing_message(task)}]


def test_a_verifiers_environment_built_from_retail_gets_our_rewards(
    vf: Any, tasks_file: Path, monkeypatch: pytest.MonkeyPatch
):
    from envfactory_mcp.rl.verifiers_env import STATE_KEY, load_environment

    tasks = read_tasks(tasks_file)
    env = load_environment(env="retail", tasks_path=str(tasks_file), servers_dir=str(SERVERS_DIR))
    assert isinstance(env, vf.MultiTurnEnv)
    dataset = env.get_eval_dataset()
    assert len(dataset) == 2 and dataset[0]["info"]["task_id"] == tasks[0].task_id
    assert {t.name for t in env.tool_defs or []} >= {a.name for a in tasks[0].gold.actions}
    # task 0: the model plays the oracle (reward 1); task 1: it only talks (reward 0)
    script: list[dict[str, Any]] = [*oracle_script(tasks[0]), *[{"content": NOOP_MESSAGE}] * 10]
    monkeypatch.setenv("ENVFACTORY_TEST_KEY", "sk-test")
    with openai_server(script) as server:
        client = vf.ClientConfig(
            api_base_url=server.base_url, api_key_var="ENVFACTORY_TEST_KEY", max_retries=0
        )
        results = env.evaluate_sync(
            client=client, model="scripted", num_examples=2, rollouts_per_example=1, max_concurrent=1
        )
        sent = server.requests
    outputs = results["outputs"] if isinstance(results, dict) else results.outputs
    by_task = {o["info"]["task_id"]: o for o in outputs}
    solved, idle = by_task[tasks[0].task_id], by_task[tasks[1].task_id]
    assert solved["reward"] == 1.0, solved.get("error")
    assert idle["reward"] == 0.0, idle.get("error")
    # the model was offered the retail tools and saw the tool results and the user's replies
    assert sent[0]["tools"] and sent[0]["messages"][0]["role"] == "system"
    assert any(m["role"] == "tool" for m in sent[len(tasks[0].gold.actions)]["messages"])
    assert STATE_KEY  # the episode's record is kept in state[STATE_KEY]
