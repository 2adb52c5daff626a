"""Issue 33, point 2: progress everywhere. Every long command, run as a user runs it (a
subprocess, stderr a pipe, not a terminal), prints a line per stage and done / total
counts with a rate and an ETA on stderr; ``--quiet`` silences them; stdout is exactly one
JSON value."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import SERVERS_DIR

from envfactory_mcp.tasks.model import Task, write_tasks

COUNT = re.compile(r"^\[(?P<stage>[^\]]+)\] (?P<done>\d+)/(?P<total>\d+) \(\d+%\), [\d.]+/s, ")


def cli(*args: str, cwd: Path | None = None) -> tuple[int, Any, str]:
    """Run ``envfactory-mcp args`` in a subprocess, stdin closed, stdout and stderr pipes
    (not terminals): its exit code, stdout parsed as ONE JSON value, stderr."""
    env = {**os.environ, "ENVFACTORY_PROGRESS_PERIOD_S": "0", "COLUMNS": "200"}  # every count, for the test
    done = subprocess.run(
        [sys.executable, "-m", "envfactory_mcp", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
        timeout=900,  # a far backstop
        check=False,
    )
    assert not done.stdout.strip() or done.stdout.lstrip()[0] in "[{", (done.stdout, done.stderr)
    value = json.loads(done.stdout)  # one JSON value: json.loads refuses two documents back to back
    return done.returncode, value, done.stderr


def counts(stderr: str, stage: str) -> list[tuple[int, int]]:
    found = [COUNT.match(line) for line in stderr.splitlines()]
    return [(int(m["done"]), int(m["total"])) for m in found if m and m["stage"] == stage]


def progress_lines(stderr: str) -> list[str]:
    """Lines of progress (stage starts and counts); a warning or an error is not one."""
    return [line for line in stderr.splitlines() if line.startswith("[")]


def test_tasks_prints_its_stage_and_counts_and_quiet_silences_them(tmp_path: Path):
    empty = tmp_path / "servers"
    empty.mkdir()  # the blueprint, not a package: nothing to verify
    code, value, stderr = cli("tasks", "retail", "-n", "3", "-o", str(tmp_path / "t.jsonl"),
                              "--servers-dir", str(empty))  # fmt: skip
    assert code == 0, stderr
    assert value == {"env": "retail", "output": str(tmp_path / "t.jsonl"), "tasks": 3, "requested": 3}
    assert "[generating 3 tasks for retail] started" in stderr.splitlines()
    assert counts(stderr, "generating 3 tasks for retail") == [(1, 3), (2, 3), (3, 3)]
    assert "done in" in stderr.splitlines()[-2] + stderr.splitlines()[-1]
    code, value, stderr = cli("tasks", "retail", "-n", "3", "-o", str(tmp_path / "q.jsonl"),
                              "--servers-dir", str(empty), "--quiet")  # fmt: skip
    assert code == 0 and value["tasks"] == 3
    assert stderr == ""


@pytest.fixture(scope="module")
def three_tasks(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    made: list[Task] = retail_tasks(3, seed=5)
    write_tasks(made, path)
    return path


@pytest.mark.slow  # three episodes
def test_rollout_counts_its_episodes_and_prints_one_json_summary(three_tasks: Path, tmp_path: Path):
    base = ["rollout", "retail", "--tasks", str(three_tasks), "--agent", "oracle", "--transport", "memory",
            "--servers-dir", str(SERVERS_DIR)]  # fmt: skip
    code, value, stderr = cli(*base, "-o", str(tmp_path / "run"))
    assert code == 0, stderr
    assert value["episodes"] == 3 and value["mean_reward"] == 1.0
    assert "[rollout oracle] started" in stderr.splitlines()
    assert counts(stderr, "rollout oracle") == [(1, 3), (2, 3), (3, 3)]
    code, value, stderr = cli(*base, "-o", str(tmp_path / "quiet"), "--quiet")
    assert code == 0 and value["episodes"] == 3
    assert progress_lines(stderr) == [] and "run:" not in stderr


def test_eval_counts_its_episodes_and_prints_one_json_summary(tmp_path: Path):
    base = ["eval", "--envs", "crm,billing", "-n", "3", "--agent", "oracle"]
    code, value, stderr = cli(*base, "-o", str(tmp_path / "eval"))
    assert code == 0, stderr
    assert value["episodes"] == 3 and value["pass_rate@0.75"] == 1.0
    assert "[eval oracle] started" in stderr.splitlines()
    assert counts(stderr, "eval oracle")[-1] == (3, 3)
    assert "pass@0.75 1.000" in stderr  # the table, for a person, is on stderr
    code, value, stderr = cli(*base, "-o", str(tmp_path / "quiet"), "--quiet")
    assert code == 0 and value["episodes"] == 3
    assert progress_lines(stderr) == [] and "wrote" not in stderr


@pytest.mark.slow  # builds and verifies retail, makes tasks, three rollouts
def test_pipeline_names_each_stage_and_prints_one_json_value(tmp_path: Path):
    args = ["pipeline", "retail", "-o", str(tmp_path / "out"), "-n", "3",
            "--servers-dir", str(tmp_path / "servers")]  # fmt: skip
    code, value, stderr = cli(*args)
    assert code == 0, stderr
    assert set(value["runs"]) == {"demonstrator", "oracle", "noop"}
    assert value["runs"]["oracle"]["episodes"] == 3 and value["verification"]["passed"] is True
    lines = stderr.splitlines()
    for stage in ("building and verifying retail", "generating 3 tasks", "rollout demonstrator",
                  "rollout oracle", "rollout noop"):  # fmt: skip
        assert f"[{stage}] started" in lines, stderr
    assert counts(stderr, "generating 3 tasks")[-1] == (3, 3)
    assert counts(stderr, "rollout noop")[-1] == (3, 3)
    # Resumed, quiet: the same one JSON value, nothing on stderr but what is not progress.
    code, again, stderr = cli(*args, "--quiet")
    assert code == 0 and again["runs"] == value["runs"]  # verified again: only its time differs
    assert progress_lines(stderr) == [] and "outputs:" not in stderr


@pytest.mark.slow  # verifies a blueprint in the sandbox
def test_verify_prints_the_report_as_json_and_the_table_and_progress_on_stderr(tmp_path: Path):
    code, report, stderr = cli("verify", "hair_salon", "--no-stdio", "--servers-dir", str(tmp_path))
    assert code == 1  # a check that did not run (stdio) is not a pass
    assert report["env"] == "hair_salon" and report["passed"] is False
    assert stderr.splitlines()[0] == f"[verify] the blueprint hair_salon (there is no package in {tmp_path})"
    assert re.search(r"chunk \d+/\d+ probed", stderr) and "INCOMPLETE" in stderr
    code, quiet, stderr = cli("verify", "hair_salon", "--no-stdio", "--servers-dir", str(tmp_path),
                              "--quiet", "--json")  # fmt: skip
    assert code == 1 and quiet["env"] == "hair_salon" and stderr == ""


@pytest.mark.slow  # verifies the imported package in the sandbox
def test_synthesize_a_resource_prints_one_json_list(tmp_path: Path):
    ddl = tmp_path / "notes.sql"
    ddl.write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT);\n")
    code, value, stderr = cli("synthesize", "--resource", str(ddl), "-o", str(tmp_path / "out"))
    assert code == 0, stderr
    assert [(r["name"], r["status"]) for r in value] == [("notes", "emitted")]
    assert f"importing {ddl} ..." in stderr and "verifying notes:" in stderr
    assert re.search(r"chunk 1/1 probed", stderr)
    code, value, stderr = cli("synthesize", "--resource", str(ddl), "-o", str(tmp_path / "quiet"), "--quiet")
    assert code == 0 and value[0]["status"] == "emitted" and stderr == ""
