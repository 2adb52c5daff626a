"""Runs the viewer tests read: real rollouts of two scripted agents on six retail tasks,
made through the CLI once per test session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.tasks.model import Task, write_tasks


@dataclass(frozen=True)
class ScriptedRuns:
    tasks: list[Task]
    tasks_path: Path
    demonstrator: Path  # scores 1 on every task
    random: Path  # random calls: below 1, with the reasons why


@pytest.fixture(scope="session")
def scripted_runs(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> ScriptedRuns:
    root = tmp_path_factory.mktemp("scripted-runs")
    tasks = retail_tasks(6, seed=5)
    write_tasks(tasks, root / "tasks.jsonl")
    runner = CliRunner()
    for agent in ("demonstrator", "random"):
        result = runner.invoke(
            app,
            ["rollout", "retail", "--tasks", str(root / "tasks.jsonl"), "--num-tasks", "6", "--agent", agent,
             "--transport", "memory", "--concurrency", "2", "--servers-dir", str(SERVERS_DIR),
             "-o", str(root / agent)],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    return ScriptedRuns(tasks, root / "tasks.jsonl", root / "demonstrator", root / "random")
