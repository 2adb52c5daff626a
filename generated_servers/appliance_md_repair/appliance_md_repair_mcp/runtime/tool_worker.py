# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Inside the jail: load a package's tool code and run one call at a time for the server.

Started by ``isolation.JailedTools`` as ``python -I -S -B -c <boot>``, where the boot
code loads this file by path and calls :func:`main`. Everything here runs under the
jail of ``jail.py``; :func:`main` confines itself (``confine_self``) and sets its
rlimits *before* it loads ``tools.py``, so even the module's import-time code is jailed.

The server and this process speak length-prefixed JSON frames (4-byte big-endian
length, then UTF-8 JSON) over two private descriptors; the process's own stdin is
``/dev/null`` and its stdout goes to stderr, so a ``print`` in tool code cannot corrupt
the channel. Per call the server sends ``{"op": "call", "id", "tool", "args", "now"}``,
``id`` a fresh unpredictable call id; the tool runs with a ``ToolContext`` whose
database is :class:`RemoteDatabase`: every statement travels to the server, which runs
it on the session's database under the authorizer and the time limit, and answers with
the rows or the error. The call ends with one of ``done`` (the output), ``fail``
(``ctx.fail``: a business-rule refusal) or ``error`` (an exception). Every frame of a
call, both ways, carries its id.

Tool code can forge frames too (it shares this process, so it can read the id of the
call it runs in); the server treats every frame as untrusted input: a frame of another
id, a frame while no call is in flight or bytes left after a call's answer cost that
call and this process (``isolation.py``). What keeps one session's tool code from
another session's calls is that a worker serves one session only: code that hooks this
process can see the ids of later calls, but only ever of the same session.

Stdlib only, and only this folder's ``jail.py``, ``seccomp.py`` and ``context.py``,
loaded by path: no package around it is imported.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import resource
import sqlite3
import struct
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

HEADER = struct.Struct(">I")
MAX_FRAME = 64 << 20  # bytes; a bigger frame is a broken peer
_PACKAGE = "envfactory_package"  # the package tools.py is loaded into, in the jail


# ----------------------------------------------------------------------------- frames (both sides)


def encode_value(value: Any) -> Any:
    """An SQL value as JSON: bytes become ``{"b64": ...}`` (no other value is an object)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return {"b64": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def decode_value(value: Any) -> Any:
    if isinstance(value, dict):
        data = value.get("b64")
        if not isinstance(data, str) or len(value) != 1:
            raise ValueError("an SQL value must be null, a number, a string or bytes")
        return base64.b64decode(data, validate=True)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise ValueError("an SQL value must be null, a number, a string or bytes")


def encode_frame(message: dict[str, Any]) -> bytes:
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    if len(data) > MAX_FRAME:
        raise ValueError(f"message of {len(data)} bytes is over the {MAX_FRAME}-byte limit")
    return HEADER.pack(len(data)) + data


def write_frame(fd: int, message: dict[str, Any]) -> None:
    view = memoryview(encode_frame(message))
    while view:
        view = view[os.write(fd, view) :]


# ----------------------------------------------------------------------------- the jailed side


class RemoteCursor:
    """What ``ToolContext`` reads from a cursor, filled from the server's answer."""

    def __init__(self, answer: dict[str, Any]) -> None:
        names = answer.get("columns")
        self.description = None if names is None else [(n, None, None, None, None, None, None) for n in names]
        self._rows = [tuple(decode_value(v) for v in row) for row in answer.get("rows", [])]
        self.rowcount: int = answer.get("rowcount", -1)
        self.lastrowid: int | None = answer.get("lastrowid")

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows, self._rows = self._rows, []
        return rows

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]:
        rows, self._rows = self._rows[:size], self._rows[size:]
        return rows

    def __iter__(self) -> Any:
        return iter(self.fetchall())


class RemoteDatabase:
    """The session database as tool code sees it in the jail: ``execute`` only, run by the server."""

    def __init__(self, channel: _Channel) -> None:
        self._channel = channel

    def execute(self, sql: str, params: Any = ()) -> RemoteCursor:
        if not isinstance(sql, str):
            raise TypeError("execute() argument 1 must be str")
        if isinstance(params, dict):
            sent: Any = {str(k): encode_value(v) for k, v in params.items()}
        elif isinstance(params, list | tuple):
            sent = [encode_value(v) for v in params]
        else:
            raise sqlite3.ProgrammingError("parameters are of unsupported type")
        answer = self._channel.ask({"op": "sql", "sql": sql, "params": sent})
        if "error" in answer:
            raise _sql_error(str(answer.get("error_type", "")), str(answer["error"]))
        return RemoteCursor(answer)


