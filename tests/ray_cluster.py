"""A one-node Ray cluster on 127.0.0.1 for the tests of ``--backend ray`` (``ray start
--head``), its address, and the environment its drivers need (Ray's token auth, a token
of the cluster's own)."""

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

NO_RAY = "the ray extra is not installed: pip install -e '.[test,ray]'"

# The cluster, its probe and the drivers share a token of their own (Ray's token auth).
RAY_ENV = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def ray_cluster(cpus: int = 2) -> Iterator[str]:
    """Start a cluster of ``cpus`` CPUs; yield its address; end its process group (which
    this started) at the end."""
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
            f"--num-cpus={cpus}",
            "--include-dashboard=false",
            f"--temp-dir={temp}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=RAY_ENV,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            probe = subprocess.run(
                [str(ray_cli), "status", f"--address={address}"],
                capture_output=True,
                check=False,
                env=RAY_ENV,
            )
            if probe.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the local Ray cluster did not start in 60 s")
            time.sleep(0.5)
        yield address
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)


def actor_processes(class_name: str) -> list[int]:
    """The pids of live Ray actor processes of ``class_name`` on this machine (Ray titles
    them ``ray::<class>`` / ``ray::<class>.<method>``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if argv.startswith(f"ray::{class_name}"):
            found.append(int(entry.name))
    return found
