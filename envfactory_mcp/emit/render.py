"""Render an environment into a standalone MCP server package, as ``{relative path: text}``.

Pure and deterministic: the same environment always renders the same files, so a test can
compare a committed package with a fresh render. ``write.py`` is the only code that
touches the disk.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from importlib import resources
from pathlib import Path
from string import Template

from envfactory_mcp.errors import EmitError
from envfactory_mcp.layout import package_name as package_name  # re-exported: where emit callers look
from envfactory_mcp.runtime.version import RUNTIME_VERSION, STAMP_FILE

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from envfactory_mcp.env import Environment
    from envfactory_mcp.spec import EnvSpec

PACKAGE_VERSION = "0.1.0"
_RUNTIME_DIR = Path(__file__).resolve().parent.parent / "runtime"
_TOOLS_IMPORT = re.compile(r"^(\s*)from envfactory_mcp\.runtime import (.+)$", re.MULTILINE)
_VENDORED_IMPORT = re.compile(r"^(\s*)from \.runtime import (.+)$", re.MULTILINE)
_FIRST_SENTENCE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)\.\s+")
_VENDORED_HEADER = (
    "# A vendored copy of envfactory_mcp.runtime, identical in every generated server.\n"
    "# Do not edit: regenerate the package with `envfactory-mcp build <env>`.\n"
)


def script_name(env_name: str) -> str:
    return f"{env_name.replace('_', '-')}-mcp"


# The package's files besides its data and runtime: path (``{pkg}``: the import name) ->
# the template it is rendered from.
_TEMPLATED = {
    "pyproject.toml": "pyproject.toml.tmpl",
    "README.md": "README.md.tmpl",
    "{pkg}/__init__.py": "__init__.py.tmpl",
    "{pkg}/__main__.py": "__main__.py.tmpl",
    "{pkg}/server.py": "server.py.tmpl",
    "tests/test_smoke.py": "test_smoke.py.tmpl",
}
# The environment itself, inside the package folder.
_ENVIRONMENT_FILES = ("tools.py", "data/spec.json", "data/schema.sql", "data/seed.sql", "data/policy.md")
# Data a build may add beside what is rendered (``build.emit_verified``'s ``extra_files``,
# e.g. an importer's fidelity report), always under ``<package>/data/``.
EXTRA_DATA_FILES = frozenset({"fidelity.json"})


def emitted_paths(env_name: str) -> frozenset[str]:
    """Every path ``render_package`` writes for the environment ``env_name`` (its
    verification report and ``EXTRA_DATA_FILES`` are added later, by a build)."""
    pkg = package_name(env_name)
    return frozenset(
        [path.format(pkg=pkg) for path in _TEMPLATED]
        + [f"{pkg}/{path}" for path in _ENVIRONMENT_FILES]
        + [f"{pkg}/runtime/{name}" for name in vendored_runtime()]
        + [f"{pkg}/runtime/{STAMP_FILE}"]
    )


def render_package(env: Environment) -> dict[str, str]:
    """Every file of ``generated_servers/<env>/``, keyed by path relative to that folder
    (exactly ``emitted_paths(env.spec.name)``): the environment's own files (tool code,
    spec, schema, seed, policy) in the frame ``render_frame`` writes around them."""
    from envfactory_mcp.spec import dump_spec  # here: serving a package imports this module for its names

    spec = env.spec
    environment = {
        "tools.py": vendor_tools_source(env.tools_source),
        "data/spec.json": dump_spec(spec),
        "data/schema.sql": env.schema_sql,
        "data/seed.sql": env.seed_sql,
        "data/policy.md": spec.policy.strip() + "\n",
    }
    assert tuple(environment) == _ENVIRONMENT_FILES
    pkg = package_name(spec.name)
    files = render_frame(spec)
    files.update({f"{pkg}/{path}": text for path, text in environment.items()})
    return dict(sorted(files.items()))


def environment_paths(env_name: str) -> frozenset[str]:
    """The paths of a package that hold the environment itself (what ``upgrade`` keeps)."""
    pkg = package_name(env_name)
    return frozenset(f"{pkg}/{path}" for path in _ENVIRONMENT_FILES)


def render_frame(spec: EnvSpec) -> dict[str, str]:
    """What a package holds besides its environment: the entry points, README, packaging,
    smoke test and the vendored runtime with its stamp, all from the spec alone (so
    ``upgrade`` can re-render a package without running any of its code)."""
    pkg = package_name(spec.name)
    values = {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description.strip(),
        "package": pkg,
        "dist_name": pkg.replace("_", "-"),
        "script_name": script_name(spec.name),
        "version": PACKAGE_VERSION,
        "tool_count": str(len(spec.tools)),
        "table_count": str(len(spec.tables)),
        "seed_generator": spec.seed.generator,
        "seed": str(spec.seed.seed),
        "tool_rows": _tool_rows(spec),
        "policy": spec.policy.strip(),
        "runtime_version": RUNTIME_VERSION,
    }
    files = {path.format(pkg=pkg): _template(name, values) for path, name in _TEMPLATED.items()}
    for name, text in vendored_runtime().items():
        files[f"{pkg}/runtime/{name}"] = text
    files[f"{pkg}/runtime/{STAMP_FILE}"] = runtime_stamp()
    return files


def vendored_runtime() -> dict[str, str]:
    """The files of ``<package>/runtime/`` as this version of envfactory-mcp writes them
    (read once per process: ``list`` asks for every package's runtime)."""
    return dict(_vendored_runtime_files())


@functools.cache
def _vendored_runtime_files() -> tuple[tuple[str, str], ...]:
    return tuple(
        (path.name, _VENDORED_HEADER + path.read_text(encoding="utf-8"))
        for path in sorted(_RUNTIME_DIR.glob("*.py"))
    )


def runtime_digest(files: dict[str, str] | None = None) -> str:
    """``sha256:<hex>`` of a vendored runtime (by default this installation's,
    ``vendored_runtime()``): its file names and texts in name order."""
    if files is None:
        return _installed_runtime_digest()
    digest = hashlib.sha256()
    for name, text in sorted(files.items()):
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
    return f"sha256:{digest.hexdigest()}"


@functools.cache
def _installed_runtime_digest() -> str:
    return runtime_digest(vendored_runtime())


def runtime_stamp() -> str:
    """``<package>/runtime/stamp.json``: the runtime version and digest a package is rendered with."""
    return json.dumps({"version": RUNTIME_VERSION, "digest": runtime_digest()}, indent=2) + "\n"


def vendor_tools_source(source: str) -> str:
    """Point the tool module's runtime import at the package's vendored copy."""
    rewritten = _TOOLS_IMPORT.sub(r"\1from .runtime import \2", source)
    if "envfactory_mcp" in rewritten:
        line = next(i + 1 for i, text in enumerate(rewritten.splitlines()) if "envfactory_mcp" in text)
        raise EmitError(
            f"tool code line {line} refers to envfactory_mcp; generated servers must not depend on it "
            "(only 'from envfactory_mcp.runtime import ...' is allowed, and is rewritten)"
        )
    return rewritten


def unvendor_tools_source(source: str) -> str:
    """The inverse of ``vendor_tools_source``: a package's tools.py as envfactory_mcp runs it."""
    return _VENDORED_IMPORT.sub(r"\1from envfactory_mcp.runtime import \2", source)


def _template(name: str, values: dict[str, str]) -> str:
    text = resources.files("envfactory_mcp.emit").joinpath("templates", name).read_text(encoding="utf-8")
    try:
        return Template(text).substitute(values)
    except (KeyError, ValueError) as exc:
        raise EmitError(f"template {name}: {exc}") from None


def _tool_rows(spec: EnvSpec) -> str:
    rows = []
    for tool in spec.tools:
        first_sentence = _FIRST_SENTENCE.split(tool.description.strip(), maxsplit=1)[0].rstrip(".")
        writes = ", ".join(tool.writes) or "—"
        rows.append(f"| `{tool.name}` | {tool.effect} | {writes} | {first_sentence.replace('|', '/')}. |")
    return "\n".join(rows)
