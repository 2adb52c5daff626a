"""Issue 33, point 5: a scripted agent or user calls no model, so its cost is a known
zero, not "unknown": the record says 0.0 and the run's summary counts no unknown cost.
A participant with a model whose price is not known stays unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.records.trajectory import Participant, TrajectoryRecord, Usage
from envfactory_mcp.scoring.passk import summarize
from envfactory_mcp.tasks.model import write_tasks


def record(agent: Participant, usage: dict[str, Usage]) -> TrajectoryRecord:
    return TrajectoryRecord(
        run_id="r", env="retail", servers=["retail"], task_id="t", trial=0, seed=0, agent=agent,
        user=Participant(kind="scripted"), messages=[], tools=[], termination="user_stop", reward=1.0,
        gold_state_hash="g", usage=usage,
    )  # fmt: skip


def test_a_scripted_participant_costs_a_known_zero_and_a_model_without_a_price_does_not():
    scripted = record(Participant(kind="oracle"), {"agent": Usage(), "user": Usage()})
    assert scripted.usage["agent"].cost_usd == 0.0 and scripted.usage["user"].cost_usd == 0.0
    priced_unknown = record(
        Participant(kind="llm", model="openai/x"),
        {"agent": Usage(prompt_tokens=10, completion_tokens=2), "user": Usage()},
    )
    assert priced_unknown.usage["agent"].cost_usd is None  # a model was used, its price unknown
    # A record stored before scripted costs were zero reads the same way.
    stored = json.loads(scripted.to_line())
    stored["usage"] = {"agent": {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None}}
    assert TrajectoryRecord.model_validate(stored).usage["agent"].cost_usd == 0.0
    usage = summarize([scripted, priced_unknown])["usage"]
    assert usage["user"] == {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "cost_unknown": 0}
    assert usage["agent"]["cost_unknown"] == 1 and usage["agent"]["cost_usd"] == 0.0


@pytest.mark.slow  # two episodes through the CLI
def test_a_scripted_rollout_reports_no_unknown_cost(retail_tasks, tmp_path: Path):
    tasks = tmp_path / "tasks.jsonl"
    write_tasks(retail_tasks(2, seed=3), tasks)
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["rollout", "retail", "--tasks", str(tasks), "-o", str(run),
                                      "--agent", "demonstrator", "--transport", "memory",
                                      "--servers-dir", str(SERVERS_DIR)])  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    for who in ("agent", "user"):
        assert summary["usage"][who]["cost_unknown"] == 0 and summary["usage"][who]["cost_usd"] == 0.0
