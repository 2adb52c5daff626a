"""The one place that writes a generated package to disk, atomically."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from envfactory_mcp.errors import EmitError


def write_package(files: dict[str, str], dest: Path) -> Path:
    """Replace ``dest`` with exactly ``files``.

    The package is written into a temporary sibling folder first and swapped in with
    renames, so a crash leaves either the old package or the new one, never a mix.
    """
    dest = dest.resolve()
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.new-", dir=dest.parent))
    try:
        for rel, text in files.items():
            path = staging / rel
            if ".." in Path(rel).parts or Path(rel).is_absolute():
                raise EmitError(f"refusing to write outside the package: {rel}")
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        old = None
        if dest.exists():
            old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
            if old.exists():
                shutil.rmtree(old)
            dest.rename(old)
        staging.rename(dest)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return dest


def read_package(root: Path) -> dict[str, str]:
    """Every text file under ``root`` (caches excluded), keyed like ``render_package``."""
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith(".pyc"):
            rel = path.relative_to(root).as_posix()
            if rel.startswith((".", "build/", "dist/")) or ".egg-info" in rel:
                continue
            files[rel] = path.read_text(encoding="utf-8")
    return files
