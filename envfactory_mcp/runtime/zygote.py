"""Inside the jail: a fork server that gives every session its own whole server process.

``front.py`` (the trusted side) starts this module in the jail of ``jail.py`` (bubblewrap,
seccomp stage ``zygote``, no ``/proc``, a read-only work directory, the package folder
bound read-only) with a Unix socket as its stdin. It confines itself (uid 65534, no
capabilities, no ``execve``), sets its limits, loads what every session shares (this
runtime, the MCP stack, the package's spec and the seed image built from its schema and
seed SQL, all under the SQL guard of ``database.py``) and says ``ready``. Then, for each
socket the front sends it (``SCM_RIGHTS``), it forks a session process and answers with
its pid; ``kill <pid>`` ends one of its session processes (a call past its deadline in C
code, which no timer inside can stop). Messages are packets (``SOCK_SEQPACKET``).

The session process closes the zygote's socket (it can reach nothing but its own
client), stacks the start filter again with its own pid (no process of its own, no
signal to anyone else), becomes undumpable, sets its own memory and CPU limits, and only
then imports the package's ``tools.py`` and serves the front on the socket: one session,
its tool calls and control operations, one JSON line each way (``_serve``; the MCP
protocol is the front's). When the socket closes it exits. Nothing of one session (module state, database, memory) is visible to another:
each is its own process, and the jail leaves them no shared writable place, no IPC
and no view of each other.

Stdlib + ``mcp`` only: ``runtime/`` is copied into every generated package.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import signal
import socket
import sys
from pathlib import Path
from typing import Any

READY = b"ready"
SPAWN = b"spawn"
KILL = b"kill "


def main(config_json: str) -> None:
    """Run the fork server; ``config_json`` is the front's configuration (``front.py``)."""
    config = json.loads(config_json)
    sys.dont_write_bytecode = True
    from . import jail

    jail.confine_self()
    _limit(resource.RLIMIT_AS, int(config["zygote_memory_mb"]) << 20)
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, 8 << 20)  # stderr may be a file; the work directory is read-only
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=os.dup(0))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    try:
        shared = _preload(config)
    except Exception as exc:  # noqa: BLE001 - the front shows the one line and stops
        control.sendall(f"error {type(exc).__name__}: {exc}".replace("\n", " ").encode()[:2000])
        raise SystemExit(2) from None
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # sessions are reaped by the kernel
    gc.collect()
    gc.freeze()  # shared with every session: kept out of collections, so its pages stay shared
    control.sendall(READY)
    sessions: set[int] = set()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 64, 1)
        except OSError:
            return
        if not message:
            return  # the front is gone
        if message.startswith(KILL) and not fds:
            pid = int(message[len(KILL) :] or 0) if message[len(KILL) :].isdigit() else 0
            if pid in sessions:
                sessions.discard(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            continue  # no answer: the front does not wait for one
        if message != SPAWN or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            control.sendall(b"error malformed request")
            continue
        pid = os.fork()
        if pid == 0:
            _session(fds[0], control, shared, config)  # never returns
        os.close(fds[0])
        sessions.add(pid)
        control.sendall(f"{pid}".encode())


def _limit(which: int, value: int) -> None:
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _preload(config: dict[str, Any]) -> dict[str, Any]:
    """What every session shares: the spec, the seed image, the MCP stack."""
    from .database import build_seed_image
    from .server import Bundle

    data = Path(config["package_dir"]) / "data"
    bundle = Bundle.from_directory(data, tools_module=None)  # type: ignore[arg-type]
    image = build_seed_image(bundle.schema_sql, bundle.seed_sql)
    from . import server, stdio, toolbox  # noqa: F401 - loaded here, once, for every session

    return {"bundle": bundle, "image": image}


def _session(fd: int, control: socket.socket, shared: dict[str, Any], config: dict[str, Any]) -> None:
    """A forked session process: confine, limit, load the tool code, serve, exit."""
    status = 1
    try:
        control.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        from . import jail

        jail.confine_session()
        os.dup2(fd, 0)
        os.dup2(fd, 1)
        os.close(fd)
        _limit(resource.RLIMIT_AS, int(config["session_memory_mb"]) << 20)
        _limit(resource.RLIMIT_CPU, int(config["session_cpu_seconds"]))
        _serve(shared, config)
        status = 0
    except BaseException as exc:  # noqa: BLE001 - a session process never returns into the zygote's loop
        try:
            print(f"session process: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        except BaseException:  # noqa: BLE001 - nothing left to report with
            pass
    finally:
        os._exit(status)


def _serve(shared: dict[str, Any], config: dict[str, Any]) -> None:
    """Serve the front, one request line at a time, until it closes the socket.

    The front speaks MCP to the client; to a session process it sends only what the
    session does: ``{"id", "op": "call", "name", "arguments"}`` (a tool or a
    ``control.*`` operation of this one session) and ``{"id", "op": "catalog"}`` (the
    tools, resources and prompts, asked once per server). Each answer is one line,
    ``{"id", "result"}``: a ``CallToolResult`` or the catalog, as JSON."""
    import dataclasses

    from .isolation import load_tools
    from .server import CONTROL_PREFIX, _control_op, _result
    from .sessions import SessionLimits, SessionRefused, SessionStore
    from .stdio import _claim
    from .toolbox import Toolbox

    wire_in, wire_out = _claim(0, "rb"), _claim(1, "wb")  # print() in tool code goes to stderr
    bundle = shared["bundle"]
    names = [str(t.get("name")) for t in bundle.spec.get("tools", []) if isinstance(t, dict)]
    tools = load_tools(Path(config["package_dir"]) / "tools.py", names, jailed=False)
    bundle = dataclasses.replace(bundle, tools_module=tools)
    toolbox = Toolbox(bundle.spec, tools, call_seconds=config["call_seconds"])
    store = SessionStore(shared["image"], None, keys_allowed=False, limits=SessionLimits(max_keys=1))
    owner = _Client()  # the one client of this process
    limit = int(config["max_request_bytes"])

    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The answer to one request: a tool's outcome (``ok``, ``output``, ``error``,
        which the front turns into its result) or a control operation's whole result."""
        if name.startswith(CONTROL_PREFIX):
            op = name.removeprefix(CONTROL_PREFIX)
            if op not in ("reset", "state", "state_hash"):
                return {"ok": False, "error": f"Unknown control operation {name!r}."}
            session = store.open(None, owner) if op == "reset" else store.session(None, owner, write=False)
            try:
                result = _result(_control_op(session, op, arguments))
            finally:
                session.release()
            return {"result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}
        tool = toolbox.tools.get(name)
        writes = tool is not None and tool.effect == "write"
        session = store.session(None, owner, write=writes)
        try:
            outcome = toolbox.call(session.db.db if writes else session.db.reader(), name, arguments)
        finally:
            session.release()
        return {"ok": outcome.ok, "output": outcome.output, "error": outcome.error}

    while True:
        line = wire_in.readline(limit + 1)
        if not line.endswith(b"\n"):
            return  # the front closed the socket (or broke the protocol): this session ends
        request = json.loads(line)
        if request.get("op") == "catalog":
            answer: dict[str, Any] = {"result": _catalog(bundle, toolbox)}
        else:
            arguments = request.get("arguments")
            try:
                answer = call(str(request.get("name")), arguments if isinstance(arguments, dict) else {})
            except SessionRefused as exc:
                answer = {"ok": False, "error": str(exc)}
        answer["id"] = request.get("id")
        wire_out.write(json.dumps(answer, ensure_ascii=False).encode() + b"\n")
        wire_out.flush()


class _Client:
    """The owner of this process's one session (weakly referenced by the session store)."""


def _catalog(bundle: Any, toolbox: Any) -> dict[str, Any]:
    """What the front lists for every session alike: server info, tools, resources, prompts."""
    import mcp_types as types

    from .server import _agent_prompt, _agent_prompt_text, _control_tools, _documents, _mcp_tool

    def dump(model: Any) -> Any:
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)

    documents = _documents(bundle)
    prompt = _agent_prompt(bundle)
    policy = str(bundle.spec.get("policy", ""))
    text = types.TextContent(type="text", text=_agent_prompt_text(policy))
    prompt_text = types.GetPromptResult(
        description=prompt.description, messages=[types.PromptMessage(role="user", content=text)]
    )
    return {
        "name": str(bundle.spec["name"]),
        "title": str(bundle.spec.get("title", bundle.spec["name"])),
        "description": str(bundle.spec.get("description", "")),
        "instructions": policy,
        "tools": [dump(_mcp_tool(t)) for t in toolbox.tools.values()] + [dump(t) for t in _control_tools()],
        "resources": [dump(d.resource) for d in documents.values()],
        "contents": {
            uri: dump(types.ReadResourceResult(contents=[d.contents])) for uri, d in documents.items()
        },
        "prompts": [dump(prompt)],
        "prompt_texts": {prompt.name: dump(prompt_text)},
    }
