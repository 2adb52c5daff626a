"""Render an environment into a standalone MCP server package, as ``{relative path: text}``.

Pure and deterministic: the same environment always renders the same files, so a test can
compare a committed package with a fresh render. ``write.py`` is the only code that
touches the disk.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from string import Template

from envfactory_mcp.errors import EmitError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from envfactory_mcp.env import Environment

PACKAGE_VERSION = "0.1.0"
_RUNTIME_DIR = Path(__file__).resolve().parent.parent / "runtime"
_TOOLS_IMPORT = re.compile(r"^(\s*)from envfactory_mcp\.runtime import (.+)$", re.MULTILINE)
_VENDORED_IMPORT = re.compile(r"^(\s*)from \.runtime import (.+)$", re.MULTILINE)
_FIRST_SENTENCE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)\.\s+")
_VENDORED_HEADER = (
    "# A vendored copy of envfactory_mcp.runtime, identical in every generated server.\n"
    "# Do not edit: regenerate the package with `envfactory-mcp build <env>`.\n"
)


def package_name(env_name: str) -> str:
    return f"{env_name}_mcp"


def script_name(env_name: str) -> str:
    return f"{env_name.replace('_', '-')}-mcp"


def render_package(env: Environment) -> dict[str, str]:
    """Every file of ``generated_servers/<env>/``, keyed by path relative to that folder."""
    from envfactory_mcp.spec import dump_spec  # here: serving a package imports this module for its names

    spec = env.spec
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
        "tool_rows": _tool_rows(env),
        "policy": spec.policy.strip(),
    }
    files = {
        "pyproject.toml": _template("pyproject.toml.tmpl", values),
        "README.md": _template("README.md.tmpl", values),
        f"{pkg}/__init__.py": _template("__init__.py.tmpl", values),
        f"{pkg}/__main__.py": _template("__main__.py.tmpl", values),
        f"{pkg}/server.py": _template("server.py.tmpl", values),
        f"{pkg}/tools.py": vendor_tools_source(env.tools_source),
        f"{pkg}/data/spec.json": dump_spec(spec),
        f"{pkg}/data/schema.sql": env.schema_sql,
        f"{pkg}/data/seed.sql": env.seed_sql,
        f"{pkg}/data/policy.md": spec.policy.strip() + "\n",
        "tests/test_smoke.py": _template("test_smoke.py.tmpl", values),
    }
    for name, text in vendored_runtime().items():
        files[f"{pkg}/runtime/{name}"] = text
    return dict(sorted(files.items()))


def vendored_runtime() -> dict[str, str]:
    """The files of ``<package>/runtime/`` as this version of envfactory-mcp writes them."""
    return {
        path.name: _VENDORED_HEADER + path.read_text(encoding="utf-8")
        for path in sorted(_RUNTIME_DIR.glob("*.py"))
    }


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


def _tool_rows(env: Environment) -> str:
    rows = []
    for tool in env.spec.tools:
        first_sentence = _FIRST_SENTENCE.split(tool.description.strip(), maxsplit=1)[0].rstrip(".")
        writes = ", ".join(tool.writes) or "—"
        rows.append(f"| `{tool.name}` | {tool.effect} | {writes} | {first_sentence.replace('|', '/')}. |")
    return "\n".join(rows)
