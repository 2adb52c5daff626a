"""Moved to :mod:`envfactory_mcp.crud`; this name is kept only for code that still imports
it from here (``cli.synth``)."""

from envfactory_mcp.crud.core import ResourceImportError

__all__ = ["ResourceImportError"]
