"""This installation's signing key, and the signature it puts on a verification verdict.

A verification report is a file inside the package it describes, so whoever hands over
a package can write its report too, digests and all. What they cannot write is a
signature made with a key they never saw: ``verify`` and ``build`` sign every report
they make with this installation's key (HMAC-SHA256 over a canonical encoding of the
report's format, verdict, subject digests and environment name), and a report counts as
passed here only when that signature checks out (``provenance.verification_status``).

The key is 32 random bytes created on first use at ``$ENVFACTORY_MCP_HOME/signing.key``
(by default ``$XDG_DATA_HOME/envfactory-mcp/signing.key``, i.e.
``~/.local/share/envfactory-mcp/signing.key``), readable by its owner only (0600, in a
0700 folder). A key file that others may read or write, that is not a regular file or
not 32 bytes long is refused rather than used. Standard library only: ``serve`` checks a
signature at every start.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from pathlib import Path

from envfactory_mcp.errors import EnvFactoryError

HOME_ENV = "ENVFACTORY_MCP_HOME"
KEY_FILE = "signing.key"
KEY_BYTES = 32
SCHEME = "hmac-sha256"
_DOMAIN = "envfactory-mcp verification verdict"  # what is signed is only ever a verdict
_KEYS: dict[Path, bytes] = {}  # per process: the key of each home, once read


def data_home() -> Path:
    """envfactory-mcp's per-user folder: ``$ENVFACTORY_MCP_HOME``, else
    ``$XDG_DATA_HOME/envfactory-mcp``, else ``~/.local/share/envfactory-mcp``."""
    explicit = os.environ.get(HOME_ENV)
    if explicit:
        return Path(explicit).expanduser().absolute()
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "envfactory-mcp"


def key_path() -> Path:
    return data_home() / KEY_FILE


def private_dir(path: Path) -> Path:
    """``path`` made if missing (0700, and so are the parents it makes), returned."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    return missing[0] if missing else path


def is_private(st: os.stat_result) -> bool:
    """A regular file of this user that no one else may read or write."""
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o077


def signing_key() -> bytes:
    """This installation's key, created (0600) on first use. Raises ``EnvFactoryError``
    naming the file when an existing key cannot be used."""
    path = key_path()
    key = _read_key(path)
    if key is not None:
        return key
    try:
        _create_key(path)
    except OSError as exc:
        raise EnvFactoryError(
            f"cannot create the signing key {path} ({exc.strerror or exc}): set {HOME_ENV} to a folder "
            "this user can write, where envfactory-mcp keeps it"
        ) from None
    key = _read_key(path)
    if key is None:
        raise EnvFactoryError(f"cannot create the signing key {path}")
    return key


def _create_key(path: Path) -> None:
    private_dir(path.parent)
    staging = path.with_name(f".{KEY_FILE}.{os.getpid()}-{secrets.token_hex(4)}")
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        os.write(fd, secrets.token_bytes(KEY_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(staging, path)  # never replaces a key another process made meanwhile
    except FileExistsError:
        pass
    finally:
        staging.unlink(missing_ok=True)


def signature(*, format: str, env: str, passed: bool, subject: dict[str, str]) -> str:
    """The signature this installation puts on a verdict (creating its key if need be)."""
    return _sign(signing_key(), format=format, env=env, passed=passed, subject=subject)


def signed_here(sig: str, *, format: str, env: str, passed: bool, subject: dict[str, str]) -> bool:
    """Whether ``sig`` is this installation's signature of that verdict. False when there
    is no usable key here (nothing was ever signed here, or the key file is refused)."""
    try:
        key = _read_key(key_path())
    except EnvFactoryError:
        return False
    if key is None or not sig:
        return False
    expected = _sign(key, format=format, env=env, passed=passed, subject=subject)
    return hmac.compare_digest(expected.encode("ascii"), sig.encode("utf-8", "replace"))


def _sign(key: bytes, *, format: str, env: str, passed: bool, subject: dict[str, str]) -> str:
    message = json.dumps(
        [_DOMAIN, format, env, bool(passed), dict(sorted(subject.items()))],
        ensure_ascii=True,
        separators=(",", ":"),
    ).encode("ascii")
    return f"{SCHEME}:{hmac.new(key, message, hashlib.sha256).hexdigest()}"


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``, None when there is none; ``EnvFactoryError`` when the file
    is not one this user alone can read and write, or not a key."""
    if path in _KEYS:
        return _KEYS[path]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:  # a symlink (ELOOP), a folder, no permission
        raise EnvFactoryError(f"cannot use the signing key {path}: {exc.strerror or exc}") from None
    try:
        if not is_private(os.fstat(fd)):
            raise EnvFactoryError(
                f"refusing the signing key {path}: it must be a regular file of this user that no one "
                f"else may read or write (chmod 600 {path}, or remove it to make a new key, after which "
                "packages verified with the old one need `envfactory-mcp verify <env> --save`)"
            )
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(key) != KEY_BYTES:
        raise EnvFactoryError(f"refusing the signing key {path}: it is not {KEY_BYTES} bytes long")
    _KEYS[path] = key
    return key
