"""Verify: run environment code in a sandbox and check it against its own declarations.

Layers, outermost first: a child process in a jail (``runtime/jail.py``: its own mount,
pid, network, IPC, UTS and cgroup namespaces, uid 65534, no capabilities, a seccomp
filter; where bubblewrap is missing, a loud fallback to a fresh network namespace) with
a wall-clock timeout (``sandbox``), resource limits, per-call timers and an audit hook
installed before any code under test loads (``worker``), and in front of it all a
static gate (``static_gate``), a fast filter with precise messages. The parent never
imports the code under test.
"""

from __future__ import annotations

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

if TYPE_CHECKING:
    from envfactory_mcp.verify.provenance import (
        NotAPackageError,
        locate_package,
        read_report,
        verification_status,
    )
    from envfactory_mcp.verify.report import VerificationReport
    from envfactory_mcp.verify.static_gate import UnsafeCodeError, check_tool_code
    from envfactory_mcp.verify.verifier import VerifyOptions, verify_environment, verify_package

# Loaded on first use (the sandboxed worker imports this package and must load nothing else).
_EXPORTS = {
    "NotAPackageError": "envfactory_mcp.verify.provenance",
    "UnsafeCodeError": "envfactory_mcp.verify.static_gate",
    "VerificationReport": "envfactory_mcp.verify.report",
    "VerifyOptions": "envfactory_mcp.verify.verifier",
    "check_tool_code": "envfactory_mcp.verify.static_gate",
    "locate_package": "envfactory_mcp.verify.provenance",
    "read_report": "envfactory_mcp.verify.provenance",
    "verification_status": "envfactory_mcp.verify.provenance",
    "verify_environment": "envfactory_mcp.verify.verifier",
    "verify_package": "envfactory_mcp.verify.verifier",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "NotAPackageError",
    "UnsafeCodeError",
    "VerificationReport",
    "VerifyOptions",
    "check_tool_code",
    "locate_package",
    "read_report",
    "verification_status",
    "verify_environment",
    "verify_package",
]
