"""Issue 19, cold start of ``envfactory-mcp serve``: the command line builds only the
command it runs, and serving a verified package loads none of the verifier, catalog,
spec or blueprint machinery (the provenance check reads the report and the files'
digests). Real processes: the console entry point as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from paths import SERVERS_DIR

ENTRY = "import sys; sys.argv[0] = 'envfactory-mcp'; import envfactory_mcp.cli as c, typer; "
ONE = ENTRY + "c.app()"  # what the script runs: only the named command is built
ALL = ENTRY + "typer.Typer.__call__(c.app)"  # typer's own path: every command built


def run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--help"],
        ["serve"],
        ["serve", "retail", "--bogus"],
        ["serve", "retail", "--port", "nope"],
        ["servee", "retail"],
        ["rollout", "--help"],
        ["verify"],
        ["--help"],
    ],
    ids=" ".join,
)
def test_building_one_command_answers_like_building_them_all(argv: list[str]) -> None:
    one, every = run(ONE, *argv), run(ALL, *argv)
    assert (one.returncode, one.stdout, one.stderr) == (every.returncode, every.stdout, every.stderr)
    assert one.stdout or one.stderr


def test_serving_a_verified_package_loads_no_verifier_catalog_spec_or_blueprint(tmp_path: Path) -> None:
    # stdin is closed: the server starts, finds no request and ends. (Serving points fd 1
    # at stderr, so the module list goes to a file.)
    out = tmp_path / "modules.txt"
    code = (
        "import sys; out = sys.argv[2]\n"
        "sys.argv = ['envfactory-mcp', 'serve', 'retail', '--servers-dir', sys.argv[1]]\n"
        "import envfactory_mcp.cli as c\n"
        "try:\n    c.main()\nexcept SystemExit:\n    pass\n"
        "open(out, 'w').write(' '.join(m for m in sys.modules if m.startswith(('envfactory_mcp', 'jsonschema', 'rich'))))"
    )
    done = run(code, str(SERVERS_DIR), str(out))
    assert done.returncode == 0, done.stderr
    loaded = set(out.read_text().split())
    assert "envfactory_mcp.runtime.calls" in loaded  # it did serve (on stdio the SDK loads only when needed)
    heavy = {
        "envfactory_mcp.verify.verifier",
        "envfactory_mcp.catalog",
        "envfactory_mcp.spec",
        "envfactory_mcp.blueprints",
        "envfactory_mcp.env",
        "jsonschema",
        "rich",
    }
    assert not heavy & loaded
