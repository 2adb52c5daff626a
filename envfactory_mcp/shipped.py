"""Which packages are shipped code: a lookup in what ``build`` recorded, nothing rendered.

A package is shipped code when every file of it (all that a verification report's subject
covers, the report aside; no symlink, nothing else) is what envfactory-mcp's ``build``
wrote for the blueprint of the same name. Two records say so, each as the number of files
and one sha256 over them (``package_digest``, the format of ``manifest.py``):

- the checkout's ``generated_servers/MANIFEST.json``, the project's statement for every
  shipped blueprint at its default seed (committed beside the source, read only from the
  checkout this module runs from, never from a servers directory a caller names; tests
  and CI hold it to what the source renders: ``python -m envfactory_mcp.manifest --check``);
- this user's build records, ``<data home>/shipped/<env>-<seed>.json`` (0600, in the folder
  that holds the signing key, ``verify/signing.py``), written by ``build`` for what it
  rendered from the blueprint and believed only when this user's own, private, and made by
  the same envfactory-mcp source (a digest of its files and the Python version): a build
  with another seed, or an installation without a checkout, is recognised too, and a record
  made before the source changed vouches for nothing.

Deciding costs one read of the package's files and of two small JSON files: no blueprint
is loaded, no code generated or compiled (``serve`` asks at every start). The user's record
is read only for a package the checkout's manifest does not vouch for (believing a record
digests this installation's source first).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

MANIFEST_FILE = "MANIFEST.json"
MANIFEST_FORMAT = "envfactory-package-manifest/1"
RECORD_FORMAT = "envfactory-build-record/1"
RECORDS_DIR = "shipped"  # folder of the data home holding this user's build records

_SOURCE_KEY: list[str] = []  # per process: the digest of this installation's source files


def package_digest(files: Mapping[str, str] | Mapping[str, bytes]) -> str:  # text or bytes
    """``sha256:<hex>`` over a package's files: path and content, in path order."""
    digest = hashlib.sha256()
    items: list[tuple[str, str | bytes]] = sorted(files.items())
    for path, content in items:
        data = content.encode() if isinstance(content, str) else content
        digest.update(path.encode() + b"\0" + data + b"\0")
    return f"sha256:{digest.hexdigest()}"


def entry(files: Mapping[str, str], pkg: str) -> dict[str, object]:
    """A manifest's or a record's entry for a package's files (``{path: text}``), its
    verification report left out: ``{"files": n, "digest": "sha256:..."}``."""
    from envfactory_mcp.verify.provenance import REPORT_FILE

    report = f"{pkg}/data/{REPORT_FILE}"
    kept = {path: text for path, text in files.items() if path != report}
    return {"files": len(kept), "digest": package_digest(kept)}


def entry_on_disk(root: Path, pkg: str) -> dict[str, object] | None:
    """``entry`` of the package in ``root`` as it is on disk (the report and Python's
    caches aside), or None when it holds a symlink, anything but regular files and
    folders, or a file that cannot be read."""
    from envfactory_mcp.verify.provenance import REPORT_FILE, UNVOUCHED_DIRS

    report = f"{pkg}/data/{REPORT_FILE}"
    contents: dict[str, bytes] = {}
    try:
        for top, dirs, names in os.walk(root, followlinks=False):
            for name in dirs:
                if (Path(top) / name).is_symlink():
                    return None
            dirs[:] = [d for d in dirs if d not in UNVOUCHED_DIRS]
            for name in names:
                path = Path(top) / name
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO would block
                try:
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        return None
                    with open(fd, "rb", closefd=False) as fh:
                        data = fh.read()
                finally:
                    os.close(fd)
                rel = path.relative_to(root).as_posix()
                if rel != report:
                    contents[rel] = data
    except OSError:  # a symlink (ELOOP), a file nobody may read
        return None
    return {"files": len(contents), "digest": package_digest(contents)}


def checkout_manifest() -> Path | None:
    """``generated_servers/MANIFEST.json`` of the checkout this module runs from (beside
    the project's ``pyproject.toml``), else None."""
    root = Path(__file__).resolve().parent.parent
    path = root / DEFAULT_SERVERS_DIR / MANIFEST_FILE
    return path if path.is_file() and (root / "pyproject.toml").is_file() else None


def manifest_entry(env: str) -> dict[str, object] | None:
    """The checkout manifest's entry for ``env``, or None (no checkout, no such entry, a
    file that cannot be read)."""
    path = checkout_manifest()
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        found = data["packages"].get(env) if data.get("format") == MANIFEST_FORMAT else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return found if isinstance(found, dict) else None


def record_path(env: str, seed: int) -> Path:
    from envfactory_mcp.verify.signing import data_home

    return data_home() / RECORDS_DIR / f"{env}-{seed}.json"


def record_build(env: str, seed: int, files: Mapping[str, str]) -> None:
    """Note that ``build`` wrote ``files`` (``{path: text}``, the report may be among them)
    as the package of blueprint ``env`` built with ``seed``. Only ``build`` calls this,
    with what it rendered from the blueprint itself: never for a synthesised, imported or
    upgraded package. A home that cannot be written keeps no record (the package then runs
    jailed, as code nobody vouched for)."""
    from envfactory_mcp.emit.render import package_name
    from envfactory_mcp.files import write_json
    from envfactory_mcp.verify.signing import private_dir

    path = record_path(env, seed)
    record = {"format": RECORD_FORMAT, "key": source_key(), "env": env, "seed": seed}
    record |= entry(files, package_name(env))
    try:
        private_dir(path.parent)
        write_json(path, record, indent=None, sort_keys=True, new_mode=0o600)
        path.chmod(0o600)  # a file that was there kept its mode through the rewrite
    except OSError:
        pass


def recorded_entry(env: str, seed: int) -> dict[str, object] | None:
    """This user's build record for ``env`` at ``seed`` as an ``entry``, when it is this
    user's own file, unwritable and unreadable by others, and made by this installation's
    source; else None."""
    from envfactory_mcp.verify.signing import is_private

    try:
        fd = os.open(record_path(env, seed), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        with open(fd, "rb", closefd=False) as fh:
            if not is_private(os.fstat(fd)):
                return None
            record = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        return None
    if (record.get("env"), record.get("seed")) != (env, seed) or record.get("key") != source_key():
        return None
    return {"files": record.get("files"), "digest": record.get("digest")}


def is_shipped(root: Path, pkg: str, env: str, seed: int) -> bool:
    """Whether the package in ``root`` (``<pkg>`` inside) is what ``build`` wrote for
    blueprint ``env`` with ``seed``, by the checkout's manifest or this user's record."""
    on_disk = entry_on_disk(root, pkg)
    if on_disk is None:
        return False
    # The manifest first: the build record is read only when it does not match, since
    # believing a record digests this installation's source (``source_key``, ~16 ms).
    return on_disk == manifest_entry(env) or on_disk == recorded_entry(env, seed)


def source_key() -> str:
    """A digest of what renders a package here: every file of the installed
    envfactory_mcp (caches aside) and the Python version; once per process."""
    if _SOURCE_KEY:
        return _SOURCE_KEY[0]
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"envfactory-mcp build records 1\n{sys.version}\n".encode())
    for top, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(top) / name
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    _SOURCE_KEY.append(digest.hexdigest())
    return _SOURCE_KEY[0]
