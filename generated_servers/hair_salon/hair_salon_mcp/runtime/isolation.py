# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Untrusted tool code runs in jailed worker processes; the server keeps everything else.

``JailedTools`` stands in for a package's tools module. The server (this process) keeps
the protocol, the sessions and their databases, argument and output validation, the
SQLite authorizer and the transaction of every call; only the tool functions run in
worker processes, each started in the jail of ``jail.py`` (namespaces, uid 65534, no
capabilities, no new privileges, seccomp) with its own address-space limit, and
``tool_worker.py`` loads ``tools.py`` there after confining itself. A call's every SQL
statement travels back here and runs on the session database under the authorizer, so
tool code never holds a database, a file of the host or a descriptor of the server.

A call is bounded in its worker's process: past the call's time limit (the server's
``CallWatch`` deadline, or ``fallback_seconds`` when the caller set none) the worker is
killed and replaced and the call is a timeout; a worker that dies (a segfault from
deep C recursion, its memory limit, SIGSYS from the seccomp filter) or breaks the frame
protocol costs that call alone, as an internal error. Tool code that catches
``BaseException`` or loops without SQL is stopped the same way. The server's alarm never
raises in this module's code (``limits.py``): a jailed call ends at its next check of the
deadline, between waits (every ``_POLL_SECONDS``), so a killed worker is always reaped
and its slot freed, however busy the machine.

A worker serves one session only. Tool code shares its worker's process, so it can keep
module-level state, leave threads running or hook the worker's own code; all of that
stays with the session it ran for. The pool is keyed by the session's database
connection (``ctx.db``: one per session database; a session that is parked and
unparked gets a new one, and so a new worker): a call takes an idle worker of its own
session, else a fresh one, else starts one while fewer than ``limits.workers`` run,
else kills the least recently used idle worker of another session and starts one in its
place. Workers are reused only within a session (starting one takes about 50-100 ms).
A ``--db`` server has one connection for everyone, so there all calls share the pool,
as they share the database.

Every call has a fresh call id (``secrets.token_hex``) that every frame of the call
must carry; a frame of another id, bytes left unread after the call's answer, or
anything the worker sent while no call was in flight (checked, without waiting, when a
call takes the worker) kills that worker and makes the call an internal error. Frames a
tool queues for a later call are therefore caught, and never reach another session:
a later call of another session never runs on that worker.

Stdlib only: ``runtime/`` is copied into every generated package.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import logging
import os
import secrets
import select
import sqlite3
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .context import ToolContext, ToolError
from .limits import CallTimeout, IsolationLimits
from .tool_worker import HEADER, MAX_FRAME, decode_value, encode_frame, encode_value
from .toolbox import ForeignFault

logger = logging.getLogger(__name__)

_HERE = os.path.dirname(os.path.abspath(__file__))
# What a worker needs of this folder: its own code, the jail and the context tool code sees.
_WORKER_FILES = tuple(
    os.path.join(_HERE, f) for f in ("tool_worker.py", "jail.py", "seccomp.py", "context.py")
)
_BOOT = (
    "import importlib.util as u, json, sys\n"
    "s = u.spec_from_file_location('envfactory_tool_worker', sys.argv[1])\n"
    "m = u.module_from_spec(s); sys.modules[s.name] = m; s.loader.exec_module(m)\n"
    "m.main(json.loads(sys.argv[2]))\n"
)
_POLL_SECONDS = 0.05


class IsolationError(RuntimeError):
    """The jailed tools could not start: no jail here, or tools.py failed to load."""


