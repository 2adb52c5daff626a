"""``rollout --backend ray`` on a local Ray cluster (``ray start --head`` on 127.0.0.1):
200 scripted episodes, the driver killed with SIGKILL halfway, resumed; every (task,
trial) is recorded exactly once, with the records of the local backend (timings aside).
Needs the ``ray`` extra (``pip install -e '.[test,ray]'``)."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import pytest
from paths import ROOT, SERVERS_DIR

from envfactory_mcp.env import Environment
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import write_tasks
from envfactory_mcp.trajectories.record import TrajectoryRecord
from envfactory_mcp.trajectories.store import read_records

NO_RAY = "the ray extra is not installed: pip install -e '.[test,ray]'"

TASKS, TRIALS = 25, 8  # 200 episodes


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# The cluster, its probe and the drivers share a token of their own (Ray's token auth).
RAY_ENV = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


def test_an_unknown_backend_is_refused_before_any_run_directory_exists(tmp_path: Path):
    (tmp_path / "tasks.jsonl").write_text("", encoding="utf-8")
    config = RolloutConfig(
        envs=["retail"],
        tasks_path=str(tmp_path / "tasks.jsonl"),
        servers_dir=str(SERVERS_DIR),
        backend="spark",
    )
    with pytest.raises(EnvFactoryError, match="unknown backend 'spark'"):
        anyio.run(rollout, config, tmp_path / "run")
    assert not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def cluster() -> object:
    """A one-node Ray cluster on 127.0.0.1, ended (its process group, which we started)
    at the end."""
    pytest.importorskip("ray", reason=NO_RAY)
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths are bounded
    beside = Path(sys.executable).with_name("ray")
    ray_cli = beside if beside.is_file() else Path(shutil.which("ray") or "ray")
    head = subprocess.Popen(
        [
            str(ray_cli),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--node-ip-address=127.0.0.1",
            "--num-cpus=2",
            "--include-dashboard=false",
            f"--temp-dir={temp}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=RAY_ENV,
    )
    address = f"127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        probe = subprocess.run(
            [str(ray_cli), "status", f"--address={address}"], capture_output=True, check=False, env=RAY_ENV
        )
        if probe.returncode == 0:
            break
        time.sleep(0.5)
    else:
        os.killpg(head.pid, signal.SIGKILL)
        pytest.fail("the local Ray cluster did not start in 60 s")
    try:
        yield address
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)


def comparable(record: TrajectoryRecord) -> dict[str, object]:
    return record.model_dump(exclude={"timings"})


@pytest.mark.slow
def test_ray_backend_killed_halfway_resumes_with_the_local_backends_records(
    retail_env: Environment, cluster: str, tmp_path: Path
):
    tasks, _ = generate_tasks(retail_env, TASKS, seed=21)
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
