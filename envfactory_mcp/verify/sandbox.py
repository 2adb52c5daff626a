"""Run a job in a sandboxed child process and get its JSON answer back.

Where bubblewrap works (``runtime.jail``), the child is jailed: its own mount, pid,
network, IPC, UTS and cgroup namespaces, a read-only view of the interpreter and this
package, a private tmpfs work directory, uid 65534 with no capabilities and no new
privileges, and a seccomp filter that kills it on any attempt to start a process, signal
another one, open a socket, make a node or mount anything. Where it does not, the child
is today's sandbox: ``python -I`` in a private temporary directory, in a new session,
inside a fresh network namespace when ``unshare -n`` works; the result says which, and
the verifier's report says so loudly. Either way the worker applies the resource limits
and installs its audit hook itself, before it loads any code under test, and the whole
process group is killed after the answer or at the wall-clock limit.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from envfactory_mcp.runtime import jail

MAX_STDERR = 20_000


@dataclass(frozen=True)
class SandboxLimits:
    cpu_seconds: int = 20
    wall_seconds: float = 30.0
    memory_bytes: int = 1 << 30
    file_bytes: int = 8 << 20
    open_files: int = 64
    work_bytes: int = 64 << 20  # the jail's tmpfs work directory


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
    jail: str | None = None  # bubblewrap's version and mode when the child was jailed
    layers: dict[str, bool] = field(default_factory=dict)  # which isolation layers were present

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


def jail_support() -> jail.JailSupport:
    """Whether this machine can jail the worker (cached self-check; see ``runtime.jail``)."""
    return jail.jail_support()


@dataclass(frozen=True)
class WorkerLaunch:
    """How to start a worker: argv, its environment and cwd, and how it sees its directory."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    workdir: str  # the worker's own writable directory, as the worker sees it
    jailed: bool
    pass_fds: tuple[int, ...] = ()  # to close once the process has started


def worker_launch(
    call: str,
    host_workdir: str,
    read_only: tuple[str, ...] = (),
    *,
    launcher: bool = False,
    work_bytes: int = SandboxLimits.work_bytes,
    request: dict[str, Any] | None = None,
) -> WorkerLaunch:
    """Start ``envfactory_mcp.verify.worker.<call>`` jailed where possible, else sandboxed.

    ``read_only``: host paths the worker must read (a package folder). ``launcher``: the
    caller cannot pass a descriptor (an MCP stdio client), so the jail is started through
    ``runtime/jail.py`` run as a script. ``request``: passed as the worker's ``sys.argv[1]``
    (JSON), completed with ``workdir`` and ``jail``."""
    jailed = jail_support().available
    workdir = jail.WORKDIR if jailed else host_workdir
    # -I: no user site, no PYTHON* variables, no current directory on sys.path; -B: nothing written.
    bootstrap = f"import sys; sys.path.insert(0, {_import_root()!r}); from envfactory_mcp.verify import worker; worker.{call}"
    python = [sys.executable, "-I", "-B", "-c", bootstrap]
    if request is not None:
        python.append(json.dumps(request | {"workdir": workdir, "jail": jailed}))
    if jailed:
        spec = jail.JailSpec(read_only=(_package_folder(), *read_only), work_bytes=work_bytes)
        if launcher:
            return WorkerLaunch(jail.launcher_argv(spec, python), {}, host_workdir, workdir, True)
        command, fds = jail.popen_args(spec, python, bwrap=jail_support().bwrap)
        return WorkerLaunch(command, {"PATH": os.defpath}, host_workdir, workdir, True, fds)
    if network_namespace_available():
        python = [shutil.which("unshare") or "unshare", "-n", *python]
    return WorkerLaunch(python, sandbox_environment(host_workdir), host_workdir, workdir, False)


