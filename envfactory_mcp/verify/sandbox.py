"""Run a job in a sandboxed child process and get its JSON answer back.

The child is ``python -I`` running ``envfactory_mcp.verify.worker`` in a private temporary
directory, in a new session (so the whole process group can be killed), inside a fresh
network namespace when ``unshare -n`` works here. The worker applies the resource limits
and installs its audit hook itself, before it loads any code under test.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Any

MAX_STDERR = 20_000


@dataclass(frozen=True)
class SandboxLimits:
    cpu_seconds: int = 20
    wall_seconds: float = 30.0
    memory_bytes: int = 1 << 30
    file_bytes: int = 8 << 20
    open_files: int = 64


@dataclass(frozen=True)
class SandboxResult:
    """What came back from the child. ``failure`` is None when it answered with valid JSON."""

    answer: dict[str, Any] | None
    failure: str | None
    returncode: int | None
    stderr: str
    network_isolated: bool
    wall_seconds: float
    pid: int

    @property
    def ok(self) -> bool:
        return self.failure is None


@functools.cache
def network_namespace_available() -> bool:
    """True when ``unshare -n`` can give a child an empty network namespace on this machine."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    try:
        probe = subprocess.run([unshare, "-n", "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def run_in_sandbox(job: dict[str, Any], limits: SandboxLimits = SandboxLimits()) -> SandboxResult:
    """Send ``job`` to a sandboxed worker; always returns, never raises for what the child does."""
    isolated = network_namespace_available()
    workdir = tempfile.mkdtemp(prefix="envfactory-sandbox-")
    payload = json.dumps({"job": job, "limits": asdict(limits), "workdir": workdir})
    command = worker_command("main()")
    env = sandbox_environment(workdir)
    started = time.monotonic()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=workdir,
        env=env,
        start_new_session=True,
    )
    failure: str | None = None
    try:
        out, err = proc.communicate(payload.encode(), timeout=limits.wall_seconds)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        failure = f"timed out after {limits.wall_seconds:g} s of wall-clock time (process group killed)"
    finally:
        _kill_group(proc)  # whatever the worker started goes too
        shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.monotonic() - started
    stderr = err.decode(errors="replace")[-MAX_STDERR:]
    answer: dict[str, Any] | None = None
    if failure is None:
        if proc.returncode < 0:
            failure = f"killed by signal {signal.Signals(-proc.returncode).name}" + _limit_hint(
                -proc.returncode
            )
        elif proc.returncode != 0:
            failure = f"worker exited with status {proc.returncode}: {stderr.strip().splitlines()[-1:] or ''}"
        else:
            try:
                answer = json.loads(out)
            except json.JSONDecodeError:
                failure = "worker did not answer with JSON"
    return SandboxResult(answer, failure, proc.returncode, stderr, isolated, elapsed, proc.pid)


def worker_command(call: str) -> list[str]:
    """The argv that runs ``envfactory_mcp.verify.worker.<call>`` in a fresh interpreter,
    inside an empty network namespace when this machine allows it."""
    # -I: no user site, no PYTHON* variables, no current directory on sys.path.
    bootstrap = f"import sys; sys.path.insert(0, {_import_root()!r}); from envfactory_mcp.verify import worker; worker.{call}"
    command = [sys.executable, "-I", "-c", bootstrap]
    if network_namespace_available():
        command = [shutil.which("unshare") or "unshare", "-n", *command]
    return command


def sandbox_environment(workdir: str) -> dict[str, str]:
    """The whole environment of a sandboxed process: nothing inherited from ours."""
    return {"PATH": os.defpath, "HOME": workdir, "TMPDIR": workdir}


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _limit_hint(signum: int) -> str:
    if signum == signal.SIGXCPU:
        return " (CPU time limit)"
    if signum == signal.SIGXFSZ:
        return " (file size limit)"
    return ""


def _import_root() -> str:
    """The folder that holds the envfactory_mcp package, so the child finds the worker."""
    import envfactory_mcp

    return os.path.dirname(os.path.dirname(os.path.abspath(envfactory_mcp.__file__)))
