"""Issue 17, item 1: every user mistake is one line naming the file, field or option, and
no traceback, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.tasks.model import write_tasks


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    errors = [
        line for line in lines if line.startswith("error:") or "Error" in line or "Invalid value" in line
    ]
    assert "Traceback" not in output and len(errors) >= 1, output
    return errors[-1]


def test_a_missing_tasks_file(tmp_path: Path):
    code, output = run("rollout", "retail", "--tasks", str(tmp_path / "nope.jsonl"),
                       "-o", str(tmp_path / "run"), "--servers-dir", str(SERVERS_DIR))  # fmt: skip
    assert code == 1
    assert "nope.jsonl: no such tasks file" in one_error_line(output)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json\n", ":1: not a valid task"),
        ('{"task_id": "t1"}\n', ":1: not a valid task: "),
        ("\n\n", "holds no task"),
    ],
)
def test_a_malformed_tasks_file(tmp_path: Path, content: str, says: str):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(content, encoding="utf-8")
    code, output = run("rollout", "retail", "--tasks", str(tasks),
                       "-o", str(tmp_path / "run"), "--servers-dir", str(SERVERS_DIR))  # fmt: skip
    line = one_error_line(output)
    assert code == 1 and says in line and len(line) < 400, line


def test_out_of_range_counts_are_usage_errors(tmp_path: Path):
    code, output = run("tasks", "retail", "-n", "0", "-o", str(tmp_path / "t.jsonl"))
    assert code == 2 and "-n" in output and "Traceback" not in output
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.slow  # the command generates its tasks (seconds of oracle runs)
def test_a_valid_task_file_still_reads(tmp_path: Path):
    code, output = run("tasks", "retail", "-n", "2", "-o", str(tmp_path / "t.jsonl"),
                       "--servers-dir", str(SERVERS_DIR))  # fmt: skip
    assert code == 0, output
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["task_id"] for line in lines)


@pytest.fixture(scope="module")
def task_file(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid task file, which the rollout commands below only read."""
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks(retail_tasks(2, seed=5), path)
    return path


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--agent", "llm"], "--agent llm needs --agent-model"),
        (["--user", "llm"], "--user llm needs --user-model"),
        (["--trials", "-1"], "--trials"),
        (["--concurrency", "0"], "--concurrency"),
    ],
)
def test_rollout_option_mistakes_leave_no_run_behind(
    task_file: Path, tmp_path: Path, args: list[str], says: str
):
    tasks = task_file
    code, output = run("rollout", "retail", "--tasks", str(tasks), "-o", str(tmp_path / "run"),
                       "--servers-dir", str(SERVERS_DIR), *args)  # fmt: skip
    assert code in (1, 2) and says in output and "Traceback" not in output, output
    assert not (tmp_path / "run").exists()
