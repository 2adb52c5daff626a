"""The oracle's candidate pools kept on disk (issue 32, ``tasks/pool_cache.py``): a warm
cache gives the very tasks a cold one gives, without drawing a single call for a pool; a
cache file that is damaged, or intact but not this environment's, is ignored, and the
pools are built again and written over it; the cache can be turned off."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.seeddata import valid_arguments
from envfactory_mcp.tasks import oracle as oracle_module
from envfactory_mcp.tasks import pool_cache
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import write_tasks
from envfactory_mcp.tasks.oracle import Oracle

N, SEED = 6, 5


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder of this test's own, the cache on."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("ENVFACTORY_MCP_CACHE", str(folder))
    monkeypatch.delenv(pool_cache.ENV_VAR, raising=False)
    return folder


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the calls the oracle draws for its pools (``valid_arguments``)."""
    count = [0]

    def counting(*args: object, **kwargs: object) -> object:
        count[0] += 1
        return valid_arguments(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(oracle_module, "valid_arguments", counting)
    return count


def tasks_bytes(env: Environment, path: Path, pool_cache: bool = True) -> bytes:
    made, _ = generate_tasks(env, N, seed=SEED, pool_cache=pool_cache)
    assert len(made) == N
    write_tasks(made, path)
    return path.read_bytes()


def cache_files(cache: Path) -> list[Path]:
    return sorted((cache / pool_cache.FOLDER).glob("*.json"))


def test_a_warm_cache_gives_the_same_tasks_without_drawing_a_pool(
    retail_env: Environment, cache: Path, tmp_path: Path, draws: list[int]
) -> None:
    uncached = tasks_bytes(retail_env, tmp_path / "uncached.jsonl", pool_cache=False)
    assert draws[0] > 0 and not cache_files(cache)  # off: nothing read or written
    cold = tasks_bytes(retail_env, tmp_path / "cold.jsonl")
    (written,) = cache_files(cache)
    assert written.name.startswith(f"retail-s{SEED}-")
    assert written.stat().st_mode & 0o077 == 0  # the user's own
    draws[0] = 0
    warm = tasks_bytes(retail_env, tmp_path / "warm.jsonl")
    assert draws[0] == 0  # every pool and every rule's breakers came from the file
    assert cold == warm == uncached
    assert cache_files(cache) == [written]


def test_a_damaged_or_foreign_cache_file_is_ignored_and_rebuilt(
    retail_env: Environment, cache: Path, tmp_path: Path, draws: list[int]
) -> None:
    expected = tasks_bytes(retail_env, tmp_path / "first.jsonl")
    (path,) = cache_files(cache)
    good = path.read_bytes()
    head, _, body = good.partition(b"\n")
    state = json.loads(body)
    foreign = json.dumps({**state, "pools": [["no_such_tool", []], *state["pools"]]}).encode()
    header = json.loads(head)
    resealed = json.dumps({**header, "sha256": hashlib.sha256(foreign).hexdigest()}).encode()
    damaged = {
        "truncated": good[: len(good) // 2],
        "not json": b"\x00\xff garbage\n{",
        "empty": b"",
        "body changed": head + b"\n" + body.replace(b'"order_id"', b'"orderid"', 1),
        "another key": json.dumps({**header, "key": "0" * 64}).encode() + b"\n" + body,
        "intact but not this environment's": resealed + b"\n" + foreign + b"\n",
    }
    for what, content in damaged.items():  # each is read as no file at all
        path.write_bytes(content)
        oracle = Oracle(retail_env, SEED)
        assert pool_cache.load(oracle) is not None, what
        assert not oracle.pools and not oracle.breakers, what
    # The last one (well-formed, its digest right, but naming a tool retail lacks) through
    # a whole run: the same tasks, the pools built again and written over it.
    draws[0] = 0
    assert tasks_bytes(retail_env, tmp_path / "again.jsonl") == expected
    assert draws[0] > 0
    assert path.read_bytes() == good
    # The file as rewritten serves a fresh oracle in full.
    oracle = Oracle(retail_env, SEED)
    handle = pool_cache.load(oracle)
    assert handle is not None and oracle.pools
    assert oracle.pool_state() == state


def test_the_cache_is_off_by_the_environment_variable(
    retail_env: Environment, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(pool_cache.ENV_VAR, "off")
    tasks_bytes(retail_env, tmp_path / "off.jsonl")
    assert not cache_files(cache)


def test_pools_found_by_two_runs_are_merged(retail_env: Environment, cache: Path) -> None:
    """Two oracles of one environment and seed that built different pools (two runs at
    once): the file holds both."""
    tools = [t.name for t in retail_env.spec.tools]
    first, second = Oracle(retail_env, SEED), Oracle(retail_env, SEED)
    handle_1, handle_2 = pool_cache.load(first), pool_cache.load(second)
    first.viable(tools[0])
    second.viable(tools[1])
    assert pool_cache.save(first, handle_1) and pool_cache.save(second, handle_2)
    third = Oracle(retail_env, SEED)
    pool_cache.load(third)
    assert set(third.pools) == {tools[0], tools[1]}
    assert third.pools[tools[0]] == first.pools[tools[0]]
    assert third.pools[tools[1]] == second.pools[tools[1]]


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    pool_cache._digest_tree(digest, str(folder), "")
    return digest.hexdigest()


def test_the_code_digest_reads_no_source_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The code is known by its files' ``stat``, not their bytes: 300 files are not read
    (and hashed) at every run."""
    import builtins
    import io

    import jsonschema_rs  # noqa: F401 - imported before opening is forbidden

    def no_open(*args: object, **kwargs: object) -> object:
        raise AssertionError(f"opened {args[0]!r}")

    monkeypatch.setattr(pool_cache, "_CODE", [])
    monkeypatch.setattr(builtins, "open", no_open)
    monkeypatch.setattr(io, "open", no_open)
    digest = pool_cache.code_digest()
    monkeypatch.undo()
    assert len(digest) == 64 and pool_cache.code_digest() == pool_cache.code_digest()


def test_any_change_of_a_source_file_changes_the_code_digest(tmp_path: Path) -> None:
    """New bytes of the same size with the old modification time put back, a file added,
    removed or renamed: each gives a new digest (the status-change time and the listing
    see them); byte code and hidden folders do not count."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    module = package / "sub" / "mod.py"
    module.write_text("LIMIT = 96\n")
    (package / "top.py").write_text("x = 1\n")
    seen = {tree_digest(package)}
    assert tree_digest(package) in seen  # the same tree, the same digest

    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "cached.py").write_text("")
    (package / ".hidden").mkdir()
    (package / ".hidden" / "h.py").write_text("")
    (package / "notes.txt").write_text("")
    assert tree_digest(package) in seen

    before = module.stat()
    module.write_text("LIMIT = 64\n")  # same size
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))  # the old modification time
    assert module.stat().st_size == before.st_size and module.stat().st_mtime_ns == before.st_mtime_ns
    changed = tree_digest(package)
    assert changed not in seen
    seen.add(changed)

    (package / "sub" / "new.py").write_text("")
    seen.add(added := tree_digest(package))
    assert len(seen) == 3
    (package / "sub" / "new.py").rename(package / "sub" / "renamed.py")
    seen.add(renamed := tree_digest(package))
    assert len(seen) == 4 and renamed != added
    (package / "sub" / "renamed.py").unlink()
    assert tree_digest(package) == changed  # back to the files it had
