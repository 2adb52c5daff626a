"""Tool dependency graph from spec declarations (networkx only for export), and tool-chain samplers."""

from envfactory_mcp.graph.build import Param, Producer, ToolGraph, build_graph, split_tool_id, tool_id

__all__ = ["Param", "Producer", "ToolGraph", "build_graph", "split_tool_id", "tool_id"]
