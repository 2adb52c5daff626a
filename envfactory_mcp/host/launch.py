"""How to start an emitted server package: as a subprocess over stdio, or in-process."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from envfactory_mcp.emit.render import package_name
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.spec.models import EnvSpec


class ServerNotBuiltError(EnvFactoryError):
    """The environment has no emitted package yet."""


def package_dir(servers_dir: Path, env_name: str) -> Path:
    folder = servers_dir / env_name
    if not (folder / package_name(env_name) / "server.py").is_file():
        raise ServerNotBuiltError(
            f"no generated server for {env_name!r} in {servers_dir}/ (run: envfactory-mcp build {env_name})"
        )
    return folder.resolve()


def package_spec(servers_dir: Path, env_name: str) -> EnvSpec | None:
    """The spec an emitted package ships (``<pkg>/data/spec.json``), or None when there is
    no such package here or its spec does not parse (scoring then skips what needs it).
    Parsed without the cross-reference checks: a package verified under older rules
    still describes its own tools."""
    from pydantic import ValidationError

    path = Path(servers_dir) / env_name / package_name(env_name) / "data" / "spec.json"
    try:
        return EnvSpec.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None


def stdio_params(
    servers_dir: Path, env_name: str, *, control: bool = False, extra_args: list[str] | None = None
) -> Any:
    """``StdioServerParameters`` that run the emitted package with this interpreter."""
    from mcp import StdioServerParameters

    folder = package_dir(servers_dir, env_name)
    args = ["-m", package_name(env_name)] + (["--control"] if control else []) + (extra_args or [])
    # The SDK merges this over its safe default environment; only the package path is added.
    return StdioServerParameters(
        command=sys.executable, args=args, env={"PYTHONPATH": str(folder)}, cwd=str(folder)
    )


def import_server_module(servers_dir: Path, env_name: str) -> ModuleType:
    """Import ``<env>_mcp.server`` from the emitted package (for in-process serving)."""
    folder = package_dir(servers_dir, env_name)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(f"{package_name(env_name)}.server")
