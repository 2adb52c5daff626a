# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""The MCP server of one environment: its tools, per-session state and the control plane."""

from __future__ import annotations

import json
import logging
import warnings
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server import Server
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from .bundle import Bundle as Bundle  # re-exported: where callers of create_server look
from .database import SessionDatabase, build_seed_image
from .isolation import JailedTools
from .limits import DEFAULT_CALL_SECONDS
from .sessions import SESSION_META_KEY, Session, SessionLimits, SessionRefused, SessionStore
from .state import STATE_HASH_VERSION
from .toolbox import CallOutcome, Toolbox

logger = logging.getLogger(__name__)

CONTROL_META_KEY = "envfactory/control"
CONTROL_PREFIX = "control."


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


def create_server(
    bundle: Bundle, options: ServerOptions = ServerOptions(), *, seed_image: bytes | None = None
) -> Server[Any]:
    """Build the MCP server. The seed image is built once here (or given: a jailed
    session process gets the one its zygote built); sessions copy it."""
    toolbox = Toolbox(bundle.spec, bundle.tools_module, call_seconds=options.call_seconds)
    store = SessionStore(
        seed_image if seed_image is not None else build_seed_image(bundle.schema_sql, bundle.seed_sql),
        options.db_path,
        keys_allowed=options.control,
        limits=options.session_limits,
    )
    tools = [_mcp_tool(t) for t in toolbox.tools.values()]
    if options.control:
        tools += _control_tools()
    listing = types.ListToolsResult(tools=tools)
    file_lock = anyio.Lock()
    # Jailed tool code runs in a worker thread, so a slow call waits in its own thread and
    # never on the event loop; one session's calls (and control operations) take turns.
    jailed = isinstance(bundle.tools_module, JailedTools)
    session_locks: weakref.WeakKeyDictionary[SessionDatabase, anyio.Lock] = weakref.WeakKeyDictionary()

    def turn_of(db: SessionDatabase) -> anyio.Lock:
        lock = session_locks.get(db)
        if lock is None:
            lock = session_locks[db] = anyio.Lock()
        return lock

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listing

    async def run_call(
        name: str, arguments: dict[str, Any] | None, meta: Any, owner: Any | None
    ) -> CallOutcome:
        if options.control and name.startswith(CONTROL_PREFIX):
            return await _control_call(store, name, arguments or {}, meta, owner, turn_of)
        tool = toolbox.tools.get(name)
        try:
            session = store.session(meta, owner, write=tool is not None and tool.effect == "write")
        except SessionRefused as exc:
            return _refused(exc)
        try:
            if store.file_backed:
                # One shared file: calls take turns, off the event loop so disk waits block no one.
                # No alarm reaches that thread: the time limit bounds the call's SQL (limits.py).
                async with file_lock:
                    outcome = await anyio.to_thread.run_sync(toolbox.call, session.db.db, name, arguments)
            elif jailed:
                # in_use: the connection stays materialized (not parked) while the thread works.
                async with turn_of(session.db):
                    with session.db.in_use() as connection:
                        outcome = await anyio.to_thread.run_sync(toolbox.call, connection, name, arguments)
                session.db.mark_written(outcome.written)
            else:
                outcome = _call_here(session, tool, name, arguments)
        finally:
            session.release()
        return outcome

    def _call_here(session: Session, tool: Any, name: str, arguments: dict[str, Any] | None) -> CallOutcome:
        # A read runs start to end right here, so a session that has only read can
        # use the seed's shared connection; a write makes (or uses) its own copy.
        writes = tool is not None and tool.effect == "write"
        db = session.db.db if writes else session.db.reader()
        return toolbox.call(db, name, arguments)

    # The lean path (``LeanCalls``): tools/call and control.* on stdio, without the SDK.
    lean = None if (store.file_backed or jailed) else LeanCalls(run_call)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        owner = lean.owner if lean is not None and lean.owner is not None else _owner_of(ctx)
        return _result(await run_call(params.name, params.arguments, ctx.meta, owner))

    instructions = str(bundle.spec.get("policy", ""))
    documents = _documents(bundle)
    prompt = _agent_prompt(bundle)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[doc.resource for doc in documents.values()])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        doc = documents.get(str(params.uri))
        if doc is None:
            raise MCPError(
                code=RESOURCE_NOT_FOUND, message=f"Unknown resource {params.uri!r}: see resources/list."
            )
        return types.ReadResourceResult(contents=[doc.contents])

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != prompt.name:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Unknown prompt {params.name!r}: see prompts/list."
            )
        text = types.TextContent(type="text", text=_agent_prompt_text(instructions))
        return types.GetPromptResult(
            description=prompt.description, messages=[types.PromptMessage(role="user", content=text)]
        )

    async def set_logging_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        # The server's own log (stderr) follows the client's choice; nothing else is logged to it.
        logging.getLogger(__package__ or __name__).setLevel(
            _LOG_LEVELS.get(str(params.level), logging.WARNING)
        )
        return types.EmptyResult()

    def input_schema(name: str) -> Mapping[str, Any] | None:
        tool = toolbox.tools.get(name)
        return tool.input_schema if tool is not None else None

    server = mcp_server(
        str(bundle.spec["name"]),
        options,
        title=str(bundle.spec.get("title", bundle.spec["name"])),
        description=str(bundle.spec.get("description", "")),
        instructions=instructions or None,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_set_logging_level=set_logging_level,
    )
    if lean is not None:
        lean.server_info = server.server_info_stamp
        _LEAN[server] = lean
    return server


