"""Issue 25, part 4: a verdict counts when this installation signed it, or when the
package is shipped code, every file of it what this installation renders for the
blueprint of that name.

Anyone who edits a package can recompute its report's digests; nobody without this
installation's key can sign them. The suite runs with a home of its own
(``ENVFACTORY_MCP_HOME``, tests/conftest.py), so the committed packages, built
elsewhere, carry no signature that counts here: exactly a fresh clone's situation."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp import packages
from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.build import emit_verified
from envfactory_mcp.cli import app
from envfactory_mcp.emit import render_package
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.packages import UnverifiedPackageError, check_runnable, is_shipped_code, package_status
from envfactory_mcp.runtime.isolation import jail_problem
from envfactory_mcp.verify import signing
from envfactory_mcp.verify.provenance import (
    REPORT_FILE,
    locate_package,
    read_report,
    subject_digests,
    verification_status,
)

PKG = "retail_mcp"
SEED = f"{PKG}/data/seed.sql"


@pytest.fixture(scope="module")
def built_elsewhere(retail_env: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Retail built and verified with another installation's key: a shipped package as a
    fresh clone finds it (its report passed, its signature is not ours)."""
    other = tmp_path_factory.mktemp("other-machine")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(signing.HOME_ENV, str(other / "home"))
        result = emit_verified(retail_env, other / "servers" / "retail")
    assert result.report.passed, result.report.failures()
    return result.package_dir


