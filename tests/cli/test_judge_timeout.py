"""Issue 33, item 1: the judge's model timeout as a flag (``eval --judge-timeout``), honoured
end to end through the CLI against a real 127.0.0.1 OpenAI-protocol server: a judge slower
than the default deadline is waited for with the flag, and without it every claim it was
asked about is a judge_error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_server import openai_server
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.eval.compose import LinkedComposer, write_eval_set
from envfactory_mcp.eval.demo_envs import SHARED_ENTITIES, linked_envs
from envfactory_mcp.llm import litellm_client

pytestmark = pytest.mark.slow  # litellm's import, HTTP round trips and the judge's retries


@pytest.fixture
def eval_set(tmp_path: Path) -> tuple[Path, list[str], int]:
    """One read-only task over the linked demo servers, with claims for the judge."""
    tasks = LinkedComposer(linked_envs(4), seed=3, shared_entities=SHARED_ENTITIES).compose(16)
    task = min((t for t in tasks if not t.writes and t.claims), key=lambda t: len(t.claims))
    path = tmp_path / "set.jsonl"
    write_eval_set([task], path)
    return path, task.offered, len(task.claims)


def evaluate(eval_set: Path, offered: list[str], judge_url: str, out: Path, *extra: str) -> dict:
    # The no-op agent says nothing: every claim goes to the judge.
    done = CliRunner().invoke(
        app,
        ["eval", "--envs", ",".join(offered), "--tasks", str(eval_set), "--agent", "noop",
         "--judge-model", "openai/slow-judge", "--judge-api-base", judge_url, "-o", str(out), *extra],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return json.loads((out / "results.json").read_text(encoding="utf-8"))["episodes"][0]


def test_a_judge_slower_than_the_default_is_waited_for_with_judge_timeout(
    eval_set: tuple[Path, list[str], int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path, offered, claims = eval_set
    monkeypatch.setattr(litellm_client, "MODEL_TIMEOUT_S", 0.5)  # "slower than the default" in seconds
    verdict = json.dumps({"verdict": "partially_fulfilled", "reason": "judged in the end"})

    def slow(body: dict) -> dict:
        return {"content": verdict, "delay": 2.0}

    with openai_server([], responder=slow) as judge:
        cut = evaluate(path, offered, judge.base_url, tmp_path / "default")
    scores = cut["claims"]["scores"]
    assert [s["method"] for s in scores] == ["judge_error"] * claims, scores
    assert all("timeout" in s["reason"].lower() for s in scores), scores
    with openai_server([], responder=slow) as judge:
        waited = evaluate(path, offered, judge.base_url, tmp_path / "flag", "--judge-timeout", "60")
        asked = len(judge.requests)
    scores = waited["claims"]["scores"]
    assert [s["method"] for s in scores] == ["judge"] * claims and asked == claims, scores
    assert {s["reason"] for s in scores} == {"judged in the end"}
    recorded = json.loads((tmp_path / "flag" / "eval.json").read_text(encoding="utf-8"))
    assert recorded["judge_timeout"] == 60.0
