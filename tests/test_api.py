"""The public API: the top-level names pinned (as httpx pins its own), every subpackage's
``__all__`` real, and importing the package cheap."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

import envfactory_mcp

# Changing this list changes the public API: say so in the commit.
TOP_LEVEL = [
    "Blueprint",
    "BlueprintError",
    "ClientConfigError",
    "ConfigError",
    "EmitError",
    "EnvFactoryEnv",
    "EnvFactoryError",
    "EnvFactoryServers",
    "EnvSpec",
    "Environment",
    "HarnessFailure",
    "InfrastructureError",
    "JailUnavailableError",
    "LLMClient",
    "LLMError",
    "LiteLLMClient",
    "MetadataMismatch",
    "NotAPackageError",
    "ResourceImportError",
    "RolloutConfig",
    "RunStore",
    "RunStoreError",
    "ScriptExhaustedError",
    "SeedError",
    "ServerNotBuiltError",
    "SessionLost",
    "Settings",
    "SpecError",
    "Task",
    "TaskFileError",
    "TrajectoryRecord",
    "UnsafeCodeError",
    "UnverifiedPackageError",
    "VerificationFailed",
    "VerificationReport",
    "__version__",
    "assemble_env",
    "blueprint_names",
    "build_all",
    "build_blueprint",
    "build_env",
    "export_run",
    "generate_tasks",
    "list_environments",
    "load_blueprint",
    "load_environment",
    "load_package_env",
    "load_spec",
    "package_spec",
    "read_records",
    "read_tasks",
    "rescore",
    "rollout",
    "score_record",
    "summarize",
    "verify_environment",
    "verify_package",
    "write_tasks",
    "write_view",
]

SUBPACKAGES = sorted(
    m.name for m in pkgutil.iter_modules(envfactory_mcp.__path__, "envfactory_mcp.") if m.ispkg
)


def test_the_top_level_api_is_pinned() -> None:
    assert envfactory_mcp.__all__ == TOP_LEVEL
    assert len(set(TOP_LEVEL)) == len(TOP_LEVEL)


def test_every_top_level_name_is_the_object_of_its_home_module() -> None:
    for name in TOP_LEVEL:
        value = getattr(envfactory_mcp, name)
        if name == "__version__":
            assert isinstance(value, str)
            continue
        home = envfactory_mcp._EXPORTS[name]
        assert value is getattr(importlib.import_module(home), name), name
    assert set(TOP_LEVEL) <= set(dir(envfactory_mcp))
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        envfactory_mcp.nothing_here  # noqa: B018


def test_the_errors_of_the_tree_are_all_at_the_top() -> None:
    from envfactory_mcp.errors import EnvFactoryError

    errors = {n for n in TOP_LEVEL if n.endswith(("Error", "Lost", "Mismatch", "Failed", "Failure"))}
    for name in errors:
        assert issubclass(getattr(envfactory_mcp, name), EnvFactoryError), name
    import test_docs

    assert errors == {"EnvFactoryError", *test_docs._real_tree()}


def test_importing_the_package_loads_nothing_else() -> None:
    """The package root is imported by every server process and sandboxed worker."""
    code = (
        "import json, sys, envfactory_mcp, envfactory_mcp.verify, envfactory_mcp.host\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('envfactory_mcp', 'mcp', 'litellm', 'pydantic')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert json.loads(out.stdout) == [
        "envfactory_mcp",
        "envfactory_mcp._exports",
        "envfactory_mcp.host",
        "envfactory_mcp.verify",
    ]


# ``cli.app`` the Typer application is bound by ``cli/__init__`` right after importing
# ``cli/app.py``, so the module can never replace it (the console script needs the name).
SHARES_A_MODULE_NAME = {"envfactory_mcp.cli.app"}


@pytest.mark.parametrize("package", SUBPACKAGES)
def test_every_subpackage_publishes_its_api_in_all(package: str) -> None:
    module = importlib.import_module(package)
    names = module.__all__
    assert names and len(set(names)) == len(names), package
    assert module.__file__ is not None, package  # a package, not a namespace
    folder = Path(module.__file__).parent
    for name in names:
        # A public name that is also a submodule's would be replaced by the module as
        # soon as the submodule is imported.
        if f"{package}.{name}" not in SHARES_A_MODULE_NAME:
            assert not (folder / f"{name}.py").exists() and not (folder / name).is_dir(), f"{package}.{name}"
        assert getattr(module, name) is not None, f"{package}.{name}"


def _lazy_packages() -> list[Path]:
    return [
        p for p in sorted((ROOT / "envfactory_mcp").rglob("__init__.py")) if "lazy_exports" in p.read_text()
    ]


@pytest.mark.parametrize("init", _lazy_packages(), ids=lambda p: str(p.parent.relative_to(ROOT)))
def test_lazy_names_and_what_type_checkers_read_agree(init: Path) -> None:
    """A lazily exported name is imported under ``TYPE_CHECKING`` from the module it loads
    from, and ``__all__`` lists exactly those names."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    typed: dict[str, str] = {}
    exports: dict[str, str] = {}
    listed: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                typed.update({alias.name: imp.module or "" for alias in imp.names})
        elif isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "_EXPORTS":
            exports = ast.literal_eval(node.value)
        elif isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "__all__":
            listed = ast.literal_eval(node.value)
    assert typed == exports
    assert sorted(listed) == sorted(
        {*exports, *(["__version__"] if init.parent.name == "envfactory_mcp" else [])}
    )
    assert len(_lazy_packages()) >= 7
