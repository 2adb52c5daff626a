"""catalog: what ``list`` shows of an environment not built yet is read from its declaration,
never by building its spec, and is exactly what the built spec says (issue 33, item 3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from envfactory_mcp.blueprints import blueprint_names, load_blueprint
from envfactory_mcp.catalog import blueprint_summary


def test_every_blueprints_summary_is_what_its_spec_says():
    names = blueprint_names()
    assert len(names) > 100  # the hand-crafted blueprints and the library's services
    for name in names:
        spec = load_blueprint(name).build_spec(0)
        assert blueprint_summary(name) == (spec.domain, len(spec.tools), len(spec.tables)), name


# The real command in a child whose library services cannot build a spec or seed rows
# (nor render tool code): ``list`` must not need them.
_LIST_WITHOUT_BUILDING = """
import sys
from envfactory_mcp.library.service import Service

def refuse(*args, **kwargs):
    raise AssertionError("list built a library service's spec")

Service.build = refuse
sys.argv = ["envfactory-mcp", *sys.argv[1:]]
from envfactory_mcp.cli import main
main()
"""


def test_list_builds_no_spec_of_an_environment_not_built(tmp_path: Path):
    def listed(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", _LIST_WITHOUT_BUILDING, "list", *args, "--servers-dir", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    as_json = listed("--json")
    assert as_json.returncode == 0, as_json.stderr
    entries = json.loads(as_json.stdout)
    assert [e["name"] for e in entries] == blueprint_names()
    assert all(e["verification"] == "not built" and not e["emitted"] for e in entries)
    retail = next(e for e in entries if e["name"] == "retail")
    assert (retail["domain"], retail["tools"], retail["tables"]) == blueprint_summary("retail")
    # piped: plain columns, every name whole
    table = listed()
    assert table.returncode == 0, table.stderr
    rows = table.stdout.splitlines()[1:]
    assert [row.split()[0] for row in rows] == blueprint_names() and "…" not in table.stdout
