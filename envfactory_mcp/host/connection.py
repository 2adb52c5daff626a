"""One MCP client connection to one environment server, with its control plane.

The server runs as a subprocess over stdio, behind a URL (streamable HTTP), or in this
process (in-memory transport). Many episodes share one connection: each episode works
in its own session, chosen with ``_meta["envfactory/session"]`` on every call, so one
server process serves many isolated episodes at once. Anything that goes wrong with the
server or the transport surfaces as ``InfrastructureError``; the connection can then be
reopened (a new subprocess) for the next episode.

What one episode sends must not cost the others their connection: arguments are checked
before they are sent (``host.arguments``), and a server that answers one request with a
protocol error has answered, so only that request fails. A session belongs to the
server process it was reset on: after a reopen its database is gone, and any further
request for it raises ``SessionLost`` instead of reaching a fresh database.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self, TextIO

import anyio
from pydantic_core import from_json

from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.host.arguments import DEFAULT_LIMITS, ArgumentLimits, checked_json
from envfactory_mcp.runtime.sessions import SESSION_META_KEY
from envfactory_mcp.settings import CALL_TIMEOUT_S, DEFAULT_SERVERS_DIR
from envfactory_mcp.spec.models import EnvSpec

Transport = Literal["stdio", "http", "memory"]
# The runtime's control tools' prefix (``runtime.server.CONTROL_PREFIX``; not imported from
# there, which would load the MCP server stack into the host).
CONTROL_PREFIX = "control."
logger = logging.getLogger(__name__)


class SessionLost(InfrastructureError):
    """A request for a session whose server is gone: the connection was reopened since the
    session was reset, so the session's database (and every write in it) no longer exists."""


@dataclass(frozen=True)
class ToolInfo:
    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool


@dataclass(frozen=True)
class CallResult:
    is_error: bool
    text: str  # what the agent sees: the structured output as JSON, or the error message
    structured: dict[str, Any] | None