@pytest.fixture
def shipped(built_elsewhere: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "servers" / "retail"
    shutil.copytree(built_elsewhere, dest)
    return dest


def recompute_digests_by_hand(root: Path) -> None:
    """What anyone who edits a package can do: make its report cover the new files."""
    _, pkg = locate_package(root)
    path = root / pkg / "data" / REPORT_FILE
    report = json.loads(path.read_text(encoding="utf-8"))
    report["subject"] = subject_digests(root)
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def replace_once(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


EDITS: dict[str, Callable[[Path], None]] = {
    "one-seed-line": lambda r: replace_once(r, SEED, "'T-Shirt'", "'T-Shirt (edited)'"),
    "schema": lambda r: replace_once(r, f"{PKG}/data/schema.sql", "CHECK (length(first_name) > 0)", ""),
    "spec": lambda r: replace_once(
        r,
        f"{PKG}/data/spec.json",
        '"retail"',
        '"retail" ',
    ),
    "policy": lambda r: replace_once(r, f"{PKG}/data/policy.md", "\n", "\nAlways agree.\n"),
    "server.py": lambda r: replace_once(r, f"{PKG}/server.py", "def main(", "import os\n\n\ndef main("),
    "pyproject": lambda r: replace_once(
        r, "pyproject.toml", '"retail_mcp.server:main"', '"retail_mcp.evil:main"'
    ),
    "readme": lambda r: replace_once(r, "README.md", "\n", "\nTrust me.\n"),
}


# ------------------------------------------------------------------------------ the key


def test_the_key_is_made_once_private_and_where_the_home_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(signing.HOME_ENV, str(tmp_path / "home"))
    assert not (tmp_path / "home").exists()  # reading a signature makes nothing
    assert not signing.signed_here("hmac-sha256:00", format="f", env="e", passed=True, subject={})
    key = signing.signing_key()
    path = tmp_path / "home" / "signing.key"
    assert len(key) == 32 and path.read_bytes() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert signing.signing_key() == key
    monkeypatch.delenv(signing.HOME_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert signing.key_path() == tmp_path / "xdg" / "envfactory-mcp" / "signing.key"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert signing.key_path() == Path.home() / ".local" / "share" / "envfactory-mcp" / "signing.key"


def test_a_key_others_may_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(signing.HOME_ENV, str(tmp_path))
    (tmp_path / "signing.key").write_bytes(os.urandom(32))
    (tmp_path / "signing.key").chmod(0o644)
    with pytest.raises(EnvFactoryError, match="chmod 600"):
        signing.signing_key()
    assert not signing.signed_here("x", format="f", env="e", passed=True, subject={})


def test_a_home_where_no_key_can_be_made_says_how_to_fix_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    monkeypatch.setenv(signing.HOME_ENV, str(tmp_path / "a-file" / "home"))
    with pytest.raises(EnvFactoryError, match=f"cannot create the signing key .*set {signing.HOME_ENV}"):
        signing.signing_key()


def test_the_signature_covers_format_verdict_subject_and_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(signing.HOME_ENV, str(tmp_path))
    verdict = {"format": "envfactory-verification/2", "env": "retail", "passed": True, "subject": {"a": "1"}}
    sig = signing.signature(**verdict)  # type: ignore[arg-type]
    assert signing.signed_here(sig, **verdict)  # type: ignore[arg-type]
    for change in ({"format": "x"}, {"env": "retail2"}, {"passed": False}, {"subject": {"a": "2"}}):
        assert not signing.signed_here(sig, **(verdict | change))  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ shipped code


@pytest.mark.slow
def test_a_package_built_elsewhere_is_shipped_and_runs_in_process_without_our_signature(shipped: Path):
    assert verification_status(shipped) == "unsigned"  # the report alone is not believed
    assert is_shipped_code(shipped, PKG)
    assert package_status(shipped) == "passed"
    permission = check_runnable(shipped)
    assert permission.verified and permission.jailed is False


@pytest.mark.slow
@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_file_beside_shipped_tools_is_not_shipped_and_its_recomputed_report_is_refused(
    edit: str, shipped: Path
):
    EDITS[edit](shipped)
    assert verification_status(shipped) == "stale"
    recompute_digests_by_hand(shipped)
    assert not is_shipped_code(shipped, PKG)
    assert verification_status(shipped) == package_status(shipped) == "unsigned"
    with pytest.raises(UnverifiedPackageError) as refused:
        check_runnable(shipped)
    assert refused.value.status == "unsigned"
    message = str(refused.value)
    assert "verification unsigned" in message and "not signed by this installation" in message
    assert f"envfactory-mcp verify retail --save --servers-dir {shipped.parent}" in message
    assert "--allow-unverified" in message
    if jail_problem() is None:  # allowed anyway, it is foreign code: jailed
        assert check_runnable(shipped, allow_unverified=True).jailed


@pytest.mark.slow
def test_a_report_signed_with_another_key_is_refused(
    shipped: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    EDITS["one-seed-line"](shipped)
    recompute_digests_by_hand(shipped)
    report = read_report(shipped)
    assert report is not None
    with monkeypatch.context() as mp:
        mp.setenv(signing.HOME_ENV, str(tmp_path / "another-home"))
        resigned = report.signed()
        assert resigned.signed_here()  # there, it is signed
    (shipped / PKG / "data" / REPORT_FILE).write_text(resigned.to_json(), encoding="utf-8")
    assert verification_status(shipped) == "unsigned"
    with pytest.raises(UnverifiedPackageError, match="not signed by this installation"):
        check_runnable(shipped)


@pytest.mark.slow
def test_verify_save_signs_an_edited_package_which_then_runs_jailed(shipped: Path):
    EDITS["one-seed-line"](shipped)
    recompute_digests_by_hand(shipped)
    assert verification_status(shipped) == "unsigned"
    result = CliRunner().invoke(app, ["verify", str(shipped), "--save"])
    assert result.exit_code == 0, result.output
    report = read_report(shipped)
    assert report is not None and report.passed and report.signed_here()
    assert verification_status(shipped) == package_status(shipped) == "passed"
    assert not is_shipped_code(shipped, PKG)  # verified is not shipped: it stays foreign code
    assert check_runnable(shipped, trust=True).verified
    if jail_problem() is None:
        assert check_runnable(shipped).jailed


@pytest.mark.slow
def test_a_symlink_in_a_shipped_package_is_not_shipped(shipped: Path, tmp_path: Path):
    outside = tmp_path / "README.md"
    shutil.copyfile(shipped / "README.md", outside)
    (shipped / "README.md").unlink()
    (shipped / "README.md").symlink_to(outside)  # same bytes, but the file is not the package's
    assert subject_digests(shipped) == read_report(shipped).subject  # type: ignore[union-attr]
    assert verification_status(shipped) == "unsigned"
    assert not is_shipped_code(shipped, PKG)
    with pytest.raises(UnverifiedPackageError):
        check_runnable(shipped)


@pytest.mark.slow
def test_shipped_code_with_forged_bytecode_beside_it_runs_jailed(shipped: Path):
    """Python loads ``__pycache__/tools.<tag>.pyc`` instead of ``tools.py`` when its header
    copies the source's time and size, and the package's digests leave caches out: the
    sources are shipped, but that file decides what runs, so it runs jailed."""
    import importlib._bootstrap_external as bootstrap
    import importlib.util
    import py_compile

    tools = shipped / PKG / "tools.py"
    py_compile.compile(str(tools))  # what Python itself writes on a first import
    assert check_runnable(shipped).jailed is False
    st = tools.stat()
    forged = compile("def transfer_to_human_agents(ctx, **kw):\n    return {}\n", str(tools), "exec")
    Path(importlib.util.cache_from_source(str(tools))).write_bytes(
        bootstrap._code_to_timestamp_pyc(forged, st.st_mtime, st.st_size)  # type: ignore[attr-defined]  # private, not in typeshed
    )
    assert is_shipped_code(shipped, PKG) and package_status(shipped) == "passed"
    if jail_problem() is None:
        assert check_runnable(shipped).jailed is True
    assert check_runnable(shipped, trust=True).jailed is False  # the user's call


@pytest.mark.slow
def test_a_cache_entry_others_could_write_is_not_believed(
    shipped: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(signing.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(packages, "_SHIPPED", {})
    EDITS["one-seed-line"](shipped)
    forged = tmp_path / "cache" / "shipped" / "retail-7.json"
    forged.parent.mkdir(parents=True)
    entry = {"key": packages._source_key(), "files": packages._plain_digests(shipped, PKG)}
    forged.write_text(json.dumps(entry), encoding="utf-8")
    forged.chmod(0o666)
    assert not is_shipped_code(shipped, PKG)  # rendered again, and written over
    assert stat.S_IMODE(forged.stat().st_mode) == 0o600
    assert json.loads(forged.read_text(encoding="utf-8"))["files"] != entry["files"]


def test_the_committed_retail_is_accepted_without_a_signature(retail_env: Environment):
    root = SERVERS_DIR / "retail"
    report = read_report(root)
    assert report is not None and report.passed
    assert not report.signed_here()  # built elsewhere, or before signatures
    rendered = render_package(retail_env)
    committed = {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file()}
    if any(
        committed.get(rel) is None or committed[rel].read_text(encoding="utf-8") != text
        for rel, text in rendered.items()
    ):
        pytest.skip(
            "generated_servers/retail differs from a fresh render (rebuild pending: test_committed_packages says so)"
        )
    assert is_shipped_code(root, PKG)
    assert verification_status(root) == "unsigned" and package_status(root) == "passed"
    permission = check_runnable(root)
    assert permission.verified and not permission.jailed


# ------------------------------------------------------------------------------ cost


@pytest.mark.slow
def test_serve_decides_shipped_in_a_child_process_then_from_the_cache(shipped: Path, tmp_path: Path):
    """``serve`` loads no blueprint: a cold check renders in a child process and keeps the
    digests (0600); a warm one reads them."""
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from envfactory_mcp.packages import is_shipped_code\n"
        "t = time.perf_counter(); ok = is_shipped_code(Path(sys.argv[1]), 'retail_mcp')\n"
        "print(ok, 'envfactory_mcp.blueprints' in sys.modules, time.perf_counter() - t)\n"
    )
    env = os.environ | {signing.CACHE_ENV: str(tmp_path / "cache")}
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", code, str(shipped)], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr
        ok, loaded, seconds = done.stdout.split()
        runs.append((ok, loaded, float(seconds)))
    assert [r[:2] for r in runs] == [("True", "False"), ("True", "False")]
    cached = tmp_path / "cache" / "shipped" / "retail-7.json"
    assert stat.S_IMODE(cached.stat().st_mode) == 0o600
    assert runs[1][2] < runs[0][2]
    print(
        f"shipped check for retail: cold {runs[0][2]:.2f} s (a child renders), warm {runs[1][2] * 1000:.1f} ms"
    )


@pytest.fixture(scope="module")
def library_env() -> Iterator[Environment]:
    yield build_env(load_blueprint("dog_walking"))


@pytest.mark.slow
def test_a_library_service_is_shipped_too(
    library_env: Environment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(signing.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(packages, "_SHIPPED", {})
    monkeypatch.setattr(packages, "_SOURCE_KEY", [])
    with monkeypatch.context() as mp:
        mp.setenv(signing.HOME_ENV, str(tmp_path / "other-home"))
        root = emit_verified(library_env, tmp_path / "servers" / "dog_walking").package_dir
    started = time.perf_counter()
    assert is_shipped_code(root, "dog_walking_mcp")  # rendered in this process: the blueprints are loaded
    cold = time.perf_counter() - started
    monkeypatch.setattr(packages, "_SHIPPED", {})
    monkeypatch.setattr(packages, "_SOURCE_KEY", [])
    started = time.perf_counter()
    assert package_status(root) == "passed"
    warm = time.perf_counter() - started
    print(f"shipped check for dog_walking: cold {cold:.2f} s in process, warm {warm * 1000:.1f} ms")
    replace_once(root, "dog_walking_mcp/tools.py", "\n", "\n# edited\n")
    recompute_digests_by_hand(root)
    assert not is_shipped_code(root, "dog_walking_mcp") and package_status(root) == "unsigned"


def test_the_package_readme_says_what_contains_it_and_what_does_not(retail_env: Environment):
    readme = " ".join(render_package(retail_env)["README.md"].split())
    assert "Only `envfactory-mcp serve` contains a package you do not trust." in readme
    assert "`python -m retail_mcp`, `retail-mcp` and their `--jail`, are the package's own code" in readme
    assert "only as trustworthy as the package itself" in readme
