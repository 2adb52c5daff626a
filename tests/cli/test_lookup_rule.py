"""Issue 33, point 4: in a folder whose ./generated_servers holds only synthesised
packages, `serve retail` and `list` say where environments are looked up (the order the
code follows), name --servers-dir, and do not suggest building retail into that folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from envfactory_mcp.packages import checkout_servers_dir, user_servers_dir


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ENVFACTORY_SERVERS_DIR"}
    return subprocess.run([sys.executable, "-m", "envfactory_mcp", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300, check=False)  # fmt: skip


def test_serve_and_list_in_a_folder_of_synthesised_packages_explain_the_lookup(tmp_path: Path):
    (tmp_path / "generated_servers" / "notes").mkdir(parents=True)  # what synthesize -o left
    done = cli(tmp_path, "serve", "retail")
    assert done.returncode == 1 and done.stdout == ""
    (line,) = [line for line in done.stderr.splitlines() if line.strip()]
    here = tmp_path.resolve() / "generated_servers"
    assert f"no package 'retail' in {here}/" in line
    order = ["--servers-dir when given", "$ENVFACTORY_SERVERS_DIR (not set)",
             "./generated_servers when the current directory has one (yes)",
             f"the checkout's {checkout_servers_dir()}", f"the per-user folder {user_servers_dir()}"]  # fmt: skip
    positions = [line.index(part) for part in order]
    assert positions == sorted(positions), line
    assert f"--servers-dir {checkout_servers_dir()}" in line  # where retail is (built on first use)
    assert "build retail" not in line
    listed = cli(tmp_path, "list")
    assert listed.returncode == 0
    assert f"0 package(s) in {here}/" in listed.stderr and "--servers-dir" in listed.stderr
    assert "$ENVFACTORY_SERVERS_DIR" in listed.stderr


def test_a_name_that_is_no_blueprint_is_not_offered_a_build(tmp_path: Path):
    done = cli(tmp_path, "serve", "notes_app", "--servers-dir", str(tmp_path))
    assert done.returncode == 1
    assert f"no package 'notes_app' in {tmp_path}/" in done.stderr
    assert "pass --servers-dir the folder that holds 'notes_app'" in done.stderr
    assert "envfactory-mcp build" not in done.stderr
