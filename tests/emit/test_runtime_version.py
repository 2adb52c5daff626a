"""One runtime, versioned (issue 29): every package carries the runtime version and
content digest it was rendered with; ``list`` and ``verify`` name a package on another
runtime; ``upgrade`` re-renders its frame, keeps its environment byte for byte, verifies
it again and says what changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.emit.render import environment_paths, render_package, runtime_digest, vendored_runtime
from envfactory_mcp.emit.write import read_package
from envfactory_mcp.env import build_env
from envfactory_mcp.packages import package_status, runtime_stamp, runtime_status
from envfactory_mcp.runtime.version import RUNTIME_VERSION, STAMP_FILE

# Each released runtime version and the digest of its files. A change to any file of
# envfactory_mcp/runtime/ changes the digest: give it a new RUNTIME_VERSION (in
# runtime/version.py) and add the pair here, so an installed package can tell.
VERSIONS = json.loads((Path(__file__).parent / "runtime_versions.json").read_text(encoding="utf-8"))


def test_the_runtime_version_moves_with_its_content():
    assert VERSIONS.get(RUNTIME_VERSION) == runtime_digest(), (
        "envfactory_mcp/runtime/ changed without a new RUNTIME_VERSION: bump it in runtime/version.py "
        f"and add it to tests/emit/runtime_versions.json with {runtime_digest()}"
    )
    assert len(set(VERSIONS.values())) == len(VERSIONS), "two versions with one content"


def test_a_runtime_digest_covers_every_file_name_and_byte():
    files = vendored_runtime()
    name = sorted(files)[0]
    assert runtime_digest(files) == runtime_digest()
    assert runtime_digest({**files, name: files[name] + " "}) != runtime_digest()
    assert runtime_digest({k: v for k, v in files.items() if k != name}) != runtime_digest()
    assert runtime_digest({**files, "extra.py": ""}) != runtime_digest()


def test_every_rendered_package_is_stamped_with_this_runtime():
    files = render_package(build_env(load_blueprint("retail")))
    stamp = json.loads(files[f"retail_mcp/runtime/{STAMP_FILE}"])
    assert stamp == {"version": RUNTIME_VERSION, "digest": runtime_digest()}
    assert f"runtime {RUNTIME_VERSION}" in files["README.md"]


def test_the_committed_retail_package_is_on_this_runtime():
    assert runtime_stamp(SERVERS_DIR / "retail") == (RUNTIME_VERSION, runtime_digest())
    assert runtime_status(SERVERS_DIR / "retail") == "current"


def age(package: Path) -> None:
    """Make ``package`` look rendered by an older runtime: another stamp, a runtime file
    and the README as that version wrote them, a runtime file it no longer has."""
    runtime = package / "retail_mcp" / "runtime"
    (runtime / STAMP_FILE).write_text(json.dumps({"version": "0.9.0", "digest": "sha256:" + "0" * 64}))
    database = runtime / "database.py"
    database.write_text(database.read_text() + "\n# an old line\n")
    (runtime / "legacy.py").write_text("OLD = True\n")
    readme = package / "README.md"
    readme.write_text(readme.read_text().replace("runtime", "rt", 1))


@pytest.mark.slow
def test_upgrade_brings_an_older_package_onto_this_runtime_and_keeps_its_environment(tmp_path: Path):
    from envfactory_mcp.cli import app

    servers = tmp_path / "servers"
    shutil.copytree(SERVERS_DIR / "retail", servers / "retail", ignore=shutil.ignore_patterns("__pycache__"))
    age(servers / "retail")
    environment = {
        p: t for p, t in read_package(servers / "retail").items() if p in environment_paths("retail")
    }
    assert runtime_status(servers / "retail") == "0.9.0, not 1.0.0 (envfactory-mcp upgrade retail)".replace(
        "1.0.0", RUNTIME_VERSION
    )
    listed = CliRunner().invoke(app, ["list", "--json", "--servers-dir", str(servers)])
    assert listed.exit_code == 0, listed.output
    entry = next(e for e in json.loads(listed.stdout) if e["name"] == "retail")
    assert entry["runtime"].startswith("0.9.0, not ")
    assert package_status(servers / "retail") != "passed"  # its files no longer match its report

    done = CliRunner().invoke(app, ["upgrade", "retail", "--servers-dir", str(servers)])
    assert done.exit_code == 0, done.output
    line = done.stdout.strip()
    assert line.startswith(f"retail: runtime 0.9.0 -> {RUNTIME_VERSION}, 4 file(s) changed"), line
    for path in ("README.md", "retail_mcp/runtime/database.py", "retail_mcp/runtime/legacy.py", STAMP_FILE):
        assert path in line, line
    assert "verified again" in line

    after = read_package(servers / "retail")
    assert {p: t for p, t in after.items() if p in environment_paths("retail")} == environment
    assert "retail_mcp/runtime/legacy.py" not in after
    assert runtime_status(servers / "retail") == "current"
    assert package_status(servers / "retail") == "passed"
    report = "retail_mcp/data/verification.json"
    committed = read_package(SERVERS_DIR / "retail")
    assert {p: t for p, t in after.items() if p != report} == {
        p: t for p, t in committed.items() if p != report
    }

    again = CliRunner().invoke(app, ["upgrade", "--all", "--servers-dir", str(servers)])
    assert (
        again.exit_code == 0 and again.stdout.strip() == f"retail: runtime {RUNTIME_VERSION}, already current"
    )


def test_an_upgrade_that_fails_verification_leaves_the_package_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import envfactory_mcp.build as build
    from envfactory_mcp.cli import app
    from envfactory_mcp.verify.provenance import read_report

    servers = tmp_path / "servers"
    shutil.copytree(SERVERS_DIR / "retail", servers / "retail", ignore=shutil.ignore_patterns("__pycache__"))
    age(servers / "retail")
    before = read_package(servers / "retail")
    passed = read_report(SERVERS_DIR / "retail")
    assert passed is not None
    failing = passed.model_copy(update={"passed": False})
    monkeypatch.setattr(build, "verify_package", lambda folder, options=None: failing)
    done = CliRunner().invoke(app, ["upgrade", "retail", "--servers-dir", str(servers)])
    assert done.exit_code == 1
    assert "retail: kept as it was, the upgraded package failed verification" in done.stdout
    assert "1 not upgraded: retail" in done.output
    assert read_package(servers / "retail") == before


def test_upgrade_says_in_one_line_what_it_cannot_do(tmp_path: Path):
    from envfactory_mcp.cli import app

    done = CliRunner().invoke(app, ["upgrade", "nothing_here", "--servers-dir", str(tmp_path)])
    assert done.exit_code != 0 and "no package 'nothing_here'" in done.output
    both = CliRunner().invoke(app, ["upgrade", "retail", "--all", "--servers-dir", str(tmp_path)])
    assert both.exit_code != 0 and "not both" in both.output
    broken = tmp_path / "broken" / "broken_mcp" / "data"
    broken.mkdir(parents=True)
    (broken / "spec.json").write_text("{not json")
    done = CliRunner().invoke(app, ["upgrade", "broken", "--servers-dir", str(tmp_path)])
    assert done.exit_code == 1 and "not a readable package" in done.stdout, done.output