class ServerConnection:
    """A connection to one server.

    Two ways to hold it. ``async with conn:`` opens and closes it in the current task. For
    many concurrent episodes, one task runs ``owner()`` (the MCP client must be entered and
    left in the same task) and episodes call ``ensure()`` before using it: that opens the
    connection the first time, and again (a fresh server) after a failure broke it.
    ``shutdown()`` ends the owner.
    """

    def __init__(
        self,
        server: str,
        transport: Transport,
        servers_dir: Path = DEFAULT_SERVERS_DIR,
        url: str | None = None,
        call_timeout_s: float = CALL_TIMEOUT_S,
        allow_unverified: bool = False,
        http_token: str | None = None,
        trust: bool = False,
    ) -> None:
        self.server, self.transport, self.servers_dir, self.url = server, transport, servers_dir, url
        self.http_token = http_token  # sent as "Authorization: Bearer" over HTTP
        self.call_timeout_s = call_timeout_s
        self.allow_unverified = allow_unverified  # start a package without a passing report (launch.py)
        self.trust = trust  # run a package's tool code unjailed though it is not shipped code (launch.py)
        self._stack: AsyncExitStack | None = None
        self._client: Any = None
        self.instructions = ""
        self.tools: list[ToolInfo] = []
        self.opened = 0  # how many times a connection was opened (1 + restarts)
        self.primary_keys: dict[str, tuple[str, ...]] = {}  # from the package's spec, when it is local
        self.spec: EnvSpec | None = None  # the package's spec, when it is local (grounding, policy check)
        self.error: InfrastructureError | None = None  # why the last open failed
        self._wake = anyio.Event()
        self._done = anyio.Event()
        self._lock = anyio.Lock()
        self._closing = False
        self._owner_gone = False  # the owner task ended (shut down, or cancelled: Ctrl-C)
        self.argument_limits: ArgumentLimits = DEFAULT_LIMITS
        # stdio: the SDK-free client (``LeanStdioClient``); False, or a server that does not
        # take its handshake, connects with the SDK's client.
        self.lean = True
        # session -> the generation (``opened``) of the connection it was reset on
        self._sessions: dict[str, int] = {}
        # Sessions of episodes that ended cleanly, kept open for a later episode to reset
        # (a reset restarts a session from the seed) instead of ending each: one request
        # less per episode. Keys with the generation they belong to.
        self._reusable: list[tuple[str, int]] = []
        self._built: Any = None  # the in-process server of the memory transport, while open

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        if self.transport == "stdio" and self.lean:
            try:
                await self._open_lean()
                return
            except _NotLean as exc:
                logger.info(
                    "server %s: no stateless handshake (%s); using the SDK's client", self.server, exc
                )
        from mcp import Client

        stack = AsyncExitStack()
        try:
            # No cancel scope around entering the client: it keeps a task group open until
            # closed. ``read_timeout_seconds`` bounds the handshake and every request instead.
            client = await stack.enter_async_context(
                Client(self._target(), read_timeout_seconds=self.call_timeout_s)
            )
            with anyio.fail_after(self.call_timeout_s):
                listed = await client.list_tools()
        except BaseException as exc:
            await stack.aclose()
            self._close_built()
            if isinstance(exc, Exception):
                raise InfrastructureError(
                    f"cannot start or reach server {self.server!r}: {_describe(exc)}"
                ) from exc
            raise
        self._stack, self._client = stack, client
        _fast_output_checks(client.session)
        tools = [
            ToolInfo(
                name=t.name,
                description=t.description or "",
                input_schema=dict(t.input_schema),
                read_only=bool(t.annotations and t.annotations.read_only_hint),
            )
            for t in listed.tools
        ]
        await self._opened(client.instructions, tools)

    async def _open_lean(self) -> None:
        """Open with ``LeanStdioClient`` (the SDK-free client of a stdio server)."""
        from envfactory_mcp.host.launch import stdio_command

        stack = AsyncExitStack()
        try:
            params = stdio_command(
                self.servers_dir,
                self.server,
                control=True,
                allow_unverified=self.allow_unverified,
                trust=self.trust,
            )
            client = LeanStdioClient(params, self.call_timeout_s)
            # No cancel scope around it: the client's reader runs in a task group the stack
            # leaves later; each request of the handshake is bounded by the call timeout.
            await client.start(stack)
        except BaseException as exc:
            await stack.aclose()
            if isinstance(exc, Exception) and not isinstance(exc, _NotLean):
                raise InfrastructureError(
                    f"cannot start or reach server {self.server!r}: {_describe(exc)}"
                ) from exc
            raise
        self._stack, self._client = stack, client
        tools = [
            ToolInfo(
                name=t["name"],
                description=t.get("description") or "",
                input_schema=dict(t.get("inputSchema") or {}),
                read_only=bool((t.get("annotations") or {}).get("readOnlyHint")),
            )
            for t in client.tools
        ]
        await self._opened(client.instructions, tools)

    async def _opened(self, instructions: str | None, listed: list[ToolInfo]) -> None:
        self.instructions = instructions or ""
        self.tools = [t for t in listed if not t.name.startswith(CONTROL_PREFIX)]
        if not any(t.name.startswith(CONTROL_PREFIX) for t in listed):
            await self.close()
            raise InfrastructureError(
                f"server {self.server!r} does not expose its control plane (start it with --control)"
            )
        self.opened += 1
        if self.transport != "http":
            from envfactory_mcp.layout import package_spec

            self.spec = package_spec(self.servers_dir, self.server)
        # The primary keys are the spec's own when it parsed (issue 32: its file is read
        # once); the file's JSON is read for them only when it did not.
        spec = self.spec if self.transport != "http" else None
        if spec is not None:
            self.primary_keys = {t.name: tuple(t.primary_key) for t in spec.tables}
        else:
            self.primary_keys = self._local_primary_keys()

    def _local_primary_keys(self) -> dict[str, tuple[str, ...]]:
        from envfactory_mcp.emit.render import package_name

        spec_path = self.servers_dir / self.server / package_name(self.server) / "data" / "spec.json"
        if self.transport == "http" or not spec_path.is_file():
            return {}
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        return {t["name"]: tuple(t["primary_key"]) for t in spec["tables"]}

    async def close(self) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            try:
                await stack.aclose()
            except Exception as exc:  # noqa: BLE001 - a dead server may fail to close cleanly; it is gone either way
                logger.debug("closing server %s: %s", self.server, _describe(exc))
        self._close_built()

    def _close_built(self) -> None:
        """End the in-process server this connection built (memory transport): a jailed
        one's session processes, their sockets and its fork server end now, not whenever the
        garbage collector reaches the server object (finalizers would close the sockets)."""
        built, self._built = self._built, None
        if built is not None:
            from envfactory_mcp.runtime.front import close_jailed_server

            close_jailed_server(built)

    def reuse_session(self) -> str | None:
        """A kept session of the current server process for a new episode, or None; the
        episode must reset it before anything else (``reset`` restarts it from the seed)."""
        while self._reusable:
            session, generation = self._reusable.pop()
            if generation == self.opened and self._client is not None:
                return session
            self._sessions.pop(session, None)
        return None

    def keep_for_reuse(self, session: str) -> None:
        """Keep a finished episode's session open for ``reuse_session`` instead of ending
        it. Only for a session whose every request was answered (no timeout, no broken
        connection), so nothing of the finished episode can still reach it."""
        if self._sessions.get(session) == self.opened:
            self._reusable.append((session, self.opened))
        else:
            self._sessions.pop(session, None)

    async def _end_reusable(self) -> None:
        """End the sessions kept for reuse (a remote server keeps them until its idle timeout)."""
        reusable, self._reusable = self._reusable, []
        with anyio.move_on_after(5, shield=True):
            for session, generation in reusable:
                if generation == self.opened and self._client is not None:
                    await self.end(session)

    async def owner(self) -> None:
        """Own the connection: open, close and reopen it in this task when asked. Cancelled
        (Ctrl-C), it still closes the connection in this task, briefly, and lets ``ensure``
        and ``shutdown`` return instead of waiting for it."""
        try:
            while True:
                await self._wake.wait()
                self._wake = anyio.Event()
                if self._closing:
                    await self._end_reusable()
                await self.close()
                if not self._closing:
                    try:
                        await self.open()
                        self.error = None
                    except InfrastructureError as exc:
                        self.error = exc
                self._done.set()
                if self._closing:
                    return
        finally:
            self._owner_gone = True
            with anyio.move_on_after(5, shield=True):
                await self.close()
            self._done.set()

    async def ensure(self) -> None:
        """Have the owner open the connection if it is not open (first use, or after a failure)."""
        async with self._lock:
            if self._client is not None:
                return
            if self._owner_gone:
                raise InfrastructureError(f"server {self.server!r}: the connection was shut down")
            self._done = anyio.Event()
            self._wake.set()
            await self._done.wait()
            if self._client is None:
                raise self.error or InfrastructureError(f"server {self.server!r} could not be opened")

    async def shutdown(self) -> None:
        """End the owner task, closing the connection."""
        if self._owner_gone:
            return
        self._closing = True
        self._done = anyio.Event()
        self._wake.set()
        await self._done.wait()

    def _target(self) -> Any:
        if self.transport == "stdio":
            from mcp.client.stdio import stdio_client

            from envfactory_mcp.host.launch import stdio_params

            # A transport, not the parameters: mcp 2.0's Client (a trainer's venv) takes no
            # StdioServerParameters; 2.3's wraps them in stdio_client itself.
            return stdio_client(
                stdio_params(
                    self.servers_dir,
                    self.server,
                    control=True,
                    allow_unverified=self.allow_unverified,
                    trust=self.trust,
                ),
                errlog=_child_stderr(),
            )
        if self.transport == "http":
            if not self.url:
                raise InfrastructureError(f"server {self.server!r}: the http transport needs a URL")
            return _http_transport(self.url, self.http_token) if self.http_token else self.url
        from envfactory_mcp.host.launch import build_server
        from envfactory_mcp.runtime import ServerOptions

        self._built = build_server(
            self.servers_dir,
            self.server,
            ServerOptions(control=True),
            allow_unverified=self.allow_unverified,
            trust=self.trust,
        )
        return self._built

    # ---------------------------------------------------------------- calls

    async def call(self, tool: str, arguments: dict[str, Any], session: str) -> CallResult:
        """Call a tool in ``session``; a tool error is a result, a broken server raises.

        Arguments that ``check_arguments`` rejects are not sent: the result is a tool
        error saying why, as for any other invalid arguments."""
        problem, text = checked_json(arguments, self.argument_limits)
        if problem is not None:
            return CallResult(True, f"Invalid arguments for {tool}: {problem} (not sent).", None)
        result = await self._request(tool, arguments, session, arguments_json=text)
        structured = result.structured_content
        if result.is_error:
            text = (
                " ".join(getattr(block, "text", "") for block in result.content).strip() or "The tool failed."
            )
            return CallResult(True, text, None)
        if structured is None:
            text = " ".join(getattr(block, "text", "") for block in result.content).strip()
            return CallResult(False, text, None)
        if isinstance(result, _CallResult) and result.structured_text is not None:
            return CallResult(False, result.structured_text, structured)  # the lean client wrote it
        return CallResult(False, _SORTED_JSON.encode(structured), structured)

    async def reset(self, session: str) -> str:
        """Start (or restart) ``session`` from the seed, pinned to the current server process;
        returns the initial state hash."""
        return str((await self._control("reset", session, starts_session=True))["state_hash"])

    async def state_hash(self, session: str) -> str:
        return str((await self._control("state_hash", session))["state_hash"])

    async def state(self, session: str) -> dict[str, Any]:
        return dict((await self._control("state", session))["state"])

    async def end(self, session: str) -> None:
        try:
            await self._control("end_session", session)
        except InfrastructureError:
            pass  # the session dies with the server anyway
        finally:
            self._sessions.pop(session, None)

    async def _control(self, op: str, session: str, starts_session: bool = False) -> dict[str, Any]:
        result = await self._request(f"{CONTROL_PREFIX}{op}", {}, session, starts_session)
        if result.is_error or result.structured_content is None:
            text = " ".join(getattr(block, "text", "") for block in result.content)
            raise InfrastructureError(f"server {self.server!r}: control.{op} failed: {text}")
        return dict(result.structured_content)

    def check_session(self, session: str) -> None:
        """Raise ``SessionLost`` when ``session`` was reset on an earlier connection (the
        server was started again since): what the next request on it would raise, for a
        caller that answers from what it read before instead of asking again."""
        generation, pinned = self.opened, self._sessions.get(session)
        if pinned is not None and pinned != generation:
            raise SessionLost(
                f"server {self.server!r}: session {session!r} was lost: the connection was reopened"
                f" (connection {pinned}, now {generation}) and the fresh server does not have its"
                " database, so the episode cannot be scored"
            )

    async def _request(
        self,
        tool: str,
        arguments: dict[str, Any],
        session: str,
        starts_session: bool = False,
        arguments_json: str | None = None,
    ) -> Any:
        """Send one request in ``session``. ``arguments_json``: the arguments' JSON text as
        the argument check wrote it (``checked_json``), which the lean client sends instead
        of writing it again."""
        client, generation = self._client, self.opened
        if not starts_session:
            self.check_session(session)
        if client is None:
            raise InfrastructureError(f"server {self.server!r} is not connected")
        try:
            if isinstance(client, LeanStdioClient):  # each request bounded by the same timeout
                result = await client.call_tool(
                    tool, arguments, meta={SESSION_META_KEY: session}, arguments_json=arguments_json
                )
            else:
                with anyio.fail_after(self.call_timeout_s):
                    result = await client.call_tool(tool, arguments, meta={SESSION_META_KEY: session})
        except Exception as exc:
            if _peer_answered(exc):
                # The server is alive and said no to this one request: it fails, the
                # connection (and every other session on it) stays.
                raise InfrastructureError(
                    f"server {self.server!r} answered {tool} with a protocol error: {_describe(exc)}"
                ) from exc
            if self._client is client:  # a late failure of an old client must not drop a new one
                self._client = None  # broken: the next episode reopens
            raise InfrastructureError(
                f"server {self.server!r} failed during {tool}: {_describe(exc)}"
            ) from exc
        if starts_session:
            self._sessions[session] = generation
        return result


