"""``tasks``, like ``rollout``, spares pydantic its plugin search (issue 32,
``cli/app.py:skip_plugin_scan``) when no installed distribution declares a plugin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN_SPY = """
import importlib.metadata as metadata, json, sys
scans = []
every = metadata.distributions
def distributions(*args, **kwargs):
    scans.append(1)
    return every(*args, **kwargs)
metadata.distributions = distributions
from envfactory_mcp.cli import main
from envfactory_mcp.cli.app import declares_pydantic_plugins
sys.argv = ["envfactory-mcp", *sys.argv[1:]]
try:
    main()
finally:
    import pydantic.plugin._loader as loader
    seen = {"scans": len(scans), "plugins": loader._plugins, "declared": declares_pydantic_plugins()}
    print(json.dumps(seen), file=sys.stderr)
"""


def test_tasks_spares_pydantic_its_plugin_search_when_nothing_declares_a_plugin(tmp_path: Path) -> None:
    from paths import SERVERS_DIR

    output = tmp_path / "tasks.jsonl"
    args = ["tasks", "retail", "-n", "2", "-o", str(output), "--no-pool-cache", "-q"]
    args += ["--servers-dir", str(SERVERS_DIR)]
    done = subprocess.run(
        [sys.executable, "-c", PLUGIN_SPY, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(output.read_text().splitlines()) == 2
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    if seen["declared"] is not False:
        pytest.skip(f"this interpreter's distributions may declare pydantic plugins ({seen['declared']})")
    assert seen == {"scans": 0, "plugins": {}, "declared": False}  # what the search would have found
