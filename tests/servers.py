"""Helpers for tests that run real server subprocesses (stdio and streamable HTTP)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# Far backstops (wall clock) for a server that never starts or never stops; a slow start on
# a loaded machine only waits longer.
STARTUP_BACKSTOP_S = 300.0
STOP_BACKSTOP_S = 60.0


@dataclass(frozen=True)
class HttpServer:
    url: str
    pid: int


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def http_server(
    package_dir: Path, package: str, *extra: str, timeout: float = STARTUP_BACKSTOP_S
) -> Iterator[HttpServer]:
    """Run ``python -m <package> --transport streamable-http`` on a free port."""
    with http_module(package, *extra, pythonpath=package_dir, timeout=timeout) as server:
        yield server


@contextmanager
def http_module(
    module: str, *args: str, pythonpath: Path | None = None, timeout: float = STARTUP_BACKSTOP_S
) -> Iterator[HttpServer]:
    """Run ``python -m <module> <args> --transport streamable-http --port <free port>``.

    Ready when the port accepts a connection (event-based: no fixed wait); ``timeout`` is
    only a far backstop for a server that never listens, so a busy machine is never a
    failure. Its stderr goes to a temporary file (a pipe nobody reads could fill and stall
    the server), shown if it exits early; the file and the process are closed and reaped
    on the way out."""
    port = free_port()
    env = {**os.environ, **({"PYTHONPATH": str(pythonpath)} if pythonpath else {})}
    with tempfile.TemporaryFile() as stderr, subprocess.Popen(
        [sys.executable, "-m", module, *args, "--transport", "streamable-http", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=stderr,
    ) as proc:  # fmt: skip
        try:
            deadline = time.monotonic() + timeout
            while True:
                if proc.poll() is not None:
                    stderr.seek(0)
                    raise RuntimeError(
                        f"server exited early: {stderr.read().decode(errors='replace')[-2000:]}"
                    )
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"HTTP server did not listen within {timeout:g} s") from None
                    time.sleep(0.05)
            yield HttpServer(url=f"http://127.0.0.1:{port}/mcp", pid=proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=STOP_BACKSTOP_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
