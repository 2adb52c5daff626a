"""The oracle's candidate pools kept on disk between runs (issue 32).

``Oracle.viable`` and ``Oracle.breaking`` try thousands of drawn calls on the seed to find
the ones a tool takes (and the ones only a declared business rule refuses): most of the CPU
of ``envfactory-mcp tasks``. What they find depends only on the environment (its spec,
tool code, schema and seed rows), the oracle's seed and pool sizes, and the code that draws
and runs the calls, so it is kept in the user's cache folder under a key that is a digest
of all of these: ``<cache>/oracle-pools/<env>-s<seed>-<key>.json``, where ``<cache>`` is
``runtime.cache.cache_home()`` (``$ENVFACTORY_MCP_CACHE``, else
``$ENVFACTORY_MCP_HOME/cache``, else ``$XDG_CACHE_HOME/envfactory-mcp``, else
``~/.cache/envfactory-mcp``). The code's part of the key is every ``.py`` file of the
installed ``envfactory_mcp`` with the Python, SQLite and jsonschema_rs versions: any
change to the code starts a new file (and removes that environment and seed's old ones).

A file is one header line (format, key, environment, seed, sha256 of the rest) and the
pools as JSON. It is read only when everything in the header matches; a file that cannot
be read, does not match its digest or does not fit the environment is ignored, and the
pools are built again and written over it. Pools are written only when JSON gives them
back exactly (types and key order: the tasks are the same byte for byte), atomically
(``files.write_text``: a reader sees the old file or the new one), merged with what another
run wrote meanwhile (pools are deterministic: both hold the same calls for a tool). Set
``ENVFACTORY_MCP_POOL_CACHE=off`` (or ``tasks --no-pool-cache``) to neither read nor write.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from envfactory_mcp.tasks.oracle import Oracle

FORMAT = "envfactory-oracle-pools/1"
ENV_VAR = "ENVFACTORY_MCP_POOL_CACHE"
FOLDER = "oracle-pools"
_OFF = {"0", "off", "no", "false"}
_CODE: list[str] = []  # the code digest, once per process


@dataclass
class Handle:
    """Where an oracle's pools live on disk, and what was there when they were read."""

    path: Path
    key: str
    loaded: tuple[frozenset[str], frozenset[tuple[str, int]]]  # (pooled tools, searched breakers)


def enabled() -> bool:
    """Whether the cache is on (``ENVFACTORY_MCP_POOL_CACHE`` is not off, 0, no or false)."""
    return os.environ.get(ENV_VAR, "").strip().lower() not in _OFF


def cache_folder() -> Path:
    from envfactory_mcp.runtime.cache import cache_home

    return cache_home() / FOLDER


