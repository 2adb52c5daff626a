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


# Run as ``envfactory-mcp`` runs (``cli.main``), nothing imported first: how often
# pydantic looked for plugins among the installed distributions, and what it holds.
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


@pytest.mark.parametrize("command", ["rollout", "tasks"])
def test_a_command_spares_pydantic_its_plugin_search_when_nothing_declares_a_plugin(
    command: str, retail_tasks: Any, tmp_path: Path
) -> None:
    """``rollout`` and ``tasks`` (``skip_plugin_scan`` before their imports)."""
    if command == "rollout":
        path = tmp_path / "tasks.jsonl"
        write_tasks(retail_tasks(40, seed=0)[:1], path)
        args = ["rollout", "retail", "--tasks", str(path), "-o", str(tmp_path / "run"), "--agent", "oracle"]
    else:
        args = ["tasks", "retail", "-n", "2", "-o", str(tmp_path / "tasks.jsonl"), "--no-pool-cache"]
    args += ["-q", "--servers-dir", str(SERVERS_DIR)]
    done = subprocess.run(
        [sys.executable, "-c", PLUGIN_SPY, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    if command == "rollout":
        assert json.loads(done.stdout)["episodes"] == 1
    else:
        assert len((tmp_path / "tasks.jsonl").read_text().splitlines()) == 2
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    if seen["declared"] is not False:
        pytest.skip(f"this interpreter's distributions may declare pydantic plugins ({seen['declared']})")
    assert seen == {"scans": 0, "plugins": {}, "declared": False}  # what the search would have found


def _dist(root: Path, name: str, entry_points: str | bytes | None) -> None:
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if isinstance(entry_points, bytes):
        (info / "entry_points.txt").write_bytes(entry_points)
    elif entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


def _importlib_finds(path: list[str]) -> bool:
    """What importlib's search finds on ``path``: its path finder's reading of the folders
    (``PathFinder.find_distributions`` hands the search to ``MetadataPathFinder``), asked
    directly, so that the finders on this process's ``sys.meta_path`` do not matter (in the
    whole suite the PathFinder there was once found without ``find_distributions``, and
    ``distributions(path=...)`` found nothing at all)."""
    from importlib.metadata import DistributionFinder, MetadataPathFinder

    found = MetadataPathFinder.find_distributions(DistributionFinder.Context(path=path))
    return any(ep.group == "pydantic" for dist in found for ep in dist.entry_points)


def _path_finder_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No finder of distributions but importlib's own, which is there (another test may
    have left a finder of its own, or taken importlib's away)."""
    from importlib.machinery import PathFinder

    kept = [f for f in sys.meta_path if not hasattr(f, "find_distributions")]
    monkeypatch.setattr(sys, "meta_path", [*kept, PathFinder])


def test_the_plugin_declarations_read_as_importlib_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from envfactory_mcp.cli.app import declares_pydantic_plugins

    _path_finder_only(monkeypatch)

    none, some, spaced, bracketed, egg_info = (
        tmp_path / n for n in ("none", "some", "spaced", "bracketed", "egg_info")
    )
    _dist(none, "plain", None)
    _dist(none, "scripts", "[console_scripts]\nrun = pydantic_tool:main  # mentions pydantic\n")
    _dist(none, "other", "[pydantic_extras]\nx = y:z\n# [pydantic]\n")
    _dist(none, "empty", "[pydantic]\n\n# nothing in it\n[other]\na = b\n")
    _dist(some, "plugin", "[console_scripts]\nrun = a:b\n\n[pydantic]\nmy_plugin = my_plugin:plugin\n")
    _dist(spaced, "plugin", "  [ pydantic ]  \nmy_plugin = my_plugin:plugin\n")  # group " pydantic "
    _dist(bracketed, "plugin", "  [[pydantic]]\nmy_plugin = my_plugin:plugin\n")  # group "pydantic"
    (egg_info / "legacy.egg-info").mkdir(parents=True)
    (egg_info / "legacy.egg-info" / "entry_points.txt").write_text("[pydantic]\np = q:r\n")
    for path, expected in (
        ([str(none)], False),
        ([str(none), str(some)], True),
        ([str(spaced)], False),
        ([str(bracketed)], True),
        ([str(egg_info)], True),
        ([str(none), str(tmp_path / "missing")], False),
    ):
        assert declares_pydantic_plugins(path) is expected, path
        assert _importlib_finds(path) is expected, path  # what pydantic's own search finds
    found = declares_pydantic_plugins()  # this interpreter's: what importlib finds, unless it cannot tell
    assert found is None or found is _importlib_finds(sys.path)


def test_what_the_plugin_reading_cannot_tell_is_left_to_pydantic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from envfactory_mcp.cli.app import declares_pydantic_plugins

    _path_finder_only(monkeypatch)
    _dist(tmp_path / "fine", "plain", "[console_scripts]\nrun = a:b\n")
    assert declares_pydantic_plugins([str(tmp_path / "fine")]) is False

    class Finder:  # another finder of distributions, which importlib would ask too
        @staticmethod
        def find_distributions(*args: Any, **kwargs: Any) -> list[Any]:
            return []

    monkeypatch.setattr(sys, "meta_path", [Finder, *sys.meta_path])
    assert declares_pydantic_plugins([str(tmp_path / "fine")]) is None
    monkeypatch.setattr(sys, "meta_path", sys.meta_path[1:])

    archive = tmp_path / "lib.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip on the path
    (tmp_path / "x.egg").mkdir()
    _dist(tmp_path / "bad", "broken", b"[pydantic]\xff\xfe\n")
    _dist(tmp_path / "unparsable", "odd", "[console_scripts]\nno equals sign here\n")
    assert declares_pydantic_plugins([str(archive)]) is None
    assert declares_pydantic_plugins([str(tmp_path / "x.egg")]) is None
    assert declares_pydantic_plugins([str(tmp_path / "bad")]) is None
    assert declares_pydantic_plugins([str(tmp_path / "unparsable")]) is None
    with pytest.raises(TypeError):  # importlib cannot read it either: pydantic's search fails as before
        _importlib_finds([str(tmp_path / "unparsable")])


def test_a_command_run_inside_another_program_leaves_pydantics_plugins_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    import pydantic.plugin._loader as loader

    app_module = importlib.import_module("envfactory_mcp.cli.app")  # the module, not its ``app``

    monkeypatch.setattr(loader, "_plugins", None)
    monkeypatch.setitem(app_module._PROCESS, "owned", False)
    app_module.skip_plugin_scan()
    assert loader._plugins is None  # pydantic searches as it would


# How many annotation strings typer's reading of the rollout command evaluates.
EVALUATIONS = """
import builtins, sys
from envfactory_mcp.cli import app
count = [0]
def profile(frame, event, arg):
    if event == "c_call" and arg is builtins.eval and frame.f_code.co_filename.endswith(("inspect.py", "typing.py")):
        count[0] += 1
sys.argv = ["envfactory-mcp", "rollout", "--help"]
sys.setprofile(profile)
try:
    app()
except SystemExit:
    pass
finally:
    sys.setprofile(None)
print(count[0], file=sys.stderr)
"""


def test_the_rollout_commands_annotations_are_evaluated_once() -> None:
    """typer reads a command's signature six times, each time evaluating every annotation
    string (``from __future__ import annotations``): 176 evaluations for rollout's 39
    parameters. The one command asked for is evaluated once before typer reads it."""
    import inspect

    from envfactory_mcp.cli.runs import rollout

    done = subprocess.run([sys.executable, "-c", EVALUATIONS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "--tasks" in done.stdout  # the help was made from the evaluated annotations
    evaluations = int(done.stderr.strip().splitlines()[-1])
    assert evaluations <= len(inspect.get_annotations(rollout)) + 15, evaluations
