"""verifiers 0.4 finds the plugin by its id in a fresh process (issue 33).

verifiers imports a taskset's id as a top-level module; ``envfactory_verifiers`` must be
one the distribution ships, not only an alias made when ``envfactory_mcp.rl.verifiers_v1``
happens to be imported first (what verifiers' CLI or a trainer's config never does)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest
from paths import ROOT

PLUGIN_ID = "envfactory_verifiers"


def test_the_wheel_ships_the_plugin_module_beside_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert PLUGIN_ID in config["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    assert PLUGIN_ID in config["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    assert (ROOT / PLUGIN_ID / "__init__.py").is_file()


def test_verifiers_resolves_the_id_in_a_fresh_process_without_our_import() -> None:
    verifiers = pytest.importorskip("verifiers", reason="verifiers 0.4 is not installed (a trainer's venv)")
    if not str(getattr(verifiers, "__version__", "")).startswith("0.4"):
        pytest.skip("verifiers 0.4 is not installed (0.2, the rl extra, has no plugin ids)")
    code = f"""
import json, sys
from verifiers.v1.utils.loaders import default_harness_id, environment_class, harness_class, taskset_class
assert not any(m.startswith("envfactory") for m in sys.modules)
found = {{
    "taskset": taskset_class({PLUGIN_ID!r}),
    "env": environment_class({PLUGIN_ID!r}),
    "harness": harness_class(default_harness_id({PLUGIN_ID!r})),
}}
print(json.dumps({{k: f"{{c.__module__}}.{{c.__qualname__}}" for k, c in found.items()}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == {
        "taskset": "envfactory_mcp.rl.verifiers_v1.EnvFactoryTaskset",
        "env": "envfactory_mcp.rl.verifiers_v1.EnvFactoryVerifiersEnv",
        "harness": "envfactory_mcp.rl.verifiers_v1.EnvFactoryHarness",
    }
