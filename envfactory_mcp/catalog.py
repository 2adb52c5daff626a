"""Which environments exist, and which one to serve: the one resolver.

``list_environments``
    Every emitted package and every blueprint not yet built, with its verification status
    (a blueprint's counts from ``blueprint_summary``, without building its spec).
``load_environment``
    The environment a command serves for a name: the package ``<servers_dir>/<name>/``
    when there is one (it must be allowed to run: ``packages.check_runnable``), else the
    blueprint (hand-crafted or from the library) of that name.
``load_package_env``
    An emitted package's environment with its tool code ready to call (in this process
    for shipped code or ``trust``, else in jailed workers).
``package_spec``
    The spec a package ships, read without running anything (``layout.package_spec``,
    below scoring and the host, which read it from there).
``environment_spec``
    The spec served for a name: the package's, else a shipped blueprint's.

It stands above ``env``, ``emit``, ``verify`` and ``packages`` (which it combines) and
below the command line and the host, which ask it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Literal

from envfactory_mcp.blueprints import blueprint_names, load_blueprint
from envfactory_mcp.emit.render import unvendor_tools_source
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.layout import package_name, package_spec
from envfactory_mcp.packages import (
    JailUnavailableError,
    RunPermission,
    UnverifiedPackageError,
    check_runnable,
    package_status,
    runtime_status,
)
from envfactory_mcp.settings import Settings
from envfactory_mcp.spec import EnvSpec, parse_spec, validate_spec

__all__ = [
    "EnvEntry",
    "Resolved",
    "blueprint_summary",
    "environment_spec",
    "list_environments",
    "load_environment",
    "load_package_env",
    "package_spec",
]
from envfactory_mcp.verify.provenance import locate_package

if TYPE_CHECKING:
    from envfactory_mcp.env import Environment


@dataclass(frozen=True)
class EnvEntry:
    name: str
    domain: str
    tools: int
    tables: int
    source: str  # "blueprint" or what generated it
    emitted: bool
    # "passed" (the only one that runs, see packages.py), "failed", "stale", "unsigned",
    # "not verified", "unreadable report", "unreadable package", "not built"
    verification: str
    # "current" (this installation's runtime), what it carries instead, or "" (not built)
    runtime: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def list_environments(settings: Settings) -> list[EnvEntry]:
    """Every emitted package under ``settings.servers_dir`` plus every blueprint not yet built."""
    entries: dict[str, EnvEntry] = {}
    if settings.servers_dir.is_dir():
        for folder in sorted(p for p in settings.servers_dir.iterdir() if p.is_dir()):
            data = folder / package_name(folder.name) / "data"
            spec_path = data / "spec.json"
            if not spec_path.is_file():
                continue
            spec = json.loads(spec_path.read_text(encoding="utf-8"))
            entries[folder.name] = EnvEntry(
                name=spec["name"],
                domain=spec["domain"],
                tools=len(spec["tools"]),
                tables=len(spec["tables"]),
                source=spec["seed"]["generator"],
                emitted=True,
                verification=package_status(folder),
                runtime=runtime_status(folder),
            )
    for name in blueprint_names():
        if name not in entries:
            domain, tools, tables = blueprint_summary(name)
            entries[name] = EnvEntry(
                name=name,
                domain=domain,
                tools=tools,
                tables=tables,
                source=f"blueprint:{name}",
                emitted=False,
                verification="not built",
            )
    return [entries[k] for k in sorted(entries)]


def blueprint_summary(name: str) -> tuple[str, int, int]:
    """The domain, tool count and table count of shipped blueprint ``name``'s spec, read
    without building that spec: a library service's from its declaration (one tool per
    operation, with the identification finds, plus the transfer tool; one table per
    resource), so ``list`` neither renders tool code nor draws seed rows for the ~100
    environments not built yet; a hand-crafted blueprint's from its spec, which is cheap.
    ``tests/test_catalog.py`` holds every blueprint's summary equal to its built spec."""
    from envfactory_mcp.blueprints import handcrafted_names

    if name not in handcrafted_names():
        from envfactory_mcp.library import load_service, service_names

        if name in service_names():
            service = load_service(name)
            return service.domain, len(service.all_operations()) + 1, len(service.resources)
    spec = load_blueprint(name).build_spec(0)
    return spec.domain, len(spec.tools), len(spec.tables)


