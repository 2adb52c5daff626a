"""Issue 17: runs that recover and options that match, through the real CLI.

A rollout started before its package existed ends in harness failures; after the package
is there, ``--retry-failed`` scores every episode once. Run metadata holds absolute paths
(export, rescore and view work from anywhere); a configuration mismatch names the fields
and ``--force-new`` moves the old run aside; outputs are not overwritten without
``--overwrite``; ``pipeline`` refuses a folder before writing to it; task subsets,
``--max-errors``, ``--agent-args`` and ``view --failures``; Ctrl-C exits 130 with one line
and the rerun resumes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import openai_server
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.records.store import read_records
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.tasks.model import Task, write_tasks

runner = CliRunner()


def run(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def error_line(output: str) -> str:
    (line,) = [line for line in output.splitlines() if line.startswith("error:")]
    return line


def lines(run_dir: Path) -> list[TrajectoryRecord]:
    text = (run_dir / "trajectories.jsonl").read_text(encoding="utf-8")
    return [TrajectoryRecord.model_validate_json(line) for line in text.splitlines()]


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(6, seed=5)


@pytest.fixture
def tasks_file(tasks: list[Task], tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    write_tasks(tasks[:3], path)
    return path


def rollout(tasks_path: Path, run_dir: Path, *extra: str, servers: Path = SERVERS_DIR) -> tuple[int, str]:
    return run("rollout", "retail", "--tasks", tasks_path, "-o", run_dir, "--servers-dir", servers, *extra)


# ---------------------------------------------------------------- the acceptance test


@pytest.mark.slow
def test_a_rollout_before_build_is_retried_after_it_and_every_episode_ends_scored_once(
    tasks_file: Path, tmp_path: Path
):
    servers = tmp_path / "servers"
    servers.mkdir()  # no package yet: every episode is a harness failure
    run_dir = tmp_path / "run"
    code, output = rollout(tasks_file, run_dir, "--trials", "2", servers=servers)
    assert code == 1 and "--retry-failed" in error_line(output)
    assert output.strip().splitlines()[-1].startswith(f"run: {run_dir}/")
    first = lines(run_dir)
    assert len(first) == 6 and {r.termination for r in first} == {"infrastructure_error"}
    assert all(r.reward is None for r in first)  # never scored
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert (summary["scored"], summary["harness_failures"]["total"]) == (0, 6)

    # A plain resume does not redo them: they are recorded.
    shutil.copytree(SERVERS_DIR / "retail", servers / "retail")  # "build"
    code, _ = rollout(tasks_file, run_dir, "--trials", "2", servers=servers)
    assert code == 1 and len(lines(run_dir)) == 6

    code, output = rollout(tasks_file, run_dir, "--trials", "2", "--retry-failed", servers=servers)
    assert code == 0, output
    assert len(lines(run_dir)) == 12  # appended after the failures, which stay as history
    records = read_records(run_dir)
    assert len(records) == 6 and len({r.key for r in records}) == 6
    assert all(not r.excluded and r.reward == 1.0 for r in records)
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["episodes"] == 6 and summary["scored"] == 6 and summary["harness_failures"]["total"] == 0
    assert summary["mean_reward"] == 1.0

    # Nothing left to retry; rescoring keeps one scored record per episode.
    code, _ = rollout(tasks_file, run_dir, "--trials", "2", "--retry-failed", servers=servers)
    assert code == 0 and len(lines(run_dir)) == 12
    code, output = run("rescore", run_dir)
    assert code == 0 and "rescored:" in output.strip().splitlines()[-1]
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert (summary["episodes"], summary["scored"]) == (6, 6)


# ---------------------------------------------------------------- paths, mismatches


@pytest.mark.slow
def test_metadata_paths_are_absolute_so_export_and_rescore_work_from_another_directory(
    tasks: list[Task], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    project = tmp_path / "project"
    project.mkdir()
    write_tasks(tasks[:2], project / "tasks.jsonl")
    monkeypatch.chdir(project)
    code, output = run("rollout", "retail", "--tasks", "tasks.jsonl", "-o", "runs/demo",
                       "--servers-dir", SERVERS_DIR, "--transport", "memory")  # fmt: skip
    assert code == 0, output
    metadata = json.loads((project / "runs/demo/metadata.json").read_text(encoding="utf-8"))
    assert metadata["tasks_path"] == str(project / "tasks.jsonl")
    assert Path(metadata["servers_dir"]).is_absolute()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, output = run("export", project / "runs/demo", "-o", "sft.jsonl")
    assert code == 0, output
    rows = [json.loads(line) for line in (elsewhere / "sft.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and rows[0]["messages"][0]["role"] == "system"
    code, output = run("rescore", project / "runs/demo")
    assert code == 0, output


def test_a_run_from_before_absolute_paths_still_resumes(
    tasks_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run_dir = tmp_path / "run"
    assert rollout(tasks_file, run_dir, "--transport", "memory", "--num-tasks", "1")[0] == 0
    metadata_path = run_dir / "metadata.json"
    metadata = json.loads(metadata_path.read_text())
    metadata["servers_dir"], metadata["tasks_path"] = (
        "generated_servers",
        "tasks.jsonl",
    )  # as older runs stored
    metadata_path.write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    monkeypatch.chdir(SERVERS_DIR.parent)
    code, output = rollout(tasks_file, run_dir, "--transport", "memory")
    assert code == 0, output
    assert len(lines(run_dir)) == 3 and json.loads(metadata_path.read_text()) == metadata  # never rewritten


def test_a_configuration_mismatch_names_the_fields_and_force_new_moves_the_old_run_aside(
    tasks_file: Path, tmp_path: Path
):
    run_dir = tmp_path / "run"
    assert rollout(tasks_file, run_dir, "--transport", "memory", "--agent", "oracle")[0] == 0
    code, output = rollout(
        tasks_file, run_dir, "--transport", "memory", "--agent", "noop", "--max-steps", "9"
    )
    line = error_line(output)
    assert (
        code == 1 and 'agent (stored "oracle", now "noop")' in line and "max_steps (stored 30, now 9)" in line
    )
    assert "--force-new" in line
    code, output = rollout(tasks_file, run_dir, "--transport", "memory", "--agent", "noop", "--force-new")
    assert code == 0, output
    (old,) = [p for p in tmp_path.iterdir() if p.name.startswith("run.replaced-")]
    assert json.loads((old / "metadata.json").read_text())["agent"] == "oracle"
    assert len(lines(old)) == 3
    assert json.loads((run_dir / "metadata.json").read_text())["agent"] == "noop"


# ---------------------------------------------------------------- subsets and options


def test_task_subsets(tasks: list[Task], tasks_file: Path, tmp_path: Path):
    ids = [t.task_id for t in tasks[:3]]
    run_dir = tmp_path / "run"
    code, output = rollout(tasks_file, run_dir, "--transport", "memory", "--task-ids", f"{ids[0]},{ids[2]}")
    assert code == 0, output
    assert {r.task_id for r in lines(run_dir)} == {ids[0], ids[2]}
    # A run may grow by a wider subset: only the new episode runs.
    code, output = rollout(tasks_file, run_dir, "--transport", "memory", "--num-tasks", "2")
    assert code == 0, output
    assert sorted(r.task_id for r in lines(run_dir)) == sorted([ids[0], ids[1], ids[2]])
    code, output = rollout(tasks_file, tmp_path / "other", "--transport", "memory", "--task-ids", "nope")
    assert code == 1 and "--task-ids: nope not in" in error_line(output)
    assert not (tmp_path / "other").exists()
    code, output = rollout(tasks_file, tmp_path / "other", "--num-tasks", "0")
    assert code == 2 and "--num-tasks" in output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--agent", "llm", "--agent-model", "openai/x", "--agent-args", '{"temperature": 0'], "--agent-args: not valid JSON"),
        (["--agent", "llm", "--agent-model", "openai/x", "--agent-args", "[0]"], "--agent-args: expected a JSON object"),
        (["--agent", "llm", "--agent-model", "openai/x", "--agent-args", '{"model": "y"}'], "model are set by the host"),
        (["--agent-args", '{"temperature": 0}'], "--agent-args apply to an llm agent only"),
        (["--user-args", '{"temperature": 0}'], "--user-args apply to an llm user only"),
        (["--agent", "llm", "--agent-model", "openai/x", "--temperature", "0.1", "--agent-args",
          '{"temperature": 0}'], "give one"),
        (["--transport", "streamable-http"], "--transport streamable-http needs --url retail=URL"),
        (["--transport", "http"], "--transport streamable-http needs --url retail=URL"),  # the old spelling
        (["--transport", "carrier-pigeon"], "Invalid value for '--transport'"),
        (["--max-errors", "0"], "--max-errors"),
    ],
)  # fmt: skip
def test_option_mistakes_are_usage_errors_and_leave_no_run(tasks_file: Path, tmp_path: Path, args, says):
    code, output = rollout(tasks_file, tmp_path / "run", *args)
    assert code == 2 and says in output, output
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_agent_args_reach_the_request_and_max_errors_ends_the_episode(tasks: list[Task], tmp_path: Path):
    path = tmp_path / "one.jsonl"
    write_tasks(tasks[:1], path)
    bad_call = {"tool_calls": [{"name": "no_such_tool", "arguments": "{}"}]}
    with openai_server([bad_call, bad_call, bad_call]) as agent:
        code, output = rollout(path, tmp_path / "run", "--transport", "memory", "--agent", "llm",
                               "--agent-model", "openai/agent", "--agent-api-base", agent.base_url,
                               "--agent-args", '{"top_p": 0.5, "temperature": 0}', "--max-errors", "2")  # fmt: skip
        bodies = list(agent.requests)
    assert code == 0, output
    assert (bodies[0]["top_p"], bodies[0]["temperature"]) == (0.5, 0)
    (record,) = lines(tmp_path / "run")
    assert record.termination == "too_many_errors" and "2 tool errors" in record.termination_detail
    assert len(bodies) == 2
    metadata = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert metadata["agent_args"] == {"top_p": 0.5, "temperature": 0} and metadata["max_errors"] == 2


def test_view_failures_shows_only_the_episodes_below_1(tasks_file: Path, tasks: list[Task], tmp_path: Path):
    noop, oracle = tmp_path / "noop", tmp_path / "oracle"
    assert rollout(tasks_file, noop, "--transport", "memory", "--agent", "noop")[0] == 0
    assert rollout(tasks_file, oracle, "--transport", "memory", "--agent", "oracle")[0] == 0
    code, output = run("view", noop, "--failures", "-o", tmp_path / "noop.html")
    assert code == 0 and output.strip().splitlines()[-1] == f"wrote {tmp_path / 'noop.html'} (failures only)"
    page = (tmp_path / "noop.html").read_text(encoding="utf-8")
    assert "3 failures" in page and all(t.task_id in page for t in tasks[:3])
    assert run("view", oracle, "--failures", "-o", tmp_path / "oracle.html")[0] == 0
    page = (tmp_path / "oracle.html").read_text(encoding="utf-8")
    assert "0 failures" in page and not any(f"<td>{t.task_id}</td>" in page for t in tasks[:3])


def test_view_and_export_do_not_overwrite_without_overwrite(tasks_file: Path, tmp_path: Path):
    run_dir = tmp_path / "noop"
    assert rollout(tasks_file, run_dir, "--transport", "memory", "--agent", "noop")[0] == 0
    for command, name in (("view", "page.html"), ("export", "sft.jsonl")):
        out = tmp_path / name
        out.write_text("mine\n", encoding="utf-8")
        extra = ["--min-reward", "-1"] if command == "export" else []
        code, output = run(command, run_dir, "-o", out, *extra)
        assert (
            code == 1
            and error_line(output)
            == f"error: -o {out}: exists; add --overwrite to replace it, or choose another -o"
        )
        assert out.read_text() == "mine\n"
        assert run(command, run_dir, "-o", out, *extra, "--overwrite")[0] == 0
        assert out.read_text() != "mine\n"
        code, output = run(command, run_dir, "-o", tmp_path, "--overwrite")
        assert code == 1 and "a folder; -o names the file to write" in error_line(output)


# ---------------------------------------------------------------- never overwrite


@pytest.mark.slow
def test_tasks_does_not_overwrite_without_overwrite(tmp_path: Path):
    out = tmp_path / "t.jsonl"
    out.write_text("mine\n", encoding="utf-8")
    code, output = run("tasks", "retail", "-n", "2", "-o", out, "--servers-dir", SERVERS_DIR)
    assert code == 1 and f"-o {out}: exists; add --overwrite" in error_line(output)
    assert out.read_text() == "mine\n"
    code, output = run("tasks", "retail", "-n", "2", "-o", out, "--overwrite", "--servers-dir", SERVERS_DIR)
    assert code == 0 and len(out.read_text().splitlines()) == 2
    assert output.strip().splitlines()[-1] == f"wrote 2 tasks to {out}"
    # --model is the option's name; --calibrate (its old name) is still accepted.
    code, output = run("tasks", "retail", "-n", "1", "-o", tmp_path / "u.jsonl", "--calibrate", "offline",
                       "--servers-dir", SERVERS_DIR)  # fmt: skip
    assert code == 0, output


@pytest.mark.slow
def test_synthesize_does_not_replace_a_package_without_overwrite(tmp_path: Path):
    resource = Path(__file__).resolve().parents[2] / "examples" / "openapi" / "todo.yaml"
    result = runner.invoke(app, ["synthesize", "--resource", str(resource), "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (made,) = json.loads(result.stdout)
    package = Path(made["package"])
    stamp = (
        (package.parent / "README.md").stat().st_mtime_ns if (package.parent / "README.md").exists() else None
    )
    code, output = run("synthesize", "--resource", resource, "--servers-dir", tmp_path)  # -o's other name
    assert code == 1 and "add --overwrite to replace it" in output and "Traceback" not in output
    if stamp is not None:
        assert (package.parent / "README.md").stat().st_mtime_ns == stamp
    result = runner.invoke(
        app, ["synthesize", "--resource", str(resource), "-o", str(tmp_path), "--overwrite"]
    )
    assert result.exit_code == 0, result.output
    assert "1 of 1 packages written to" in result.output


# ---------------------------------------------------------------- pipeline checks before it writes


def test_pipeline_refuses_a_folder_of_other_outputs_before_writing(tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    servers = tmp_path / "servers"
    code, output = run("pipeline", "retail", "-o", out, "-n", "3", "--servers-dir", servers)
    assert (
        code == 1 and "holds no pipeline.json" in error_line(output) and "--overwrite" in error_line(output)
    )
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"] and not servers.exists()
    (out / "notes.txt").unlink()
    theirs = {"env": "retail", "n_tasks": 12, "seed": 0, "trials": 1, "max_errors": 5,
              "agents": ["demonstrator", "oracle", "noop"]}  # fmt: skip
    (out / "pipeline.json").write_text(json.dumps(theirs), encoding="utf-8")
    (out / "tasks.jsonl").write_text("theirs\n", encoding="utf-8")
    code, output = run("pipeline", "retail", "-o", out, "-n", "3", "--servers-dir", servers)
    assert code == 1 and "n_tasks (stored 12, now 3)" in error_line(output)
    assert (out / "tasks.jsonl").read_text() == "theirs\n" and not servers.exists()
    (tmp_path / "file").write_text("x")
    code, output = run("pipeline", "retail", "-o", tmp_path / "file", "--servers-dir", servers)
    assert code == 1 and "a file, not a folder" in error_line(output)


@pytest.mark.slow
def test_pipeline_resumes_names_its_stages_and_overwrites_only_when_asked(tmp_path: Path):
    from envfactory_mcp.pipeline import PipelineOptions, run_pipeline
    from envfactory_mcp.settings import Settings

    out, servers = tmp_path / "out", tmp_path / "servers"
    stages: list[tuple[str, int, int | None]] = []
    run_pipeline(Settings(servers_dir=servers), "retail", out, PipelineOptions(n_tasks=3),
                 progress=lambda *event: stages.append(event))  # fmt: skip
    labels = list(dict.fromkeys(label for label, _, _ in stages))
    assert labels == [
        "building and verifying retail", "generating 3 tasks",
        "rollout demonstrator", "rollout oracle", "rollout noop",
    ]  # fmt: skip
    assert ("generating 3 tasks", 3, 3) in stages and ("rollout noop", 3, 3) in stages
    tasks_before = (out / "tasks.jsonl").read_bytes()
    # The same command again: everything is there, nothing is redone or rewritten differently.
    code, output = run("pipeline", "retail", "-o", out, "-n", "3", "--servers-dir", servers)
    assert code == 0, output
    assert (out / "tasks.jsonl").read_bytes() == tasks_before
    assert len((out / "runs" / "oracle" / "trajectories.jsonl").read_text().splitlines()) == 3
    assert output.strip().splitlines()[-1].startswith(f"outputs: {out}/")
    # Other options: refused before anything is written, then replaced with --overwrite.
    code, output = run("pipeline", "retail", "-o", out, "-n", "4", "--servers-dir", servers)
    assert code == 1 and "n_tasks (stored 3, now 4)" in error_line(output)
    assert (out / "tasks.jsonl").read_bytes() == tasks_before
    code, output = run("pipeline", "retail", "-o", out, "-n", "4", "--overwrite", "--servers-dir", servers)
    assert code == 0, output
    assert len((out / "tasks.jsonl").read_text().splitlines()) == 4
    assert len((out / "runs" / "oracle" / "trajectories.jsonl").read_text().splitlines()) == 4


# ---------------------------------------------------------------- Ctrl-C


def interrupt_when(process: subprocess.Popen[str], path: Path, timeout: float = 120) -> str:
    """Ctrl-C as a terminal sends it (SIGINT to the whole process group, the servers too)
    once ``path`` has content; returns stderr."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not (path.exists() and path.stat().st_size > 0):
        if process.poll() is not None:  # it ended before there was anything to interrupt
            return process.communicate()[1]
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    return stderr


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "envfactory_mcp", *args]


