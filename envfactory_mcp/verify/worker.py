"""The sandboxed side: limit this process, guard it with an audit hook, then run the job.

Reads ``{"job", "limits", "workdir"}`` as JSON on stdin and writes one JSON answer on
stdout. Everything the code under test could use to reach outside (new processes,
sockets, writes outside the work directory, native code) is refused by an audit hook
installed before that code is loaded; audit hooks cannot be removed from Python. The
rlimits and the parent's network namespace and timeout are the layers behind it.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import types
from typing import Any

_BLOCKED_EVENTS = (
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "pty.spawn", "os.kill", "os.killpg", "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
    "socket.getaddrinfo", "socket.gethostbyname", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata",
    "os.remove", "os.rmdir", "os.rename", "os.unlink", "os.truncate", "os.chmod", "os.chown", "os.link",
    "os.symlink", "os.mkdir", "os.chdir", "shutil.rmtree", "shutil.move", "shutil.copyfile", "sqlite3.connect",
    "sqlite3.enable_load_extension", "sqlite3.load_extension", "webbrowser.open", "urllib.Request",
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class SandboxViolation(RuntimeError):
    """The code under test tried something the sandbox forbids."""


def apply_limits(limits: dict[str, Any]) -> None:
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"], limits["file_bytes"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"], limits["open_files"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # not enforced for root; the audit hook is


def install_guard(workdir: str) -> None:
    root = os.path.realpath(workdir) + os.sep

    def guard(event: str, args: tuple[Any, ...]) -> None:
        if event.startswith(_BLOCKED_EVENTS):
            raise SandboxViolation(f"sandbox: {event} is not allowed")
        if event == "open" and _is_write(args):
            path = args[0]
            if not isinstance(path, str | bytes) or not os.path.realpath(os.fsdecode(path)).startswith(root):
                raise SandboxViolation(f"sandbox: writing {path!r} is not allowed (only the sandbox's own directory)")

    sys.addaudithook(guard)


def _is_write(args: tuple[Any, ...]) -> bool:
    mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def run_probes(job: dict[str, Any], workdir: str) -> dict[str, Any]:
    """Run each probe on a session database and report outcomes with state hashes."""
    from envfactory_mcp.runtime import Toolbox, build_seed_image, dump_state, hash_state
    from envfactory_mcp.runtime.database import SeedLoadError, SessionDatabase

    try:
        image = build_seed_image(job["schema_sql"], job["seed_sql"])
    except SeedLoadError as exc:
        return {"stage": "seed", "error": str(exc)}
    session = SessionDatabase(image)
    seed_hash = session.hash()
    install_guard(workdir)
    module = types.ModuleType("tools_under_test")
    try:
        exec(compile(job["tools_source"], "tools.py", "exec"), module.__dict__)
        toolbox = Toolbox(job["spec"], module)
    except BaseException as exc:  # noqa: BLE001 - the load of foreign code may raise anything
        return {"stage": "load", "error": f"{type(exc).__name__}: {exc}", "seed_hash": seed_hash}
    results = []
    for probe in job["probes"]:
        if probe.get("reset", True):
            session.reset()
        before = dump_state(session.db)
        started = time.perf_counter()
        outcome = toolbox.call(session.db, probe["tool"], probe.get("arguments"))
        elapsed = time.perf_counter() - started
        after = dump_state(session.db)
        results.append(
            {
                "id": probe.get("id"),
                "ok": outcome.ok,
                "internal": outcome.internal,
                "error": outcome.error,
                "output": outcome.output,
                "before_hash": hash_state(before),
                "after_hash": hash_state(after),
                "changed_tables": sorted(t for t in after if after[t] != before.get(t)),
                "seconds": elapsed,
            }
        )
    return {"stage": "done", "seed_hash": seed_hash, "results": results}


def main() -> None:
    request = json.loads(sys.stdin.read())
    apply_limits(request["limits"])
    job = request["job"]
    if job.get("kind") != "probes":
        answer: dict[str, Any] = {"stage": "request", "error": f"unknown job kind {job.get('kind')!r}"}
    else:
        answer = run_probes(job, request["workdir"])
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
