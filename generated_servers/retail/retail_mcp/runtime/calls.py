# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""What a server of this runtime does with a request, without the MCP SDK.

``Calls`` holds one environment's tools, its sessions and the control plane, and runs a
tool call or a control operation (``run_call``) for whichever front end received it:
the SDK's ``Server`` (``server.create_server``) and, on stdio, ``LeanCalls``, which
answers ``server/discover``, ``tools/list`` and ``tools/call`` straight from the line.
Nothing here imports the SDK, so a stdio server whose client only discovers, lists and
calls never loads it (``stdio.serve_stdio`` builds the SDK's server on the first request
this path leaves to it): the SDK's import is most of a server's start.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .bundle import Bundle
from .cache import seed_image as cached_seed_image
from .database import SessionDatabase, build_seed_image
from .isolation import JailedTools
from .limits import DEFAULT_CALL_SECONDS
from .sessions import SESSION_META_KEY, Session, SessionLimits, SessionRefused, SessionStore
from .state import STATE_HASH_VERSION
from .toolbox import CallOutcome, Toolbox

if TYPE_CHECKING:
    import anyio

CONTROL_META_KEY = "envfactory/control"
CONTROL_PREFIX = "control."
# ``mcp_types.version.MODERN_PROTOCOL_VERSIONS`` of the pinned SDK, written out so this
# module does not import it (a test compares them).
MODERN_PROTOCOL_VERSIONS: tuple[str, ...] = ("2026-07-28",)


@dataclass(frozen=True)
class ServerOptions:
    # Expose control.* and accept _meta session keys (sessions.py): both are for hosts.
    control: bool = False
    db_path: Path | None = None
    session_limits: SessionLimits = field(default_factory=SessionLimits)
    # Streamable HTTP carries sessions only on the handshake-era protocol, so an HTTP
    # server steers 'auto' clients there; on stdio one process is one connection anyway.
    prefer_sessions: bool = False
    version: str = "0.1.0"
    # Each tool call's time limit (limits.py); None for none.
    call_seconds: float | None = DEFAULT_CALL_SECONDS
    # Where seed images are kept across starts (cache.py: a folder under ``cache_home()``);
    # None builds the image from the SQL every time. The command line's server keeps them,
    # except under the jail's seccomp filter (the verifier serving a package: it builds from
    # the SQL, and the jail has no cache to keep).
    seed_cache: Path | None = None


