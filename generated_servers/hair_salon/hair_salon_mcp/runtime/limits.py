# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Limits of served tool calls: a time limit per call, a safe recursion limit, and the
process's address-space limit.

A served call runs tool code in the server process, on the event loop (in-memory
sessions) or in a worker thread (``--db``). ``CallWatch`` bounds one call:

- On the main thread, ``signal.setitimer`` raises ``CallTimeout`` in the tool at the
  deadline. It is a ``BaseException``, so ``except Exception`` in tool code cannot
  swallow it, and the signal interrupts a sleeping system call too.
- On any thread, an SQLite progress handler interrupts a statement running past the
  deadline (a runaway recursive CTE), and ``expired`` tells the toolbox the call is over
  even if the tool caught the ``OperationalError``; ``ToolContext`` checks the deadline
  before every statement. In a worker thread these are the only bounds: signals reach
  the main thread alone, so a loop there that runs no SQL is not interrupted (see
  ARCHITECTURE.md).
- The recursion limit is set to ``SAFE_RECURSION_LIMIT`` for the call and restored
  afterwards, so a limit raised by an earlier call cannot let deep C recursion overflow
  the C stack and kill the process.

Memory is bounded for the whole process (``limit_address_space``): one call's huge
allocation becomes a ``MemoryError`` in that call.
"""

from __future__ import annotations

import signal
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from types import FrameType
from typing import Any, Self

DEFAULT_CALL_SECONDS = 5.0
DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024  # a request's size limit: the SDK's default for an HTTP body
# Room for the default --max-session-keys (10,000) of retail sessions that all wrote
# (~0.43 MB each, 4.3 GB; sessions that only read share the seed), with headroom.
DEFAULT_MAX_MEMORY_MB = 6144
# Python's own default: far below what an 8 MiB C stack survives with C frames in between.
SAFE_RECURSION_LIMIT = 1000
# SQLite VM steps between deadline checks: ~0.1 ms of SQL, a few percent of overhead.
_PROGRESS_STEPS = 10_000


@dataclass(frozen=True)
class IsolationLimits:
    """Limits of each jailed worker (``isolation.py``). ``fallback_seconds`` bounds a call whose caller set
    no time limit of its own (the task oracle); the server's ``--call-timeout`` wins."""

    memory_mb: int = 1024
    workers: int = 2
    start_seconds: float = 30.0
    fallback_seconds: float = 30.0
    open_files: int = 64
    work_bytes: int = 16 << 20


class CallTimeout(BaseException):
    """A tool call ran past its time limit (a BaseException, so tool code cannot catch it
    with ``except Exception``)."""


# The alarm never raises in these modules' frames (the toolbox's bookkeeping, this
# module's cleanup and progress handler): there the toolbox checks ``expired`` instead.
_TOOLBOX_MODULE = __name__.rpartition(".")[0] + ".toolbox"
_QUIET_MODULES = frozenset({__name__, _TOOLBOX_MODULE})
# Nor anywhere under a jailed call (``isolation.py``): that code bounds the call itself,
# asking ``check`` between its waits, and its cleanup (killing and reaping a worker,
# freeing its slot) must not be cut short by the alarm repeating meanwhile.
_JAILED_MODULE = __name__.rpartition(".")[0] + ".isolation"
_RETRY_SECONDS = 0.05  # after the deadline the alarm repeats until the call is over


# The SIGALRM handler of the process while calls are watched: installed by the first call
# with a time limit (and again if something replaced it) and then kept, so a call costs
# two system calls (arm and disarm the timer) instead of four. It passes an alarm to the
# call being watched (``_watching``), else to the handler it replaced, if that was one.
_watching: CallWatch | None = None
_replaced: Any = None


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    watch = _watching
    if watch is not None:
        watch._alarm(signum, frame)
    elif callable(_replaced):
        _replaced(signum, frame)


try:  # the C function under ``signal.getsignal``, which converts a handler to an enum by
    # raising and catching a ValueError: ~4 us of every call's ~100 (issue 32)
    from _signal import getsignal as _handler_of  # type: ignore[import-not-found]
except ImportError:  # another implementation of Python
    _handler_of = signal.getsignal


def _install_alarm() -> None:
    global _replaced
    if _handler_of(signal.SIGALRM) is not _on_alarm:
        _replaced = signal.signal(signal.SIGALRM, _on_alarm)


