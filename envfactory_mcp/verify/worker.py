"""The sandboxed side: confine this process, limit it, guard it with an audit hook, then
run the job.

Reads ``{"job", "limits", "workdir", "jail"}`` as JSON on stdin and writes one JSON answer
on stdout. In a jail (``runtime.jail``), the worker first calls ``confine_self()``: it
becomes uid 65534 with no capabilities and stacks the seccomp filter that forbids
``execve``; its answer carries what it then sees of its confinement (``"jail"``), which
the parent records. The jail is the boundary. The audit hook, installed before the code
under test is loaded, is the fast filter in front of it: it refuses new processes,
sockets, writes outside the work directory and native code with a message that names
the attempt, which is what a repair loop needs. The rlimits, the per-call timer and the
parent's wall-clock kill bound time and memory.

Time is counted in CPU seconds, so a busy machine slows verification down without failing
it: each call has ``call_seconds`` of this process's CPU time (``ITIMER_PROF``; SQLite's
progress handler reads the same clock), a backstop for a call stuck in C code where that
signal cannot reach it (``ITIMER_VIRTUAL``, whose SIGVTALRM ends the process), and a far
wall-clock limit only for a call that waits instead of computing (``call_wall_seconds``);
every per-call limit is relative to the call's start, so what the calls before it used
never counts against it; each tool has ``tool_cpu_seconds``
for all its probes, past which it stops being probed and is reported over budget; the
process has ``RLIMIT_CPU`` for the whole job (``verify.budget``).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import signal
import sys
import time
import types
from typing import Any

_BLOCKED_EVENTS = (
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "pty.spawn",
    "os.kill",
    "os.killpg",
    "socket.connect",
    "socket.bind",
    "socket.sendto",
    "socket.sendmsg",
    "socket.getaddrinfo",
    "socket.gethostbyname",
    "ctypes.",
    "os.mkfifo",
    "os.mknod",
    "signal.pthread_kill",
    "os.remove",
    "os.rmdir",
    "os.rename",
    "os.unlink",
    "os.truncate",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.mkdir",
    "os.chdir",
    "shutil.rmtree",
    "shutil.move",
    "shutil.copyfile",
    "sqlite3.enable_load_extension",
    "sqlite3.load_extension",
    "webbrowser.open",
    "urllib.Request",
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
    if not limits.get("no_nproc"):
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # not enforced for root; the audit hook is


def install_guard(workdir: str) -> list[str]:
    """Refuse escapes from now on; returns the (growing) list of refusals, newest last."""
    root = os.path.realpath(workdir) + os.sep
    refused: list[str] = []
    socket_family_unix = 1  # AF_UNIX on Linux, without importing socket here

    def guard(event: str, args: tuple[Any, ...]) -> None:
        if event == "sqlite3.connect":  # in-memory databases only (a served package opens one per session)
            if args and args[0] in (":memory:", b":memory:"):
                return
            refused.append(event)
            raise SandboxViolation(f"sandbox: {event} to {args[0] if args else '?'!r} is not allowed")
        if event == "socket.__new__":  # only AF_UNIX, for the event loop's own socketpair
            if len(args) > 1 and args[1] not in (socket_family_unix, -1):
                refused.append(event)
                raise SandboxViolation(f"sandbox: {event} is not allowed (a network socket)")
            return
        if event.startswith(_BLOCKED_EVENTS):
            refused.append(event)
            raise SandboxViolation(f"sandbox: {event} is not allowed")
        if event == "open" and _is_write(args):
            path = args[0]
            if isinstance(path, int):  # wrapping a descriptor this process already holds
                return
            if not isinstance(path, str | bytes) or not os.path.realpath(os.fsdecode(path)).startswith(root):
                refused.append(f"writing {path!r}")
                raise SandboxViolation(
                    f"sandbox: writing {path!r} is not allowed (only the sandbox's own directory)"
                )

    sys.addaudithook(guard)
    return refused


def _is_write(args: tuple[Any, ...]) -> bool:
    mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


CRASHES_BEFORE_GIVING_UP = 16
# The backstop of one call stuck in C code: ITIMER_VIRTUAL, a timer relative to the call's
# start on the kernel's own clock. Never an absolute RLIMIT_CPU computed from
# ``time.process_time()``: the kernel checks that limit against its tick-sampled
# user+system time, which runs ahead of ``process_time`` on a busy machine (by 10% and
# more, growing over the worker's life), so a call late in a long chunk was killed by
# SIGXCPU at no fault of its own, a different call each run (issue 27).
CALL_BACKSTOP = 2.0  # times the call's CPU limit ...
CALL_BACKSTOP_EXTRA = 2.0  # ... plus this many seconds
# The wall-clock limit of one call, for calls that wait instead of computing: this many
# times its CPU limit, and never under the floor.
WALL_PER_CPU = 30.0
WALL_PER_CALL_FLOOR = 60.0


class CallTimeout(BaseException):
    """One tool call ran past its time limit (a BaseException, so tool code cannot catch it
    with ``except Exception``; the static gate refuses broader handlers). ``signum``:
    SIGPROF for its CPU limit, SIGALRM for its far wall-clock one."""

    def __init__(self, signum: int = signal.SIGPROF) -> None:
        super().__init__(signum)
        self.signum = signum


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _table_digests(db: Any, order_by: dict[str, str]) -> dict[str, str]:
    """sha256 of each table's rows in primary-key order: the cheap fingerprint of a state
    (a third of the cost of the canonical dump), used to compare states and name tables."""
    return {
        table: hashlib.sha256(
            repr(db.execute(f'SELECT * FROM "{table}" ORDER BY {order}').fetchall()).encode()
        ).hexdigest()
        for table, order in order_by.items()
    }


def _state_digest(tables: dict[str, str]) -> str:
    return _digest(tables)


class ProbeRunner:
    """Runs probes one at a time, each from the seed state, and reports what happened.

    Every probe runs twice from a freshly reset seed (the second run is the determinism
    check). The state is fingerprinted only when SQLite counted a row change
    (``total_changes``), which every INSERT, UPDATE and DELETE does, even one rolled back.
    ``after_hash`` is that fingerprint; the canonical ``state_hash`` of the runtime (what
    ``control.state_hash`` answers) is added for the first successful call of each tool,
    which the stdio stage replays against the emitted package.
    """

    def __init__(self, image: bytes, call_seconds: float, call_wall_seconds: float | None = None) -> None:
        from envfactory_mcp.runtime.database import SessionDatabase
        from envfactory_mcp.runtime.state import dump_state, hash_state, state_hash, table_infos

        self._state_hash = state_hash
        self.call_seconds = call_seconds  # CPU seconds of this process a call may take
        # A call that waits rather than computes (a sleep, a lock) uses no CPU: the wall
        # clock stops it, far enough out that a loaded machine never trips it.
        self.call_wall_seconds = call_wall_seconds or max(WALL_PER_CALL_FLOOR, WALL_PER_CPU * call_seconds)
        self.toolbox: Any = None
        self.refused: list[str] = []
        self.session = SessionDatabase(image)
        self.seed_state = dump_state(self.session.db)
        self.seed_state_hash = hash_state(self.seed_state)  # the dump just taken, not a second one
        self.order_by = {
            info.name: ", ".join(f'"{c}"' for c in info.primary_key) for info in table_infos(self.session.db)
        }
        self.seed_tables = _table_digests(self.session.db, self.order_by)
        self.seed_hash = _state_digest(self.seed_tables)
        # A call stuck in C code, which the call timer's signal cannot interrupt, is ended
        # by SIGVTALRM (its default action ends the process, naming its probe on stderr)
        # after this much CPU time of its own (``CALL_BACKSTOP``).
        self.call_backstop = CALL_BACKSTOP * call_seconds + CALL_BACKSTOP_EXTRA
        signal.signal(signal.SIGVTALRM, signal.SIG_DFL)
        self.reset_checked: set[str] = set()
        self.shown: set[str] = set()
        self.deadline = float("inf")  # on the CPU clock (time.process_time)
        self.wall_deadline = float("inf")
        self.session.db.set_progress_handler(self._over_time, 10_000)

    def _over_time(self) -> int:
        over = time.process_time() > self.deadline or time.monotonic() > self.wall_deadline
        return 1 if over else 0  # nonzero interrupts the running statement

    def run(self, probe: dict[str, Any]) -> dict[str, Any]:
        print(f"envfactory-probe {probe['id']}", file=sys.stderr, flush=True)
        first = self._once(probe)
        result = {key: probe[key] for key in ("id", "tool", "kind", "arguments")} | first
        if first.get("timeout"):
            return result
        output = result.pop("output", None)
        if (
            result["ok"] and probe["tool"] not in self.shown
        ):  # one real output per tool, for replay over stdio
            self.shown.add(probe["tool"])
            result["output"] = output
            result["state_hash"] = self._state_hash(self.session.db)
        if result["after_hash"] != self.seed_hash and probe["tool"] not in self.reset_checked:
            self.reset_checked.add(probe["tool"])
            self.session.reset()
            result["reset_hash"] = self._state_hash(self.session.db)
        second = self._once(probe)
        second.pop("output", None)
        result["repeat"] = {k: second.get(k) for k in ("ok", "error", "output_hash", "after_hash", "timeout")}
        return result

    def _once(self, probe: dict[str, Any]) -> dict[str, Any]:
        self.session.reset()
        db = self.session.db
        changes, refused_before = db.total_changes, len(self.refused)
        started, cpu_started = time.perf_counter(), time.process_time()
        self.deadline = cpu_started + self.call_seconds
        self.wall_deadline = time.monotonic() + self.call_wall_seconds
        signal.setitimer(signal.ITIMER_PROF, self.call_seconds)
        signal.setitimer(signal.ITIMER_REAL, self.call_wall_seconds)
        signal.setitimer(signal.ITIMER_VIRTUAL, self.call_backstop)
        try:
            outcome = self.toolbox.call(db, probe["tool"], probe["arguments"])
        except CallTimeout as exc:
            self._abandon_call()
            cpu = time.process_time() - cpu_started
            waited = exc.signum == signal.SIGALRM
            return {
                "ok": False,
                "timeout": True,
                "seconds": time.perf_counter() - started,
                "error": f"no answer within {self.call_wall_seconds:g} s of wall-clock time (waiting, "
                f"{cpu:.2f} s of CPU)"
                if waited
                else f"no answer within {self.call_seconds:g} s of CPU time",
                "refused": self.refused[refused_before:],
            }
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.deadline = self.wall_deadline = float("inf")
        elapsed = time.perf_counter() - started
        if db.total_changes == changes:
            after_hash, changed = self.seed_hash, []
        else:
            tables = _table_digests(db, self.order_by)
            after_hash = _state_digest(tables)
            changed = sorted(t for t in tables if tables[t] != self.seed_tables.get(t))
        return {
            "ok": outcome.ok,
            "internal": outcome.internal,
            "fault": outcome.fault,
            "error": outcome.error,
            "output": outcome.output,
            "output_hash": _digest(outcome.output) if outcome.ok else None,
            "after_hash": after_hash,
            "changed_tables": changed,
            "refused": self.refused[refused_before:],
            "seconds": elapsed,
        }

    def _abandon_call(self) -> None:
        """After a timeout the call's transaction may still be open: undo it in place (a new
        connection would be refused by the guard)."""
        db = self.session.db
        db.set_authorizer(None)
        if db.in_transaction:
            db.execute("ROLLBACK")


def _on_alarm(signum: int, frame: Any) -> None:
    raise CallTimeout(signum)


def _load(job: dict[str, Any], workdir: str) -> tuple[dict[str, Any] | None, ProbeRunner | None]:
    """Seed image and session, then the guard, then the code under test.

    Returns (failure answer, None) or (None, a runner with the code loaded)."""
    from envfactory_mcp.runtime import Toolbox, build_seed_image
    from envfactory_mcp.runtime.database import SeedLoadError

    try:
        image = build_seed_image(job["schema_sql"], job["seed_sql"])
    except SeedLoadError as exc:
        return {"stage": "seed", "error": str(exc)}, None
    wall = job.get("call_wall_seconds")
    # opens its connection before the guard
    runner = ProbeRunner(image, float(job.get("call_seconds", 2.0)), float(wall) if wall else None)
    runner.refused = install_guard(workdir)
    module = types.ModuleType("tools_under_test")
    try:
        exec(compile(job["tools_source"], "tools.py", "exec"), module.__dict__)  # noqa: S102 - the code under test, in the sandbox
        runner.toolbox = Toolbox(job["spec"], module)
    except BaseException as exc:  # noqa: BLE001 - the load of foreign code may raise anything
        answer = {"stage": "load", "error": f"{type(exc).__name__}: {exc}", "refused": runner.refused}
        return answer | {"seed_hash": runner.seed_hash}, None
    return None, runner


def run_probes(job: dict[str, Any], workdir: str) -> dict[str, Any]:
    """Run the job's explicit ``probes`` list."""
    failure, runner = _load(job, workdir)
    if runner is None:
        return failure or {}
    results = [runner.run({"kind": "given", **probe}) for probe in job["probes"]]
    return {
        "stage": "done",
        "seed_hash": runner.seed_hash,
        "seed_state_hash": runner.seed_state_hash,
        "results": results,
    }


