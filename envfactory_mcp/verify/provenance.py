"""Provenance of an emitted package: its stored verification report, and whether the
report still covers the package's files (a sha256 of each, compared with the digests the
report recorded). This is the check every command runs before it serves or loads a
package (``packages.check_runnable``), so it imports only the standard library and the
report's model: starting a server does not load the verifier, the MCP stack's client or
the spec machinery. A report is believed only with this installation's signature
(``signing.py``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.verify.report import REPORT_FORMAT, VerificationReport

REPORT_FILE = "verification.json"
UNSIGNED = "unsigned"
NOT_A_FILE = "not a regular file"  # the subject's entry for a FIFO, socket or device node
# Written by Python or pytest when the package runs, not part of what was verified: a
# bytecode cache is only used while it matches its source, which the subject covers.
UNVOUCHED_DIRS = frozenset({"__pycache__", ".pytest_cache"})


class NotAPackageError(EnvFactoryError):
    """The folder is not an emitted environment package."""


def locate_package(folder: Path) -> tuple[Path, str]:
    """(package root folder, import name) of an emitted package folder."""
    folder = folder.resolve()
    candidates = sorted(p.parent.parent for p in folder.glob("*/data/spec.json"))
    if not candidates:
        raise NotAPackageError(f"{folder} holds no emitted environment (no <package>/data/spec.json)")
    if len(candidates) > 1:
        raise NotAPackageError(f"{folder} holds several packages: {', '.join(p.name for p in candidates)}")
    return folder, candidates[0].name


def subject_digests(folder: Path) -> dict[str, str]:
    """sha256 of every file of the package in ``folder`` (``generated_servers/<env>/``),
    keyed by its path inside that folder: the code (``runtime/``, ``server.py``, tools),
    the data, ``pyproject.toml`` and its entry points, everything but the report itself
    and Python's caches. Symlinks are followed (what runs is what they reach)."""
    root, pkg = locate_package(folder)
    report = f"{pkg}/data/{REPORT_FILE}"
    digests: dict[str, str] = {}
    seen: set[str] = set()
    base = str(root)
    # Paths as strings, not Path objects: ``list`` digests every file of every package
    # (~3,600 for the shipped ones), and the objects cost as much as the hashing.
    for top, dirs, files in os.walk(base, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:  # a symlink loop, or a second way to reach a folder already read
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if d not in UNVOUCHED_DIRS)
        inside = os.path.relpath(top, base).replace(os.sep, "/")
        for name in files:
            rel = name if inside == "." else f"{inside}/{name}"
            if rel != report:
                digests[rel] = _file_digest(os.path.join(top, name))
    return dict(sorted(digests.items()))


def _file_digest(path: str | Path) -> str:
    """sha256 of a regular file (what a symlink reaches), read in chunks; a FIFO, socket
    or device is never opened (a FIFO would block, ``/dev/zero`` never end): it gets a
    digest no file has, which no report of a passing package holds."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        return NOT_A_FILE
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the stat
            return NOT_A_FILE
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def read_report(package_folder: Path) -> VerificationReport | None:
    """The report stored with an emitted package, or None."""
    root, pkg = locate_package(package_folder)
    path = root / pkg / "data" / REPORT_FILE
    if not path.is_file():
        return None
    return VerificationReport.model_validate_json(path.read_text(encoding="utf-8"))


def verification_status(package_folder: Path) -> str:
    """``passed`` / ``failed`` / ``stale`` (a file changed, appeared or went since the
    report, or the report is of an older format) / ``unsigned`` (a passing, current
    report that this installation did not sign: anyone can write a report, digests
    included) / ``not verified`` / ``unreadable report`` / ``unreadable package``, from
    the report stored with a package. ``packages.package_status`` believes an unsigned
    verdict for a package shipped with envfactory-mcp."""
    try:
        report = read_report(package_folder)
    except ValueError:  # pydantic's ValidationError included
        return "unreadable report"
    if report is None:
        return "not verified"
    try:
        current = subject_digests(package_folder)
    except OSError:  # e.g. a dangling symlink or a file nobody may read
        return "unreadable package"
    if report.format != REPORT_FORMAT or report.subject != current:
        return "stale"
    if not report.passed:
        return "failed"
    return "passed" if report.signed_here() else UNSIGNED
