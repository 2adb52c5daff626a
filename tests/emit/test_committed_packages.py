"""The packages committed under generated_servers/ are exactly what the generator produces now."""

from __future__ import annotations

import pytest

from envfactory_mcp.blueprints import blueprint_names, load_blueprint
from envfactory_mcp.emit import read_package, render_package
from envfactory_mcp.env import build_env
from paths import SERVERS_DIR


@pytest.mark.parametrize("name", blueprint_names())
def test_committed_package_matches_a_fresh_render(name: str):
    folder = SERVERS_DIR / name
    assert folder.is_dir(), f"generated_servers/{name} is missing: run envfactory-mcp build {name}"
    committed = read_package(folder)
    rendered = render_package(build_env(load_blueprint(name)))
    hint = f"run `envfactory-mcp build {name}` and commit the result"
    assert sorted(committed) == sorted(rendered), hint
    drifted = [path for path in rendered if committed[path] != rendered[path]]
    assert not drifted, f"{drifted} differ from the generator: {hint}"
