# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""The trusted front of a package that is not trusted: one jailed server process per session.

``python -m <runtime> <package> --jail`` (and so ``envfactory-mcp serve`` and the host's
launchers for every package that is not shipped code) serves such a package here. This
process holds only what is trusted: the MCP protocol towards the client (stdio or
streamable HTTP with its auth), the routing of sessions and their quotas. It never
imports the package's code, never runs its SQL and never opens its files beyond what
the jail binds.

Everything of the package runs in the jail (``jail.py``): a fork server (``zygote.py``)
started once, in bubblewrap with seccomp, as uid 65534, without network, ``/proc`` or a
writable directory, with the package bound read-only; it builds the seed once, then
forks one *session process* per session, which loads the tool code and serves exactly
one client over a socketpair. A session is a connection (a stdio client, an HTTP
``Mcp-Session-Id``), or with ``--control`` a ``_meta`` session key of a connection (a
host's episode); no process ever serves two. Session processes have their own memory
and CPU limits; a crash, a spin or a hostile answer costs that session only.

To its session processes the front speaks only what a session does (a tool call or a
control operation, one JSON line each way; ``zygote._serve``) and trusts nothing: every
answer line is bounded, parsed and validated as a ``CallToolResult``; anything else ends
that session process. Quotas are per client (the connection, or the bearer of an
HTTP session): at most ``sessions_per_client`` session processes each, and when all
``max_sessions`` are taken a client below its fair share takes the least recently used
idle session of the client holding the most, so a flood from one client never refuses
the others.

Stdlib + ``mcp`` only: ``runtime/`` is copied into every generated package (where this is
the package's own code, as trustworthy as the package: only ``envfactory-mcp serve``
contains a package you do not trust).
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server import Server

from . import jail
from .limits import DEFAULT_MAX_LINE_BYTES, SessionJail
from .server import CONTROL_PREFIX, ServerOptions, _owner_of, _result, mcp_server
from .sessions import KEYS_NEED_CONTROL, MAX_KEY_CHARS, SESSION_META_KEY, SessionLimits
from .toolbox import CallOutcome
from .zygote import KILL, READY, SPAWN

logger = logging.getLogger(__name__)

INTERNAL_ERROR = -32603


class JailedServerError(RuntimeError):
    """The jailed server could not start, or a session process broke the protocol."""


# ----------------------------------------------------------------------------- the zygote


class Zygote:
    """The jailed fork server of one package (``zygote.py``), seen from the trusted side."""

    def __init__(self, package_dir: Path, limits: SessionJail, options: ServerOptions, max_line: int) -> None:
        self.package_dir = Path(package_dir).resolve()
        self.limits = limits
        self.config = {
            "package_dir": str(self.package_dir),
            "session_memory_mb": limits.memory_mb,
            "session_cpu_seconds": limits.cpu_seconds,
            "zygote_memory_mb": limits.zygote_memory_mb,
            "call_seconds": options.call_seconds,
            "max_request_bytes": max_line,
            "version": options.version,
        }
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self.spawned = 0

    def start(self) -> None:
        """Start the fork server and wait until it has loaded the package's data."""
        support = jail.jail_support()
        if not support.available:
            raise JailedServerError(f"no jail on this machine: {support.reason}")
        front_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        top, root = _runtime_location()
        bootstrap = (
            f"import sys; sys.path.insert(0, {root!r}); "
            f"from {__package__}.zygote import main; main(sys.argv[1])"
        )
        argv = [sys.executable, "-I", "-B", "-c", bootstrap, json.dumps(self.config)]
        spec = jail.JailSpec(
            read_only=(top, str(self.package_dir)), work_bytes=1 << 20, work_writable=False, proc=False
        )
        command, fds = jail.popen_args(spec, argv, bwrap=support.bwrap, stage="zygote")
        try:
            self._proc = subprocess.Popen(
                command,
                stdin=zygote_end.fileno(),
                stdout=subprocess.DEVNULL,
                env={"PATH": os.defpath},
                cwd="/",
                pass_fds=fds,
                start_new_session=True,
            )
        finally:
            for fd in fds:
                os.close(fd)
            zygote_end.close()
        self._control = front_end
        front_end.settimeout(self.limits.start_seconds)
        try:
            line = front_end.recv(4096)
        except OSError:
            line = b""
        if line != READY:
            self.close()
            why = line.decode(errors="replace").strip() or "it exited"
            raise JailedServerError(f"the jailed server of {self.package_dir.name} did not start: {why}")
        front_end.settimeout(60.0)

    def spawn(self) -> tuple[socket.socket, int]:
        """A new session process: the front's end of its socket and the process's pid in
        the jail (blocking)."""
        with self._lock:
            if self._control is None:
                raise JailedServerError("the jailed server is closed")
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                socket.send_fds(self._control, [SPAWN], [theirs.fileno()])
                line = self._control.recv(64)
            except OSError as exc:
                ours.close()
                raise JailedServerError(f"the jailed server is gone ({exc})") from None
            finally:
                theirs.close()
            if not line.isdigit():
                ours.close()
                raise JailedServerError(
                    f"the jailed server did not start a session: {line.decode(errors='replace') or 'it exited'}"
                )
            self.spawned += 1
            return ours, int(line)

    def kill(self, pid: int) -> None:
        """End session process ``pid`` now (it may be stuck in C code); no answer awaited."""
        with self._lock:
            if self._control is not None:
                try:
                    self._control.send(KILL + str(pid).encode())
                except OSError:
                    pass

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def close(self) -> None:
        """Kill the fork server and, with its pid namespace, every session process."""
        proc, self._proc = self._proc, None
        if self._control is not None:
            self._control.close()
            self._control = None
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()


def _runtime_location() -> tuple[str, str]:
    """(the top-level package folder holding this runtime, the folder to import it from)."""
    depth = len((__package__ or "runtime").split("."))
    here = Path(__file__).resolve().parent
    top = here.parents[depth - 2] if depth > 1 else here
    return str(top), str(top.parent)


# ----------------------------------------------------------------------------- a session process


class SessionProcess:
    """The front's client of one session process: JSON-RPC lines over a socket, every
    answer bounded and checked; a broken answer ends the process (its socket closes)."""

    def __init__(
        self, sock: socket.socket, pid: int, zygote: Zygote, max_line: int, call_backstop: float
    ) -> None:
        sock.setblocking(False)
        self.sock, self.pid, self.zygote = sock, pid, zygote
        self.max_line = max_line
        self.call_backstop = call_backstop
        self.pending = bytearray()
        self.ids = itertools.count(1)
        self.lock = anyio.Lock()
        self.alive = True
        self.busy = 0
        self.last_used = time.monotonic()

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """One tool call (or ``control.*`` operation) in this session; ``JailedServerError``
        (and the process ended) for a missing or malformed answer."""
        if not self.alive:
            raise JailedServerError("this session's server process has ended")
        self.busy += 1
        try:
            async with self.lock:
                request_id = next(self.ids)
                with anyio.fail_after(self.call_backstop):
                    await self._send({"id": request_id, "op": "call", "name": name, "arguments": arguments})
                    while True:
                        message = await self._message()
                        if message.get("id") == request_id:
                            break  # others answer calls given up on (cancelled)
        except TimeoutError:
            self.close()
            raise JailedServerError(
                f"this session's server process did not answer {name} within {self.call_backstop:g} s"
            ) from None
        finally:
            self.busy -= 1
            self.last_used = time.monotonic()
        ok, output, error = message.get("ok"), message.get("output"), message.get("error")
        if ok is True and isinstance(output, dict):
            return _result(CallOutcome(ok=True, output=output))
        if ok is False and isinstance(error, str):
            return _result(CallOutcome(ok=False, error=error))
        try:
            return types.CallToolResult.model_validate(message["result"])
        except Exception:  # noqa: BLE001 - an answer of any other shape is a broken process
            self.close()
            raise JailedServerError("this session's server process sent a malformed result") from None

    async def _send(self, message: dict[str, Any]) -> None:
        view = memoryview(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
        while view:
            try:
                view = view[self.sock.send(view) :]
            except BlockingIOError:
                await anyio.wait_writable(self.sock)
            except OSError as exc:
                self.close()
                raise JailedServerError(f"this session's server process is gone ({exc})") from None

    async def _message(self) -> dict[str, Any]:
        line = await self._readline()
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            self.close()
            raise JailedServerError(
                "this session's server process sent a line that is not a JSON-RPC message"
            )
        return message

    async def _readline(self) -> bytes:
        scanned = 0
        while True:
            end = self.pending.find(b"\n", scanned)
            if end >= 0:
                line = bytes(self.pending[: end + 1])
                del self.pending[: end + 1]
                return line
            if len(self.pending) > self.max_line:
                self.close()
                raise JailedServerError(
                    f"this session's server process sent a line over {self.max_line} bytes"
                )
            scanned = len(self.pending)
            try:
                chunk = self.sock.recv(1 << 16)
            except BlockingIOError:
                await anyio.wait_readable(self.sock)
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.close()
                raise JailedServerError("this session's server process ended (crashed or was killed)")
            self.pending.extend(chunk)

    def close(self) -> None:
        """End the session process: its socket closed, the process killed by the zygote."""
        if self.alive:
            self.alive = False
            try:
                self.sock.close()
            except OSError:
                pass
            self.zygote.kill(self.pid)


# ----------------------------------------------------------------------------- routing


class _Router:
    """Which session process serves a request: one per (client, session key), fairly shared."""

    def __init__(
        self, zygote: Zygote, limits: SessionJail, session_limits: SessionLimits, options: Any
    ) -> None:
        self.zygote, self.limits, self.session_limits = zygote, limits, session_limits
        self.max_line, self.call_backstop = options
        self.clients: dict[int, dict[str | None, SessionProcess]] = {}
        self.count = 0  # session processes alive or being started
        # Sessions whose process is being started: a second request for one waits for it
        # (the start awaits the zygote, and two processes for one session would split it).
        self.opening: dict[tuple[int, str | None], anyio.Event] = {}
        # Sessions whose process died: their state is gone, so they answer with an error
        # until the client starts them again (control.reset) instead of silently restarting.
        self.lost: set[tuple[int, str | None]] = set()

    async def get(self, owner: Any, key: str | None, restart: bool = False) -> SessionProcess:
        client = id(owner)
        while (opening := self.opening.get((client, key))) is not None:
            await opening.wait()  # another request is starting this session: it is theirs too
        table = self.clients.get(client)
        found = table.get(key) if table is not None else None
        if found is not None and found.alive:
            return found
        if found is not None:
            self.end(owner, key, lost=True)
        if (client, key) in self.lost:
            if not restart:
                raise JailedServerError(
                    "this session's server process ended (it crashed, was killed or broke the protocol) and its "
                    "state with it; start it again with control.reset, or reconnect"
                )
            self.lost.discard((client, key))
        self._sweep()
        self._make_room(client)
        # The start awaits the zygote, and other requests run meanwhile: the process is
        # counted (and its session marked as opening) first, and the client's table is
        # looked up again after, never one captured before the wait.
        self.count += 1
        opening = self.opening[(client, key)] = anyio.Event()
        try:
            sock, pid = await anyio.to_thread.run_sync(self.zygote.spawn)
            process = SessionProcess(sock, pid, self.zygote, self.max_line, self.call_backstop)
            table = self.clients.get(client)
            if table is None:
                table = self.clients[client] = {}
                try:
                    weakref.finalize(owner, self._drop_client, client)
                except TypeError:  # not weakly referenceable: its processes go when idle
                    pass
            table[key] = process
        except BaseException:
            self.count -= 1
            raise
        finally:
            del self.opening[(client, key)]
            opening.set()
        return process

    def end(self, owner: Any, key: str | None, lost: bool = False) -> bool:
        """End a session's process; ``lost``: it died, and the session answers so until restarted."""
        if lost:
            self.lost.add((id(owner), key))
        else:
            self.lost.discard((id(owner), key))
        table = self.clients.get(id(owner))
        process = table.pop(key, None) if table is not None else None
        if process is None:
            return False
        process.close()
        self.count -= 1
        if table is not None and not table:
            self.clients.pop(id(owner), None)
        return True

    def _drop_client(self, client: int) -> None:
        self.lost = {lost for lost in self.lost if lost[0] != client}
        for process in (self.clients.pop(client, None) or {}).values():
            process.close()
            self.count -= 1

    def _sweep(self) -> None:
        """End processes that died or sat idle past the session idle timeout."""
        deadline = time.monotonic() - self.session_limits.idle_seconds
        for client, table in list(self.clients.items()):
            for key, process in list(table.items()):
                if not process.alive or (process.busy == 0 and process.last_used < deadline):
                    process.close()
                    del table[key]
                    self.count -= 1
                    self.lost.add((client, key))  # its state went with it: said so, not reseeded
            if not table:
                del self.clients[client]

    def _make_room(self, client: int) -> None:
        held = len(self.clients.get(client, {})) + sum(1 for c, _ in self.opening if c == client)
        if held >= self.limits.sessions_per_client:
            raise _Refused(
                f"this client already holds {held} sessions, the most one client may hold "
                f"({self.limits.sessions_per_client}); end one (control.end_session) or reuse it"
            )
        if self.count < self.limits.max_sessions:
            return
        holders = len(self.clients) + (client not in self.clients)
        share = max(1, self.limits.max_sessions // holders)
        if held >= share:
            raise _Refused(
                f"all {self.limits.max_sessions} sessions of this server are taken and this client holds "
                f"its share ({held}); end one of its sessions first"
            )
        biggest = max(self.clients, key=lambda c: len(self.clients[c]))
        idle = [(p.last_used, k) for k, p in self.clients[biggest].items() if p.busy == 0]
        if biggest == client or not idle:
            raise _Refused(
                f"all {self.limits.max_sessions} sessions of this server are busy; try again later"
            )
        _, key = min(idle)
        table = self.clients[biggest]
        table.pop(key).close()
        self.count -= 1
        self.lost.add((biggest, key))  # its client hears that its state is gone, not a new seed
        logger.info("ended an idle session of the client holding the most to make room for another client")

    def close(self) -> None:
        for client in list(self.clients):
            self._drop_client(client)


class _Refused(Exception):
    """A session that cannot be opened (a quota); the message says why."""


# ----------------------------------------------------------------------------- the server


def create_jailed_server(
    package_dir: Path,
    options: ServerOptions | None = None,
    limits: SessionJail | None = None,
    *,
    max_request_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> Server[Any]:
    """The MCP server that serves the package in ``package_dir`` (``<root>/<name>_mcp``)
    with one jailed server process per session. Starts the fork server now (raises
    ``JailedServerError`` when it cannot: no jail here, or the package's data does not
    load); it ends with this process, or with ``close_jailed_server``."""
    options = options or ServerOptions()
    limits = limits or SessionJail()
    if options.db_path is not None:
        raise JailedServerError(
            "--db keeps state in a file on this machine, which a jailed server cannot write"
        )
    # Backstop of one call (the session process's own timer ends Python loops and SQL at
    # call_seconds): a call still running max(5 s, call_seconds) later (C code, or code
    # that catches the timer's exception) ends its session process.
    backstop = options.call_seconds + max(5.0, options.call_seconds) if options.call_seconds else 300.0
    zygote = Zygote(package_dir, limits, options, max_request_bytes)
    zygote.start()
    try:
        catalog = _catalog(zygote, max_request_bytes)
    except BaseException:
        zygote.close()
        raise
    router = _Router(zygote, limits, options.session_limits, (max_request_bytes, backstop))
    try:
        tools = [types.Tool.model_validate(t) for t in catalog["tools"]]
        resources = types.ListResourcesResult(
            resources=[types.Resource.model_validate(r) for r in catalog["resources"]]
        )
        contents = {
            str(u): types.ReadResourceResult.model_validate(r) for u, r in catalog["contents"].items()
        }
        prompts = types.ListPromptsResult(
            prompts=[types.Prompt.model_validate(p) for p in catalog["prompts"]]
        )
        prompt_texts = {
            str(n): types.GetPromptResult.model_validate(p) for n, p in catalog["prompt_texts"].items()
        }
        info = {k: str(catalog[k]) for k in ("name", "title", "description", "instructions")}
    except Exception:  # noqa: BLE001 - whatever is wrong with it, the catalog came from the jail
        zygote.close()
        raise JailedServerError(
            "the jailed server's first session answered with a malformed catalog"
        ) from None
    if not options.control:
        tools = [t for t in tools if not t.name.startswith(CONTROL_PREFIX)]
    listing = types.ListToolsResult(tools=tools)
    known = {t.name for t in tools}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listing

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        if name not in known:
            return _error_result(f"Unknown tool {name!r}. Available tools: {', '.join(sorted(known))}.")
        meta = ctx.meta if isinstance(ctx.meta, dict) else {}
        key = meta.get(SESSION_META_KEY)
        if key is not None:
            if not options.control:
                return _error_result(KEYS_NEED_CONTROL)
            if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY_CHARS:
                return _error_result(
                    f"_meta[{SESSION_META_KEY!r}] must be a string of 1 to {MAX_KEY_CHARS} characters."
                )
        owner = _owner_of(ctx)
        stateless = owner is None  # a 2026-07-28 request over HTTP: no connection, nothing kept
        owner = owner if owner is not None else object()
        if name == f"{CONTROL_PREFIX}end_session":
            ended = router.end(owner, key)
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=json.dumps({"ended": ended}))],
                structured_content={"ended": ended},
            )
        try:
            process = await router.get(owner, key, restart=name == f"{CONTROL_PREFIX}reset")
        except _Refused as exc:
            return _error_result(f"Session refused: {exc}")
        except JailedServerError as exc:
            raise MCPError(code=INTERNAL_ERROR, message=str(exc)) from None
        try:
            return await process.call(name, params.arguments or {})
        except JailedServerError as exc:
            router.end(owner, key, lost=not stateless)
            raise MCPError(code=INTERNAL_ERROR, message=str(exc)) from None
        finally:
            if stateless:
                router.end(owner, key)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return resources

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        found = contents.get(str(params.uri))
        if found is None:
            raise MCPError(code=-32002, message=f"Unknown resource {params.uri!r}: see resources/list.")
        return found

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return prompts

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        found = prompt_texts.get(params.name)
        if found is None:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Unknown prompt {params.name!r}: see prompts/list."
            )
        return found

    async def set_logging_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        return types.EmptyResult()

    server = mcp_server(
        info["name"],
        options,
        title=info["title"],
        description=info["description"],
        instructions=info["instructions"] or None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_set_logging_level=set_logging_level,
    )
    server.jailed_front = (zygote, router)  # type: ignore[attr-defined]
    weakref.finalize(server, _close, zygote, router)
    return server


