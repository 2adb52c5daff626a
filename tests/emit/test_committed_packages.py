"""The packages committed under generated_servers/ are exactly what the generator produces now,
and each carries a passing verification report that vouches for exactly those files."""

from __future__ import annotations

import pytest
from paths import SERVERS_DIR

from envfactory_mcp.blueprints import blueprint_names, load_blueprint
from envfactory_mcp.emit import package_name, read_package, render_package
from envfactory_mcp.env import build_env
from envfactory_mcp.verify.provenance import read_report, subject_digests
from envfactory_mcp.verify.verifier import report_relpath


@pytest.mark.slow  # builds and renders every environment: 18 s of CPU for the 107
@pytest.mark.parametrize("name", blueprint_names())
def test_committed_package_matches_a_fresh_render(name: str):
    folder = SERVERS_DIR / name
    assert folder.is_dir(), f"generated_servers/{name} is missing: run envfactory-mcp build {name}"
    committed = read_package(folder)
    rendered = render_package(build_env(load_blueprint(name)))
    hint = f"run `envfactory-mcp build {name}` and commit the result"
    assert sorted(committed) == sorted([*rendered, report_relpath(name)]), hint
    drifted = [path for path in rendered if committed[path] != rendered[path]]
    assert not drifted, f"{drifted} differ from the generator: {hint}"


@pytest.mark.parametrize("name", blueprint_names())
def test_committed_report_passed_and_covers_the_committed_files(name: str):
    report = read_report(SERVERS_DIR / name)
    assert report is not None and report.passed and report.env == name
    assert report.subject == subject_digests(SERVERS_DIR / name)
    # Every file the package ships, runtime, server.py and pyproject.toml included.
    assert set(report.subject) == set(read_package(SERVERS_DIR / name)) - {report_relpath(name)}
    assert {f"{package_name(name)}/runtime/toolbox.py", f"{package_name(name)}/server.py"} <= set(
        report.subject
    )