def mcp_server(name: str, options: ServerOptions, **settings: Any) -> Server[Any]:
    """The SDK's ``Server`` with ``settings`` (title, handlers...), as every server of this
    runtime builds it: in process (``create_server``) and the jail's front (``front.py``)."""
    # logging/setLevel is deprecated from protocol 2026-07-28 on (SEP-2577) but part of every
    # earlier one, which most clients still speak: offered, without the SDK's warning.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        server: Server[Any] = Server(name, version=options.version, **settings)
    if options.prefer_sessions:

        async def discover(ctx: Any, params: Any) -> types.DiscoverResult:
            return types.DiscoverResult(
                supported_versions=[HANDSHAKE_PROTOCOL_VERSIONS[-1]],
                capabilities=server.get_capabilities(protocol_version=ctx.protocol_version),
                instructions=server.instructions,
            )

        server.add_request_handler("server/discover", types.RequestParams, discover)
    return server


# --- resources and the prompt ----------------------------------------------------------

_LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
AGENT_PROMPT = "agent_system_prompt"
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource URI
_GUIDANCE = """## Using the tools

You act for the user through this server's tools. Read with a tool before you answer:
never state a value that no tool has shown you and the user has not given. Before a tool
that changes anything, say what you will do and wait for the user's yes. When a tool
returns an error, tell the user what went wrong instead of guessing; when the policy
says a request cannot be done, say so and why."""


@dataclass(frozen=True)
class _Document:
    resource: types.Resource
    contents: types.TextResourceContents


def _documents(bundle: Bundle) -> dict[str, _Document]:
    """The environment's policy and database schema, as MCP resources."""
    name = str(bundle.spec["name"])
    found = {
        "policy": (
            "text/markdown",
            str(bundle.spec.get("policy", "")),
            "The policy an agent of this service follows.",
        ),
        "schema": ("application/sql", bundle.schema_sql, "The SQLite schema of the environment's state."),
    }
    documents = {}
    for key, (mime, text, description) in found.items():
        if not text:
            continue
        uri = f"envfactory://{name}/{key}"
        resource = types.Resource(
            uri=uri, name=f"{name}-{key}", title=f"{name} {key}", description=description, mime_type=mime
        )
        documents[uri] = _Document(resource, types.TextResourceContents(uri=uri, mime_type=mime, text=text))
    return documents


def _agent_prompt(bundle: Bundle) -> types.Prompt:
    return types.Prompt(
        name=AGENT_PROMPT,
        title="Agent system prompt",
        description=f"The system prompt of an agent serving users of {bundle.spec['name']}: its policy and how to use the tools.",
    )