def _peer_answered(exc: Exception) -> bool:
    """Whether ``exc`` is the server's error answer to a request, not a failed transport
    (the MCP client reports a closed connection and a timeout as errors too)."""
    if isinstance(exc, _PeerError):
        return True
    if isinstance(exc, ConnectionError | TimeoutError | RuntimeError):
        return False
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    return isinstance(exc, MCPError) and exc.code not in (CONNECTION_CLOSED, REQUEST_TIMEOUT)


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"[:300]


@asynccontextmanager
async def _http_transport(url: str, token: str) -> AsyncIterator[Any]:
    """Streamable HTTP to ``url`` with ``Authorization: Bearer <token>`` on every request
    (a server bound beyond loopback requires it); the HTTP client is closed with it."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with client, streamable_http_client(url, http_client=client) as streams:
        yield streams


class _CheckedFirst:
    """A compiled jsonschema-rs validator in front of the SDK's pure-Python one: a valid
    result (every result of our servers, which validate their output themselves) costs
    about a microsecond instead of a walk of the schema; an invalid one gets the SDK's own
    errors, so what the client raises is unchanged."""

    __slots__ = ("fast", "slow")

    def __init__(self, slow: Any, schema: Any) -> None:
        import jsonschema_rs

        self.slow, self.fast = slow, jsonschema_rs.validator_for(schema)

    def iter_errors(self, instance: Any) -> Any:
        return iter(()) if self.fast.is_valid(instance) else self.slow.iter_errors(instance)


# Compiled output-schema checks shared by every connection of this process, by schema
# value (its canonical JSON): the SDK client compiles its validators per connection, which
# cost a sixth of a scripted rollout's host CPU when every episode or worker connects anew.
_SHARED_CHECKS: dict[str, Any] = {}
_MAX_SHARED_CHECKS = 4096


def _fast_output_checks(session: Any) -> None:
    """Make the MCP client's check of each structured result against the tool's output
    schema (``ClientSession.validate_tool_result``, which walks the schema in pure Python
    for every call: a fifth of a scripted episode's host time) take the fast path above,
    with the compiled checks of a schema shared across connections (``_SHARED_CHECKS``).
    mcp 2.x keeps its compiled validators behind ``_output_schema_validator``; where that
    is missing (another SDK version) nothing changes."""
    original = getattr(session, "_output_schema_validator", None)
    if original is None:
        return
    mine: dict[str, tuple[Any, Any]] = {}  # tool name -> (the schema object, its check)

    def validator(name: str, schema: Any) -> Any:
        kept = mine.get(name)
        if kept is not None and kept[0] is schema:  # the SDK keeps a schema until a new listing
            return kept[1]
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
        checked = _SHARED_CHECKS.get(key)
        if checked is None:
            slow = original(name, schema)  # the SDK's compile (raises for an invalid schema)
            try:
                checked = _CheckedFirst(slow, schema)
            except Exception:  # noqa: BLE001 - a schema jsonschema-rs refuses: the SDK's check only
                checked = slow
            if len(_SHARED_CHECKS) >= _MAX_SHARED_CHECKS:
                _SHARED_CHECKS.clear()
            _SHARED_CHECKS[key] = checked
        mine[name] = (schema, checked)
        return checked

    session._output_schema_validator = validator


# ---------------------------------------------------------------- the lean stdio client

# What the SDK's stdio client lets a server inherit of this process's environment (its
# ``DEFAULT_INHERITED_ENV_VARS`` on POSIX), before the launch's own variables.
_INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
_PROTOCOL = "2026-07-28"  # the stateless era: every request carries its envelope
_ENVELOPE_KEYS = (
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
)
_STOP_GRACE_S = 2.0  # as the SDK's stdio client: stdin closed, then SIGTERM, then SIGKILL


class _PeerError(Exception):
    """The server answered a request with a JSON-RPC error (it is alive and said no)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code


class _NotLean(Exception):
    """The server did not take the stateless handshake: the SDK's client is used instead."""


@dataclass(frozen=True)
class _Block:
    text: str


@dataclass(frozen=True)
class _CallResult:
    """The parts of a ``tools/call`` result the connection reads (as the SDK's model names them)."""

    is_error: bool
    structured_content: dict[str, Any] | None
    content: list[_Block]
    structured_text: str | None = None  # ``_SORTED_JSON`` of the structured content, when written


# The lean client's answers to tool calls are kept by what they say (issue 32): a scripted
# rollout gets the same answer to the same call again and again (a task's gold replay, then
# each trial), and each time the answer's structured content was checked against the tool's
# output schema (~20 us) and written out for the agent (~35 us). An answer line the server
# wrote as ``{"jsonrpc":"2.0","id":<n>,"result":<rest>`` is kept by ``<rest>``: every byte of
# the answer but its id, so the result the line parses to is the one parsed before (and is
# parsed afresh all the same: nothing parsed is shared). Answers of other shapes, errors and
# long ones are not kept.
_ANSWER_HEAD = re.compile(rb'\{"jsonrpc":"2\.0","id":[0-9]+,"result":')
_MAX_ANSWERS = 2048  # kept answers a connection holds (forgotten all at once when full)
_MAX_ANSWER_BYTES = 8 << 20  # and what they hold at most (~8 MB of lines, as many characters)
_MAX_KEPT_ANSWER = 1 << 16  # bytes: a longer answer is not kept


def _answer_key(check: Any, line: bytes) -> tuple[Any, bytes] | None:
    """What a tool call's answer line is kept by: the tool's output check (the object: a
    tool with another schema is checked anew) and the line from its result on."""
    if len(line) > _MAX_KEPT_ANSWER:
        return None
    head = _ANSWER_HEAD.match(line)
    return (check, line[head.end() :]) if head is not None else None


class _Waiter:
    __slots__ = ("answer", "deadline", "line")

    def __init__(self, deadline: float, answer: asyncio.Future[dict[str, Any]]) -> None:
        self.deadline = deadline  # anyio.current_time() past which the request times out
        self.answer = answer  # the server's answer message, or why there is none
        self.line = b""  # the line the answer came in


class _Pipes(asyncio.SubprocessProtocol):
    """The server's pipes as asyncio's loop hands them over: every chunk of its stdout goes
    to the client from the loop's own callback (no reader task between an answer and its
    request)."""

    def __init__(self, client: LeanStdioClient) -> None:
        self.client = client

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if fd == 1 and isinstance(data, bytes):
            self.client._received(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.client._fail(
                ConnectionError(f"reading the server's stdout failed: {exc!r}")
                if exc is not None
                else ConnectionError("the server closed its stdout (it exited)")
            )
        elif fd == 0:
            self.client._fail(ConnectionError(f"the server's stdin is closed: {exc!r}"))


class LeanStdioClient:
    """An MCP client of one stdio server with no SDK: JSON-RPC lines written and read with
    ``json``, requests matched to answers by id, so concurrent episodes share the pipe.

    It speaks the stateless 2026-07-28 era (``server/discover``, then every request with
    its envelope in ``_meta``), which the runtime answers on its lean path without
    building an SDK model (``runtime/server.py: LeanCalls``). What the SDK's client does
    that a caller sees is kept: the server's environment and process group as its stdio
    client makes them, a structured result checked against the tool's output schema
    (compiled once per process, ``_shared_check``), an error answer raised as the
    server's (``_PeerError``), a closed pipe or a timeout as a broken connection, and the
    same shutdown (stdin closed, then SIGTERM, then SIGKILL). A server that refuses the
    handshake raises ``_NotLean``: the caller then connects with the SDK instead.

    The pipes are asyncio's own (``loop.subprocess_exec`` with ``_Pipes``): a request is
    one synchronous write, and each answer is handed to its request's future from the
    loop's data callback; under another event loop than asyncio's it raises ``_NotLean``.
    A request not answered within the timeout raises ``TimeoutError``: one watcher task
    times out every request (``_watch``, once per ``_tick`` seconds), not a cancel scope
    per request. Both took a request's host CPU from 0.18 to about 0.11 ms."""

    def __init__(self, params: Any, timeout_s: float) -> None:
        self._params, self._timeout_s = params, timeout_s
        self._transport: asyncio.SubprocessTransport | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._pending: list[bytes] = []  # the start of a line not ended yet
        self._next_id = 0
        self._waiting: dict[int, _Waiter] = {}
        self._closed: BaseException | None = None
        self._tick = min(1.0, timeout_s / 10)  # how often _watch looks for late answers
        self._envelope = {
            _ENVELOPE_KEYS[0]: _PROTOCOL,
            _ENVELOPE_KEYS[1]: {"name": "envfactory-mcp", "version": _version()},
            _ENVELOPE_KEYS[2]: {},
        }
        self._envelope_text = _WIRE_JSON.encode(self._envelope)[1:-1]  # its items, as a message holds them
        self.instructions: str | None = None
        self.tools: list[dict[str, Any]] = []
        self._checks: dict[str, Any] = {}  # tool -> its output schema's check
        # Answers seen before (``_answer_key``) -> their structured content as the agent
        # reads it (``_SORTED_JSON``), checked against the output schema when first seen
        self._answers: dict[tuple[Any, bytes], str] = {}
        self._answer_bytes = 0  # what the kept answers hold: their keys' bytes and texts' characters

    @property
    def pid(self) -> int | None:
        """The server's process id (None before it started)."""
        return self._transport.get_pid() if self._transport is not None else None

    async def start(self, stack: AsyncExitStack) -> None:
        """Start the server (stopped when ``stack`` closes), discover it and list its tools."""
        import os
        import subprocess

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError as exc:  # another event loop (trio): the SDK's client does it
            raise _NotLean(f"not on asyncio's event loop: {exc}") from exc
        params = self._params
        env = {
            k: v for k in _INHERITED_ENV if (v := os.environ.get(k)) is not None and not v.startswith("()")
        }
        env.update(params.env or {})
        self._transport, _ = await loop.subprocess_exec(
            lambda: _Pipes(self),
            params.command,
            *params.args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # the server's stderr is this process's, as with the SDK's client
            env=env,
            cwd=params.cwd,
            start_new_session=True,
        )
        stdin = self._transport.get_pipe_transport(0)
        assert isinstance(stdin, asyncio.WriteTransport)
        self._stdin = stdin
        stack.push_async_callback(self._stop)
        group = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(self._abandon, group.cancel_scope)  # runs first: the watcher stops, then the server
        group.start_soon(self._watch)
        try:
            found = await self.request("server/discover", {})
        except _PeerError as exc:
            raise _NotLean(str(exc)) from exc
        self.instructions = found.get("instructions")
        cursor: str | None = None
        while True:
            listed = await self.request("tools/list", {"cursor": cursor} if cursor else {})
            self.tools += listed.get("tools", [])
            cursor = listed.get("nextCursor")
            if not cursor:
                break
        for tool in self.tools:
            schema = tool.get("outputSchema")
            if schema is not None:
                self._checks[tool["name"]] = _shared_check(tool["name"], schema)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        meta: dict[str, Any] | None = None,
        arguments_json: str | None = None,
    ) -> _CallResult:
        """Call a tool. ``arguments_json``: ``arguments`` as ``json.dumps(arguments,
        ensure_ascii=False)`` writes them, when the caller has that text already."""
        if self._closed is not None:
            raise self._closed
        line = self._call_line(name, arguments, meta or {}, arguments_json)
        answer: bytes | None = None
        if line is None:  # what the fast line does not write: the message, encoded whole
            result = await self.request("tools/call", {"name": name, "arguments": arguments}, meta)
        else:
            result, answer = await self._exchange("tools/call", *line)
        content = [
            _Block(b["text"] if isinstance(b.get("text"), str) else "") for b in result.get("content", [])
        ]
        structured = result.get("structuredContent")
        is_error = bool(result.get("isError", False))
        check = self._checks.get(name)
        key = None
        if not is_error and structured is not None and answer is not None:
            key = _answer_key(check, answer)
            known = self._answers.get(key) if key is not None else None
            if known is not None:  # this very answer was checked and written out before
                return _CallResult(False, structured, content, known)
        if check is not None and not is_error:
            if "structuredContent" not in result:
                raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
            error = check.first_error(structured)
            if error is not None:
                raise RuntimeError(f"Invalid structured content returned by tool {name}: {error}")
        text = None
        if key is not None:
            try:
                text = _SORTED_JSON.encode(structured)
            except ValueError:  # (an integer too long to write out) the connection's to raise
                pass
            else:
                size = len(key[1]) + len(text)
                if len(self._answers) >= _MAX_ANSWERS or self._answer_bytes + size > _MAX_ANSWER_BYTES:
                    self._answers.clear()
                    self._answer_bytes = 0
                self._answers[key] = text
                self._answer_bytes += size
        return _CallResult(is_error, structured, content, text)

    async def request(
        self, method: str, params: dict[str, Any], meta: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        if self._closed is not None:
            raise self._closed
        self._next_id += 1
        request_id = self._next_id
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": {**params, "_meta": {**self._envelope, **(meta or {})}},
        }
        line = (_WIRE_JSON.encode(message) + "\n").encode("utf-8", "surrogatepass")
        return (await self._exchange(method, request_id, line))[0]

    def _call_line(
        self, name: str, arguments: dict[str, Any], meta: dict[str, Any], arguments_json: str | None
    ) -> tuple[int, bytes] | None:
        """A ``tools/call`` request's id and line, written from parts: the very text
        ``request`` writes for it (``_WIRE_JSON`` of the message), without encoding the
        envelope again for every call (issue 32: about 12 us less a request). None when
        the parts are not plain (a meta key that is not text or overrides the envelope's,
        a name that is not text): ``request`` writes those."""
        if type(name) is not str or any(type(k) is not str or k in self._envelope for k in meta):
            return None
        if arguments_json is None:
            arguments_json = (
                "{}" if type(arguments) is dict and not arguments else _WIRE_JSON.encode(arguments)
            )
        extra = "".join(f", {_encode_text(k)}: {_WIRE_JSON.encode(v)}" for k, v in meta.items())
        self._next_id += 1
        request_id = self._next_id
        text = (
            f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", "params": {{"name": '
            f'{_encode_text(name)}, "arguments": {arguments_json}, "_meta": {{{self._envelope_text}{extra}}}}}}}\n'
        )
        return request_id, text.encode("utf-8", "surrogatepass")

    async def _exchange(self, method: str, request_id: int, line: bytes) -> tuple[dict[str, Any], bytes]:
        """Send one request's line and wait for its answer: its result, and the line it came in."""
        assert self._stdin is not None, "start() first"
        # The loop's clock is anyio's on asyncio (``anyio.current_time``, which ``_watch``
        # reads), asked of the loop itself: anyio's asks which library runs first (issue 32).
        loop = asyncio.get_running_loop()
        waiter = _Waiter(loop.time() + self._timeout_s, loop.create_future())
        self._waiting[request_id] = waiter
        try:
            self._write(line)
            answer = await waiter.answer
        finally:
            self._waiting.pop(request_id, None)
        if "error" in answer:
            error = answer["error"] if isinstance(answer["error"], dict) else {}
            raise _PeerError(int(error.get("code", -32603)), str(error.get("message", "")))
        result = answer.get("result")
        if not isinstance(result, dict):
            raise _PeerError(-32603, f"the answer to {method} has no result object")
        return result, waiter.line

    def _write(self, line: bytes) -> None:
        """Hand a whole line to the server's stdin (asyncio buffers what the pipe does not
        take yet: a line is never split between writers)."""
        if self._stdin is None or self._stdin.is_closing():
            raise ConnectionError("the server's stdin is closed")
        self._stdin.write(line)

    def _received(self, chunk: bytes) -> None:
        """A chunk of the server's stdout: each line it ends goes to ``_dispatch``."""
        pending = self._pending
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            pending.append(chunk[start:end])
            start = end + 1
            line = b"".join(pending)
            pending.clear()
            if line.strip():
                self._dispatch(line)
        if start < len(chunk):
            pending.append(chunk[start:])

    async def _watch(self) -> None:
        """Time out the requests not answered within the timeout: the waiting ones are
        kept in the order they were sent, so the oldest come first (a timeout breaks the
        connection: ``ServerConnection`` opens a new one)."""
        while True:
            await anyio.sleep(self._tick)
            now = anyio.current_time()
            for waiter in list(self._waiting.values()):
                if waiter.deadline > now:
                    break
                if not waiter.answer.done():
                    waiter.answer.set_exception(TimeoutError())  # as a cancel scope's timeout raises it

    def _abandon(self, scope: anyio.CancelScope) -> None:
        """Closing: fail the requests still waiting and stop watching."""
        self._fail(ConnectionError("the connection was closed"))
        scope.cancel()

    def _fail(self, reason: BaseException) -> None:
        if self._closed is None:
            self._closed = reason
        for waiter in list(self._waiting.values()):
            if not waiter.answer.done():
                waiter.answer.set_exception(reason)

    def _dispatch(self, line: bytes) -> None:
        try:
            message = _parse_line(line)
        except ValueError:
            logger.warning("server %s wrote a line that is not JSON: %r", self._params.args, line[:200])
            return
        if not isinstance(message, dict):
            return
        if "method" in message:  # a notification (logging), or a request of the server's
            if "id" in message:
                answer: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
                if message["method"] == "ping":
                    answer["result"] = {}
                else:
                    answer["error"] = {"code": -32601, "message": f"Method not found: {message['method']}"}
                with suppress(ConnectionError):  # a closed stdin fails the requests already
                    self._write((json.dumps(answer) + "\n").encode())
            return
        request_id = message.get("id")
        waiter = self._waiting.get(request_id) if isinstance(request_id, int) else None
        if waiter is not None and not waiter.answer.done():  # not timed out meanwhile
            waiter.line = line
            waiter.answer.set_result(message)

    async def _stop(self) -> None:
        """Close stdin, give the server the SDK's grace period to exit, then end its group."""
        import os
        import signal

        transport = self._transport
        if transport is None:
            return
        with anyio.CancelScope(shield=True):
            if self._stdin is not None:
                self._stdin.close()
            pid = transport.get_pid()
            for sig in (None, signal.SIGTERM, signal.SIGKILL):
                if sig is not None:
                    try:
                        os.killpg(pid, sig)
                    except (ProcessLookupError, PermissionError):
                        pass
                deadline = anyio.current_time() + _STOP_GRACE_S
                while transport.get_returncode() is None and anyio.current_time() < deadline:
                    await anyio.sleep(0.01)
                if transport.get_returncode() is not None:
                    break
            transport.close()


# ``json.dumps(value, ensure_ascii=False[, sort_keys=True])`` without building an encoder
# per call (the same text: ``json.dumps`` is this encoder's ``encode``).
_WIRE_JSON = json.JSONEncoder(ensure_ascii=False)
_encode_text = json.encoder.encode_basestring  # what _WIRE_JSON writes for a string (a str, not a subclass)
_SORTED_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True)


