"""Simulation: agents, simulated users and the contracts between them and the episode loop."""

from __future__ import annotations

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

if TYPE_CHECKING:
    from envfactory_mcp.sim.agents import LLMAgent, NoopAgent, OracleAgent, RandomAgent
    from envfactory_mcp.sim.demonstrator import DemonstratorAgent
    from envfactory_mcp.sim.types import (
        STOP_TOKENS,
        Agent,
        AgentTurn,
        EpisodeView,
        Message,
        UserSimulator,
        UserTurn,
    )
    from envfactory_mcp.sim.users import LLMUser, ScriptedUser

# Loaded on first use (agents load the model client only when asked for).
_EXPORTS = {
    "Agent": "envfactory_mcp.sim.types",
    "AgentTurn": "envfactory_mcp.sim.types",
    "DemonstratorAgent": "envfactory_mcp.sim.demonstrator",
    "EpisodeView": "envfactory_mcp.sim.types",
    "LLMAgent": "envfactory_mcp.sim.agents",
    "LLMUser": "envfactory_mcp.sim.users",
    "Message": "envfactory_mcp.sim.types",
    "NoopAgent": "envfactory_mcp.sim.agents",
    "OracleAgent": "envfactory_mcp.sim.agents",
    "RandomAgent": "envfactory_mcp.sim.agents",
    "STOP_TOKENS": "envfactory_mcp.sim.types",
    "ScriptedUser": "envfactory_mcp.sim.users",
    "UserSimulator": "envfactory_mcp.sim.types",
    "UserTurn": "envfactory_mcp.sim.types",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "STOP_TOKENS",
    "Agent",
    "AgentTurn",
    "DemonstratorAgent",
    "EpisodeView",
    "LLMAgent",
    "LLMUser",
    "Message",
    "NoopAgent",
    "OracleAgent",
    "RandomAgent",
    "ScriptedUser",
    "UserSimulator",
    "UserTurn",
]
