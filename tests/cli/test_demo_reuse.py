"""Issue 33, item 4: ``demo`` reuses a verified package that is already there (its stored
verdict), through the real CLI: nothing is verified again and nothing in it is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from paths import SERVERS_DIR

pytestmark = pytest.mark.slow  # serves retail over stdio and replays the demo session


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_demo_reuses_the_verified_package(tmp_path: Path):
    before = snapshot(SERVERS_DIR / "retail")
    done = subprocess.run(
        [sys.executable, "-m", "envfactory_mcp", "demo", "retail", "--servers-dir", str(SERVERS_DIR)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "verified package already there" in done.stdout, done.stdout
    assert "verified in the sandbox" not in done.stdout
    assert "final state hash" in done.stdout and "cancel_pending_order" in done.stdout
    assert snapshot(SERVERS_DIR / "retail") == before
    assert list(tmp_path.iterdir()) == []
