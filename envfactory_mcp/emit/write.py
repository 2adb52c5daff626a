"""The one place that writes a generated package to disk, atomically."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import glob
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from envfactory_mcp.errors import EmitError

# renameat2(2)'s flag that swaps two existing paths in one step (Linux 3.15+, on the local
# file systems this project writes to: ext4, xfs, btrfs, tmpfs, overlayfs).
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _libc_renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        func = libc.renameat2
    except (OSError, AttributeError):  # no libc, or a glibc older than 2.28
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    func.restype = ctypes.c_int
    return func


_RENAMEAT2 = _libc_renameat2()


def exchange(a: Path, b: Path) -> bool:
    """Swap the two existing paths ``a`` and ``b`` in one atomic step; False when this
    system or file system cannot (the caller falls back to two renames)."""
    if _RENAMEAT2 is None:
        return False
    if _RENAMEAT2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(a), None, str(b))


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _recover(dest: Path) -> None:
    """Put right what a writer killed mid-swap left beside ``dest``: on systems without the
    exchange, an old package renamed aside whose replacement never arrived goes back; the
    folders of dead writers (staging, or the old package after the swap) are removed."""
    for leftover in sorted(dest.parent.glob(f".{glob.escape(dest.name)}.*-*")):
        kind, _, rest = leftover.name[len(dest.name) + 2 :].partition("-")
        pid = rest.split("-", 1)[0]
        if kind not in ("new", "old") or not pid.isdigit() or _pid_alive(int(pid)):
            continue
        if kind == "old" and not dest.exists():
            leftover.rename(dest)
        else:
            shutil.rmtree(leftover, ignore_errors=True)


def write_package(files: dict[str, str], dest: Path) -> Path:
    """Replace ``dest`` with exactly ``files``: at every moment ``dest`` is the complete old
    package or the complete new one, never a mix and never missing.

    The package is written (and fsynced) into a temporary sibling folder, then swapped
    with the old one in a single ``renameat2(RENAME_EXCHANGE)`` (Linux), and the old one,
    now in the sibling, is removed. Where the exchange is not available the old package is
    renamed aside first: a crash between the two renames leaves it aside, and the next
    ``write_package`` to ``dest`` puts it back before anything else
    (tests/emit/test_write_atomic.py kills a real writer at each step).
    """
    dest = dest.resolve()
    dest.parent.mkdir(parents=True, exist_ok=True)
    _recover(dest)
    for rel in files:
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            raise EmitError(f"refusing to write outside the package: {rel}")
    pid = os.getpid()
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.new-{pid}-", dir=dest.parent))
    try:
        for rel, text in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        if not dest.exists():
            staging.rename(dest)
        elif exchange(staging, dest):
            pass  # ``staging`` now holds the old package
        else:
            old = dest.with_name(f".{dest.name}.old-{pid}")
            if old.exists():
                shutil.rmtree(old)
            dest.rename(old)
            try:
                staging.rename(dest)
            except BaseException:
                old.rename(dest)
                raise
            staging = old
        _fsync_dir(dest.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
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
