"""Helpers for tests that run real server subprocesses (stdio and streamable HTTP)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class HttpServer:
    url: str
    pid: int


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def http_server(package_dir: Path, package: str, *extra: str, timeout: float = 30.0) -> Iterator[HttpServer]:
    """Run ``python -m <package> --transport streamable-http`` on a free port."""
    with http_module(package, *extra, pythonpath=package_dir, timeout=timeout) as server:
        yield server


@contextmanager
def http_module(
    module: str, *args: str, pythonpath: Path | None = None, timeout: float = 30.0
) -> Iterator[HttpServer]:
    """Run ``python -m <module> <args> --transport streamable-http --port <free port>``."""
    port = free_port()
    env = {**os.environ, **({"PYTHONPATH": str(pythonpath)} if pythonpath else {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", module, *args, "--transport", "streamable-http", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                assert proc.stderr is not None  # piped above
                raise RuntimeError(f"server exited early: {proc.stderr.read().decode()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError("HTTP server did not start") from None
                time.sleep(0.05)
        yield HttpServer(url=f"http://127.0.0.1:{port}/mcp", pid=proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
