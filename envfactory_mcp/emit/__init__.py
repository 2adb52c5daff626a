"""Emit: render a verified environment as a standalone MCP server package and write it."""

from envfactory_mcp.emit.render import (
    package_name,
    render_package,
    script_name,
    unvendor_tools_source,
    vendor_tools_source,
    vendored_runtime,
)
from envfactory_mcp.emit.write import read_package, write_package

__all__ = [
    "package_name",
    "read_package",
    "render_package",
    "script_name",
    "unvendor_tools_source",
    "vendor_tools_source",
    "vendored_runtime",
    "write_package",
]