@pytest.mark.slow
def test_ctrl_c_exits_130_with_one_line_and_the_rerun_resumes(tasks: list[Task], tmp_path: Path):
    path = tmp_path / "tasks.jsonl"
    write_tasks(tasks, path)
    run_dir = tmp_path / "run"
    command = cli("rollout", "retail", "--tasks", str(path), "-o", str(run_dir), "--servers-dir",
                  str(SERVERS_DIR), "--trials", "40", "--concurrency", "2")  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)  # fmt: skip
    stderr = interrupt_when(process, run_dir / "trajectories.jsonl")
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == "interrupted; rerun the same command to resume"
    assert "Traceback" not in stderr
    recorded = lines(run_dir)
    assert 0 < len(recorded) < 240
    assert all(not r.excluded for r in recorded)  # the servers got the signal too: nothing recorded as lost
    finished = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr
    keys = [r.key for r in lines(run_dir)]
    assert len(keys) == 240 == len(set(keys))


@pytest.mark.slow
def test_ctrl_c_during_the_pipelines_rollouts_exits_130_and_the_rerun_completes(tmp_path: Path):
    out = tmp_path / "out"
    command = cli("pipeline", "retail", "-o", str(out), "-n", "6", "--trials", "20",
                  "--servers-dir", str(tmp_path / "servers"))  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)  # fmt: skip
    stderr = interrupt_when(process, out / "runs" / "demonstrator" / "trajectories.jsonl")
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert stderr.strip().splitlines()[-1] == "interrupted; rerun the same command to resume"
    assert not (out / "summary.json").exists()
    finished = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr
    for agent in ("demonstrator", "oracle", "noop"):
        keys = [r.key for r in lines(out / "runs" / agent)]
        assert len(keys) == 120 == len(set(keys)), agent