def _sql_error(kind: str, message: str) -> Exception:
    cls = getattr(sqlite3, kind, None)
    if isinstance(cls, type) and issubclass(cls, sqlite3.Error):
        return cls(message)
    if kind in ("ValueError", "TypeError", "OverflowError"):
        return {"ValueError": ValueError, "TypeError": TypeError, "OverflowError": OverflowError}[kind](
            message
        )
    return sqlite3.Error(message)


class _Channel:
    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        self.call_id: str | None = None  # the call in flight, whose id every frame carries

    def send(self, message: dict[str, Any]) -> None:
        if self.call_id is not None:
            message = {**message, "id": self.call_id}
        write_frame(self.write_fd, message)

    def receive(self) -> dict[str, Any] | None:
        header = self._read(HEADER.size)
        if header is None:
            return None
        (size,) = HEADER.unpack(header)
        data = self._read(size)
        if data is None or size > MAX_FRAME:
            return None
        message = json.loads(data)
        return message if isinstance(message, dict) else None

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        answer = self.receive()
        if answer is None or answer.get("id") != self.call_id:
            raise SystemExit(0)  # the server is gone, or this channel is out of step
        return answer

    def _read(self, n: int) -> bytes | None:
        chunks, left = [], n
        while left:
            chunk = os.read(self.read_fd, min(left, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)


def _load_by_path(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=None)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _private_channel() -> _Channel:
    """Move the frames to private descriptors: stdin becomes /dev/null and stdout goes to
    stderr, so tool code that prints or reads cannot touch the channel by accident."""
    read_fd, write_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return _Channel(read_fd, write_fd)


def _apply_limits(memory_bytes: int, open_files: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))
    resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 20, 8 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _run_call(
    channel: _Channel, tools: ModuleType, context: ModuleType, request: dict[str, Any]
) -> dict[str, Any]:
    fn: Callable[..., Any] | None = getattr(tools, str(request.get("tool")), None)
    args = request.get("args")
    if not callable(fn) or not isinstance(args, dict):
        return {"op": "error", "type": "LookupError", "message": f"no tool {request.get('tool')!r}"}
    ctx = context.ToolContext(db=RemoteDatabase(channel), now=str(request.get("now", "")))
    try:
        output = fn(ctx, **args)
    except context.ToolError as exc:
        return {"op": "fail", "message": str(exc)}
    except MemoryError:
        return {"op": "error", "type": "MemoryError", "message": "ran out of memory"}
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any defect of the tool is reported, not fatal
        return {"op": "error", "type": type(exc).__name__, "message": str(exc)}
    if not isinstance(output, dict):
        return {"op": "bad_output", "message": f"returned {type(output).__name__}, not an object"}
    try:
        json.dumps(output, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return {"op": "bad_output", "message": f"output is not JSON: {exc}"}
    except RecursionError:
        return {"op": "bad_output", "message": "output is not JSON: nested too deeply"}
    return {"op": "done", "output": output}


def main(config: dict[str, Any]) -> None:
    """Confine this process, load the tools, then answer calls until the server hangs up."""
    here = os.path.dirname(os.path.abspath(__file__))
    jail = _load_by_path("envfactory_jail", os.path.join(here, "jail.py"))
    jail.confine_self()
    channel = _private_channel()
    _apply_limits(int(config["memory_bytes"]), int(config["open_files"]))
    sys.setrecursionlimit(1000)
    context = _load_by_path("envfactory_tool_context", os.path.join(here, "context.py"))
    # tools.py as it sits in its package: ``from .runtime import ToolError`` finds the context.
    package = ModuleType(_PACKAGE)
    package.__path__ = []
    sys.modules[_PACKAGE], sys.modules[f"{_PACKAGE}.runtime"] = package, context
    try:
        tools = _load_by_path(f"{_PACKAGE}.tools", config["tools_path"])
    except BaseException as exc:  # noqa: BLE001 - whatever the module did, report it
        channel.send({"op": "ready", "error": f"{type(exc).__name__}: {exc}"[:500]})
        return
    wanted = [n for n in config["names"] if isinstance(n, str)]
    channel.send({"op": "ready", "tools": [n for n in wanted if callable(getattr(tools, n, None))]})
    while True:
        request = channel.receive()
        call_id = None if request is None else request.get("id")
        if request is None or request.get("op") != "call" or not isinstance(call_id, str) or not call_id:
            return  # the server hung up, or sent what it never sends: out of step, so stop
        channel.call_id = call_id
        try:
            answer = _run_call(channel, tools, context, request)
        except RecursionError:
            answer = {"op": "error", "type": "RecursionError", "message": "maximum recursion depth exceeded"}
        channel.send(answer)
        channel.call_id = None
