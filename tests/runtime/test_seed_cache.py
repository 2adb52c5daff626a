"""Seed images kept across starts (runtime/cache.py): the bytes ``build_seed_image`` makes,
built once per user and set of files, never an older builder's, never a damaged file's,
never a refused seed's, and the folder bounded."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from paths import SERVERS_DIR

from envfactory_mcp.runtime import cache
from envfactory_mcp.runtime.calls import Calls
from envfactory_mcp.runtime.database import SeedLoadError, build_seed_image
from envfactory_mcp.runtime.server import Bundle, ServerOptions

SCHEMA = "CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL) STRICT;\n"
SEED = "INSERT INTO users VALUES ('u1', 'Ann'), ('u2', 'Bob');\n"


class Counted:
    """``build_seed_image`` that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, schema_sql: str, seed_sql: str, *, own_triggers: bool = False) -> bytes:
        self.calls += 1
        return build_seed_image(schema_sql, seed_sql, own_triggers=own_triggers)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Counted:
    counted = Counted()
    monkeypatch.setattr(cache, "build_seed_image", counted)
    return counted


def kept(folder: Path) -> list[Path]:
    return sorted(folder.glob("*" + cache.SUFFIX))


def test_an_image_is_built_once_and_read_back_byte_for_byte(tmp_path: Path, builds: Counted) -> None:
    folder = tmp_path / "seed-images"
    first = cache.seed_image(SCHEMA, SEED, folder=folder)
    again = cache.seed_image(SCHEMA, SEED, folder=folder)
    assert first == again == build_seed_image(SCHEMA, SEED)
    assert builds.calls == 1
    (path,) = kept(folder)
    assert path.name == cache.image_key(SCHEMA, SEED) + cache.SUFFIX
    assert folder.stat().st_mode & 0o777 == 0o700 and path.stat().st_mode & 0o777 == 0o600  # private
    assert [p.name for p in folder.iterdir()] == [path.name]  # no temporary file left


def test_what_makes_the_image_is_in_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = cache.image_key(SCHEMA, SEED)
    others = {
        cache.image_key(SCHEMA + "\n", SEED),
        cache.image_key(SCHEMA, SEED + "\n"),
        cache.image_key(SCHEMA + SEED, ""),  # the same text split otherwise
        cache.image_key(SCHEMA, SEED, own_triggers=True),
    }
    monkeypatch.setattr(sqlite3, "sqlite_version", "0.0.1")
    others.add(cache.image_key(SCHEMA, SEED))
    monkeypatch.undo()
    monkeypatch.setattr(cache, "_builder_digest", lambda: b"another builder")
    others.add(cache.image_key(SCHEMA, SEED))
    assert plain not in others and len(others) == 6