class ToolCrashed(ForeignFault):
    """The tool's worker died or broke the protocol during the call; the call is lost."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "exception")


def jail_problem() -> str | None:
    """Why tool code cannot be jailed on this machine, or None when it can."""
    from . import jail  # the jail's modules load only where something is jailed

    support = jail.jail_support()
    return None if support.available else support.reason


class _Worker:
    """One jailed process running ``tool_worker.py`` for one tools file."""

    def __init__(
        self,
        tools_path: str,
        names: Sequence[str],
        limits: IsolationLimits,
        check: Callable[[], None] | None = None,
    ) -> None:
        """Start the worker and wait, within ``limits.start_seconds``, until it has loaded
        the tools; ``check`` (the time limit of the call it is started for) may end the
        wait with ``CallTimeout``."""
        config = {
            "tools_path": tools_path,
            "names": list(names),
            "memory_bytes": limits.memory_mb << 20,
            "open_files": limits.open_files,
        }
        from . import jail

        spec = jail.JailSpec(read_only=(*_WORKER_FILES, tools_path), work_bytes=limits.work_bytes)
        argv = [sys.executable, "-I", "-S", "-B", "-c", _BOOT, _WORKER_FILES[0], json.dumps(config)]
        command, fds = jail.popen_args(spec, argv)
        try:
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=fds, env={}, bufsize=0
            )
        finally:
            for fd in fds:
                os.close(fd)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.memory_mb = limits.memory_mb
        # The session this worker serves (its database connection), from its first call
        # on; held, so that no other session's connection can ever be taken for it.
        self.session: object | None = None
        self.on_kill: Callable[[_Worker], None] = lambda worker: None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(self._in, False)  # see ``_send``
        deadline = time.monotonic() + limits.start_seconds

        def loading() -> None:
            _raise_past(deadline, "did not finish loading")
            if check is not None:
                check()

        try:
            ready = self.receive(loading)
        except CallTimeout:  # the call's own limit passed while its worker loaded
            self.kill()
            raise
        except ToolCrashed as exc:
            self.kill()
            raise IsolationError(f"jailed tools: {tools_path}: {_reason(exc)}") from None
        if ready.get("op") != "ready" or "error" in ready or not isinstance(ready.get("tools"), list):
            self.kill()
            raise IsolationError(f"jailed tools: {tools_path} failed to load: {ready.get('error', ready)}")
        self.tools = frozenset(t for t in ready["tools"] if isinstance(t, str))

    def run(self, name: str, ctx: ToolContext, args: dict[str, Any], check: Callable[[], None]) -> Any:
        """One call: forward its statements to ``ctx`` until the worker answers."""
        call_id = secrets.token_hex(16)
        self._send({"op": "call", "id": call_id, "tool": name, "args": args, "now": ctx.now}, check)
        while True:
            message = self.receive(check)
            if not _same_call(message.get("id"), call_id):
                raise ToolCrashed("the tool's process sent a message that is not this call's (wrong call id)")
            if message.get("op") != "sql":
                break
            self._send({**_run_sql(ctx, message), "id": call_id}, check)
        events = self.pending()  # the answer must be the last thing the call sent
        if events & select.POLLIN:
            raise ToolCrashed("the tool's process sent more after its answer")
        if events:
            raise ToolCrashed(self._death() + " after its answer")
        op = message.get("op")
        if op == "done" and isinstance(message.get("output"), dict):
            return message["output"]
        if op == "fail":
            raise ToolError(str(message.get("message", "")))
        if op == "error" and message.get("type") == "MemoryError":
            raise ForeignFault(
                f"MemoryError: ran out of memory (its worker's limit of {self.memory_mb} MiB)", "exception"
            )
        if op == "error":
            raise ForeignFault(
                f"{message.get('type', 'Exception')}: {message.get('message', '')}", "exception"
            )
        if op == "bad_output":
            raise ForeignFault(str(message.get("message", "")), "output")
        raise ToolCrashed(f"the tool's process broke the protocol (a {str(op)[:40]!r} message)")

    def pending(self) -> int:
        """What the worker's channel has to read now, without waiting: 0 (nothing), else
        the poll events (``POLLIN``: bytes; ``POLLHUP`` alone: its end)."""
        poller = select.poll()
        poller.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        return sum(events for _, events in poller.poll(0))

    def idle_problem(self) -> str | None:
        """Why this idle worker must not take a call (it sent something while no call was
        in flight, or its channel ended), or None when its channel is empty, as it must be."""
        events = self.pending()
        if not events:
            return None
        if events & select.POLLIN:
            return "the tool's process sent a message while no call was in flight"
        return self._death() + " between calls"

    def _send(self, message: dict[str, Any], check: Callable[[], None]) -> None:
        """Write one frame without ever blocking past ``check``: a worker that stops
        reading (its pipe full) cannot hold the server's thread beyond the call's limit."""
        view = memoryview(encode_frame(message))
        poller = select.poll()
        poller.register(self._in, select.POLLOUT | select.POLLERR)
        while view:
            check()
            if not poller.poll(_POLL_SECONDS * 1000):
                continue
            try:
                view = view[os.write(self._in, view) :]
            except BlockingIOError:
                continue
            except OSError:  # a broken pipe: the worker is gone
                raise ToolCrashed(self._death()) from None

    def receive(self, check: Callable[[], None]) -> dict[str, Any]:
        header = self._read(HEADER.size, check)
        (size,) = HEADER.unpack(header)
        if size > MAX_FRAME:
            raise ToolCrashed(f"the tool's process sent a {size}-byte message")
        try:
            message = json.loads(self._read(size, check))
        except (ValueError, RecursionError):
            raise ToolCrashed("the tool's process sent a malformed message") from None
        if not isinstance(message, dict):
            raise ToolCrashed("the tool's process sent a malformed message")
        return message

    def _read(self, n: int, check: Callable[[], None]) -> bytes:
        chunks, left = [], n
        poller = select.poll()
        poller.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        while left:
            check()
            if not poller.poll(_POLL_SECONDS * 1000):
                continue
            chunk = os.read(self._out, min(left, 1 << 20))
            if not chunk:
                raise ToolCrashed(self._death())
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _death(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the tool's process closed its channel"
        from . import jail

        signum = jail.death_signal(code)
        if signum is not None:
            name = jail.signal_name(signum)
            name = name if name.startswith("SIG") else f"signal {name}"
            hint = " (refused by the jail's seccomp filter)" if name == "SIGSYS" else ""
            return f"the tool's process was killed by {name}{hint}"
        return f"the tool's process exited with status {code}"

    def kill(self) -> None:
        self.on_kill(self)
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            logger.error("jailed worker %s did not exit after SIGKILL", self.proc.pid)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


class JailedTools:
    """A stand-in for a tools module whose functions run in jailed workers.

    ``getattr(jailed, name)`` is a callable ``fn(ctx, **arguments)`` for every declared
    name the module defines, as ``Toolbox`` expects of a module. The first worker starts
    here, so a module that fails to load (or a machine without a jail) fails at once with
    :class:`IsolationError`; more start on demand, up to ``limits.workers`` at a time.
    A worker serves the session of its first call (``ctx.db``) and no other (see the
    module's docstring).
    """

    def __init__(self, tools_path: Path, names: Sequence[str], limits: IsolationLimits | None = None) -> None:
        limits = limits or IsolationLimits()
        problem = jail_problem()
        if problem is not None:
            raise IsolationError(f"cannot jail tool code here: {problem}")
        self.__name__ = f"jailed {tools_path}"
        self.tools_path, self.names, self.limits = str(Path(tools_path).resolve()), tuple(names), limits
        self._lock = threading.Condition()
        self._idle: list[_Worker] = []  # least recently used first
        self._count = 0
        self._closed = False
        # Every live worker, so that dropping this object (a server built and forgotten by
        # a library caller) or ending the process kills them too.
        self._live: set[_Worker] = set()
        weakref.finalize(self, _kill_all, self._live)
        first = self._start()
        self.defined = first.tools
        self._count = 1
        self._idle.append(first)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_") or name not in self.__dict__.get("defined", ()):
            raise AttributeError(name)
        return _JailedFunction(self, name)

    def call(self, name: str, ctx: ToolContext, args: dict[str, Any]) -> Any:
        check = ctx._check_time or _fallback(self.limits.fallback_seconds)
        worker = self._checkout(ctx.db, check)
        try:
            output = worker.run(name, ctx, args, check)
        except ToolError as exc:
            self._checkin(worker)  # the worker answered: it is fine
            raise exc from None
        except ForeignFault as exc:
            if not isinstance(exc, ToolCrashed):
                self._checkin(worker)
                raise
            worker.kill()
            self._forget()
            logger.error("tool %s: %s", name, exc)
            raise
        except BaseException:  # a timeout, an interrupted server: the worker is mid-call
            worker.kill()
            self._forget()
            raise
        self._checkin(worker)
        return output

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._lock.notify_all()
        for worker in idle:
            worker.kill()

    def _checkout(self, session: object, check: Callable[[], None]) -> _Worker:
        """A worker for a call of ``session``: its own idle one, a fresh one, a new one, or
        one started in the place of another session's least recently used idle worker.
        An idle worker whose channel is not empty is killed and the call fails."""
        victim: _Worker | None = None
        with self._lock:
            while True:
                if self._closed:
                    raise ToolCrashed("the jailed tools were closed")
                worker = self._take(session)
                if worker is not None:
                    break
                if self._count < self.limits.workers:
                    self._count += 1
                    break
                victim = self._take_other()
                if victim is not None:
                    break  # its slot is this call's: the count stays
                self._lock.wait(_POLL_SECONDS)
                check()
        if victim is not None:
            victim.kill()
        if worker is None:
            try:
                worker = self._start(check)
            except BaseException:
                self._forget()
                raise
        worker.session = session
        problem = worker.idle_problem()
        if problem is not None:
            worker.kill()
            self._forget()
            logger.error("jailed tools %s: %s", self.tools_path, problem)
            raise ToolCrashed(problem)
        return worker

    def _take(self, session: object) -> _Worker | None:
        """This session's most recently used idle worker, else a fresh one (lock held)."""
        for i in range(len(self._idle) - 1, -1, -1):
            if self._idle[i].session is session:
                return self._idle.pop(i)
        for i in range(len(self._idle) - 1, -1, -1):
            if self._idle[i].session is None:
                return self._idle.pop(i)
        return None

    def _take_other(self) -> _Worker | None:
        """The idle worker to make room with: one whose session is gone (its connection
        closed), else the least recently used (lock held)."""
        if not self._idle:
            return None
        for i, worker in enumerate(self._idle):
            if _gone(worker.session):
                return self._idle.pop(i)
        return self._idle.pop(0)

    def _start(self, check: Callable[[], None] | None = None) -> _Worker:
        worker = _Worker(self.tools_path, self.names, self.limits, check)
        self._live.add(worker)
        worker.on_kill = self._live.discard
        return worker

    def _checkin(self, worker: _Worker) -> None:
        with self._lock:
            if self._closed:
                worker.kill()
                return
            self._idle.append(worker)
            self._lock.notify()

    def _forget(self) -> None:
        with self._lock:
            self._count -= 1
            self._lock.notify()


class _JailedFunction:
    __slots__ = ("name", "tools")

    def __init__(self, tools: JailedTools, name: str) -> None:
        self.tools, self.name = tools, name

    def __call__(self, ctx: ToolContext, **args: Any) -> Any:
        return self.tools.call(self.name, ctx, args)


def load_tools(
    tools_path: Path, names: Sequence[str], *, jailed: bool, limits: IsolationLimits | None = None
) -> ModuleType | JailedTools:
    """A package's ``tools.py``: in jailed workers, or (``jailed=False``, for trusted code
    only) imported into this process, where ``from .runtime import ...`` finds this runtime."""
    if jailed:
        return JailedTools(tools_path, names, limits)
    path = Path(tools_path).resolve()
    package = f"envfactory_trusted_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}"
    if f"{package}.tools" in sys.modules:
        return sys.modules[f"{package}.tools"]
    holder = ModuleType(package)
    holder.__path__ = []
    sys.modules[package], sys.modules[f"{package}.runtime"] = holder, sys.modules[__package__ or "runtime"]
    spec = importlib.util.spec_from_file_location(f"{package}.tools", path)
    if spec is None or spec.loader is None:
        raise IsolationError(f"{path} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return module


def _run_sql(ctx: ToolContext, message: dict[str, Any]) -> dict[str, Any]:
    """Run one statement a jailed tool sent, as ``ctx`` would in-process; the answer to send back."""
    sql, raw = message.get("sql"), message.get("params", [])
    try:
        if not isinstance(sql, str):
            raise TypeError("the statement must be a string")
        if isinstance(raw, dict):
            params: Any = {str(k): decode_value(v) for k, v in raw.items()}
        elif isinstance(raw, list):
            params = [decode_value(v) for v in raw]
        else:
            raise TypeError("parameters must be a list or an object")
        cursor = ctx._execute(sql, params)
        columns = None if cursor.description is None else [d[0] for d in cursor.description]
        rows = _bounded_rows(cursor) if columns is not None else []
        return {"columns": columns, "rows": rows, "rowcount": cursor.rowcount, "lastrowid": cursor.lastrowid}
    except (sqlite3.Error, ValueError, TypeError, OverflowError) as exc:
        return {"error": str(exc), "error_type": type(exc).__name__}


# What one statement's rows may weigh on their way to a jailed tool (roughly: text and
# blob lengths, 8 bytes a number), well under a frame (``MAX_FRAME``).
RESULT_BYTES = 16 << 20


def _bounded_rows(cursor: sqlite3.Cursor) -> list[list[Any]]:
    """The cursor's rows, encoded, read only while they weigh under ``RESULT_BYTES``: a
    cross join of the session's tables cannot fill this process's memory."""
    rows: list[list[Any]] = []
    size = 0
    for row in cursor:
        size += 8 + sum(len(v) if isinstance(v, str | bytes) else 8 for v in row)
        if size > RESULT_BYTES:
            raise ValueError(
                f"the statement's result is over {RESULT_BYTES >> 20} MiB after {len(rows)} rows; "
                "ask for fewer rows (LIMIT) or fewer columns"
            )
        rows.append([encode_value(v) for v in row])
    return rows


def _same_call(sent: Any, call_id: str) -> bool:
    return isinstance(sent, str) and hmac.compare_digest(sent.encode("utf-8", "replace"), call_id.encode())


def _gone(session: object) -> bool:
    """Whether a session's connection is closed (the session ended or was parked)."""
    if not isinstance(session, sqlite3.Connection):
        return False
    try:
        session.total_changes  # noqa: B018 - raises once the connection is closed
    except sqlite3.ProgrammingError:
        return True
    return False


def _kill_all(workers: set[_Worker]) -> None:
    for worker in list(workers):
        worker.kill()


def _fallback(seconds: float) -> Callable[[], None]:
    deadline = time.monotonic() + seconds

    def check() -> None:
        if time.monotonic() > deadline:
            raise CallTimeout()

    return check


def _raise_past(deadline: float, what: str) -> None:
    if time.monotonic() > deadline:
        raise ToolCrashed(f"{what} within the start limit")


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__
