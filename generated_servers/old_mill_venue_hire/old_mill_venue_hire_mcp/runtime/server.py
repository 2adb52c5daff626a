# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""The MCP server of one environment: its tools, per-session state and the control plane."""

from __future__ import annotations

import json
import logging
import warnings
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server import Server
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from .database import SessionDatabase, build_seed_image
from .isolation import JailedTools, load_tools
from .limits import DEFAULT_CALL_SECONDS, IsolationLimits
from .sessions import Session, SessionLimits, SessionRefused, SessionStore
from .state import STATE_HASH_VERSION
from .toolbox import CallOutcome, Toolbox

logger = logging.getLogger(__name__)

CONTROL_META_KEY = "envfactory/control"
CONTROL_PREFIX = "control."


@dataclass(frozen=True)
class Bundle:
    """Everything a server needs: the spec (as plain JSON data), tool code, schema and seed."""

    spec: Mapping[str, Any]
    tools_module: ModuleType | JailedTools  # JailedTools: the functions run in jailed workers
    schema_sql: str
    seed_sql: str

    @classmethod
    def from_directory(cls, data_dir: Path, tools_module: ModuleType | JailedTools) -> Bundle:
        return cls(
            spec=json.loads((data_dir / "spec.json").read_text(encoding="utf-8")),
            tools_module=tools_module,
            schema_sql=(data_dir / "schema.sql").read_text(encoding="utf-8"),
            seed_sql=(data_dir / "seed.sql").read_text(encoding="utf-8"),
        )

    @classmethod
    def from_package(
        cls, package_dir: Path, *, jailed: bool, limits: IsolationLimits | None = None
    ) -> Bundle:
        """The bundle of the package folder ``<root>/<name>_mcp``: its data files, and its
        ``tools.py`` in jailed workers (or, ``jailed=False``, for trusted code only, in
        this process). Nothing else of the package runs: this runtime serves it."""
        data = package_dir / "data"
        spec = json.loads((data / "spec.json").read_text(encoding="utf-8"))
        names = [str(t.get("name")) for t in spec.get("tools", []) if isinstance(t, dict)]
        tools = load_tools(package_dir / "tools.py", names, jailed=jailed, limits=limits or IsolationLimits())
        return cls.from_directory(data, tools)


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

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        owner = _owner_of(ctx)
        if options.control and params.name.startswith(CONTROL_PREFIX):
            return await _control_call(store, params.name, params.arguments or {}, ctx.meta, owner, turn_of)
        tool = toolbox.tools.get(params.name)
        try:
            session = store.session(ctx.meta, owner, write=tool is not None and tool.effect == "write")
        except SessionRefused as exc:
            return _refused(exc)
        try:
            if store.file_backed:
                # One shared file: calls take turns, off the event loop so disk waits block no one.
                # No alarm reaches that thread: the time limit bounds the call's SQL (limits.py).
                async with file_lock:
                    outcome = await anyio.to_thread.run_sync(
                        toolbox.call, session.db.db, params.name, params.arguments
                    )
            elif jailed:
                # in_use: the connection stays materialized (not parked) while the thread works.
                async with turn_of(session.db):
                    with session.db.in_use() as connection:
                        outcome = await anyio.to_thread.run_sync(
                            toolbox.call, connection, params.name, params.arguments
                        )
                session.db.mark_written(outcome.written)
            else:
                # A read runs start to end right here, so a session that has only read can
                # use the seed's shared connection; a write makes (or uses) its own copy.
                writes = tool is not None and tool.effect == "write"
                db = session.db.db if writes else session.db.reader()
                outcome = toolbox.call(db, params.name, params.arguments)
        finally:
            session.release()
        return _result(outcome)

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

    return mcp_server(
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
    text = json.dumps(outcome.output, ensure_ascii=False, sort_keys=True)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=outcome.output
    )


def _refused(exc: SessionRefused) -> types.CallToolResult:
    # A tool error, not a protocol error: hosts drop a connection on protocol errors, and
    # one episode's lost session must not cost the others theirs.
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"Session refused: {exc}")], is_error=True
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
) -> types.CallToolResult:
    op = name.removeprefix(CONTROL_PREFIX)
    if op not in _CONTROL_SPECS:
        return _result(CallOutcome(ok=False, error=f"Unknown control operation {name!r}."))
    try:
        if op == "end_session":
            return _result(CallOutcome(ok=True, output={"ended": store.end(meta, owner)}))
        # reset opens a session key; the other operations only use one that is open.
        session = store.open(meta, owner) if op == "reset" else store.session(meta, owner, write=False)
    except SessionRefused as exc:
        return _refused(exc)
    try:
        async with turn_of(session.db):
            return _control_op(session, op, arguments)
    finally:
        session.release()


def _control_op(session: Session, op: str, arguments: dict[str, Any]) -> types.CallToolResult:
    if op == "reset":
        state = arguments.get("state")
        if state is not None and not isinstance(state, dict):
            return _result(CallOutcome(ok=False, error="'state' must be an object of table -> rows"))
        try:
            session.db.reset(state)
        except ValueError as exc:
            return _result(CallOutcome(ok=False, error=f"Cannot restore that state: {exc}"))
        return _result(CallOutcome(ok=True, output=_hashed(session)))
    if op == "state":
        dumped = session.db.dump()  # the kept hash is the dump's: same database, same moment
        return _result(CallOutcome(ok=True, output={**_hashed(session), "state": dumped}))
    return _result(CallOutcome(ok=True, output=_hashed(session)))


def _hashed(session: Session) -> dict[str, Any]:
    return {"state_hash": session.db.hash(), "state_hash_version": STATE_HASH_VERSION}