def run_in_sandbox(job: dict[str, Any], limits: SandboxLimits = SandboxLimits()) -> SandboxResult:
    """Send ``job`` to a sandboxed worker; always returns, never raises for what the child does."""
    host_workdir = tempfile.mkdtemp(prefix="envfactory-sandbox-")
    launch = worker_launch("main()", host_workdir, work_bytes=limits.work_bytes)
    isolated = launch.jailed or network_namespace_available()
    # The worker echoes the nonce: an answer printed by the code under test without it is
    # refused (a bar to raise, not a proof: that code shares the worker's process).
    nonce = secrets.token_hex(16)
    request = {"job": job, "limits": asdict(limits), "workdir": launch.workdir, "jail": launch.jailed}
    payload = json.dumps(request | {"nonce": nonce})
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            launch.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=launch.cwd,
            env=launch.env,
            start_new_session=True,
            pass_fds=launch.pass_fds,
        )
    finally:
        for fd in launch.pass_fds:
            os.close(fd)
    failure: str | None = None
    try:
        out, err = proc.communicate(payload.encode(), timeout=limits.wall_seconds)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        failure = f"timed out after {limits.wall_seconds:g} s of wall-clock time (process group killed)"
    finally:
        _kill_group(proc)  # whatever the worker started goes too (in a jail: its pid namespace)
        shutil.rmtree(host_workdir, ignore_errors=True)
    elapsed = time.monotonic() - started
    stderr = err.decode(errors="replace")[-MAX_STDERR:]
    answer: dict[str, Any] | None = None
    if failure is None:
        signum = jail.death_signal(proc.returncode, launch.jailed)
        if signum is not None:
            failure = f"killed by signal {jail.signal_name(signum)}" + _limit_hint(signum)
        elif proc.returncode != 0:
            failure = f"worker exited with status {proc.returncode}: {stderr.strip().splitlines()[-1:] or ''}"
        else:
            try:
                answer = json.loads(out)
            except json.JSONDecodeError:
                failure = "worker did not answer with JSON"
            else:
                if not isinstance(answer, dict) or answer.pop("nonce", None) != nonce:
                    answer = None
                    failure = (
                        "the answer did not come from the worker (no nonce): forged by the code under test"
                    )
    seen = answer.pop("jail", None) if isinstance(answer, dict) else None
    support = jail_support()
    layers = _layers(launch.jailed, isolated, seen if isinstance(seen, dict) else None, support)
    return SandboxResult(
        answer, failure, proc.returncode, stderr, isolated, elapsed, proc.pid,
        support.reason if launch.jailed else None, layers,
    )  # fmt: skip


def _layers(
    jailed: bool, isolated: bool, seen: dict[str, Any] | None, support: jail.JailSupport
) -> dict[str, bool]:
    """Every isolation layer by name, present or not: from the worker's own view of its
    confinement when it answered, else from the machine's jail self-check."""
    jail_layers = dict.fromkeys(
        ("namespaces", "unprivileged_uid", "no_capabilities", "no_new_privileges", "seccomp"), False
    )
    if jailed:
        jail_layers |= jail.layers_seen(seen) if seen is not None else dict(support.layers)
    return {"jail": jailed, **jail_layers, "network_namespace": isolated, "rlimits": True,
            "audit_hook": True, "call_time_limit": True, "wall_clock_kill": True}  # fmt: skip


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
    if signum == signal.SIGVTALRM:  # the worker's per-call backstop (ITIMER_VIRTUAL)
        return " (CPU time limit of one call: stuck where the call's timer could not stop it)"
    if signum == signal.SIGKILL:  # past RLIMIT_CPU's hard limit when a C-level call ignored SIGXCPU
        return " (the hard CPU time limit, unless the kernel ran out of memory)"
    if signum == signal.SIGXFSZ:
        return " (file size limit)"
    if signum == signal.SIGSYS:
        return " (the jail's seccomp filter refused a system call: an attempt to reach outside the jail)"
    return ""


def _package_folder() -> str:
    """The envfactory_mcp package folder: all the worker needs of this repository."""
    import envfactory_mcp

    return os.path.dirname(os.path.abspath(envfactory_mcp.__file__))


def _import_root() -> str:
    """The folder that holds the envfactory_mcp package, so the child finds the worker."""
    import envfactory_mcp

    return os.path.dirname(os.path.dirname(os.path.abspath(envfactory_mcp.__file__)))
