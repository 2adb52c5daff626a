# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""What a server keeps across starts: the seed images it built, in the per-user cache.

Building a seed image runs ``schema.sql`` and ``seed.sql`` under the seed guard, checks
every foreign key and vacuums the result (``database.build_seed_image``): ~60 ms of CPU for
retail's 1764 rows, a quarter of a server's start, and the same bytes every time for the
same files. ``seed_image`` keeps them, as Python keeps compiled bytecode beside a module:
in ``cache_home()/seed-images``, one file per image, named by the SHA-256 of what makes it
(the two SQL files, the triggers flag, the SQLite library's version and the source of this
module, ``database.py`` and ``state.py``, so a changed builder never reads an older image),
holding a SHA-256 of the rest, then every table's digest of the image (``state.py``, as
JSON: a server that reads them never scans its seed to hash it) and the image. A file that is short, altered or unreadable is built
again and rewritten; a folder that cannot be written (a read-only home, a jail) only
means building every time. Writes go to a temporary file renamed into place, so servers
starting side by side never read half an image. The folder keeps at most
``MAX_IMAGES`` images: the least recently used go first.

What is cached is only ever ``build_seed_image``'s own output for exactly those files: a
seed that the guard refuses or that breaks a constraint raises as before and leaves
nothing behind. Verification builds from the SQL itself (``verify/worker.py``), never
from here. Anyone who can write the cache folder can already change what the user's
Python runs (``__pycache__``, ``site-packages``); the folder is made private (0700) and
each image is checked against its digest before use.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
from pathlib import Path

from .database import PAGE_SIZE, build_seed_image, know_digests, seed_digests

HOME_ENV = "ENVFACTORY_MCP_HOME"
CACHE_ENV = "ENVFACTORY_MCP_CACHE"
FOLDER = "seed-images"
SUFFIX = ".sqlite-image"
MAX_IMAGES = 64
_DIGEST = hashlib.sha256().digest_size
_SIZE = 8  # bytes of the length of the digests' JSON, which comes before the image


def cache_home() -> Path:
    """Where envfactory-mcp keeps what it can make again (seed images here, the oracle's
    candidate pools in ``tasks/pool_cache.py``): ``$ENVFACTORY_MCP_CACHE``,
    else ``$ENVFACTORY_MCP_HOME/cache``, else ``$XDG_CACHE_HOME/envfactory-mcp``, else
    ``~/.cache/envfactory-mcp``."""
    if explicit := os.environ.get(CACHE_ENV):
        return Path(explicit).expanduser().absolute()
    if home := os.environ.get(HOME_ENV):
        return Path(home).expanduser().absolute() / "cache"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "envfactory-mcp"


def image_folder() -> Path | None:
    """Where seed images are kept: ``cache_home()/seed-images`` (None when this user has
    no home folder to find)."""
    try:
        return cache_home() / FOLDER
    except (RuntimeError, KeyError):  # Path.home() without $HOME or a passwd entry
        return None


@functools.cache
def _builder_digest() -> bytes:
    """The builder's part of every key: this module's, ``database.py``'s and ``state.py``'s
    source (the last defines the table digests kept with the image)."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in ("cache.py", "database.py", "state.py"):
        digest.update((here / name).read_bytes())
    return digest.digest()


def image_key(schema_sql: str, seed_sql: str, *, own_triggers: bool = False) -> str:
    """The name of the image ``build_seed_image(schema_sql, seed_sql)`` makes, in hex."""
    key = hashlib.sha256(b"envfactory-mcp seed image\0")
    key.update(_builder_digest())
    key.update(f"{sqlite3.sqlite_version}\0{PAGE_SIZE}\0{int(own_triggers)}\0".encode())
    for text in (schema_sql, seed_sql):
        data = text.encode("utf-8", "surrogatepass")
        key.update(len(data).to_bytes(8, "big"))
        key.update(data)
    return key.hexdigest()


def seed_image(
    schema_sql: str, seed_sql: str, *, own_triggers: bool = False, folder: Path | None = None
) -> bytes:
    """``build_seed_image(schema_sql, seed_sql)``, read from the cache where it was built
    before (see the module); ``folder`` defaults to ``image_folder()``."""
    folder = folder if folder is not None else image_folder()
    if folder is None:
        return build_seed_image(schema_sql, seed_sql, own_triggers=own_triggers)
    path = folder / (image_key(schema_sql, seed_sql, own_triggers=own_triggers) + SUFFIX)
    kept = _read(path)
    if kept is not None:
        image, digests = kept
        if digests is not None:
            know_digests(image, digests)
        return image
    image = build_seed_image(schema_sql, seed_sql, own_triggers=own_triggers)
    _write(folder, path, image)
    return image


def _read(path: Path) -> tuple[bytes, dict[str, int] | None] | None:
    """The image kept at ``path`` and its tables' digests when the file is whole and
    unaltered, else None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, body = data[:_DIGEST], data[_DIGEST:]
    if len(digest) != _DIGEST or hashlib.sha256(body).digest() != digest:
        return None
    size = int.from_bytes(body[:_SIZE], "big")
    if len(body) < _SIZE + size:
        return None
    try:
        kept = json.loads(body[_SIZE : _SIZE + size])
        digests = {str(name): int(value, 16) for name, value in kept.items()}
    except (ValueError, TypeError, AttributeError):
        digests = None
    try:
        os.utime(path)  # recently used: pruned last
    except OSError:
        pass
    return body[_SIZE + size :], digests


def _write(folder: Path, path: Path, image: bytes) -> None:
    """Keep ``image`` at ``path``, with its tables' digests (atomically; nothing when the
    folder cannot be written)."""
    import tempfile  # only when an image is built

    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    except OSError:
        return
    try:
        try:
            digests = {name: f"{value:x}" for name, value in seed_digests(image).items()}
            kept = json.dumps(digests).encode("utf-8")
        except (TypeError, ValueError, sqlite3.Error):  # rows that have no digest (blobs)
            kept = b""  # none kept: a session that hashes says why, as without the cache
        body = len(kept).to_bytes(_SIZE, "big") + kept + image
        with open(handle, "wb") as out:
            out.write(hashlib.sha256(body).digest())
            out.write(body)
        os.replace(name, path)
    except OSError:
        try:
            os.unlink(name)
        except OSError:
            pass
        return
    _prune(folder)


def _prune(folder: Path) -> None:
    """Drop the least recently used images beyond ``MAX_IMAGES`` (another process may be
    pruning the same folder: a file gone meanwhile is skipped)."""
    kept: list[tuple[float, str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(SUFFIX):
                    try:
                        kept.append((entry.stat().st_mtime, entry.path))
                    except OSError:
                        continue
    except OSError:
        return
    for _, old in sorted(kept)[: max(0, len(kept) - MAX_IMAGES)]:
        try:
            os.unlink(old)
        except OSError:
            pass
