"""The live child processes of this test process, read from /proc (Linux)."""

from __future__ import annotations

import os
from pathlib import Path


def child_processes() -> dict[int, list[str]]:
    """pid -> argv of every live process whose parent is this process."""
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            status = (entry / "status").read_text()
        except OSError:
            continue
        ppid = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:")), 0)
        if ppid == os.getpid():
            children[int(entry.name)] = argv
    return children
