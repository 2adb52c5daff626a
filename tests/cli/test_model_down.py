"""A model endpoint that is down is the model's failure, fast, at any concurrency (issue 33).

The issue's run: ``rollout retail --agent llm --agent-model openai/x --agent-api-base
http://127.0.0.1:<closed port>/v1 --num-tasks 3`` at the default concurrency took 3 min 11 s
and blamed the MCP server (``infrastructure_error``, ``control.state: TimeoutError``). Here
the same command runs as a user runs it (a child process, the default stdio transport and
concurrency): every record is ``model_unavailable`` with the refused connection named after
one attempt, and the run's work (its CPU time) stays far below the acceptance's minute: the
wall time is the machine's load, not the run's (issue 30).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from llm_server import down_base_url
from paths import SERVERS_DIR

from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.settings import CONCURRENCY
from envfactory_mcp.tasks.model import write_tasks

pytestmark = pytest.mark.slow  # a real rollout over stdio in a child process


def test_a_closed_port_at_the_default_concurrency_is_model_unavailable_within_a_minute(
    retail_tasks, tmp_path: Path
):
    tasks = tmp_path / "tasks.jsonl"
    write_tasks(retail_tasks(5, seed=0), tasks)
    run = tmp_path / "run"
    args = [
        "rollout", "retail", "--tasks", str(tasks), "-o", str(run), "--num-tasks", "3",
        "--agent", "llm", "--agent-model", "openai/x", "--agent-api-base", down_base_url(),
        "--servers-dir", str(SERVERS_DIR),
    ]  # fmt: skip
    assert CONCURRENCY >= 3  # the three episodes run at once, as in the issue
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "envfactory_mcp", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,  # a far backstop; the bound the issue sets is asserted below
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    lines = (run / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    records = [TrajectoryRecord.model_validate_json(line) for line in lines]
    assert [r.termination for r in records] == ["model_unavailable"] * 3, (
        [r.termination_detail for r in records],
        done.stderr[-3000:],
    )
    assert all(r.reward is None for r in records)
    # Refused, so not retried: one attempt each, the connection named.
    assert all(
        "agent's model" in r.termination_detail and "(connection) after 1 attempt" in r.termination_detail
        for r in records
    ), [r.termination_detail for r in records]
    # The model is blamed, by its refused connection; nothing mentions the server timing out.
    assert "infrastructure_error" not in done.stderr
    assert not any(
        "server 'retail'" in r.termination_detail or "control." in r.termination_detail for r in records
    )
    assert "(model_unavailable: 3)" in done.stderr
    by_reason = json.loads(done.stdout)["harness_failures"]["by_reason"]
    assert {reason: n for reason, n in by_reason.items() if n} == {"model_unavailable": 3}
    assert done.returncode == 1  # every episode unscored: above the harness-failure threshold
    # "Within a minute" as work, not wall time (the machine may be busy): one attempt each
    # (above) and the run's own CPU time, server start-up included, far below a minute.
    assert cpu <= 30, f"the run used {cpu:.1f} s of CPU"