def environment_spec(servers_dir: Path, env_name: str) -> EnvSpec | None:
    """The spec served for ``env_name``: its package's (``package_spec``), else, for a
    shipped blueprint not built there yet, the blueprint's own (the same spec its build
    writes: the checkout commits only golden packages), else None. Runs nothing."""
    spec = package_spec(servers_dir, env_name)
    if spec is None and env_name in blueprint_names():
        blueprint = load_blueprint(env_name)
        spec = blueprint.build_spec(blueprint.default_seed)
    return spec


def load_package_env(
    package_root: Path, *, allow_unverified: bool = False, trust: bool = False
) -> Environment:
    """The environment an emitted package holds (``generated_servers/<env>/``), with its
    tool code ready to call: only for a package whose stored verification report passed
    and still matches its files (``list`` shows such a package as ``passed``), else
    ``UnverifiedPackageError``; ``allow_unverified`` loads it anyway (development). The
    code is loaded in this process when it is shipped blueprint code or ``trust``, and
    otherwise runs in jailed workers (``runtime/isolation.py``)."""
    return _load_package(package_root, allow_unverified=allow_unverified, trust=trust)[0]


def _load_package(
    package_root: Path, *, allow_unverified: bool, trust: bool
) -> tuple[Environment, RunPermission]:
    from envfactory_mcp.env.environment import environment_from_parts, load_tool_code
    from envfactory_mcp.runtime.isolation import JailedTools

    root, pkg = locate_package(package_root)
    permission = check_runnable(root, allow_unverified=allow_unverified, trust=trust)
    data = root / pkg / "data"
    spec = validate_spec(parse_spec(json.loads((data / "spec.json").read_text(encoding="utf-8"))))
    source = unvendor_tools_source((root / pkg / "tools.py").read_text(encoding="utf-8"))
    ddl = (data / "schema.sql").read_text(encoding="utf-8")
    inserts = (data / "seed.sql").read_text(encoding="utf-8")
    if permission.jailed:
        names = [tool.name for tool in spec.tools]
        module: ModuleType | JailedTools = JailedTools(root / pkg / "tools.py", names)
    else:
        module = load_tool_code(source, spec.name, f"{pkg}/tools.py")
    return environment_from_parts(spec, source, module, ddl, inserts, check_tools=True), permission


@dataclass(frozen=True)
class Resolved:
    """What ``load_environment`` found for a name, and where from."""

    env: Environment
    source: Literal["package", "blueprint"]
    where: Path | None = None  # the package folder, for a package
    permission: RunPermission | None = None  # how the package runs (and any warning to print)


def load_environment(
    name: str, servers_dir: Path, *, allow_unverified: bool = False, trust: bool = False
) -> Resolved:
    """The environment served for ``name``: the package ``<servers_dir>/<name>/`` when there
    is one (tasks then match its seed, whatever ``build --seed`` made), which must be
    allowed to run (``UnverifiedPackageError``, ``JailUnavailableError``: never quietly the
    blueprint instead, as the package is what would be served), else the blueprint by that
    name. A folder that is not a readable package falls back to the blueprint of its name
    when there is one."""
    package = servers_dir / name
    if package.is_dir():
        try:
            env, permission = _load_package(package, allow_unverified=allow_unverified, trust=trust)
            return Resolved(env, "package", package.resolve(), permission)
        except (UnverifiedPackageError, JailUnavailableError):
            raise
        except EnvFactoryError:
            if name not in blueprint_names():
                raise
    if name in blueprint_names():
        from envfactory_mcp.env import build_env

        return Resolved(build_env(load_blueprint(name)), "blueprint")
    raise EnvFactoryError(
        f"{name!r} is neither a blueprint ({', '.join(blueprint_names())}) nor a package in {servers_dir}/"
    )
