# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""The MCP server of one environment: its tools, per-session state and the control plane."""

from __future__ import annotations

import logging
import warnings
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp import MCPError
from mcp.server import Server
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from .bundle import Bundle as Bundle  # re-exported: where callers of create_server look
from .calls import CONTROL_META_KEY as CONTROL_META_KEY
from .calls import CONTROL_PREFIX as CONTROL_PREFIX
from .calls import CONTROL_SPECS, Calls, LeanCalls
from .calls import ServerOptions as ServerOptions
from .calls import _control_op as _control_op  # the jail's session process (zygote.py) runs it
from .calls import portable_schema as portable_schema
from .toolbox import CallOutcome

logger = logging.getLogger(__name__)
_DEFAULT_OPTIONS = ServerOptions()


def create_server(
    bundle: Bundle,
    options: ServerOptions = _DEFAULT_OPTIONS,
    *,
    seed_image: bytes | None = None,
    calls: Calls | None = None,
) -> Server[Any]:
    """Build the MCP server around ``Calls`` (made here, or given: the stdio server
    builds it first and this only when the SDK is needed, ``cli._serve_stdio``)."""
    calls = Calls(bundle, options, seed_image=seed_image) if calls is None else calls
    toolbox = calls.toolbox
    tools = [_mcp_tool(t) for t in toolbox.tools.values()]
    if options.control:
        tools += _control_tools()
    listing = types.ListToolsResult(tools=tools)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listing

    run_call = calls.run_call
    lean = calls.lean

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


def _result(outcome: CallOutcome) -> types.CallToolResult:
    if not outcome.ok:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.error or "error")], is_error=True
        )
    text = outcome.output_text()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=outcome.output
    )


# --- the lean path on stdio (calls.LeanCalls) ------------------------------------------

_LEAN: weakref.WeakKeyDictionary[Server[Any], LeanCalls] = weakref.WeakKeyDictionary()


def lean_calls(server: Server[Any]) -> LeanCalls | None:
    """The lean path of a server ``create_server`` made (None for a jailed or file-backed one)."""
    return _LEAN.get(server)


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
        for name, (description, inp, out) in CONTROL_SPECS.items()
    ]
