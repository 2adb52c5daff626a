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
then imports the package's ``tools.py`` and serves one MCP client on the socket, as
``python -m <runtime> <package> --control`` would on stdio. When the socket closes it
exits. Nothing of one session (module state, database, memory) is visible to another:
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
    _limit(resource.RLIMIT_FSIZE, 0)  # the work directory is read-only anyway
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
    from . import cli, stdio  # noqa: F401 - loaded here, once, for every session

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
    import dataclasses

    import anyio

    from .cli import _serve_stdio
    from .isolation import load_tools
    from .server import ServerOptions, create_server

    bundle = shared["bundle"]
    names = [str(t.get("name")) for t in bundle.spec.get("tools", []) if isinstance(t, dict)]
    tools = load_tools(Path(config["package_dir"]) / "tools.py", names, jailed=False)
    bundle = dataclasses.replace(bundle, tools_module=tools)
    options = ServerOptions(control=True, call_seconds=config["call_seconds"], version=config["version"])
    server = create_server(bundle, options, seed_image=shared["image"])
    anyio.run(_serve_stdio, server, int(config["max_request_bytes"]))