def _agent_prompt_text(policy: str) -> str:
    return f"{policy.rstrip()}\n\n{_GUIDANCE}\n" if policy else f"{_GUIDANCE}\n"


def _mcp_tool(tool: Any) -> types.Tool:
    return types.Tool(
        name=tool.name,
        title=tool.name.replace("_", " ").capitalize(),
        description=tool.description,
        input_schema=portable_schema(tool.input_schema),
        output_schema=portable_schema(tool.output_schema),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.effect == "read",
            destructive_hint=tool.destructive,
            idempotent_hint=tool.idempotent,
            open_world_hint=False,
        ),
    )


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


def _result(outcome: CallOutcome) -> types.CallToolResult:
    if not outcome.ok:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.error or "error")], is_error=True
        )
    text = outcome.output_text()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=outcome.output
    )


def _refused(exc: SessionRefused) -> CallOutcome:
    # A tool error, not a protocol error: hosts drop a connection on protocol errors, and
    # one episode's lost session must not cost the others theirs.
    return CallOutcome(ok=False, error=f"Session refused: {exc}")


# --- the lean path of tools/call on stdio ----------------------------------------------

_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
_ENVELOPE = frozenset({_PROTOCOL_VERSION, _CLIENT_INFO, _CLIENT_CAPABILITIES})
_LEAN_META = frozenset({*_ENVELOPE, SESSION_META_KEY, "progressToken"})
_CALL_PARAMS = frozenset({"name", "arguments", "_meta"})
_LEAN: weakref.WeakKeyDictionary[Server[Any], LeanCalls] = weakref.WeakKeyDictionary()


class _StdioConnection:
    """The owner of every request of a process serving one stdio connection."""


def lean_calls(server: Server[Any]) -> LeanCalls | None:
    """The lean path of a server ``create_server`` made (None for a jailed or file-backed one)."""
    return _LEAN.get(server)


