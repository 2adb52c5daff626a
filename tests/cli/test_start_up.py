"""What ``envfactory-mcp rollout`` does before its first episode costs every run (issue 32):
the garbage collector stays off while the command starts (flags, imports, checks) and
what start-up made is frozen before the episodes, only when the command is the whole
process; a shipped package's build record is read only when the checkout's manifest
does not vouch for it; the seed value drawer (``seeddata``) is imported only by the random
agent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

import envfactory_mcp.shipped as shipped
from envfactory_mcp.cli import app
from envfactory_mcp.packages import is_shipped_code
from envfactory_mcp.tasks.model import write_tasks

# Run in a fresh interpreter as ``envfactory-mcp`` runs it (``cli.main``): what the
# collector was doing when the task file was read (start-up) and when the episodes began.
SPY = """
import gc, json, sys
import envfactory_mcp.host.rollout as rollout
import envfactory_mcp.tasks.model as model
seen = {}
read, run = model.read_tasks, rollout.run_interruptibly
def read_tasks(*args, **kwargs):
    seen["start_up"] = gc.isenabled()
    return read(*args, **kwargs)
def run_interruptibly(*args, **kwargs):
    seen["episodes"], seen["frozen"] = gc.isenabled(), gc.get_freeze_count()
    return run(*args, **kwargs)
model.read_tasks, rollout.run_interruptibly = read_tasks, run_interruptibly
from envfactory_mcp.cli import main
sys.argv = ["envfactory-mcp", *sys.argv[1:]]
try:
    main()
finally:
    print(json.dumps(seen), file=sys.stderr)
"""

RESUMES = """
import gc
from envfactory_mcp.cli.app import _Command, own_process
own_process()
assert not gc.isenabled()
seen = []
_Command(name="any", callback=lambda: seen.append(gc.isenabled())).main([], standalone_mode=False)
assert seen == [True], seen
print("ok")
"""


def test_rollout_collects_nothing_while_it_starts_and_freezes_what_start_up_made(
    retail_tasks: Any, tmp_path: Path
) -> None:
    path = tmp_path / "tasks.jsonl"
    write_tasks(retail_tasks(40, seed=0)[:1], path)
    args = ["rollout", "retail", "--tasks", str(path), "-o", str(tmp_path / "run"), "--agent", "oracle"]
    args += ["-q", "--servers-dir", str(SERVERS_DIR)]
    done = subprocess.run([sys.executable, "-c", SPY, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["episodes"] == 1
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    assert seen["start_up"] is False  # no collection while it starts
    assert seen["episodes"] is True  # the episodes' garbage is collected
    assert seen["frozen"] > 10_000  # start-up's objects (modules, classes, schemas) frozen


def test_any_other_command_collects_again_as_it_begins() -> None:
    done = subprocess.run([sys.executable, "-c", RESUMES], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_command_run_inside_another_program_leaves_its_collector_alone(
    retail_tasks: Any, tmp_path: Path
) -> None:
    import gc

    path = tmp_path / "tasks.jsonl"
    write_tasks(retail_tasks(40, seed=0)[:1], path)
    frozen = gc.get_freeze_count()
    args = ["rollout", "retail", "--tasks", str(path), "-o", str(tmp_path / "run"), "--agent", "oracle"]
    args += ["-q", "--transport", "memory", "--servers-dir", str(SERVERS_DIR)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_the_rollout_path_does_not_import_the_seed_value_drawer() -> None:
    """``seeddata`` draws the random agent's arguments (``sim.agents.random_arguments``),
    imported there only: no other agent, the user or the host needs it."""
    code = (
        "import sys\n"
        "import envfactory_mcp.cli, envfactory_mcp.host.rollout, envfactory_mcp.sim.agents, envfactory_mcp.sim.users\n"
        "print('envfactory_mcp.seeddata' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "False", (done.stdout, done.stderr[-2000:])


def test_a_package_the_manifest_vouches_for_is_shipped_without_reading_a_build_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unread(env: str, seed: int) -> None:
        raise AssertionError(f"the build record of {env}-{seed} was read (it digests the source)")

    monkeypatch.setattr(shipped, "recorded_entry", unread)
    assert is_shipped_code(SERVERS_DIR / "retail", "retail_mcp")