class CallWatch:
    """The limits of one call on ``db``, armed by ``with``; ``expired`` is True once the
    call's deadline has been seen to pass (by the timer or by SQLite's progress handler).

    ``seconds=None`` arms no deadline (the verifier's worker keeps its own timer) but
    still bounds the recursion limit. After the deadline the alarm repeats every 50 ms
    until the call is over. An alarm handled in a quiet frame (most often the progress
    handler, while SQL runs: ``sqlite3`` would swallow an exception raised there and the
    tool may catch the ``OperationalError`` that follows) does not raise; it turns on
    tracing for the tool's frames instead, so ``CallTimeout`` is raised at the tool's
    next line.
    """

    __slots__ = (
        "_armed",
        "_closed",
        "_deadline",
        "_installed",
        "_previous",
        "_previous_trace",
        "_recursion",
        "_tracing",
        "db",
        "expired",
        "seconds",
    )

    def __init__(self, db: sqlite3.Connection, seconds: float | None) -> None:
        self.db, self.seconds = db, seconds
        self.expired = False
        self._armed = False
        self._closed = False
        self._installed = False
        self._deadline = float("inf")
        self._previous: Any = None
        self._previous_trace: Any = None
        self._tracing = False
        self._recursion = 0

    def __enter__(self) -> Self:
        self._recursion = sys.getrecursionlimit()
        try:
            sys.setrecursionlimit(SAFE_RECURSION_LIMIT)
        except RecursionError:  # already deeper than that: keep the limit in force
            pass
        if self.seconds is None:
            return self
        self._deadline = time.monotonic() + self.seconds
        self.db.set_progress_handler(self._check, _PROGRESS_STEPS)
        if threading.current_thread() is threading.main_thread():
            global _watching
            _install_alarm()
            self._previous, _watching = _watching, self
            self._installed = self._armed = True
            signal.setitimer(signal.ITIMER_REAL, self.seconds, _RETRY_SECONDS)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Disarm everything; safe to call more than once. Never raises CallTimeout: an
        alarm handled in this module's frames only sets ``expired``."""
        self._armed, self._closed = False, True
        if self._installed:
            global _watching
            signal.setitimer(signal.ITIMER_REAL, 0)
            if _watching is self:
                _watching = self._previous
            self._installed = False
        if self._tracing:
            self._tracing = False
            sys.settrace(self._previous_trace)
        if self.seconds is not None:
            self.db.set_progress_handler(None, 0)
        if self._recursion:
            sys.setrecursionlimit(self._recursion)
            self._recursion = 0

    def check(self) -> None:
        """Raise ``CallTimeout`` if the deadline has passed (``ToolContext`` asks before
        each statement: the bound on a tool looping over SQL in a worker thread)."""
        if self._armed_deadline() < time.monotonic():
            self.expired = True
            raise CallTimeout()

    def _armed_deadline(self) -> float:
        return self._deadline if self.seconds is not None and not self._closed else float("inf")

    def _alarm(self, signum: int, frame: FrameType | None) -> None:
        if not self._armed:
            return
        self.expired = True
        if frame is None:
            raise CallTimeout()
        quiet = frame.f_globals.get("__name__") in _QUIET_MODULES
        tool_frames = []
        while frame is not None and (name := frame.f_globals.get("__name__")) != _TOOLBOX_MODULE:
            if name == _JAILED_MODULE:
                return  # a jailed call: it raises ``CallTimeout`` itself, at its next check
            if name not in _QUIET_MODULES:
                tool_frames.append(frame)
            frame = frame.f_back
        if not quiet:
            raise CallTimeout()
        if frame is None or not tool_frames:  # in the toolbox itself: it checks ``expired``
            return
        if not self._tracing:
            self._previous_trace, self._tracing = sys.gettrace(), True
            sys.settrace(self._trace)  # line events reach a frame's f_trace only while tracing
        for tool_frame in tool_frames:
            tool_frame.f_trace, tool_frame.f_trace_lines = self._trace, True

    def _trace(self, frame: FrameType, event: str, arg: object) -> Any:
        if not self._armed or frame.f_globals.get("__name__") in _QUIET_MODULES:
            return None
        raise CallTimeout()  # CPython then switches tracing off; close() restores the old tracer

    def _check(self) -> int:
        if time.monotonic() > self._deadline:
            self.expired = True
            return 1  # nonzero interrupts the running statement
        return 0


def limit_address_space(megabytes: int) -> int | None:
    """Lower the process's address-space limit (RLIMIT_AS, soft and hard) to ``megabytes``.

    Never raises a limit already lower (a jail's, say). Returns the limit now in force, in
    bytes, or None when there is none. Past it, an allocation fails with ``MemoryError``
    in the code that asked, instead of the kernel's OOM killer ending the server.
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    unlimited = resource.RLIM_INFINITY
    current = min((v for v in (soft, hard) if v != unlimited), default=None)
    if megabytes <= 0:
        return current
    wanted = megabytes * 1024 * 1024
    if current is not None and current <= wanted:
        return current
    resource.setrlimit(resource.RLIMIT_AS, (wanted, wanted))
    return wanted


@dataclass(frozen=True)
class SessionJail:
    """Limits of the jailed session processes of one served package."""

    memory_mb: int = 1024  # address space of each session process
    cpu_seconds: int = 600  # CPU time of each session process (SIGXCPU ends it)
    max_sessions: int = 1_024  # session processes at once, all clients together
    sessions_per_client: int = 256  # session processes one client may hold
    zygote_memory_mb: int = 2048  # address space of the fork server (it builds the seed)
    start_seconds: float = 300.0  # far backstop for the fork server's start (wall clock)

    def __post_init__(self) -> None:
        if (
            self.memory_mb < 64
            or self.cpu_seconds < 1
            or self.max_sessions < 1
            or self.sessions_per_client < 1
        ):
            raise ValueError(f"jailed session limits out of range: {self}")
