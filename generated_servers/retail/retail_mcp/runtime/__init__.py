# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Runtime of a generated MCP server.

This package is copied verbatim into every generated server (as ``<package>/runtime``),
so it imports only the standard library, ``mcp`` and ``jsonschema_rs``, and refers to
itself with relative imports. ``envfactory_mcp`` uses the same code in-process, so what
is tested here is exactly what ships.
"""

from .context import ToolContext, ToolError
from .database import SessionDatabase, build_seed_image
from .server import CONTROL_META_KEY, CONTROL_PREFIX, Bundle, ServerOptions, create_server
from .sessions import SESSION_META_KEY
from .state import canonical_json, diff_states, dump_state, hash_state, primary_keys_of, restore_state, state_hash
from .toolbox import CallOutcome, Toolbox

__all__ = [
    "CONTROL_META_KEY",
    "CONTROL_PREFIX",
    "SESSION_META_KEY",
    "Bundle",
    "CallOutcome",
    "ServerOptions",
    "SessionDatabase",
    "ToolContext",
    "ToolError",
    "Toolbox",
    "build_seed_image",
    "canonical_json",
    "create_server",
    "diff_states",
    "dump_state",
    "hash_state",
    "primary_keys_of",
    "restore_state",
    "state_hash",
]
