"""Verification decides what runs: a copy of the committed retail package whose files no
longer match its report (the runtime's SQLite authorizer taken out, server.py edited), or
whose report failed or is missing, is refused by ``serve``, ``tasks`` and ``rollout`` over
memory and stdio, with one line naming the package, its status and the fix;
``--allow-unverified`` runs it with a warning; the untouched copy runs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.tasks.model import write_tasks

pytestmark = pytest.mark.slow
runner = CliRunner()
PKG = "retail_mcp"
AUTHORIZER = "        db.set_authorizer(guard)\n"


@pytest.fixture
def servers(tmp_path: Path) -> Path:
    """A servers dir holding a copy of the committed retail package."""
    dest = tmp_path / "servers"
    shutil.copytree(SERVERS_DIR / "retail", dest / "retail", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture(scope="module")
def tasks_file(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(2, seed=5)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks(made, path)
    return path


def remove_authorizer(servers: Path) -> None:
    toolbox = servers / "retail" / PKG / "runtime" / "toolbox.py"
    text = toolbox.read_text(encoding="utf-8")
    assert text.count(AUTHORIZER) == 1
    toolbox.write_text(text.replace(AUTHORIZER, ""), encoding="utf-8")


def edit_server(servers: Path) -> None:
    with (servers / "retail" / PKG / "server.py").open("a", encoding="utf-8") as fh:
        fh.write("\nimport os  # a payload would go here\n")


def fail_report(servers: Path) -> None:
    path = servers / "retail" / PKG / "data" / "verification.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    report["passed"] = False
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def drop_report(servers: Path) -> None:
    (servers / "retail" / PKG / "data" / "verification.json").unlink()


def status(servers: Path) -> str:
    listed = json.loads(runner.invoke(app, ["list", "--json", "--servers-dir", str(servers)]).output)
    return next(e["verification"] for e in listed if e["name"] == "retail")


def rollout(servers: Path, tasks_file: Path, run: Path, transport: str, *extra: str):
    args = [
        "rollout", "retail", "--tasks", str(tasks_file), "-o", str(run), "--agent", "oracle",
        "--transport", transport, "--servers-dir", str(servers), *extra,
    ]  # fmt: skip
    return runner.invoke(app, args)


def tasks(servers: Path, out: Path, *extra: str):
    return runner.invoke(
        app, ["tasks", "retail", "--n", "2", "-o", str(out), "--servers-dir", str(servers), *extra]
    )


def serve(servers: Path) -> subprocess.CompletedProcess[str]:
    """``serve`` in its own process over stdio with an empty stdin: a served package exits at EOF."""
    return subprocess.run(
        [sys.executable, "-m", "envfactory_mcp", "serve", "retail", "--servers-dir", str(servers)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def assert_refused(output: str, state: str, servers: Path) -> None:
    line = next(line for line in output.splitlines() if line.startswith("error:"))
    assert "refusing to run package retail" in line and f"verification {state}" in line
    assert f"envfactory-mcp verify retail --save --servers-dir {servers}" in line
    assert "envfactory-mcp build retail" in line and "--allow-unverified" in line


@pytest.mark.parametrize("tamper", [remove_authorizer, edit_server], ids=["runtime-authorizer", "server.py"])
def test_an_edited_package_is_stale_and_nothing_runs_it(
    tamper, servers: Path, tasks_file: Path, tmp_path: Path
):
    assert status(servers) == "passed"
    untouched = rollout(servers, tasks_file, tmp_path / "before", "memory")
    assert untouched.exit_code == 0, untouched.output
    assert "WARNING" not in untouched.output

    tamper(servers)
    assert status(servers) == "stale"
    for transport in ("memory", "stdio"):
        result = rollout(servers, tasks_file, tmp_path / transport, transport)
        assert result.exit_code == 1, result.output
        assert_refused(result.output, "stale", servers)
        assert not (tmp_path / transport).exists()  # refused before a run directory was made
    result = tasks(servers, tmp_path / "tasks.jsonl")
    assert result.exit_code == 1 and not (tmp_path / "tasks.jsonl").exists()
    assert_refused(result.output, "stale", servers)
    served = serve(servers)
    assert served.returncode == 1, served.stderr
    assert_refused(served.stderr, "stale", servers)


@pytest.mark.parametrize(
    ("break_report", "state"),
    [(fail_report, "failed"), (drop_report, "not verified")],
    ids=["failed", "missing"],
)
def test_a_failed_or_missing_report_refuses(
    break_report, state: str, servers: Path, tasks_file: Path, tmp_path: Path
):
    break_report(servers)
    assert status(servers) == state
    result = rollout(servers, tasks_file, tmp_path / "run", "memory")
    assert result.exit_code == 1, result.output
    assert_refused(result.output, state, servers)
    # Not quietly the retail blueprint instead: the package is what would be served.
    result = tasks(servers, tmp_path / "tasks.jsonl")
    assert result.exit_code == 1, result.output
    assert_refused(result.output, state, servers)
    served = serve(servers)
    assert served.returncode == 1 and f"verification {state}" in served.stderr


def test_allow_unverified_runs_a_stale_package_with_a_warning(
    servers: Path, tasks_file: Path, tmp_path: Path
):
    remove_authorizer(servers)
    result = rollout(servers, tasks_file, tmp_path / "run", "memory", "--allow-unverified")
    assert result.exit_code == 0, result.output
    warning = next(line for line in result.output.splitlines() if line.startswith("WARNING:"))
    assert "UNVERIFIED package retail" in warning and "stale" in warning
    assert len((tmp_path / "run" / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()) == 2
    made = tasks(servers, tmp_path / "tasks.jsonl", "--allow-unverified")
    assert made.exit_code == 0, made.output
    assert "UNVERIFIED package retail" in made.output
    assert len((tmp_path / "tasks.jsonl").read_text(encoding="utf-8").splitlines()) == 2
