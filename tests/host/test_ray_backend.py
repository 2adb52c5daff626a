"""``rollout --backend ray`` on a local Ray cluster (``ray start --head`` on 127.0.0.1):
200 scripted episodes, the driver killed with SIGKILL halfway, resumed; every (task,
trial) is recorded exactly once, with the records of the local backend (timings aside).
Needs the ``ray`` extra (``pip install -e '.[test,ray]'``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from paths import ROOT, SERVERS_DIR
from ray_cluster import NO_RAY, RAY_ENV, ray_cluster

from envfactory_mcp.host.config import ConfigError
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.store import read_records
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.tasks.model import write_tasks

TASKS, TRIALS = 25, 8  # 200 episodes


def test_an_unknown_backend_is_refused_before_any_run_directory_exists(tmp_path: Path):
    (tmp_path / "tasks.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="backend 'spark': choose one of local, ray"):
        RolloutConfig(
            envs=["retail"],
            tasks_path=str(tmp_path / "tasks.jsonl"),
            servers_dir=str(SERVERS_DIR),
            backend="spark",  # type: ignore[arg-type]  # not a backend, on purpose
        )
    assert not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A one-node Ray cluster on 127.0.0.1 (``ray start --head``), ended at the end."""
    pytest.importorskip("ray", reason=NO_RAY)
    with ray_cluster() as address:
        yield address


def comparable(record: TrajectoryRecord) -> dict[str, object]:
    return record.model_dump(exclude={"timings"})


@pytest.mark.slow
def test_ray_backend_killed_halfway_resumes_with_the_local_backends_records(
    retail_tasks, cluster: str, tmp_path: Path
):
    tasks = retail_tasks(TASKS, seed=21)
    path = tmp_path / "tasks.jsonl"
    write_tasks(tasks, path)
    command = [
        sys.executable,
        "-m",
        "envfactory_mcp",
        "rollout",
        "retail",
        "--tasks",
        str(path),
        "-o",
        str(tmp_path / "ray" / "run"),
        "--agent",
        "oracle",
        "--trials",
        str(TRIALS),
        "--concurrency",
        "8",
        "--transport",
        "memory",
        "--servers-dir",
        str(SERVERS_DIR),
        "--backend",
        "ray",
        "--address",
        cluster,
    ]
    log = tmp_path / "ray" / "run" / "trajectories.jsonl"
    driver = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=RAY_ENV,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and driver.poll() is None:
        if log.is_file() and len(log.read_bytes().splitlines()) >= 60:
            break
        time.sleep(0.02)
    assert driver.poll() is None, (driver.stderr.read() if driver.stderr else b"")[-2000:]
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    if driver.stderr is not None:
        driver.stderr.close()  # read above only on failure; closed, not left to the GC
    partial = len(log.read_bytes().splitlines())
    assert 60 <= partial < TASKS * TRIALS
    resumed = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False, env=RAY_ENV
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]

    done = read_records(tmp_path / "ray" / "run")
    keys = [(r.task_id, r.trial) for r in done]
    assert len(keys) == len(set(keys)) == TASKS * TRIALS

    local = RolloutConfig(
        envs=["retail"],
        tasks_path=str(path),
        servers_dir=str(SERVERS_DIR),
        transport="memory",
        agent="oracle",
        trials=TRIALS,
        concurrency=8,
    )
    anyio.run(rollout, local, tmp_path / "local" / "run")
    reference = {(r.task_id, r.trial): r for r in read_records(tmp_path / "local" / "run")}
    assert reference.keys() == set(keys)
    for record in done:
        assert record.reward == 1.0, (record.task_id, record.termination_detail)
        assert comparable(record) == comparable(reference[(record.task_id, record.trial)])