class Calls:
    """One environment's tools, sessions and control plane. The seed image is built once
    here, or read from the per-user cache where it was built before (``cache.py``, with
    ``ServerOptions.seed_cache``), or given (a jailed session process gets the one its
    zygote built); sessions copy it."""

    def __init__(self, bundle: Bundle, options: ServerOptions, *, seed_image: bytes | None = None) -> None:
        self.bundle, self.options = bundle, options
        self.toolbox = Toolbox(bundle.spec, bundle.tools_module, call_seconds=options.call_seconds)
        if seed_image is None and options.seed_cache is not None:
            seed_image = cached_seed_image(bundle.schema_sql, bundle.seed_sql, folder=options.seed_cache)
        elif seed_image is None:
            seed_image = build_seed_image(bundle.schema_sql, bundle.seed_sql)
        self.store = SessionStore(
            seed_image,
            options.db_path,
            keys_allowed=options.control,
            limits=options.session_limits,
        )
        # anyio (and its locks) load only for a server that waits: a file's or jailed tools'.
        self._file_lock = _lock() if self.store.file_backed else None
        # Jailed tool code runs in a worker thread, so a slow call waits in its own thread
        # and never on the event loop; one session's calls (and control operations) take turns.
        self.jailed = isinstance(bundle.tools_module, JailedTools)
        self._session_locks: weakref.WeakKeyDictionary[SessionDatabase, anyio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self.instructions = str(bundle.spec.get("policy", ""))
        # The lean path (``LeanCalls``): discovery, the tool list, tools/call and control.*
        # on stdio, without the SDK.
        self.lean = (
            None
            if (self.store.file_backed or self.jailed)
            else LeanCalls(self.run_call, self, run_call_now=self.run_call_now)
        )

    def turn_of(self, db: SessionDatabase) -> anyio.Lock:
        lock = self._session_locks.get(db)
        if lock is None:
            lock = self._session_locks[db] = _lock()
        return lock

    async def run_call(
        self, name: str, arguments: dict[str, Any] | None, meta: Any, owner: Any | None
    ) -> CallOutcome:
        store, toolbox = self.store, self.toolbox
        if self.options.control and name.startswith(CONTROL_PREFIX):
            return await _control_call(store, name, arguments or {}, meta, owner, self.turn_of)
        if not (store.file_backed or self.jailed):
            return self.run_call_now(name, arguments, meta, owner)
        tool = toolbox.tools.get(name)
        try:
            session = store.session(meta, owner, write=tool is not None and tool.effect == "write")
        except SessionRefused as exc:
            return _refused(exc)
        try:
            if store.file_backed:
                # One shared file: calls take turns, off the event loop so disk waits block no one.
                # No alarm reaches that thread: the time limit bounds the call's SQL (limits.py).
                import anyio.to_thread

                assert self._file_lock is not None
                async with self._file_lock:
                    outcome = await anyio.to_thread.run_sync(toolbox.call, session.db.db, name, arguments)
            else:
                import anyio.to_thread

                # in_use: the connection stays materialized (not parked) while the thread works.
                async with self.turn_of(session.db):
                    with session.db.in_use() as connection:
                        outcome = await anyio.to_thread.run_sync(toolbox.call, connection, name, arguments)
                session.db.mark_written(outcome.written)
        finally:
            session.release()
        return outcome

    def run_call_now(
        self, name: str, arguments: dict[str, Any] | None, meta: Any, owner: Any | None
    ) -> CallOutcome:
        """``run_call`` of a server whose calls never wait (tool code in this process,
        sessions in memory: ``lean`` is not None), run to its end here: what the lean
        stdio path calls before any event loop runs (``stdio.serve_lean_now``). No
        session's turn is held then (only ``run_call`` under an event loop takes one), so a
        control operation runs as ``_control_call`` runs it on a session nobody holds."""
        store, toolbox = self.store, self.toolbox
        if self.options.control and name.startswith(CONTROL_PREFIX):
            return _control_call_now(store, name, arguments or {}, meta, owner)
        tool = toolbox.tools.get(name)
        writes = tool is not None and tool.effect == "write"
        try:
            session = store.session(meta, owner, write=writes)
        except SessionRefused as exc:
            return _refused(exc)
        try:
            # A read runs start to end right here, so a session that has only read can
            # use the seed's shared connection; a write makes (or uses) its own copy.
            db = session.db.db if writes else session.db.reader()
            return toolbox.call(db, name, arguments)
        finally:
            session.release()

    def server_info(self) -> dict[str, Any]:
        """The server's ``Implementation`` as the SDK's ``Server.server_info_stamp`` writes
        it for the ``Server`` that ``create_server`` builds (a test compares them)."""
        spec = self.bundle.spec
        return {
            "name": str(spec["name"]),
            "title": str(spec.get("title", spec["name"])),
            "version": self.options.version,
            "description": str(spec.get("description", "")),
        }

    def tool_list(self) -> list[dict[str, Any]]:
        """The tools as ``tools/list`` lists them (``types.Tool`` as the SDK writes it)."""
        tools = [_tool_json(t) for t in self.toolbox.tools.values()]
        if self.options.control:
            tools += control_tools_json()
        return tools


def _tool_json(tool: Any) -> dict[str, Any]:
    return {
        "annotations": {
            "destructiveHint": tool.destructive,
            "idempotentHint": tool.idempotent,
            "openWorldHint": False,
            "readOnlyHint": tool.effect == "read",
        },
        "description": tool.description,
        "inputSchema": portable_schema(tool.input_schema),
        "name": tool.name,
        "outputSchema": portable_schema(tool.output_schema),
        "title": tool.name.replace("_", " ").capitalize(),
    }


def control_tools_json() -> list[dict[str, Any]]:
    return [
        {
            "_meta": {CONTROL_META_KEY: True},
            "annotations": {"openWorldHint": False, "readOnlyHint": name in ("state", "state_hash")},
            "description": "[control plane, not for agents] " + description,
            "inputSchema": inp,
            "name": CONTROL_PREFIX + name,
            "outputSchema": out,
        }
        for name, (description, inp, out) in CONTROL_SPECS.items()
    ]


def portable_schema(schema: Any) -> Any:
    """``schema`` in the constructs every major function-calling dialect accepts, meaning
    unchanged: a type list (``["string", "null"]``) becomes ``anyOf`` of single types,
    ``oneOf`` becomes ``anyOf`` (tool schemas never rely on exclusivity), ``const`` a
    one-value ``enum``, and ``$schema`` / ``$id`` are dropped. Validation inside the
    server keeps using the spec's own schema."""
    if isinstance(schema, list):
        return [portable_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    node = {k: v for k, v in schema.items() if k not in ("$schema", "$id")}
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(node.get(key), dict):
            node[key] = {name: portable_schema(sub) for name, sub in node[key].items()}
    for key in ("items", "additionalProperties", "not", "anyOf", "allOf", "prefixItems"):
        if key in node:
            node[key] = portable_schema(node[key])
    if "oneOf" in node:
        node["anyOf"] = [*node.get("anyOf", []), *portable_schema(node.pop("oneOf"))]
    if "const" in node:
        node["enum"] = [node.pop("const")]
    kinds = node.get("type")
    if not isinstance(kinds, list):
        return node
    if len(kinds) == 1:
        return {**node, "type": kinds[0]}
    shared = {k: v for k, v in node.items() if k in ("description", "title", "default", "examples")}
    specific = {k: v for k, v in node.items() if k not in shared and k != "type"}
    branches: list[dict[str, Any]] = []
    for kind in kinds:
        if kind == "null":
            branches.append({"type": "null"})
            continue
        branch = {"type": kind, **{k: v for k, v in specific.items() if _applies(k, kind)}}
        if "enum" in branch:
            branch["enum"] = [v for v in branch["enum"] if v is not None]
        branches.append(branch)
    return {**shared, "anyOf": branches}


_KEYWORDS_BY_TYPE = {
    "string": {"minLength", "maxLength", "pattern", "format"},
    "integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
    "number": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
    "array": {"items", "minItems", "maxItems", "uniqueItems", "prefixItems"},
    "object": {
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "minProperties",
        "maxProperties",
    },
}
_TYPED_KEYWORDS = set().union(*_KEYWORDS_BY_TYPE.values())


def _applies(keyword: str, kind: str) -> bool:
    """Whether a keyword belongs in the ``anyOf`` branch of one type."""
    return keyword not in _TYPED_KEYWORDS or keyword in _KEYWORDS_BY_TYPE.get(kind, set())


def _refused(exc: SessionRefused) -> CallOutcome:
    # A tool error, not a protocol error: hosts drop a connection on protocol errors, and
    # one episode's lost session must not cost the others theirs.
    return CallOutcome(ok=False, error=f"Session refused: {exc}")


_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
_ENVELOPE = frozenset({_PROTOCOL_VERSION, _CLIENT_INFO, _CLIENT_CAPABILITIES})
_LEAN_META = frozenset({*_ENVELOPE, SESSION_META_KEY, "progressToken"})
_CALL_PARAMS = frozenset({"name", "arguments", "_meta"})
_LISTED = frozenset({"server/discover", "tools/list"})
_LISTED_PARAMS = {"server/discover": frozenset({"_meta"}), "tools/list": frozenset({"cursor", "_meta"})}
# What ``create_server``'s handlers make the SDK declare (a test compares the answers).
_CAPABILITIES = {
    "logging": {},
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
ERA_REQUEST_ID = "envfactory/era"  # the id of the request ``handover`` replays; its answer is dropped


def _lock() -> anyio.Lock:
    import anyio

    return anyio.Lock()


class _StdioConnection:
    """The owner of every request of a process serving one stdio connection."""


class _Call(NamedTuple):
    """A ``tools/call`` the lean path answers, once the call has run (``LeanCalls._called``)."""

    request_id: int | str
    name: str
    arguments: dict[str, Any] | None
    meta: Any
    modern: bool
    opening: bool


class LeanCalls:
    """``server/discover``, ``tools/list`` and ``tools/call`` (tools and ``control.*``)
    answered straight from the stdio line: the line parsed with ``json``, the request
    checked by hand, a call run by the same code as the SDK's handler (``run_call``:
    arguments validated by the tool's precompiled validator, ``Toolbox.call``), the
    answer written as JSON text, with no SDK model built or validated on the way (the
    two listings are written once). The SDK serves everything else (the handshake,
    resources, prompts, logging, ping) and any request this path is not sure of, so its
    answers and errors stay the SDK's.

    The path follows the connection's protocol era as the SDK decides it, from the
    first request (a ``_meta`` envelope and not ``initialize``: the 2026-07-28 era).
    On a handshake-era connection it serves only ``tools/call``, and only once the
    client has sent ``initialize`` and ``notifications/initialized``; on a 2026-07-28
    connection, a request whose envelope is complete and of a served version, the
    first one included. Anything else (another params field, another ``_meta`` key, a
    malformed envelope) goes to the SDK. When the SDK first gets a line
    (``handover``) after this path answered the opening request, it is first given a
    request of the same era whose answer is dropped, so it decides the era as it would
    have. An answer is what the SDK would write for the same result, key for key
    (``tests/runtime/test_close_to_floor.py`` compares them). While it serves stdio,
    ``owner`` is the one owner of every session key of the process, for this path and
    the SDK's alike (on stdio one process is one connection, whichever era)."""

    def __init__(
        self,
        run_call: Callable[[str, dict[str, Any] | None, Any, Any | None], Awaitable[CallOutcome]],
        calls: Calls | None = None,
        *,
        run_call_now: Callable[[str, dict[str, Any] | None, Any, Any | None], CallOutcome] | None = None,
    ) -> None:
        self._run_call = run_call
        self._run_call_now = run_call_now
        self._calls = calls
        self.owner: Any | None = None
        self.server_info: Any = calls.server_info() if calls is not None else None
        self._era: str | None = None  # "legacy" or "modern", once the first request decides
        self._initialize_seen = False
        self._ready = False  # a handshake-era connection the client has initialized
        self._stamp: str | None = None  # the serverInfo ``_meta`` of a 2026-era answer, as JSON
        self._listed: dict[str, str] = {}  # method -> its result, as JSON text
        self._opening_meta: dict[str, Any] | None = None  # of the opening request, if answered here
        self._handed_over = False

    def serve_stdio(self) -> None:
        """This server answers one stdio connection: its owner, for every request."""
        self.owner = _StdioConnection()

    def handover(self) -> bytes | None:
        """Called once, before the SDK gets its first line: the line it must read first,
        when this path answered the connection's opening request (the SDK's answer to
        it carries ``ERA_REQUEST_ID`` and is dropped); None otherwise."""
        self._handed_over = True
        if self._opening_meta is None:
            return None
        line = {
            "jsonrpc": "2.0",
            "id": ERA_REQUEST_ID,
            "method": "server/discover",
            "params": {"_meta": self._opening_meta},
        }
        return json.dumps(line).encode("utf-8") + b"\n"

    async def answer(self, message: Any) -> bytes | None:
        """The answer line to ``message`` (a parsed line), or None: the SDK's to answer."""
        found = self._request(message)
        if not isinstance(found, _Call):
            return found
        return self._called(found, await self._run_call(found.name, found.arguments, found.meta, self.owner))

    def answer_now(self, message: Any) -> bytes | None:
        """``answer``, with the call run to its end here (``run_call_now``): for a server
        whose calls never wait, before any event loop runs (``stdio.serve_lean_now``)."""
        found = self._request(message)
        if not isinstance(found, _Call):
            return found
        assert self._run_call_now is not None
        return self._called(found, self._run_call_now(found.name, found.arguments, found.meta, self.owner))

    def _request(self, message: Any) -> _Call | bytes | None:
        """What ``answer`` does before a call: the answer line when no call is needed (a
        listing), the call to make, or None (the SDK's to answer)."""
        if not isinstance(message, dict):
            return None
        method = message.get("method")
        if not isinstance(method, str) or message.get("jsonrpc") != "2.0":
            return None
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return None
        if "id" not in message:
            if method == "notifications/initialized" and self._era == "legacy" and self._initialize_seen:
                self._ready = True
            return None
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            return None
        opening = self._era is None
        if opening:  # decided as the SDK decides it (runner.serve_dual_era_loop)
            meta = (params or {}).get("_meta")
            enveloped = isinstance(meta, dict) and _PROTOCOL_VERSION in meta
            self._era = "modern" if method != "initialize" and enveloped else "legacy"
            self._initialize_seen = method == "initialize"
            if self._era == "legacy" or self._handed_over:
                return None  # the SDK reads it first, and decides on it
        if method == "initialize":
            self._initialize_seen = True
            return None
        modern = self._era == "modern"
        if params is None:
            return None
        meta = params.get("_meta")
        if meta is not None and (not isinstance(meta, dict) or not meta.keys() <= _LEAN_META):
            return None
        if modern:
            if meta is None or not _envelope_complete(meta):
                return None
        elif not self._ready or (meta is not None and not meta.keys().isdisjoint(_ENVELOPE)):
            return None
        if method in _LISTED:
            if not modern or self._calls is None or not params.keys() <= _LISTED_PARAMS[method]:
                return None
            if not isinstance(params.get("cursor", ""), str | None):
                return None
            line = self._listing(request_id, method)
            if opening:
                assert isinstance(meta, dict)
                self._opening_meta = {k: meta[k] for k in _ENVELOPE}
            return line
        if method == "tools/call" and params.keys() <= _CALL_PARAMS:
            name, arguments = params.get("name"), params.get("arguments")
            if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
                return None
            return _Call(request_id, name, arguments, meta, modern, opening)
        return None

    def _called(self, call: _Call, outcome: CallOutcome) -> bytes:
        line = self._line(call.request_id, outcome, call.modern)
        if call.opening:
            assert isinstance(call.meta, dict)
            self._opening_meta = {k: call.meta[k] for k in _ENVELOPE}
        return line

    def _listing(self, request_id: int | str, method: str) -> bytes:
        """A 2026-era answer to ``server/discover`` or ``tools/list``, as the SDK writes it."""
        text = self._listed.get(method)
        if text is None:
            calls = self._calls
            assert calls is not None
            result: dict[str, Any] = {"cacheScope": "private"}
            if method == "server/discover":
                result["capabilities"] = _CAPABILITIES
                if calls.instructions:
                    result["instructions"] = calls.instructions
                result["resultType"] = "complete"
                result["supportedVersions"] = list(MODERN_PROTOCOL_VERSIONS)
            else:
                result["resultType"] = "complete"
                result["tools"] = calls.tool_list()
            result["ttlMs"] = 0
            result["_meta"] = {_SERVER_INFO: self.server_info}
            text = self._listed[method] = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
        head = '{"jsonrpc":"2.0","id":' + _id_text(request_id) + ',"result":'
        return _encoded(head + text + "}\n")

    def _line(self, request_id: int | str, outcome: CallOutcome, modern: bool) -> bytes:
        # Keys in the order the SDK writes them (its model's fields; the stamp last). The
        # structured content is the text content itself: the same JSON value, written once.
        if outcome.ok:
            text = outcome.output_text()
            parts = ['{"content":[{"text":', _string(text), ',"type":"text"}],"isError":false']
            if modern:
                parts.append(',"resultType":"complete"')
            parts += [',"structuredContent":', text]
        else:
            parts = [
                '{"content":[{"text":',
                _string(outcome.error or "error"),
                ',"type":"text"}],"isError":true',
            ]
            if modern:
                parts.append(',"resultType":"complete"')
        if modern:
            if self._stamp is None:
                self._stamp = json.dumps(
                    {_SERVER_INFO: self.server_info}, ensure_ascii=False, separators=(",", ":")
                )
            parts += [',"_meta":', self._stamp]
        head = '{"jsonrpc":"2.0","id":' + _id_text(request_id) + ',"result":'
        return _encoded(head + "".join(parts) + "}}\n")


def _encoded(line: str) -> bytes:
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, still the same JSON value
        return json.dumps(json.loads(line)).encode("ascii") + b"\n"


def _string(text: str) -> str:
    """``json.dumps(text, ensure_ascii=False)``, without building an encoder per call."""
    return encode_basestring(text)


def _id_text(request_id: int | str) -> str:
    return str(request_id) if isinstance(request_id, int) else encode_basestring(request_id)


def _envelope_complete(meta: dict[str, Any]) -> bool:
    info, capabilities = meta.get(_CLIENT_INFO), meta.get(_CLIENT_CAPABILITIES)
    return (
        meta.get(_PROTOCOL_VERSION) in MODERN_PROTOCOL_VERSIONS
        and isinstance(capabilities, dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


# --- control plane -------------------------------------------------------------------

_STATE_HASH = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
# Which definition of the state hash the server computes (``state.STATE_HASH_VERSION``),
# so a host can tell a stale stored hash from a different state.
_HASH_VERSION = {"type": "integer", "const": STATE_HASH_VERSION}
_HASHED = {"state_hash": _STATE_HASH, "state_hash_version": _HASH_VERSION}
CONTROL_SPECS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "reset": (
        "Reset this session's database to the seed, or to the given canonical state.",
        {"type": "object", "properties": {"state": {"type": "object"}}, "additionalProperties": False},
        {"type": "object", "properties": _HASHED, "required": ["state_hash"]},
    ),
    "state": (
        "Canonical state of this session (every table, rows sorted by primary key) and its state hash.",
        {"type": "object", "properties": {}, "additionalProperties": False},
        {
            "type": "object",
            "properties": {**_HASHED, "state": {"type": "object"}},
            "required": ["state_hash", "state"],
        },
    ),
    "state_hash": (
        f"Hash of this session's canonical state (definition version {STATE_HASH_VERSION}).",
        {"type": "object", "properties": {}, "additionalProperties": False},
        {"type": "object", "properties": _HASHED, "required": ["state_hash"]},
    ),
    "end_session": (
        "Release this session's database; its next request starts from the seed.",
        {"type": "object", "properties": {}, "additionalProperties": False},
        {"type": "object", "properties": {"ended": {"type": "boolean"}}, "required": ["ended"]},
    ),
}


async def _control_call(
    store: SessionStore,
    name: str,
    arguments: dict[str, Any],
    meta: Any,
    owner: Any | None,
    turn_of: Callable[[SessionDatabase], anyio.Lock],
) -> CallOutcome:
    found = _control_session(store, name, meta, owner)
    if isinstance(found, CallOutcome):
        return found
    session, op = found
    try:
        lock = turn_of(session.db)
        if not lock.locked():
            # Nothing holds the session's turn, and the operation runs start to end without
            # awaiting, so no other request can take it meanwhile: run it without taking
            # the lock, whose uncontended acquire still yields to the event loop (a pass of
            # the loop per control call); a cancelled request is still stopped here first.
            from anyio.lowlevel import checkpoint_if_cancelled

            await checkpoint_if_cancelled()
            return _control_op(session, op, arguments)
        async with lock:
            return _control_op(session, op, arguments)
    finally:
        session.release()


def _control_call_now(
    store: SessionStore, name: str, arguments: dict[str, Any], meta: Any, owner: Any | None
) -> CallOutcome:
    """``_control_call`` with no event loop running: no turn is held and nothing can cancel."""
    found = _control_session(store, name, meta, owner)
    if isinstance(found, CallOutcome):
        return found
    session, op = found
    try:
        return _control_op(session, op, arguments)
    finally:
        session.release()


def _control_session(
    store: SessionStore, name: str, meta: Any, owner: Any | None
) -> CallOutcome | tuple[Session, str]:
    """The session a control operation runs on and the operation, or its answer when
    there is nothing to run (an unknown operation, ``end_session``, a refused session)."""
    op = name.removeprefix(CONTROL_PREFIX)
    if op not in CONTROL_SPECS:
        return CallOutcome(ok=False, error=f"Unknown control operation {name!r}.")
    try:
        if op == "end_session":
            return CallOutcome(ok=True, output={"ended": store.end(meta, owner)})
        # reset opens a session key; the other operations only use one that is open.
        session = store.open(meta, owner) if op == "reset" else store.session(meta, owner, write=False)
    except SessionRefused as exc:
        return _refused(exc)
    return session, op


def _control_op(session: Session, op: str, arguments: dict[str, Any]) -> CallOutcome:
    if op == "reset":
        state = arguments.get("state")
        if state is not None and not isinstance(state, dict):
            return CallOutcome(ok=False, error="'state' must be an object of table -> rows")
        try:
            session.db.reset(state)
        except ValueError as exc:
            return CallOutcome(ok=False, error=f"Cannot restore that state: {exc}")
        return CallOutcome(ok=True, output=_hashed(session))
    if op == "state":
        dumped = session.db.dump()  # the kept hash is the dump's: same database, same moment
        return CallOutcome(ok=True, output={**_hashed(session), "state": dumped})
    return CallOutcome(ok=True, output=_hashed(session))


def _hashed(session: Session) -> dict[str, Any]:
    return {"state_hash": session.db.hash(), "state_hash_version": STATE_HASH_VERSION}
