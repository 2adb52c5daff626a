"""Moved to :mod:`envfactory_mcp.records.store`; this name is kept only for code that still
imports it from here (``tests/rl``, ``tests/host/test_ray_backend.py``)."""

from envfactory_mcp.records.store import read_records

__all__ = ["read_records"]
