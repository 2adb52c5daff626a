"""Moved to :mod:`envfactory_mcp.records.trajectory`; this name is kept only for code that
still imports it from here (``rl.env``, ``host.backends``)."""

from envfactory_mcp.records.trajectory import TrajectoryRecord

__all__ = ["TrajectoryRecord"]
