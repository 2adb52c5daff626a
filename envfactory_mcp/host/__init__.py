"""Host: launch generated servers and talk to them over MCP."""

from __future__ import annotations

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

if TYPE_CHECKING:
    from envfactory_mcp.host.connection import CallResult, ServerConnection, SessionLost, ToolInfo, Transport
    from envfactory_mcp.host.episode import EpisodeConfig, openai_tools, run_episode
    from envfactory_mcp.host.launch import ServerNotBuiltError, package_dir, stdio_params
    from envfactory_mcp.host.rollout import RolloutConfig, run_interruptibly

# Loaded on first use (the MCP client stack loads only where a server is reached).
_EXPORTS = {
    "CallResult": "envfactory_mcp.host.connection",
    "EpisodeConfig": "envfactory_mcp.host.episode",
    "RolloutConfig": "envfactory_mcp.host.rollout",
    "ServerConnection": "envfactory_mcp.host.connection",
    "ServerNotBuiltError": "envfactory_mcp.host.launch",
    "SessionLost": "envfactory_mcp.host.connection",
    "ToolInfo": "envfactory_mcp.host.connection",
    "Transport": "envfactory_mcp.host.connection",
    "openai_tools": "envfactory_mcp.host.episode",
    "package_dir": "envfactory_mcp.host.launch",
    "run_episode": "envfactory_mcp.host.episode",
    "run_interruptibly": "envfactory_mcp.host.rollout",
    "stdio_params": "envfactory_mcp.host.launch",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "CallResult",
    "EpisodeConfig",
    "RolloutConfig",
    "ServerConnection",
    "ServerNotBuiltError",
    "SessionLost",
    "ToolInfo",
    "Transport",
    "openai_tools",
    "package_dir",
    "run_episode",
    "run_interruptibly",
    "stdio_params",
]