def test_a_changed_builder_builds_again(
    tmp_path: Path, builds: Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.seed_image(SCHEMA, SEED, folder=tmp_path)
    monkeypatch.setattr(cache, "_builder_digest", lambda: b"database.py edited")
    assert cache.seed_image(SCHEMA, SEED, folder=tmp_path) == build_seed_image(SCHEMA, SEED)
    assert builds.calls == 2 and len(kept(tmp_path)) == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-1],  # cut short
        lambda data: data[:10],  # shorter than the digest
        lambda data: data[:40] + bytes([data[40] ^ 1]) + data[41:],  # one bit of the image
        lambda data: bytes([data[0] ^ 1]) + data[1:],  # one bit of the digest
        lambda data: b"",
    ],
    ids=["truncated", "stub", "image-bit", "digest-bit", "empty"],
)
def test_a_damaged_file_is_built_again_and_rewritten(
    tmp_path: Path, builds: Counted, damage: Callable[[bytes], bytes]
) -> None:
    good = cache.seed_image(SCHEMA, SEED, folder=tmp_path)
    (path,) = kept(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    assert cache.seed_image(SCHEMA, SEED, folder=tmp_path) == good
    assert builds.calls == 2
    assert cache.seed_image(SCHEMA, SEED, folder=tmp_path) == good  # rewritten whole
    assert builds.calls == 2


def test_a_refused_seed_raises_and_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(SeedLoadError, match=r"seed\.sql refused"):
        cache.seed_image(SCHEMA, SEED + "DELETE FROM users;\n", folder=tmp_path)
    with pytest.raises(SeedLoadError, match=r"seed\.sql failed"):
        cache.seed_image(SCHEMA, SEED + "INSERT INTO users VALUES ('u1', 'dup');\n", folder=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_cannot_be_written_only_means_building(tmp_path: Path, builds: Counted) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    for _ in range(2):
        assert cache.seed_image(SCHEMA, SEED, folder=blocked / "seed-images") == build_seed_image(
            SCHEMA, SEED
        )
    assert builds.calls == 2
    assert list(tmp_path.iterdir()) == [blocked]


def test_the_least_recently_used_images_go_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_IMAGES", 2)
    seeds = [SEED + f"INSERT INTO users VALUES ('x{i}', 'X');\n" for i in range(3)]
    keys = [cache.image_key(SCHEMA, seed) for seed in seeds]
    cache.seed_image(SCHEMA, seeds[0], folder=tmp_path)
    cache.seed_image(SCHEMA, seeds[1], folder=tmp_path)
    for n, key in enumerate(keys[:2]):  # the first older than the second ...
        os.utime(tmp_path / (key + cache.SUFFIX), (1000 + n, 1000 + n))
    cache.seed_image(SCHEMA, seeds[0], folder=tmp_path)  # ... until it is used again
    cache.seed_image(SCHEMA, seeds[2], folder=tmp_path)
    assert [p.name for p in kept(tmp_path)] == sorted(k + cache.SUFFIX for k in (keys[0], keys[2]))


def test_a_server_reads_its_seed_image_from_the_cache(
    tmp_path: Path, builds: Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "unused"))  # the option's folder, not this
    bundle = Bundle.from_package(SERVERS_DIR / "retail" / "retail_mcp", jailed=False)
    images = [
        Calls(bundle, ServerOptions(control=True, seed_cache=tmp_path / cache.FOLDER)).store._seed_image
        for _ in range(2)
    ]
    assert images[0] == images[1] == build_seed_image(bundle.schema_sql, bundle.seed_sql)
    assert builds.calls == 1
    assert len(kept(tmp_path / cache.FOLDER)) == 1
    # Without the option (a library caller's default, the jailed verifier's server) the
    # image is built from the SQL and nothing is read or kept.
    assert Calls(bundle, ServerOptions(control=True)).store._seed_image == images[0]
    assert not (tmp_path / "unused").exists()


def test_the_cache_home_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "c"))
    assert cache.cache_home() == tmp_path / "c"
    monkeypatch.delenv(cache.CACHE_ENV)
    monkeypatch.setenv(cache.HOME_ENV, str(tmp_path / "h"))
    assert cache.cache_home() == tmp_path / "h" / "cache"
    monkeypatch.delenv(cache.HOME_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache.cache_home() == tmp_path / "x" / "envfactory-mcp"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_home() == tmp_path / "home" / ".cache" / "envfactory-mcp"


def test_the_command_lines_server_keeps_its_image(tmp_path: Path) -> None:
    # Started and stopped (end of input) twice: the first start builds and keeps the image,
    # the second reads it (its file is used again, not rewritten).
    env = {**os.environ, cache.CACHE_ENV: str(tmp_path)}
    package = SERVERS_DIR / "retail" / "retail_mcp"
    command = [sys.executable, "-m", "envfactory_mcp.runtime", str(package), "--control"]
    inodes = []
    for _ in range(2):
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr[-500:]
        (path,) = kept(tmp_path / cache.FOLDER)
        inodes.append(path.stat().st_ino)
    assert inodes[0] == inodes[1]
    bundle = Bundle.from_package(package, jailed=False)
    assert path.name == cache.image_key(bundle.schema_sql, bundle.seed_sql) + cache.SUFFIX


def test_pruning_skips_an_image_another_process_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Servers side by side prune the same folder: an entry listed but gone by the time it
    # is looked at is skipped (and the listing closed), the rest pruned as usual.
    monkeypatch.setattr(cache, "MAX_IMAGES", 1)
    seeds = [SEED + f"INSERT INTO users VALUES ('y{i}', 'Y');\n" for i in range(2)]
    for seed in seeds:
        cache.seed_image(SCHEMA, seed, folder=tmp_path)
    real_scandir = os.scandir

    class Vanishing:
        """``os.scandir`` whose first image entry is removed before it is looked at."""

        def __init__(self, path: Path) -> None:
            self.inner = real_scandir(path)
            self.closed = False

        def __enter__(self) -> Vanishing:
            return self

        def __exit__(self, *exc: object) -> None:
            self.closed = True
            self.inner.close()

        def __iter__(self) -> Iterator[os.DirEntry[str]]:
            first = True
            for entry in self.inner:
                if first and entry.name.endswith(cache.SUFFIX):
                    os.unlink(entry.path)
                    first = False
                yield entry

    opened: list[Vanishing] = []

    def scandir(path: Path) -> Vanishing:
        opened.append(Vanishing(path))
        return opened[-1]

    monkeypatch.setattr(os, "scandir", scandir)
    cache.seed_image(SCHEMA, SEED, folder=tmp_path)  # a third image: prune to one
    monkeypatch.undo()
    assert opened and all(listing.closed for listing in opened)
    assert len(kept(tmp_path)) == 1