class _ToolMeter:
    """Runs one tool's probes and counts the CPU time they take."""

    def __init__(self, tool: str, runner: ProbeRunner, results: list[dict[str, Any]], budget: float) -> None:
        self.tool, self.runner, self.results, self.budget = tool, runner, results, budget
        self.began, self.probes = time.process_time(), 0

    def spent(self) -> float:
        return time.process_time() - self.began

    def run(self, probe: dict[str, Any]) -> dict[str, Any]:
        self.probes += 1
        result = self.runner.run(probe)
        self.results.append(result)
        return result

    def over(self, over_budget: dict[str, str]) -> bool:
        """True (and the tool's line in ``over_budget``) once its probes used more than its budget."""
        spent = self.spent()
        if spent <= self.budget:
            return False
        over_budget[self.tool] = (
            f"used {spent:.1f} s of CPU time in {self.probes} probe(s), over its budget of {self.budget:g} s"
        )
        return True


def run_verify(job: dict[str, Any], workdir: str) -> dict[str, Any]:
    """Generate probes for the job's tools (``tools``: names, default all) from the seed data
    and run them (see ``verify.probes``). A tool whose probes use more than
    ``tool_cpu_seconds`` of CPU time stops being probed and is listed in ``over_budget``."""
    from envfactory_mcp.verify.probes import ProbeBudget, probers

    started_cpu = time.process_time()
    failure, runner = _load(job, workdir)
    if runner is None:
        return failure or {}
    started = time.perf_counter()
    load_cpu = time.process_time() - started_cpu
    budget = ProbeBudget(**job.get("budget", {}))
    tool_cpu = float(job.get("tool_cpu_seconds") or "inf")
    only = job.get("tools")
    results: list[dict[str, Any]] = []
    over_budget: dict[str, str] = {}
    tool_seconds: dict[str, float] = {}
    rules_of = job["spec"].get("policy_rules", {}).get("refusals", [])
    seed = int(job.get("probe_seed", 0))
    for prober in probers(job["spec"], runner.seed_state, seed, budget, only=only):
        meter = _ToolMeter(prober.name, runner, results, tool_cpu)
        base: dict[str, Any] | None = None
        timed_out, crashes = False, 0
        for probe in prober.valid():
            result = meter.run(probe)
            base = base or probe["arguments"]
            if result.get("timeout"):
                timed_out = True
                break
            if meter.over(over_budget):
                break
            crashes += bool(result.get("internal"))
            if crashes >= CRASHES_BEFORE_GIVING_UP and not prober.succeeded:
                break  # broken, not merely picky: more attempts would only repeat the crash
            if result["ok"]:
                if not prober.succeeded:
                    base = probe["arguments"]
                prober.succeeded += 1
                if prober.succeeded >= budget.enough_successes:
                    break
        if not timed_out and prober.name not in over_budget:  # one hang per tool is enough to know
            rules = [r for r in rules_of if r["tool"] == prober.name]
            for probe in [*prober.others(base or {}), *prober.refused(rules)]:
                if meter.run(probe).get("timeout") or meter.over(over_budget):
                    break
        tool_seconds[prober.name] = round(meter.spent(), 4)
    return {
        "stage": "done",
        "seed_hash": runner.seed_hash,
        "seed_state_hash": runner.seed_state_hash,
        "results": results,
        "over_budget": over_budget,
        "tool_cpu_seconds": tool_seconds,
        "load_cpu_seconds": round(load_cpu, 4),
        "cpu_seconds": round(time.process_time(), 4),
        "seconds": time.perf_counter() - started,
    }


