"""What the checkout holds under generated_servers/: the golden packages, committed whole,
exactly what the generator produces now, each with a passing report that vouches for
exactly its files; and a manifest of digests that every other shipped package, built on
first use, reproduces byte for byte (issue 29)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from paths import ROOT, SERVERS_DIR

from envfactory_mcp.blueprints import blueprint_names, load_blueprint
from envfactory_mcp.emit import package_name, read_package, render_package
from envfactory_mcp.env import build_env
from envfactory_mcp.manifest import GOLDEN, differences, read_manifest, rendered
from envfactory_mcp.shipped import MANIFEST_FILE
from envfactory_mcp.verify.provenance import read_report, subject_digests
from envfactory_mcp.verify.verifier import report_relpath

FIX = "run `python -m envfactory_mcp.manifest --write` after a deliberate change to what is rendered"


@pytest.mark.parametrize("name", GOLDEN)
def test_golden_package_matches_a_fresh_render(name: str):
    folder = SERVERS_DIR / name
    committed = read_package(folder)
    fresh = render_package(build_env(load_blueprint(name)))
    hint = f"run `envfactory-mcp build {name}` and commit the result"
    assert sorted(committed) == sorted([*fresh, report_relpath(name)]), hint
    drifted = [path for path in fresh if committed[path] != fresh[path]]
    assert not drifted, f"{drifted} differ from the generator: {hint}"


@pytest.mark.parametrize("name", GOLDEN)
def test_golden_report_passed_and_covers_the_committed_files(name: str):
    report = read_report(SERVERS_DIR / name)
    assert report is not None and report.passed and report.env == name
    assert report.subject == subject_digests(SERVERS_DIR / name)
    # Every file the package ships, runtime, server.py and pyproject.toml included.
    assert set(report.subject) == set(read_package(SERVERS_DIR / name)) - {report_relpath(name)}
    assert {f"{package_name(name)}/runtime/toolbox.py", f"{package_name(name)}/server.py"} <= set(
        report.subject
    )


def test_the_manifest_names_every_shipped_environment_and_agrees_with_the_goldens():
    manifest = read_manifest(SERVERS_DIR / MANIFEST_FILE)
    assert sorted(manifest) == blueprint_names(), FIX
    assert differences({n: manifest[n] for n in GOLDEN}, rendered(GOLDEN)) == [], FIX


@pytest.mark.slow  # renders all 107 environments: about 12 s of CPU
def test_every_shipped_environment_renders_as_the_manifest_says():
    assert differences(read_manifest(SERVERS_DIR / MANIFEST_FILE), rendered()) == [], FIX


def test_a_manifest_check_names_what_differs():
    golden = rendered(["retail"])
    tampered = {"retail": {**golden["retail"], "digest": "sha256:" + "0" * 64}, "gone": golden["retail"]}
    assert differences(tampered, golden) == [
        "gone: in the manifest, not produced",
        f"retail: {golden['retail']['digest']} ({golden['retail']['files']} files), manifest says sha256:{'0' * 64} "
        f"({golden['retail']['files']} files)",
    ]
    assert differences(golden, {**golden, "new": golden["retail"]}) == ["new: produced, not in the manifest"]


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_the_checkout_commits_only_the_goldens_and_the_manifest():
    tracked = subprocess.run(
        ["git", "ls-files", "generated_servers"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert len(tracked) <= 400
    tops = {path.split("/")[1] for path in tracked}
    assert tops == {*GOLDEN, MANIFEST_FILE}
