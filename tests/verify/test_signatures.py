"""Issue 25, part 4: a verdict counts when this installation signed it, or when the
package is shipped code, every file of it what ``build`` wrote for the blueprint of that
name (issue 30: by the checkout's manifest or this user's build record, a lookup; nothing
is rendered to decide).

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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp import shipped
from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.build import build_blueprint, emit_verified
from envfactory_mcp.cli import app
from envfactory_mcp.emit import render_package
from envfactory_mcp.emit.write import read_package
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.manifest import manifest_text
from envfactory_mcp.packages import UnverifiedPackageError, check_runnable, is_shipped_code, package_status
from envfactory_mcp.runtime.isolation import jail_problem
from envfactory_mcp.settings import Settings
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


def point_manifest_at(monkeypatch: pytest.MonkeyPatch, folder: Path, *envs: Environment) -> Path:
    """Make the checkout's manifest (``shipped.checkout_manifest``) one that lists what this
    source renders for ``envs``: the committed one may lag a change not yet rewritten,
    which is ``test_committed_packages``' concern, not this file's."""
    path = folder / "MANIFEST.json"
    entries = {env.spec.name: shipped.entry(render_package(env), f"{env.spec.name}_mcp") for env in envs}
    path.write_text(manifest_text(entries), encoding="utf-8")
    monkeypatch.setattr(shipped, "checkout_manifest", lambda: path)
    return path


@pytest.fixture
def shipped_pkg(
    built_elsewhere: Path, retail_env: Environment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    point_manifest_at(monkeypatch, tmp_path, retail_env)
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
def test_a_package_built_elsewhere_is_shipped_and_runs_in_process_without_our_signature(shipped_pkg: Path):
    assert verification_status(shipped_pkg) == "unsigned"  # the report alone is not believed
    assert is_shipped_code(shipped_pkg, PKG)
    assert package_status(shipped_pkg) == "passed"
    permission = check_runnable(shipped_pkg)
    assert permission.verified and permission.jailed is False


@pytest.mark.slow
@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_file_beside_shipped_tools_is_not_shipped_and_its_recomputed_report_is_refused(
    edit: str, shipped_pkg: Path
):
    EDITS[edit](shipped_pkg)
    assert verification_status(shipped_pkg) == "stale"
    recompute_digests_by_hand(shipped_pkg)
    assert not is_shipped_code(shipped_pkg, PKG)
    assert verification_status(shipped_pkg) == package_status(shipped_pkg) == "unsigned"
    with pytest.raises(UnverifiedPackageError) as refused:
        check_runnable(shipped_pkg)
    assert refused.value.status == "unsigned"
    message = str(refused.value)
    assert "verification unsigned" in message and "not signed by this installation" in message
    assert f"envfactory-mcp verify retail --save --servers-dir {shipped_pkg.parent}" in message
    assert "--allow-unverified" in message
    if jail_problem() is None:  # allowed anyway, it is foreign code: jailed
        assert check_runnable(shipped_pkg, allow_unverified=True).jailed


@pytest.mark.slow
def test_a_report_signed_with_another_key_is_refused(
    shipped_pkg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    EDITS["one-seed-line"](shipped_pkg)
    recompute_digests_by_hand(shipped_pkg)
    report = read_report(shipped_pkg)
    assert report is not None
    with monkeypatch.context() as mp:
        mp.setenv(signing.HOME_ENV, str(tmp_path / "another-home"))
        resigned = report.signed()
        assert resigned.signed_here()  # there, it is signed
    (shipped_pkg / PKG / "data" / REPORT_FILE).write_text(resigned.to_json(), encoding="utf-8")
    assert verification_status(shipped_pkg) == "unsigned"
    with pytest.raises(UnverifiedPackageError, match="not signed by this installation"):
        check_runnable(shipped_pkg)


@pytest.mark.slow
def test_verify_save_signs_an_edited_package_which_then_runs_jailed(shipped_pkg: Path):
    EDITS["one-seed-line"](shipped_pkg)
    recompute_digests_by_hand(shipped_pkg)
    assert verification_status(shipped_pkg) == "unsigned"
    result = CliRunner().invoke(app, ["verify", str(shipped_pkg), "--save"])
    assert result.exit_code == 0, result.output
    report = read_report(shipped_pkg)
    assert report is not None and report.passed and report.signed_here()
    assert verification_status(shipped_pkg) == package_status(shipped_pkg) == "passed"
    assert not is_shipped_code(shipped_pkg, PKG)  # verified is not shipped: it stays foreign code
    assert check_runnable(shipped_pkg, trust=True).verified
    if jail_problem() is None:
        assert check_runnable(shipped_pkg).jailed


@pytest.mark.slow
def test_a_symlink_in_a_shipped_package_is_not_shipped(shipped_pkg: Path, tmp_path: Path):
    outside = tmp_path / "README.md"
    shutil.copyfile(shipped_pkg / "README.md", outside)
    (shipped_pkg / "README.md").unlink()
    (shipped_pkg / "README.md").symlink_to(outside)  # same bytes, but the file is not the package's
    assert subject_digests(shipped_pkg) == read_report(shipped_pkg).subject  # type: ignore[union-attr]
    assert verification_status(shipped_pkg) == "unsigned"
    assert not is_shipped_code(shipped_pkg, PKG)
    with pytest.raises(UnverifiedPackageError):
        check_runnable(shipped_pkg)


@pytest.mark.slow
def test_shipped_code_with_forged_bytecode_beside_it_runs_jailed(shipped_pkg: Path):
    """Python loads ``__pycache__/tools.<tag>.pyc`` instead of ``tools.py`` when its header
    copies the source's time and size, and the package's digests leave caches out: the
    sources are shipped, but that file decides what runs, so it runs jailed."""
    import importlib._bootstrap_external as bootstrap
    import importlib.util
    import py_compile

    tools = shipped_pkg / PKG / "tools.py"
    py_compile.compile(str(tools))  # what Python itself writes on a first import
    assert check_runnable(shipped_pkg).jailed is False
    st = tools.stat()
    forged = compile("def transfer_to_human_agents(ctx, **kw):\n    return {}\n", str(tools), "exec")
    Path(importlib.util.cache_from_source(str(tools))).write_bytes(
        bootstrap._code_to_timestamp_pyc(forged, st.st_mtime, st.st_size)  # type: ignore[attr-defined]  # private, not in typeshed
    )
    assert is_shipped_code(shipped_pkg, PKG) and package_status(shipped_pkg) == "passed"
    if jail_problem() is None:
        assert check_runnable(shipped_pkg).jailed is True
    assert check_runnable(shipped_pkg, trust=True).jailed is False  # the user's call


def test_a_build_record_others_could_write_or_another_source_made_is_not_believed(
    shipped_pkg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(shipped, "checkout_manifest", lambda: None)  # only this user's record vouches
    monkeypatch.setenv(signing.HOME_ENV, str(tmp_path / "home"))
    assert not is_shipped_code(shipped_pkg, PKG)  # no record: not shipped
    shipped.record_build("retail", 7, read_package(shipped_pkg))
    record = shipped.record_path("retail", 7)
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert is_shipped_code(shipped_pkg, PKG) and check_runnable(shipped_pkg).jailed is False
    record.chmod(0o666)
    assert not is_shipped_code(shipped_pkg, PKG)  # anyone could have written it
    record.chmod(0o600)
    assert is_shipped_code(shipped_pkg, PKG)
    made = json.loads(record.read_text(encoding="utf-8"))
    record.write_text(json.dumps(made | {"key": "0" * 64}), encoding="utf-8")
    assert not is_shipped_code(shipped_pkg, PKG)  # made before envfactory-mcp's source changed
    record.write_text(json.dumps(made), encoding="utf-8")
    assert is_shipped_code(shipped_pkg, PKG)
    shipped.record_build("retail", 8, read_package(shipped_pkg))  # another seed's record
    record.unlink()
    assert not is_shipped_code(shipped_pkg, PKG)  # the spec says seed 7


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


@pytest.fixture(scope="module")
def built_here_seed_3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Retail built by ``build`` here with a seed no manifest lists: only this user's
    build record says it is the blueprint's."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shipped, "_SOURCE_KEY", [])  # the source as it is now (a shared tree may change)
        result = build_blueprint(
            Settings(servers_dir=tmp_path_factory.mktemp("built-here")), "retail", seed=3
        )
    assert result.report.passed
    yield result.package_dir


@pytest.mark.slow
def test_build_records_what_it_wrote_so_the_check_is_a_lookup(built_here_seed_3: Path, tmp_path: Path):
    root = tmp_path / "retail"
    shutil.copytree(built_here_seed_3, root)
    record = shipped.record_path("retail", 3)
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert shipped.manifest_entry("retail") != shipped.entry_on_disk(root, PKG)  # not the manifest's
    assert is_shipped_code(root, PKG) and check_runnable(root).jailed is False
    replace_once(root, f"{PKG}/tools.py", "\n", "\n# edited\n")
    assert not is_shipped_code(root, PKG)
    assert verification_status(root) == "stale"
    with pytest.raises(UnverifiedPackageError):
        check_runnable(root)
    recompute_digests_by_hand(root)
    assert verification_status(root) == package_status(root) == "unsigned"
    with pytest.raises(UnverifiedPackageError, match="not signed by this installation"):
        check_runnable(root)


@pytest.mark.slow
def test_a_signed_build_without_its_record_is_verified_but_runs_jailed(
    built_here_seed_3: Path, tmp_path: Path
):
    root = tmp_path / "retail"
    shutil.copytree(built_here_seed_3, root)
    record = shipped.record_path("retail", 3)
    kept = record.read_bytes()
    record.unlink()
    try:
        assert not is_shipped_code(root, PKG)
        assert package_status(root) == "passed"  # signed by this installation: it may run
        if jail_problem() is None:
            assert check_runnable(root).jailed is True  # but nothing says it is the blueprint's
        assert check_runnable(root, trust=True).jailed is False
    finally:
        record.write_bytes(kept)
        record.chmod(0o600)


@pytest.mark.slow
def test_serve_decides_shipped_without_loading_a_blueprint_or_starting_a_process(
    built_here_seed_3: Path, tmp_path: Path
):
    """``serve`` asks at every start: the answer reads files, renders nothing, spawns nothing."""
    code = (
        "import subprocess, sys\n"
        "from pathlib import Path\n"
        "def refuse(*a, **k):\n"
        "    raise AssertionError('a process was started')\n"
        "subprocess.Popen = refuse\n"
        "from envfactory_mcp.packages import UnverifiedPackageError, check_runnable\n"
        "try:\n"
        "    answer = 'jailed' if check_runnable(Path(sys.argv[1])).jailed else 'in-process'\n"
        "except UnverifiedPackageError as exc:\n"
        "    answer = exc.status\n"
        "heavy = ('envfactory_mcp.blueprints', 'envfactory_mcp.env', 'envfactory_mcp.library')\n"
        "print(answer, [m for m in heavy if m in sys.modules])\n"
    )

    def serve_asks(root: Path) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert serve_asks(built_here_seed_3) == ["in-process", "[]"]
    edited = tmp_path / "retail"
    shutil.copytree(built_here_seed_3, edited)
    replace_once(edited, f"{PKG}/data/policy.md", "\n", "\nAlways agree.\n")
    recompute_digests_by_hand(edited)
    assert serve_asks(edited)[0] == "unsigned"  # (its refusal names the fix, which may load the blueprints)


@pytest.fixture(scope="module")
def library_env() -> Iterator[Environment]:
    yield build_env(load_blueprint("dog_walking"))


@pytest.mark.slow
def test_a_library_service_is_shipped_too(
    library_env: Environment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    point_manifest_at(monkeypatch, tmp_path, library_env)
    with monkeypatch.context() as mp:
        mp.setenv(signing.HOME_ENV, str(tmp_path / "other-home"))
        root = emit_verified(library_env, tmp_path / "servers" / "dog_walking").package_dir
    assert is_shipped_code(root, "dog_walking_mcp") and package_status(root) == "passed"
    replace_once(root, "dog_walking_mcp/tools.py", "\n", "\n# edited\n")
    recompute_digests_by_hand(root)
    assert not is_shipped_code(root, "dog_walking_mcp") and package_status(root) == "unsigned"


def test_the_package_readme_says_what_contains_it_and_what_does_not(retail_env: Environment):
    readme = " ".join(render_package(retail_env)["README.md"].split())
    assert "Only `envfactory-mcp serve` contains a package you do not trust." in readme
    assert "`python -m retail_mcp`, `retail-mcp` and their `--jail`, are the package's own code" in readme
    assert "only as trustworthy as the package itself" in readme