JOBS = {"probes": run_probes, "verify": run_verify}


def _confine(request: dict[str, Any]) -> dict[str, Any] | None:
    """In a jail: drop to the jail's uid and forbid execve, before anything else runs."""
    if not request.get("jail"):
        return None
    from envfactory_mcp.runtime.jail import confine_self

    return confine_self()


def main() -> None:
    request = json.loads(sys.stdin.read())
    nonce = request.pop("nonce", None)  # kept out of the request the job can reach
    seen = _confine(request)
    apply_limits(request["limits"])
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGPROF, _on_alarm)
    job = request["job"]
    runner = JOBS.get(job.get("kind"))
    if runner is None:
        answer: dict[str, Any] = {"stage": "request", "error": f"unknown job kind {job.get('kind')!r}"}
    else:
        answer = runner(job, request["workdir"])
    if seen is not None:
        answer["jail"] = seen
    answer["nonce"] = nonce
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()


def serve_main(request_json: str) -> None:
    """Serve an emitted package over stdio under the same jail, limits and guard.

    Used by the verifier's last stage, which talks to the package as any MCP client would.
    ``request_json`` is the request itself (JSON text). The package's own runtime and
    ``mcp`` load before the guard; its tool code after. The process-count limit is left
    off: the stdio transport needs threads, which Linux counts as processes. New
    processes are still refused by the jail's seccomp filter and the audit hook.
    """
    import importlib

    sys.dont_write_bytecode = True  # no __pycache__ next to the package: only the work directory is writable
    request = json.loads(request_json)
    _confine(request)
    limits = dict(request["limits"], no_nproc=True)
    apply_limits(limits)
    sys.path.insert(0, request["package_root"])
    package = request["package"]
    importlib.import_module(f"{package}.runtime.cli")
    importlib.import_module("mcp.server.stdio")
    importlib.import_module("ctypes")  # the runtime's forget_environment() uses it: loaded before the guard
    install_guard(request["workdir"])
    server = importlib.import_module(f"{package}.server")
    server.main(request.get("argv", []))


if __name__ == "__main__":
    main()
