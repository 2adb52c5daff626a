# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Runtime of a generated MCP server.

This package is copied verbatim into every generated server (as ``<package>/runtime``),
so it imports only the standard library, ``mcp`` and ``jsonschema_rs``, and refers to
itself with relative imports. ``envfactory_mcp`` uses the same code in-process, so what
is tested here is exactly what ships.

The MCP-facing names (``create_server`` and friends) load on first use: tool code and the
verifier's sandbox need only the database and toolbox half, and importing ``mcp`` costs
most of a second.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .context import ToolContext, ToolError
from .database import SessionDatabase, build_seed_image
from .state import (
    STATE_HASH_VERSION,
    canonical_json,
    diff_states,
    dump_state,
    hash_state,
    primary_keys_of,
    restore_state,
    state_hash,
)
from .toolbox import CallOutcome, Toolbox

if TYPE_CHECKING:
    from .bundle import Bundle
    from .server import CONTROL_META_KEY, CONTROL_PREFIX, ServerOptions, create_server
    from .sessions import SESSION_META_KEY, SessionLimits

_LAZY = {
    "CONTROL_META_KEY": ".server",
    "CONTROL_PREFIX": ".server",
    "Bundle": ".bundle",
    "ServerOptions": ".server",
    "create_server": ".server",
    "SESSION_META_KEY": ".sessions",
    "SessionLimits": ".sessions",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CONTROL_META_KEY",
    "CONTROL_PREFIX",
    "SESSION_META_KEY",
    "STATE_HASH_VERSION",
    "Bundle",
    "CallOutcome",
    "ServerOptions",
    "SessionDatabase",
    "SessionLimits",
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
