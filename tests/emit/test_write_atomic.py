"""``write_package`` replaces a package whole: a writer SIGKILLed at any step leaves the
complete old package or the complete new one, never a mix and never nothing.

A real writer process is killed before its k-th change to the file system (a folder or
file made, a rename, an exchange, a removal), for every k until it runs to the end; after
each kill the package folder must read back as the old files or the new ones exactly. The
steps are counted in the writer rather than named, so any way of writing (a delete then a
write, a rename aside then a rename in) is tried at each of its own steps.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from envfactory_mcp.emit import write
from envfactory_mcp.emit.write import read_package, write_package
from envfactory_mcp.errors import EmitError

pytestmark = pytest.mark.slow

OLD = {"README.md": "old readme\n", "pkg/data/spec.json": '{"v": "old"}\n', "pkg/only_old.py": "x = 1\n"}
NEW = {"README.md": "new readme\n", "pkg/data/spec.json": '{"v": "new"}\n', "pkg/only_new.py": "y = 2\n"}

# The writer: counts its changes to the file system and SIGKILLs itself before the k-th one.
WRITER = textwrap.dedent(
    """
    import builtins, json, os, signal, sys
    from pathlib import Path
    from envfactory_mcp.emit import write

    kill_at, exchange, dest, files = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3], sys.argv[4]
    steps = 0

    def step():
        global steps
        steps += 1
        if steps == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    def counted(func):
        def wrapper(*args, **kwargs):
            step()
            return func(*args, **kwargs)
        return wrapper

    for name in ("mkdir", "rename", "replace", "unlink", "remove", "rmdir"):
        setattr(os, name, counted(getattr(os, name)))
    real_open = builtins.open

    def opener(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+"):
            step()
        return real_open(file, mode, *args, **kwargs)

    builtins.open = opener
    if exchange:
        assert write._RENAMEAT2 is not None
        write._RENAMEAT2 = counted(write._RENAMEAT2)
    else:
        write._RENAMEAT2 = None  # a system without renameat2: two renames
    files = json.loads(real_open(files).read())
    write.write_package(files, Path(dest))
    print(json.dumps({"steps": steps}))
    """
)


def _run_writer(kill_at: int, exchange: bool, dest: Path, files: Path) -> subprocess.CompletedProcess[str]:
    # The timeout is a far backstop: the writer takes well under a second when the machine is idle.
    return subprocess.run(
        [sys.executable, "-c", WRITER, str(kill_at), "1" if exchange else "0", str(dest), str(files)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _state(dest: Path) -> str:
    if not dest.is_dir():
        return "missing"
    found = read_package(dest)
    return "old" if found == OLD else "new" if found == NEW else f"a mix: {sorted(found.items())}"


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2-exchange", "two-renames"])
def test_a_writer_killed_at_any_step_leaves_the_old_package_or_the_new(
    tmp_path: Path, exchange: bool
) -> None:
    if exchange and write._RENAMEAT2 is None:
        pytest.skip("renameat2 is Linux's (glibc 2.28+); elsewhere write_package uses two renames")
    files = tmp_path / "new.json"
    files.write_text(json.dumps(NEW))
    seen: list[str] = []
    for kill_at in range(1, 200):
        dest = tmp_path / f"run{kill_at}" / "shop"
        write_package(OLD, dest)
        run = _run_writer(kill_at, exchange, dest, files)
        if run.returncode == 0:
            break
        assert run.returncode == -signal.SIGKILL, run.stderr
        state = _state(dest)
        if not exchange and state == "missing":
            # Killed between the two renames: the old package is aside, and the next write
            # to this place puts it back before it does anything else (here it then fails).
            with pytest.raises(EmitError):
                write_package({"../escape": ""}, dest)
            state = _state(dest)
            assert state == "old", (kill_at, state)
        assert state in ("old", "new"), (kill_at, state)
        seen.append(state)
        # The next write succeeds and leaves nothing of the killed one beside the package.
        write_package(NEW, dest)
        assert _state(dest) == "new"
        assert sorted(p.name for p in dest.parent.iterdir()) == ["shop"], kill_at
    else:
        pytest.fail("the writer never ran to the end")
    assert json.loads(run.stdout)["steps"] == kill_at - 1
    assert _state(dest) == "new"
    # Every step was tried: the kills before the swap left the old package, the later ones the new.
    assert len(seen) == kill_at - 1 >= 8
    assert seen[0] == "old" and seen[-1] == "new"
    assert seen == sorted(seen, reverse=True), seen  # "old"... then "new"...


def test_exchange_swaps_two_folders_in_one_step(tmp_path: Path) -> None:
    if write._RENAMEAT2 is None:
        pytest.skip("renameat2 is Linux's (glibc 2.28+)")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "one").write_text("a")
    (b / "two").write_text("b")
    assert write.exchange(a, b)
    assert os.listdir(a) == ["two"] and os.listdir(b) == ["one"]
    with pytest.raises(FileNotFoundError):
        write.exchange(a, tmp_path / "absent")


def test_a_failed_write_leaves_the_old_package_and_no_staging(tmp_path: Path) -> None:
    dest = tmp_path / "shop"
    write_package(OLD, dest)
    with pytest.raises(EmitError):
        write_package({**NEW, "../outside.txt": "x"}, dest)
    assert _state(dest) == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shop"]
    assert not (tmp_path / "outside.txt").exists()
