"""The report vouches for every file of the package: code, runtime, entry points, data.
Any change to them makes the package ``stale``; what Python writes while running it does not."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from paths import SERVERS_DIR

from envfactory_mcp.verify.provenance import REPORT_FILE, read_report, verification_status

PKG = "retail_mcp"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of the committed retail package with its report signed here (it was signed,
    if at all, where it was built): what follows is about the report's subject."""
    dest = tmp_path / "retail"
    shutil.copytree(SERVERS_DIR / "retail", dest, ignore=shutil.ignore_patterns("__pycache__"))
    report = read_report(dest)
    assert report is not None
    (dest / PKG / "data" / REPORT_FILE).write_text(report.signed().to_json(), encoding="utf-8")
    assert verification_status(dest) == "passed"
    return dest


def test_the_subject_is_every_file_but_the_report(package: Path):
    report = read_report(package)
    assert report is not None
    shipped = {p.relative_to(package).as_posix() for p in package.rglob("*") if p.is_file()}
    assert set(report.subject) == shipped - {f"{PKG}/data/{REPORT_FILE}"}
    assert {
        f"{PKG}/runtime/toolbox.py",
        f"{PKG}/runtime/database.py",
        f"{PKG}/server.py",
        f"{PKG}/__main__.py",
        "pyproject.toml",
    } <= set(report.subject)


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    "change",
    [
        lambda p: replace(p / PKG / "runtime" / "toolbox.py", "db.set_authorizer(guard)\n", "\n"),
        lambda p: replace(p / PKG / "runtime" / "database.py", '"', "'"),
        lambda p: replace(p / PKG / "server.py", "def main(", "import os\n\n\ndef main("),
        lambda p: replace(p / "pyproject.toml", '"retail_mcp.server:main"', '"retail_mcp.evil:main"'),
        lambda p: (p / PKG / "evil.py").write_text("import os\n", encoding="utf-8"),
        lambda p: (p / PKG / "runtime" / "context.py").unlink(),
        lambda p: (p / PKG / "sitecustomize.pyc").write_bytes(b"\x00"),
    ],
    ids=[
        "authorizer-removed",
        "runtime-edited",
        "server.py",
        "entry-point",
        "file-added",
        "file-removed",
        "pyc",
    ],
)
def test_any_change_to_the_package_makes_it_stale(change, package: Path):
    change(package)
    assert verification_status(package) == "stale"


def test_caches_python_writes_while_running_do_not_make_it_stale(package: Path):
    cache = package / PKG / "runtime" / "__pycache__"
    cache.mkdir()
    (cache / "toolbox.cpython-311.pyc").write_bytes(b"\x00")
    (package / ".pytest_cache").mkdir()
    (package / ".pytest_cache" / "README.md").write_text("cache", encoding="utf-8")
    assert verification_status(package) == "passed"
    (package / PKG / "runtime" / "toolbox.py").write_text("", encoding="utf-8")
    assert verification_status(package) == "stale"


def test_a_report_of_the_old_format_is_stale(package: Path):
    path = package / PKG / "data" / REPORT_FILE
    report = json.loads(path.read_text(encoding="utf-8"))
    report["format"] = "envfactory-verification/1"  # vouched for spec, schema, seed and tools only
    report["subject"] = {
        name: hashlib.sha256((package / PKG / name).read_bytes()).hexdigest()
        for name in ("data/spec.json", "data/schema.sql", "data/seed.sql", "tools.py")
    }
    path.write_text(json.dumps(report), encoding="utf-8")
    assert verification_status(package) == "stale"
