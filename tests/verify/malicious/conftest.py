"""The traps both malicious-variant suites set on the host (see ``witnesses.py``)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from witnesses import CANARY, CANARY_SECRET, ENV_NAME, Canary, Host

from envfactory_mcp.emit import render_package
from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.jail import NOBODY


@pytest.fixture(scope="module")
def canary(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Canary]:
    """A process running as the jail's own uid (when we are root), which logs every
    signal it can catch; SIGKILL and SIGSTOP show as its death or stop."""
    folder = tmp_path_factory.mktemp("canary")
    folder.chmod(0o777)
    log = folder / "signals.log"
    as_nobody: dict[str, Any] = (
        {"user": NOBODY, "group": NOBODY, "extra_groups": []} if os.geteuid() == 0 else {}
    )
    # An interpreter the jail's uid may run (ours may live in root's home).
    python = shutil.which("python3", path="/usr/bin:/bin") if as_nobody else sys.executable
    proc = subprocess.Popen(
        [python or sys.executable, "-c", CANARY, str(log), f"envfactory-canary-{uuid.uuid4().hex}"],
        stdin=subprocess.DEVNULL,
        env={"PATH": os.defpath, ENV_NAME: CANARY_SECRET},
        **as_nobody,
    )
    time.sleep(0.3)  # handlers installed
    yield Canary(proc, log)
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def retail_files(retail_env: Environment) -> dict[str, str]:
    return render_package(retail_env)


@pytest.fixture(scope="module")
def worlds() -> Iterator[list[Path]]:
    """The host folders of every variant, kept until the module ends for the late check."""
    made: list[Path] = []
    yield made
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch, worlds: list[Path]) -> Iterator[Host]:
    token = f"envfactory-attack-{uuid.uuid4().hex}"
    # Open to every uid, the jail's included: only the jail keeps the variant out of it.
    world = Path(tempfile.mkdtemp(prefix="envfactory-malicious-"))
    world.chmod(0o777)
    worlds.append(world)
    outside = world / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    secret_file = world / "host-secret.txt"
    secret_value = f"host-file-secret-{uuid.uuid4().hex}"
    secret_file.write_text(secret_value)
    secret_file.chmod(0o666)
    monkeypatch.setenv(ENV_NAME, f"env-secret-{uuid.uuid4().hex}")
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    unix_path = str(world / "host.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(unix_path)
    os.chmod(unix_path, 0o777)
    unix.listen()
    abstract_name = f"envfactory-abstract-{uuid.uuid4().hex}"
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0" + abstract_name)
    abstract.listen()
    for sock in (tcp, udp, unix, abstract):
        sock.setblocking(False)
    markers = {
        "marker": str(outside / "escaped"),
        "outside": str(outside),
        "port": str(tcp.getsockname()[1]),
        "udp_port": str(udp.getsockname()[1]),
        "unix_path": unix_path,
        "abstract": abstract_name,
        "secret_file": str(secret_file),
        "env_name": ENV_NAME,
        "token": token,
    }
    yield Host(markers, outside, secret_file, secret_value, tcp, udp, unix, abstract)
    for sock in (tcp, udp, unix, abstract):
        sock.close()