def code_digest() -> str:
    """A digest of what draws and runs the calls: every ``.py`` file of ``envfactory_mcp``
    (the generator's version), the Python and SQLite versions and the jsonschema_rs build.
    A file is known by its path and its ``stat``: size, inode, and the modification and
    status-change times in nanoseconds (as git's index knows a file unchanged). Writing a
    file sets its status-change time to now (no call sets it back), so any change of the
    code gives a new digest without reading 300 files (a file written again with the same
    bytes, or another checkout, only makes a new cache file)."""
    if _CODE:
        return _CODE[0]
    import jsonschema_rs

    digest = hashlib.sha256(f"{FORMAT}\n{sys.version}\n{sqlite3.sqlite_version}\n".encode())
    extension = Path(jsonschema_rs.__file__ or "")
    try:
        st = extension.stat()
        digest.update(f"{extension}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    except OSError:
        digest.update(b"jsonschema_rs ?\n")
    _digest_tree(digest, os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "")
    _CODE.append(digest.hexdigest())
    return _CODE[0]


def _digest_tree(digest: Any, folder: str, prefix: str) -> None:
    """Adds each ``.py`` file under ``folder`` (``__pycache__`` and hidden folders aside),
    in name order, as its path under the package and its ``stat`` identity."""
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__" and not entry.name.startswith("."):
                _digest_tree(digest, entry.path, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".py"):
            st = entry.stat()
            digest.update(
                f"{prefix}{entry.name}\0{st.st_size}\0{st.st_ino}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\n".encode()
            )


def pool_key(oracle: Oracle) -> str:
    """The digest of everything ``oracle``'s pools depend on."""
    env = oracle.env
    digest = hashlib.sha256()
    parts = [
        code_digest(),
        f"{oracle.seed} {oracle.pool_size} {oracle.pool_attempts}",
        type(env.tools_module).__name__,  # in process or jailed
        json.dumps(oracle.spec_json),  # the spec as its spec.json holds it
        env.tools_source,
        env.schema_sql,
        env.seed_sql,
    ]
    for part in parts:
        data = part.encode("utf-8")
        digest.update(f"{len(data)}\n".encode() + data)
    return digest.hexdigest()


def load(oracle: Oracle) -> Handle | None:
    """Fills ``oracle``'s pools from the cache when a usable file is there; the handle to
    ``save`` them with later, or None when the cache is off."""
    if not enabled():
        return None
    try:
        key = pool_key(oracle)
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", oracle.env.spec.name)
        path = cache_folder() / f"{name}-s{oracle.seed}-{key[:32]}.json"
    except (OSError, ValueError, UnicodeError):
        return None
    state = _read(path, key, oracle)
    if state is not None:
        oracle.restore_pools(state)
    return Handle(path, key, _extent(oracle))


def save(oracle: Oracle, handle: Handle | None) -> bool:
    """Writes ``oracle``'s pools when they grew since ``load`` (merged with what the file
    holds now); True when written. Never raises for a folder that cannot be written."""
    if handle is None or _extent(oracle) == handle.loaded:
        return False
    state = oracle.pool_state()
    theirs = _read(handle.path, handle.key, oracle)
    if theirs is not None:
        state = _merge(state, theirs)
    body = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
    if not _same(json.loads(body), state):  # JSON would not give these calls back exactly
        return False
    header = {
        "format": FORMAT,
        "key": handle.key,
        "env": oracle.env.spec.name,
        "seed": oracle.seed,
        "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
    }
    from envfactory_mcp import files
    from envfactory_mcp.verify.signing import private_dir

    try:
        private_dir(handle.path.parent)
        files.write_text(handle.path, json.dumps(header, sort_keys=True) + "\n" + body + "\n", new_mode=0o600)
    except OSError:
        return False
    _prune(handle.path)
    return True


def _extent(oracle: Oracle) -> tuple[frozenset[str], frozenset[tuple[str, int]]]:
    state = oracle.pool_state()
    return frozenset(t for t, _ in state["pools"]), frozenset((t, r) for t, r in state["searched"])


def _read(path: Path, key: str, oracle: Oracle) -> dict[str, Any] | None:
    """The pools in ``path`` when it is an intact file of this key that fits ``oracle``'s
    environment, else None."""
    try:
        raw = path.read_bytes()
        head, _, body = raw.partition(b"\n")
        header = json.loads(head)
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key:
            return None
        if header.get("sha256") != hashlib.sha256(body.rstrip(b"\n")).hexdigest():
            return None
        state = json.loads(body)
    except (OSError, ValueError):
        return None
    return state if _fits(state, oracle) else None


def _fits(state: Any, oracle: Oracle) -> bool:
    """Whether ``state`` has ``Oracle.pool_state``'s shape, for this environment's tools
    and declared rules."""
    if not isinstance(state, dict) or set(state) != {"pools", "breakers", "searched"}:
        return False
    tools, rules = oracle.params, oracle.business_rules

    def calls(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(c, dict) for c in value)

    def rule_of(tool: Any, rule: Any) -> bool:
        return (
            tool in tools and type(rule) is int and 0 <= rule < len(rules) and rules[rule].get("tool") == tool
        )

    pools, breakers, searched = state["pools"], state["breakers"], state["searched"]
    if not (isinstance(pools, list) and isinstance(breakers, list) and isinstance(searched, list)):
        return False
    pooled = set()
    for entry in pools:
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] in tools and calls(entry[1])):
            return False
        pooled.add(entry[0])
    for entry in breakers:
        if not (isinstance(entry, list) and len(entry) == 3 and rule_of(entry[0], entry[1])):
            return False
        if entry[0] not in pooled or not calls(entry[2]):
            return False
    for entry in searched:
        if not (isinstance(entry, list) and len(entry) == 2 and rule_of(*entry) and entry[0] in pooled):
            return False
    return True


def _merge(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """``ours`` with what only ``theirs`` found: the pools of tools we never tried (with the
    breakers their draws noted) and the breakers of rules we never searched."""
    pools = dict((t, p) for t, p in ours["pools"])
    breakers = {(t, r): c for t, r, c in ours["breakers"]}
    searched = {(t, r) for t, r in ours["searched"]}
    new_tools = {t for t, _ in theirs["pools"] if t not in pools}
    their_searched = {(t, r) for t, r in theirs["searched"]}
    for tool, pool in theirs["pools"]:
        if tool in new_tools:
            pools[tool] = pool
    for tool, rule, found in theirs["breakers"]:
        if tool in new_tools or ((tool, rule) in their_searched and (tool, rule) not in searched):
            breakers[(tool, rule)] = found
    searched |= {(t, r) for t, r in their_searched if t in new_tools or (t, r) not in searched}
    return {
        "pools": [[t, p] for t, p in pools.items()],
        "breakers": [[t, r, c] for (t, r), c in breakers.items()],
        "searched": sorted([t, r] for t, r in searched),
    }


def _same(a: Any, b: Any) -> bool:
    """Equal with the same types and key order throughout (``1`` is not ``1.0``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _prune(current: Path) -> None:
    """Removes the files of this environment and seed made under other keys (older code or
    another environment of the name): they would never be read by this installation again."""
    stem = current.name.rsplit("-", 1)[0]  # <env>-s<seed>
    try:
        for other in current.parent.glob(f"{stem}-*.json"):
            if other != current and other.name.rsplit("-", 1)[0] == stem:
                other.unlink(missing_ok=True)
    except OSError:
        pass