class LeanCalls:
    """``tools/call`` (tools and ``control.*``) answered straight from the stdio line: the
    line parsed with ``json``, the request checked by hand, the call run by the same
    code as the SDK's handler (``run_call``: arguments validated by the tool's
    precompiled validator, ``Toolbox.call``), the answer written as JSON text, with no
    SDK model built or validated on the way. The SDK serves everything else (the
    handshake, listings, resources, prompts, logging) and any ``tools/call`` this path
    is not sure of, so its answers and errors stay the SDK's.

    The path follows the connection's protocol era as the SDK decides it, from the
    first request: on a handshake-era connection it serves only once the client has
    sent ``initialize`` and ``notifications/initialized``, on a 2026-07-28 connection a
    request whose envelope is complete and of a served version; anything else (another
    params field, another ``_meta`` key, a malformed envelope, an unknown era) goes to
    the SDK. An answer is what the SDK would write for the same result, key for key
    (``tests/runtime/test_lean_calls.py`` compares them). While it serves stdio,
    ``owner`` is the one owner of every session key of the process, for this path and
    the SDK's alike (on stdio one process is one connection, whichever era)."""

    def __init__(
        self, run_call: Callable[[str, dict[str, Any] | None, Any, Any | None], Awaitable[CallOutcome]]
    ) -> None:
        self._run_call = run_call
        self.owner: Any | None = None
        self.server_info: Any = None
        self._era: str | None = None  # "legacy" or "modern", once the first request decides
        self._initialize_seen = False
        self._ready = False  # a handshake-era connection the client has initialized
        self._stamp: str | None = None  # the serverInfo ``_meta`` of a 2026-era answer, as JSON

    def serve_stdio(self) -> None:
        """This server answers one stdio connection: its owner, for every request."""
        self.owner = _StdioConnection()

    async def answer(self, message: Any) -> bytes | None:
        """The answer line to ``message`` (a parsed line), or None: the SDK's to answer."""
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
        if self._era is None:  # the era is the SDK's to decide, on this first request
            meta = (params or {}).get("_meta")
            enveloped = isinstance(meta, dict) and _PROTOCOL_VERSION in meta
            self._era = "modern" if method != "initialize" and enveloped else "legacy"
            self._initialize_seen = method == "initialize"
            return None
        if method == "initialize":
            self._initialize_seen = True
            return None
        if method != "tools/call" or params is None or not params.keys() <= _CALL_PARAMS:
            return None
        name, arguments, meta = params.get("name"), params.get("arguments"), params.get("_meta")
        if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
            return None
        if meta is not None and (not isinstance(meta, dict) or not meta.keys() <= _LEAN_META):
            return None
        modern = self._era == "modern"
        if modern:
            if meta is None or not _envelope_complete(meta):
                return None
        elif not self._ready or (meta is not None and not meta.keys().isdisjoint(_ENVELOPE)):
            return None
        outcome = await self._run_call(name, arguments, meta, self.owner)
        return self._line(request_id, outcome, modern)

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
        head = '{"jsonrpc":"2.0","id":' + json.dumps(request_id, ensure_ascii=False) + ',"result":'
        line = head + "".join(parts) + "}}\n"
        try:
            return line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: escaped, still the same JSON value
            return json.dumps(json.loads(line)).encode("ascii") + b"\n"


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _envelope_complete(meta: dict[str, Any]) -> bool:
    info, capabilities = meta.get(_CLIENT_INFO), meta.get(_CLIENT_CAPABILITIES)
    return (
        meta.get(_PROTOCOL_VERSION) in MODERN_PROTOCOL_VERSIONS
        and isinstance(capabilities, dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


class _InProcess:
    """The owner of requests made in-process on the 2026-07-28 path (see sessions.py)."""


IN_PROCESS = _InProcess()


def _owner_of(ctx: Any) -> Any | None:
    """The transport session a request arrived on, or None when it has none.

    Handshake era: the connection (a stdio process, an ``Mcp-Session-Id``, a legacy
    in-memory client). 2026-07-28 on a duplex stream (stdio): each request gets a
    throwaway ``Connection``, but they all share the stream's notification channel, made
    once per stream. 2026-07-28 in-process: ``IN_PROCESS``. 2026-07-28 over HTTP: None,
    each POST stands alone. mcp 2.x exposes the connection only privately on
    ServerSession; the package pins mcp<3 and the session tests would catch a change.
    """
    connection = getattr(ctx.session, "_connection", None)
    if connection is None:
        return None
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        return connection
    if connection.has_standalone_channel:
        return connection.outbound
    if ctx.request is None:  # streamable HTTP always attaches its starlette Request
        return IN_PROCESS
    return None


# --- control plane -------------------------------------------------------------------

_STATE_HASH = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
# Which definition of the state hash the server computes (``state.STATE_HASH_VERSION``),
# so a host can tell a stale stored hash from a different state.
_HASH_VERSION = {"type": "integer", "const": STATE_HASH_VERSION}
_HASHED = {"state_hash": _STATE_HASH, "state_hash_version": _HASH_VERSION}
_CONTROL_SPECS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
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


def _control_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name=CONTROL_PREFIX + name,
            description="[control plane, not for agents] " + description,
            input_schema=inp,
            output_schema=out,
            meta={CONTROL_META_KEY: True},
            annotations=types.ToolAnnotations(
                read_only_hint=name in ("state", "state_hash"), open_world_hint=False
            ),
        )
        for name, (description, inp, out) in _CONTROL_SPECS.items()
    ]


async def _control_call(
    store: SessionStore,
    name: str,
    arguments: dict[str, Any],
    meta: Any,
    owner: Any | None,
    turn_of: Callable[[SessionDatabase], anyio.Lock],
) -> CallOutcome:
    op = name.removeprefix(CONTROL_PREFIX)
    if op not in _CONTROL_SPECS:
        return CallOutcome(ok=False, error=f"Unknown control operation {name!r}.")
    try:
        if op == "end_session":
            return CallOutcome(ok=True, output={"ended": store.end(meta, owner)})
        # reset opens a session key; the other operations only use one that is open.
        session = store.open(meta, owner) if op == "reset" else store.session(meta, owner, write=False)
    except SessionRefused as exc:
        return _refused(exc)
    try:
        async with turn_of(session.db):
            return _control_op(session, op, arguments)
    finally:
        session.release()


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
