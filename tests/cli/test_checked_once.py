"""``envfactory-mcp rollout`` checks each package and reads its task file once (issue 32):
the command line's ``check_served`` permissions are handed to the servers' first starts
(``host.launch.hand_over``), which take each once and only with the same flags (a
restarted server checks its package again), and the tasks it read are the ones rolled out."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

import envfactory_mcp.host.rollout as rollout_module
import envfactory_mcp.packages as packages
import envfactory_mcp.tasks.model as task_model
from envfactory_mcp.cli import app
from envfactory_mcp.host import launch
from envfactory_mcp.packages import RunPermission
from envfactory_mcp.tasks.model import Task, write_tasks

runner = CliRunner()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counts: Counter[str] = Counter()
    check, read = packages.check_runnable, task_model.read_tasks

    def check_runnable(*args: Any, **kwargs: Any) -> RunPermission:
        counts["check_runnable"] += 1
        return check(*args, **kwargs)

    def read_tasks(*args: Any, **kwargs: Any) -> list[Task]:
        counts["read_tasks"] += 1
        return read(*args, **kwargs)

    monkeypatch.setattr(packages, "check_runnable", check_runnable)
    monkeypatch.setattr(task_model, "read_tasks", read_tasks)
    monkeypatch.setattr(rollout_module, "read_tasks", read_tasks)
    return counts


def test_a_handed_permission_is_taken_once_and_only_with_the_same_flags(counted: Counter[str]) -> None:
    permission = packages.check_runnable(SERVERS_DIR / "retail")
    assert counted["check_runnable"] == 1
    withdraw = launch.hand_over(SERVERS_DIR, [permission], allow_unverified=False, trust=False)
    assert launch._runnable(SERVERS_DIR, "retail", allow_unverified=True, trust=False) is not permission
    assert launch._runnable(SERVERS_DIR, "retail", allow_unverified=False, trust=True) is not permission
    assert counted["check_runnable"] == 3  # other flags: checked again
    assert launch._runnable(SERVERS_DIR, "retail", allow_unverified=False, trust=False) is permission
    assert counted["check_runnable"] == 3
    again = launch._runnable(SERVERS_DIR, "retail", allow_unverified=False, trust=False)  # a restart
    assert again is not permission and again == permission and counted["check_runnable"] == 4
    launch.hand_over(SERVERS_DIR, [permission], allow_unverified=False, trust=False)
    withdraw()  # withdraws what it handed over and was not taken
    launch._runnable(SERVERS_DIR, "retail", allow_unverified=False, trust=False)
    assert counted["check_runnable"] == 5 and not launch._handed


@pytest.mark.parametrize("transport", ["stdio", "memory"])
def test_rollout_checks_the_package_and_reads_the_tasks_once(
    transport: str, counted: Counter[str], retail_tasks: Any, tmp_path: Path
) -> None:
    path = tmp_path / "tasks.jsonl"
    write_tasks(retail_tasks(40, seed=0)[:2], path)
    run = tmp_path / "run"
    args = ["rollout", "retail", "--tasks", str(path), "-o", str(run), "--agent", "oracle", "-q"]
    args += ["--transport", transport, "--servers-dir", str(SERVERS_DIR)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["episodes"] == 2
    assert counted == {"check_runnable": 1, "read_tasks": 1}
    assert not launch._handed  # nothing left behind for a later start in this process
