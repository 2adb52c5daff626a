"""The envfactory-mcp command: fast start-up, list, build, serve errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app

runner = CliRunner()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command in a child process, as a user runs it (real stdout and stderr);
    tests/cli/test_stdio_stderr.py runs verify over stdio under CliRunner and io.StringIO."""
    return subprocess.run(
        [sys.executable, "-m", "envfactory_mcp", *args],
        capture_output=True,
        text=True,
        timeout=1800,  # a far backstop: a busy machine is slower, not a failure
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_startup_imports_nothing_heavy():
    code = "import sys, envfactory_mcp.cli; print(sorted(m for m in ('litellm', 'mcp', 'uvicorn') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_list_json_reports_counts_and_status():
    result = runner.invoke(app, ["list", "--json", "--servers-dir", str(SERVERS_DIR)])
    assert result.exit_code == 0, result.output
    entries = {e["name"]: e for e in json.loads(result.stdout)}
    retail = entries["retail"]
    assert retail["tools"] >= 14 and retail["tables"] >= 5 and retail["emitted"] is True
    assert retail["domain"] == "retail"
    assert retail["verification"] == "passed"


def test_version_names_the_package_and_its_runtime():
    from envfactory_mcp import __version__
    from envfactory_mcp.runtime.version import RUNTIME_VERSION

    done = subprocess.run(
        [sys.executable, "-m", "envfactory_mcp", "--version"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith(f"envfactory-mcp {__version__} (runtime {RUNTIME_VERSION} sha256:"), line
    assert "\n" not in line


def test_list_piped_keeps_every_name_whole():
    """Not a terminal (``list | cat``): plain columns, nothing cut, a name a user copies into ``serve``."""
    done = subprocess.run(
        [sys.executable, "-m", "envfactory_mcp", "list", "--servers-dir", str(SERVERS_DIR)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "60"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "name",
        "domain",
        "tools",
        "tables",
        "source",
        "emitted",
        "verification",
        "runtime",
    ]
    names = [line.split()[0] for line in lines[1:]]
    listed = json.loads(runner.invoke(app, ["list", "--json", "--servers-dir", str(SERVERS_DIR)]).stdout)
    assert names == [e["name"] for e in listed]
    assert "…" not in done.stdout and "appliance_md_repair" in names
    retail = next(line.split() for line in lines if line.startswith("retail "))
    assert retail[-2:] == ["passed", "current"]


@pytest.mark.slow  # verifies retail in the sandbox (worker processes, a stdio session)
def test_build_writes_a_package_and_list_sees_it(tmp_path: Path):
    result = cli("build", "retail", "--servers-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "built retail" in result.stderr and "verified (" in result.stderr
    assert json.loads(result.stdout)["verified"] is True
    assert (tmp_path / "retail" / "retail_mcp" / "data" / "spec.json").is_file()
    assert (tmp_path / "retail" / "retail_mcp" / "data" / "verification.json").is_file()
    listed = json.loads(runner.invoke(app, ["list", "--json", "--servers-dir", str(tmp_path)]).output)
    assert [(e["name"], e["verification"]) for e in listed if e["emitted"]] == [("retail", "passed")]


def test_list_marks_a_package_edited_after_verification_as_stale(tmp_path: Path):
    shutil.copytree(SERVERS_DIR / "retail", tmp_path / "retail")
    with open(tmp_path / "retail" / "retail_mcp" / "tools.py", "a", encoding="utf-8") as fh:
        fh.write("\n# edited by hand\n")
    listed = json.loads(runner.invoke(app, ["list", "--json", "--servers-dir", str(tmp_path)]).output)
    assert [e["verification"] for e in listed if e["name"] == "retail"] == ["stale"]


@pytest.mark.slow  # verifies twice in the sandbox, once with a stdio session
def test_verify_the_committed_package_exits_zero_with_a_json_report():
    result = runner.invoke(
        app, ["verify", "retail", "--json", "--no-stdio", "--servers-dir", str(SERVERS_DIR)]
    )
    report = json.loads(result.stdout)
    assert (
        report["env"] == "retail"
        and {c["check"]: c["status"] for c in report["environment"]}["stdio"] == "not run"
    )
    assert result.exit_code == 1  # a check that did not run is not a pass
    done = cli("verify", "retail", "--json", "--servers-dir", str(SERVERS_DIR))
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["passed"] is True


@pytest.mark.slow  # verifies in the sandbox
def test_verify_a_broken_package_exits_one_and_names_tool_and_check(tmp_path: Path):
    shutil.copytree(SERVERS_DIR / "retail", tmp_path / "retail")
    tools = tmp_path / "retail" / "retail_mcp" / "tools.py"
    tools.write_text(
        tools.read_text(encoding="utf-8").replace(
            '"first_name": user["first_name"]', '"first_name": user["firstname"]'
        ),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["verify", str(tmp_path / "retail"), "--save"])
    assert result.exit_code == 1
    assert (
        "get_user_details: no_internal_error: Internal error in tool get_user_details: KeyError"
        in result.output
    )
    assert "FAILED" in result.output
    saved = json.loads(
        (tmp_path / "retail" / "retail_mcp" / "data" / "verification.json").read_text(encoding="utf-8")
    )
    assert saved["passed"] is False
    listed = json.loads(runner.invoke(app, ["list", "--json", "--servers-dir", str(tmp_path)]).output)
    assert [e["verification"] for e in listed if e["name"] == "retail"] == ["failed"]


def test_verify_something_unknown_is_a_clear_error(tmp_path: Path):
    result = runner.invoke(app, ["verify", "bakery", "--servers-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "'bakery' is neither a package folder" in result.output and "retail" in result.output


def test_unknown_blueprint_and_unbuilt_server_are_clear_errors(tmp_path: Path):
    result = runner.invoke(app, ["build", "bakery", "--servers-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "unknown blueprint 'bakery'" in result.output and "retail" in result.output
    result = runner.invoke(app, ["serve", "retail", "--servers-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert f"no package 'retail' in {tmp_path}/" in result.output and "--servers-dir" in result.output
    assert "envfactory-mcp build retail" not in result.output  # not into a folder that merely lacks it


@pytest.mark.slow  # verifies, emits and serves over stdio
def test_demo_verifies_emits_serves_and_shows_the_state_diff(tmp_path: Path):
    result = cli("demo", "retail", "--servers-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "verified in the sandbox:" in result.stdout and "every check passed" in result.stdout
    assert "cancel_pending_order" in result.stdout and '"status"' in result.stdout
    assert (tmp_path / "retail" / "retail_mcp" / "data" / "verification.json").is_file()


def test_graph_writes_a_self_contained_html_picture_and_json(tmp_path: Path):
    result = runner.invoke(app, ["graph", "retail", "--format", "html", "-o", str(tmp_path / "g.html")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "g.html").read_text(encoding="utf-8")
    assert "<svg" in page and "cancel_pending_order" in page and "http" not in page
    result = runner.invoke(app, ["graph", "retail", "--format", "json"])
    assert json.loads(result.stdout)["format"] == "envfactory-tool-graph/1"
    assert runner.invoke(app, ["graph", "retail", "--format", "png"]).exit_code == 2  # a usage mistake


@pytest.mark.slow  # generates 20 tasks (seconds of oracle runs)
def test_tasks_writes_jsonl_and_prints_stats(tmp_path: Path):
    result = runner.invoke(
        app, ["tasks", "retail", "--n", "20", "--seed", "2", "-o", str(tmp_path / "t.jsonl"), "--stats"]
    )
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 20 and json.loads(lines[0])["env"] == "retail"
    assert '"leakage_after_calibration": 0.0' in result.output


@pytest.fixture(scope="module")
def pipeline_out(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One pipeline run (12 tasks) shared by the tests that read its output."""
    root = tmp_path_factory.mktemp("pipeline")
    result = cli(
        "pipeline", "retail", "-o", str(root / "out"), "--n", "12", "--servers-dir", str(root / "servers")
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return root / "out", result.stdout + result.stderr


@pytest.mark.slow  # the pipeline: build, verify, tasks, three rollouts
def test_pipeline_builds_verifies_makes_tasks_and_rolls_out_the_scripted_agents(
    pipeline_out: tuple[Path, str],
):
    out, output = pipeline_out
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["verification"]["passed"] is True and summary["tasks"]["tasks"] == 12
    assert summary["runs"]["demonstrator"]["mean_reward"] == 1.0
    assert summary["runs"]["oracle"]["mean_reward"] == 1.0
    assert summary["runs"]["noop"]["mean_reward"] == 0.0
    assert [run["harness_failures"]["total"] for run in summary["runs"].values()] == [0, 0, 0]
    assert "warning:" not in output
    assert len((out / "runs" / "oracle" / "trajectories.jsonl").read_text().splitlines()) == 12


@pytest.mark.slow  # verifies the imported package in the sandbox, then generates tasks
def test_synthesize_imports_a_resource_and_the_result_is_a_usable_environment(tmp_path: Path):
    resource = Path(__file__).resolve().parents[2] / "examples" / "openapi" / "todo.yaml"
    result = cli("synthesize", "--resource", str(resource), "-o", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    (made,) = json.loads(result.stdout)
    assert made["status"] == "emitted" and made["failures"] == []
    listed = json.loads(runner.invoke(app, ["list", "--json", "--servers-dir", str(tmp_path)]).output)
    assert [e["verification"] for e in listed if e["name"] == made["name"]] == ["passed"]
    out = tmp_path / "tasks.jsonl"
    tasks = runner.invoke(
        app, ["tasks", made["name"], "--n", "5", "-o", str(out), "--servers-dir", str(tmp_path)]
    )
    assert tasks.exit_code == 0, tasks.output
    assert len(out.read_text(encoding="utf-8").splitlines()) == 5


def test_synthesize_from_a_description_needs_a_model(tmp_path: Path):
    result = runner.invoke(app, ["synthesize", "--description", "a bakery", "-o", str(tmp_path)])
    assert result.exit_code == 2 and "needs a model" in result.output


@pytest.mark.slow  # reads the module's pipeline run
def test_view_writes_a_page_for_a_run_and_refuses_a_folder_that_is_not_one(
    pipeline_out: tuple[Path, str], tmp_path: Path
):
    out, _ = pipeline_out
    result = runner.invoke(app, ["view", str(out / "runs" / "oracle"), "-o", str(tmp_path / "run.html")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "run.html").read_text(encoding="utf-8")
    assert "user_stop" in page and "http://" not in page
    bad = runner.invoke(app, ["view", str(tmp_path), "-o", str(tmp_path / "x.html")])
    assert bad.exit_code == 1 and "not a run directory" in bad.output


@pytest.mark.slow  # reads the module's pipeline run
def test_export_writes_a_training_dataset_with_the_policy_as_system_prompt(
    pipeline_out: tuple[Path, str], tmp_path: Path
):
    out, _ = pipeline_out
    # The demonstrator's episodes are grounded and follow the policy: all of them are kept.
    result = runner.invoke(
        app,
        [
            "export",
            str(out / "runs" / "demonstrator"),
            "--format",
            "openai",
            "-o",
            str(tmp_path / "sft.jsonl"),
        ],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12 and rows[0]["messages"][0]["role"] == "system" and rows[0]["tools"]
    # The gold-replaying oracle types values nobody gave: its episodes are left out unless
    # asked for (the filter itself: tests/trajectories/test_export.py).
    oracle = runner.invoke(
        app, ["export", str(out / "runs" / "oracle"), "-o", str(tmp_path / "oracle.jsonl")]
    )
    assert (
        oracle.exit_code == 0
        and len((tmp_path / "oracle.jsonl").read_text(encoding="utf-8").splitlines()) < 12
    )
    noop = runner.invoke(app, ["export", str(out / "runs" / "noop"), "-o", str(tmp_path / "none.jsonl")])
    assert noop.exit_code == 0 and (tmp_path / "none.jsonl").read_text(encoding="utf-8") == ""
