"""Whole files, written so that a crash leaves the old content or the new, never a mix.

Every file envfactory-mcp writes whole goes through here: a run's ``metadata.json`` and
``summary.json``, a rewritten ``trajectories.jsonl``, verification reports written beside
a package, task files, exports, the run viewer's pages, eval sets and results, the
pipeline's outputs, graph drawings, MCP client configurations, a failed synthesis's
``<name>.failed.json`` and verl's training files (``rl.verl_adapter``). The data goes to a
temporary file beside the target (the same file system), is flushed and fsynced, the
temporary file is renamed over the target (atomic on POSIX), and the folder is fsynced so
the rename itself survives a power cut. A target that exists keeps its permission bits
(a client configuration may be private to its user); a new one gets ``new_mode`` less the
umask (0666: the usual; MCP client configurations ask for 0600). Nothing is left behind
when writing fails.

Not here: append-only logs (``trajectories.jsonl`` as a run goes, a synthesis build log),
which append one fsynced line at a time (``records.store``), and emitted packages, which
are folders swapped in whole (``emit.write_package``).
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

__all__ = ["sync_dir", "write_bytes", "write_json", "write_text"]


def write_bytes(path: Path | str, data: bytes, *, new_mode: int = 0o666) -> None:
    """Replace ``path`` with ``data`` atomically and durably (its folder must exist)."""
    path = Path(path)
    staging = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    try:
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, new_mode)
        with open(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(staging, mode)
        os.replace(staging, path)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise
    sync_dir(path.parent)


def write_text(path: Path | str, text: str, *, new_mode: int = 0o666) -> None:
    """:func:`write_bytes` of ``text`` in UTF-8 (newlines as given: no translation)."""
    write_bytes(path, text.encode("utf-8"), new_mode=new_mode)


def write_json(
    path: Path | str,
    value: Any,
    *,
    indent: int | None = 2,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    new_mode: int = 0o666,
) -> None:
    """:func:`write_text` of ``value`` as JSON, with a final newline."""
    text = json.dumps(value, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + "\n"
    write_text(path, text, new_mode=new_mode)


def sync_dir(path: Path | str) -> None:
    """fsync a folder, so the files just created or renamed in it are on disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
