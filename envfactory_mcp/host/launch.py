"""How to start an emitted server package: as a subprocess over stdio, or in-process.

Both ask ``packages.check_runnable`` first: a package whose verification report is
missing, failed or stale does not start unless the caller passes ``allow_unverified``,
and it runs whole in the jail (one jailed server process per session, ``runtime/front.py``)
unless it is code shipped with envfactory-mcp or the caller passes ``trust``. Both serve
the package's data and ``tools.py`` with envfactory-mcp's own runtime; nothing else of
the package runs. The subprocess starts ``python -I`` from ``/``: no current directory,
``PYTHONPATH`` or user site on its import path, so nothing in a package folder can stand
in for a module of envfactory-mcp or of the standard library.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envfactory_mcp.emit.render import package_name
from envfactory_mcp.errors import EnvFactoryError

# The working directory of a started server: nothing of a package's, nothing writable.
NEUTRAL_CWD = "/"
# The interpreter that serves packages over stdio: this one, unless this variable names
# another with envfactory-mcp and mcp>=2.3 installed (a trainer's venv whose mcp is older:
# the host and adapters run on mcp 2.0, the runtime needs 2.3).
SERVER_PYTHON_VAR = "ENVFACTORY_SERVER_PYTHON"


class ServerNotBuiltError(EnvFactoryError):
    """The environment has no emitted package yet."""


def package_dir(servers_dir: Path, env_name: str) -> Path:
    folder = servers_dir / env_name
    if not (folder / package_name(env_name) / "server.py").is_file():
        raise ServerNotBuiltError(not_built_message(servers_dir, env_name))
    return folder.resolve()


def lookup_rule(servers_dir: Path | None = None) -> str:
    """Where every command looks for environments, in order, as ``packages.default_servers_dir``
    and ``--servers-dir`` decide, each with what it is on this machine now."""
    import os

    from envfactory_mcp.packages import checkout_servers_dir, user_servers_dir
    from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

    env = os.environ.get("ENVFACTORY_SERVERS_DIR")
    here = Path.cwd() / DEFAULT_SERVERS_DIR
    checkout = checkout_servers_dir()
    parts = [
        "--servers-dir when given",
        f"else $ENVFACTORY_SERVERS_DIR ({env if env else 'not set'})",
        f"else ./{DEFAULT_SERVERS_DIR} when the current directory has one ({'yes' if here.is_dir() else 'no'})",
        f"else the checkout's {checkout}"
        if checkout is not None
        else "else a checkout's generated_servers/ (not running from one)",
        f"else the per-user folder {user_servers_dir()}",
    ]
    chosen = f"; this command used {servers_dir}" if servers_dir is not None else ""
    return "environments are looked up in " + ", ".join(parts) + chosen


def not_built_message(servers_dir: Path, env_name: str) -> str:
    """Why ``env_name`` has no package to serve in ``servers_dir``: the lookup rule, and what
    to do, without suggesting to build a shipped environment into a folder that merely
    lacks it (a folder of synthesised packages, say)."""
    from envfactory_mcp.blueprints import blueprint_names
    from envfactory_mcp.packages import checkout_servers_dir, user_servers_dir

    homes = [h for h in (checkout_servers_dir(), user_servers_dir()) if h is not None]
    if env_name in blueprint_names():
        home = homes[0]
        fix = (
            f"{env_name!r} is shipped with envfactory-mcp and is built on first use in {home} "
            f"(add --servers-dir {home}), or pass --servers-dir the folder that holds its package"
        )
    else:
        fix = (
            f"pass --servers-dir the folder that holds {env_name!r} (its synthesize -o), or make it "
            f"there with envfactory-mcp synthesize"
        )
    return f"no package {env_name!r} in {servers_dir}/ ({lookup_rule(servers_dir)}): {fix}"


@dataclass(frozen=True)
class ServerCommand:
    """How to start a stdio server: what ``StdioServerParameters`` holds, without the SDK."""

    command: str
    args: list[str]
    env: dict[str, str]
    cwd: Path | str | None


def stdio_command(
    servers_dir: Path,
    env_name: str,
    *,
    control: bool = False,
    extra_args: list[str] | None = None,
    allow_unverified: bool = False,
    trust: bool = False,
) -> ServerCommand:
    """The command ``stdio_params`` wraps (the same checks and errors), for a client that
    does not import the MCP SDK (``host.connection.LeanStdioClient``)."""
    permission = _runnable(servers_dir, env_name, allow_unverified=allow_unverified, trust=trust)
    args = ["-I", "-m", "envfactory_mcp.runtime", str(permission.package_dir)]
    args += (["--control"] if control else []) + permission.server_args() + (extra_args or [])
    # The SDK merges this over its safe default environment; nothing of ours is added.
    python = os.environ.get(SERVER_PYTHON_VAR) or sys.executable
    return ServerCommand(command=python, args=args, env={}, cwd=NEUTRAL_CWD)


def stdio_params(
    servers_dir: Path,
    env_name: str,
    *,
    control: bool = False,
    extra_args: list[str] | None = None,
    allow_unverified: bool = False,
    trust: bool = False,
) -> Any:
    """``StdioServerParameters`` that serve the emitted package with envfactory-mcp's own
    runtime (``python -m envfactory_mcp.runtime <package>``), its tool code jailed unless
    it is shipped code or ``trust``; raises ``UnverifiedPackageError`` for a package
    without a passing, current report unless ``allow_unverified``, and
    ``JailUnavailableError`` when it must run jailed and cannot."""
    server = stdio_command(
        servers_dir,
        env_name,
        control=control,
        extra_args=extra_args,
        allow_unverified=allow_unverified,
        trust=trust,
    )
    from mcp import StdioServerParameters

    return StdioServerParameters(command=server.command, args=server.args, env=server.env, cwd=server.cwd)


def build_server(
    servers_dir: Path,
    env_name: str,
    options: Any = None,
    *,
    allow_unverified: bool = False,
    trust: bool = False,
) -> Any:
    """An in-process MCP server for the emitted package, served by envfactory-mcp's own
    runtime: in this process for shipped code or with ``trust``, else its front here and
    the package whole in jailed session processes (``runtime/front.py``); the same
    refusals as ``stdio_params``."""
    from envfactory_mcp.runtime import Bundle, ServerOptions, create_server

    permission = _runnable(servers_dir, env_name, allow_unverified=allow_unverified, trust=trust)
    if permission.jailed:
        from envfactory_mcp.runtime.front import create_jailed_server

        return create_jailed_server(permission.package_dir, options or ServerOptions())
    bundle = Bundle.from_package(permission.package_dir, jailed=False)
    return create_server(bundle, options or ServerOptions())


# Permissions a caller has just been given by ``packages.check_served`` for packages it is
# about to start with the same flags (a rollout, after the command line's check, issue 32:
# each check hashes the package's files again): the next start of each takes its
# permission instead of asking again, once (a restarted server asks). Keyed by
# (servers_dir, env, allow_unverified, trust); ``hand_over`` returns what withdraws them.
_handed: dict[tuple[str, str, bool, bool], Any] = {}


def hand_over(
    servers_dir: Path, permissions: Iterable[Any], *, allow_unverified: bool, trust: bool
) -> Callable[[], None]:
    """Leave ``permissions`` (``packages.RunPermission``, just checked with these flags) for
    the next start of each package in ``servers_dir``; call the result to withdraw those
    not taken (when the caller is done)."""
    keys = []
    for permission in permissions:
        keys.append((str(servers_dir), permission.env, allow_unverified, trust))
        _handed[keys[-1]] = permission

    def withdraw() -> None:
        for key in keys:
            _handed.pop(key, None)

    return withdraw


def _runnable(servers_dir: Path, env_name: str, *, allow_unverified: bool, trust: bool) -> Any:
    """What both launchers ask first: the package, built on first use when it is a shipped
    blueprint in a home of built environments (``packages.ensure_shipped``: the checkout's
    ``generated_servers/`` commits only golden packages), and whether and how it may run
    (``packages.check_runnable``), unless its permission was just handed over (``hand_over``)."""
    from envfactory_mcp.packages import check_runnable, ensure_shipped

    handed = _handed.pop((str(servers_dir), env_name, allow_unverified, trust), None)
    if handed is not None:
        package_dir(servers_dir, env_name)  # still there (ServerNotBuiltError otherwise)
        return handed

    ensure_shipped(servers_dir, env_name)
    return check_runnable(package_dir(servers_dir, env_name), allow_unverified=allow_unverified, trust=trust)