def _parse_line(line: bytes) -> Any:
    """``json.loads(line)``, read by pydantic-core's parser first (issue 32: ~13 us where
    ``json`` takes ~20 for a 2 KB answer, a dozen answers an episode). What it reads it reads
    as ``json`` does (the same values, last of duplicate keys kept, NaN and infinities, big
    integers, correctly rounded floats); what it refuses (a lone surrogate escape, a BOM,
    UTF-16, anything not JSON) is ``json``'s to read or refuse, as before."""
    try:
        return from_json(line)
    except ValueError:
        return json.loads(line)


def _child_stderr() -> TextIO:
    """Where a server started here writes its stderr: this process's, as it is now. The
    SDK's ``stdio_client`` would take ``sys.stderr`` as it was when ``mcp.client.stdio``
    was first imported (a default argument), which may since have been replaced by one with
    no file descriptor (a test's captured stream), and a child needs a descriptor."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__ or sys.stderr
    return sys.stderr


class _SchemaCheck:
    """A tool's output-schema check: jsonschema-rs first, the SDK's error text on a miss."""

    __slots__ = ("fast", "schema")

    def __init__(self, schema: dict[str, Any]) -> None:
        import jsonschema_rs

        self.schema, self.fast = schema, jsonschema_rs.validator_for(schema)

    def first_error(self, instance: Any) -> str | None:
        if self.fast.is_valid(instance):
            return None
        from jsonschema import exceptions
        from jsonschema.validators import validator_for
        from referencing import Registry

        slow = validator_for(self.schema)(self.schema, registry=Registry())
        error = exceptions.best_match(slow.iter_errors(instance))
        return str(error) if error is not None else "does not match its output schema"


_LEAN_CHECKS: dict[str, _SchemaCheck] = {}


def _shared_check(tool: str, schema: dict[str, Any]) -> _SchemaCheck:
    """The compiled check of an output schema, one per schema value in this process."""
    key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    check = _LEAN_CHECKS.get(key)
    if check is None:
        try:
            check = _SchemaCheck(schema)
        except Exception as exc:
            raise RuntimeError(f"Invalid schema for tool {tool}: {exc}") from exc
        if len(_LEAN_CHECKS) >= _MAX_SHARED_CHECKS:
            _LEAN_CHECKS.clear()
        _LEAN_CHECKS[key] = check
    return check


def _version() -> str:
    """The version the client says it is: the package's, as ``--version`` says it (not
    looked up in the installed distributions' metadata: ~2.5 ms a connection)."""
    from envfactory_mcp import __version__

    return __version__
