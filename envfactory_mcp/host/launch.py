"""How to start an emitted server package: as a subprocess over stdio, or in-process.

Both ask ``packages.check_runnable`` first: a package whose verification report is
missing, failed or stale does not start unless the caller passes ``allow_unverified``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
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
    servers_dir: Path,
    env_name: str,
    *,
    control: bool = False,
    extra_args: list[str] | None = None,
    allow_unverified: bool = False,
) -> Any:
    """``StdioServerParameters`` that run the emitted package with this interpreter; raises
    ``UnverifiedPackageError`` for a package without a passing, current report unless
    ``allow_unverified``."""
    from mcp import StdioServerParameters

    from envfactory_mcp.packages import check_runnable

    folder = package_dir(servers_dir, env_name)
    check_runnable(folder, allow_unverified=allow_unverified)
    args = ["-m", package_name(env_name)] + (["--control"] if control else []) + (extra_args or [])
    # The SDK merges this over its safe default environment; only the package path is added.
    return StdioServerParameters(
        command=sys.executable, args=args, env={"PYTHONPATH": str(folder)}, cwd=str(folder)
    )


def import_server_module(servers_dir: Path, env_name: str, *, allow_unverified: bool = False) -> ModuleType:
    """Import ``<env>_mcp.server`` from the emitted package (for in-process serving); raises
    ``UnverifiedPackageError`` for a package without a passing, current report unless
    ``allow_unverified``.

    The package is imported from exactly this folder: a package of the same name already
    imported from another folder (another servers dir, a copy) is not reused, since that
    would run code other than what was just checked. Within one folder it is imported once
    per process."""
    from envfactory_mcp.packages import check_runnable

    folder = package_dir(servers_dir, env_name)
    check_runnable(folder, allow_unverified=allow_unverified)
    pkg = package_name(env_name)
    name = pkg  # the real name for the first folder (log names, messages)
    loaded = sys.modules.get(pkg)
    if loaded is not None and not _loaded_from(loaded, folder / pkg):
        name = f"{pkg}_{hashlib.sha256(str(folder).encode()).hexdigest()[:12]}"  # never shared
    if name not in sys.modules:
        init = folder / pkg / "__init__.py"
        spec = importlib.util.spec_from_file_location(
            name, init, submodule_search_locations=[str(folder / pkg)]
        )
        if spec is None or spec.loader is None:
            raise ServerNotBuiltError(f"{init} cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return importlib.import_module(f"{name}.server")


def _loaded_from(module: ModuleType, package: Path) -> bool:
    """Whether ``module`` is the package in folder ``package``."""
    return [str(Path(p).resolve()) for p in getattr(module, "__path__", [])] == [str(package.resolve())]