def close_jailed_server(server: Any) -> None:
    """End a server made by ``create_jailed_server`` now: every session process and the fork server."""
    front = getattr(server, "jailed_front", None)
    if front is not None:
        _close(*front)


def _close(zygote: Zygote, router: _Router) -> None:
    router.close()
    zygote.close()


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _catalog(zygote: Zygote, max_line: int) -> dict[str, Any]:
    """What every session serves alike (server info, tools, resources with their contents,
    prompts with their texts), asked once of a first session process (blocking)."""
    sock, pid = zygote.spawn()
    sock.settimeout(120.0)
    reader = sock.makefile("rb")
    try:
        sock.sendall(b'{"id": 0, "op": "catalog"}\n')
        line = reader.readline(max_line + 1)
    except OSError as exc:
        raise JailedServerError(f"the jailed server's first session failed: {exc}") from None
    finally:
        reader.close()
        sock.close()
        zygote.kill(pid)
    if not line.endswith(b"\n"):
        raise JailedServerError(
            "the jailed server's first session ended before it listed its tools (see its stderr)"
        )
    try:
        catalog = json.loads(line)["result"]
        if not isinstance(catalog, dict):
            raise TypeError
    except (ValueError, KeyError, TypeError, RecursionError):
        raise JailedServerError("the jailed server's first session answered with no catalog") from None
    return catalog
