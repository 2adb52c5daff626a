"""Emit: render a verified environment as a standalone MCP server package and write it."""

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

if TYPE_CHECKING:
    from envfactory_mcp.emit.render import (
        package_name,
        render_package,
        script_name,
        unvendor_tools_source,
        vendor_tools_source,
        vendored_runtime,
    )
    from envfactory_mcp.emit.write import read_package, write_package

# Loaded on first use: serving a package needs only the names (``package_name``), not the
# renderer's spec and environment machinery.
_EXPORTS = {
    "package_name": "envfactory_mcp.emit.render",
    "read_package": "envfactory_mcp.emit.write",
    "render_package": "envfactory_mcp.emit.render",
    "script_name": "envfactory_mcp.emit.render",
    "unvendor_tools_source": "envfactory_mcp.emit.render",
    "vendor_tools_source": "envfactory_mcp.emit.render",
    "vendored_runtime": "envfactory_mcp.emit.render",
    "write_package": "envfactory_mcp.emit.write",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

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
