"""Any three library servers (issue 28): `eval --envs` builds and runs over them; the
oracle covers every claim, noop none, coin-flip in between; prompts name no tool or field;
every task has 2 to 6 claims; a run killed halfway (SIGKILL) resumes without duplicates."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from envfactory_mcp.catalog import environment_spec
from envfactory_mcp.cli import app
from envfactory_mcp.eval.compose import MAX_CLAIMS, MIN_CLAIMS, read_eval_set
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR
from envfactory_mcp.tasks.naturalness import names_tool_or_field, spec_vocabulary

ENVS = "citycab_business_account,coastline_car_rental,cyclecity_bike_share"


def _eval(*args: str) -> str:
    done = CliRunner().invoke(app, ["eval", *args])
    assert done.exit_code == 0, done.output
    return done.output


def test_three_library_servers_build_and_run(tmp_path: Path) -> None:
    first = tmp_path / "oracle"
    output = _eval("--envs", ENVS, "-n", "9", "-o", str(first))
    # These three share no entity: no id crosses, but dates read on one fit tools of another.
    built = read_eval_set(first / "eval_set.jsonl")
    counts = {kind: sum(1 for t in built if t.kind == kind) for kind in ("single", "chain", "flow")}
    assert counts["flow"] >= 3 and counts["chain"] == 0 and sum(counts.values()) == 9
    assert (
        f"built 9 tasks over 3 servers: {counts['single']} on one server with the others offered as"
        f" distractors, 0 shared-entity chains"
    ) in output and f"{counts['flow']} value-flow chains" in output
    summary = json.loads((first / "results.json").read_text())["summary"]
    assert (
        summary["coverage"] == 1.0 and summary["pass_rate@0.75"] == 1.0 and summary["harness_failures"] == 0
    )
    assert set(summary["per_server"]) == set(ENVS.split(","))
    tasks = read_eval_set(first / "eval_set.jsonl")
    # Every offered server's tools and fields: a distractor's field said in words names it too.
    tools: set[str] = set()
    fields: set[str] = set()
    for name in ENVS.split(","):
        spec = environment_spec(DEFAULT_SERVERS_DIR, name)
        assert spec is not None
        tools |= spec_vocabulary(spec)[0]
        fields |= spec_vocabulary(spec)[1]
    for task in tasks:
        assert task.offered[0] == task.task.env and set(task.offered) == set(ENVS.split(","))
        assert MIN_CLAIMS <= len(task.claims) <= MAX_CLAIMS
        message = task.task.user_scenario.opening_message
        assert not names_tool_or_field(message, tools, fields), message
        assert not re.search(r"\bthen\b", message, re.IGNORECASE), message
    for agent, low, high in (("noop", 0.0, 0.0), ("coinflip", 0.01, 0.99)):
        out = tmp_path / agent
        _eval("--envs", ENVS, "--agent", agent, "--tasks", str(first / "eval_set.jsonl"), "-o", str(out))
        other = json.loads((out / "results.json").read_text())["summary"]
        assert low <= other["coverage"] <= high and other["eval_set_sha256"] == summary["eval_set_sha256"]
    side = CliRunner().invoke(app, ["eval-compare", str(first), str(tmp_path / "noop")])
    assert side.exit_code == 0 and "passed by both 0, only the first 9" in side.output, side.output


@pytest.mark.slow
def test_killed_halfway_a_rerun_resumes_without_duplicates(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["eval", "--envs", ENVS, "-n", "16", "--concurrency", "1", "--transport", "stdio", "-o", str(out)]
    command = [sys.executable, "-c", "from envfactory_mcp.cli import app; app()", *args]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    trajectories = out / "trajectories.jsonl"
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if trajectories.is_file() and trajectories.read_bytes().count(b"\n") >= 3:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    total = (out / "tasks.jsonl").read_bytes().count(b"\n")
    before = trajectories.read_bytes().count(b"\n")
    assert 3 <= before < total
    _eval(*args[1:])
    keys = [(r["task_id"], r["trial"]) for r in map(json.loads, trajectories.read_text().splitlines())]
    assert len(keys) == len(set(keys)) == total
    results = json.loads((out / "results.json").read_text())
    assert len(results["episodes"]) == total and results["summary"]["coverage"] == 1.0
