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

import json
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self

import anyio

from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.host.arguments import DEFAULT_LIMITS, ArgumentLimits, check_arguments
from envfactory_mcp.runtime import CONTROL_PREFIX, SESSION_META_KEY
from envfactory_mcp.settings import CALL_TIMEOUT_S, DEFAULT_SERVERS_DIR
from envfactory_mcp.spec.models import EnvSpec

Transport = Literal["stdio", "http", "memory"]
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
        # session -> the generation (``opened``) of the connection it was reset on
        self._sessions: dict[str, int] = {}
        # Sessions of episodes that ended cleanly, kept open for a later episode to reset
        # (a reset restarts a session from the seed) instead of ending each: one request
        # less per episode. Keys with the generation they belong to.
        self._reusable: list[tuple[str, int]] = []

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
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
            if isinstance(exc, Exception):
                raise InfrastructureError(
                    f"cannot start or reach server {self.server!r}: {_describe(exc)}"
                ) from exc
            raise
        self._stack, self._client = stack, client
        _fast_output_checks(client.session)
        self.instructions = client.instructions or ""
        self.tools = [
            ToolInfo(
                name=t.name,
                description=t.description or "",
                input_schema=dict(t.input_schema),
                read_only=bool(t.annotations and t.annotations.read_only_hint),
            )
            for t in listed.tools
            if not t.name.startswith(CONTROL_PREFIX)
        ]
        if not any(t.name.startswith(CONTROL_PREFIX) for t in listed.tools):
            await self.close()
            raise InfrastructureError(
                f"server {self.server!r} does not expose its control plane (start it with --control)"
            )
        self.opened += 1
        self.primary_keys = self._local_primary_keys()
        if self.transport != "http":
            from envfactory_mcp.layout import package_spec

            self.spec = package_spec(self.servers_dir, self.server)

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
                )
            )
        if self.transport == "http":
            if not self.url:
                raise InfrastructureError(f"server {self.server!r}: the http transport needs a URL")
            return _http_transport(self.url, self.http_token) if self.http_token else self.url
        from envfactory_mcp.host.launch import build_server
        from envfactory_mcp.runtime import ServerOptions

        return build_server(
            self.servers_dir,
            self.server,
            ServerOptions(control=True),
            allow_unverified=self.allow_unverified,
            trust=self.trust,
        )

    # ---------------------------------------------------------------- calls

    async def call(self, tool: str, arguments: dict[str, Any], session: str) -> CallResult:
        """Call a tool in ``session``; a tool error is a result, a broken server raises.

        Arguments that ``check_arguments`` rejects are not sent: the result is a tool
        error saying why, as for any other invalid arguments."""
        problem = check_arguments(arguments, self.argument_limits)
        if problem is not None:
            return CallResult(True, f"Invalid arguments for {tool}: {problem} (not sent).", None)
        result = await self._request(tool, arguments, session)
        structured = result.structured_content
        if result.is_error:
            text = (
                " ".join(getattr(block, "text", "") for block in result.content).strip() or "The tool failed."
            )
            return CallResult(True, text, None)
        if structured is None:
            text = " ".join(getattr(block, "text", "") for block in result.content).strip()
            return CallResult(False, text, None)
        return CallResult(False, json.dumps(structured, ensure_ascii=False, sort_keys=True), structured)

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

    async def _request(
        self, tool: str, arguments: dict[str, Any], session: str, starts_session: bool = False
    ) -> Any:
        client, generation = self._client, self.opened
        pinned = self._sessions.get(session)
        if not starts_session and pinned is not None and pinned != generation:
            raise SessionLost(
                f"server {self.server!r}: session {session!r} was lost: the connection was reopened"
                f" (connection {pinned}, now {generation}) and the fresh server does not have its"
                " database, so the episode cannot be scored"
            )
        if client is None:
            raise InfrastructureError(f"server {self.server!r} is not connected")
        try:
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
