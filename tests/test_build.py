"""build: a package reaches disk only verified, with its report; a failing one leaves nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from envfactory_mcp.build import VerificationFailed, emit_verified
from envfactory_mcp.env import Environment
from envfactory_mcp.verify.provenance import read_report, subject_digests
from envfactory_mcp.verify.verifier import VerifyOptions

pytestmark = pytest.mark.slow


def test_a_failing_environment_is_not_emitted_and_the_old_package_survives(
    mini_env: Environment, tmp_path: Path
):
    dest = tmp_path / "minibank"
    dest.mkdir()
    (dest / "previous.txt").write_text("the last good build", encoding="utf-8")
    with pytest.raises(VerificationFailed) as caught:
        emit_verified(mini_env, dest, VerifyOptions(stdio=False))
    message = str(caught.value)
    assert "nothing was emitted" in message and "sneaky_read: read_only:" in message
    assert caught.value.report.passed is False
    assert sorted(p.name for p in tmp_path.iterdir()) == ["minibank"]  # no staging folders left behind
    assert [p.name for p in dest.iterdir()] == ["previous.txt"]


def test_a_passing_environment_is_emitted_with_a_report_that_covers_it(
    retail_env: Environment, tmp_path: Path
):
    result = emit_verified(retail_env, tmp_path / "retail")
    report = read_report(result.package_dir)
    assert report is not None and report.passed and report.probes == result.report.probes
    assert report.subject == subject_digests(result.package_dir)


def test_the_main_job_keeps_a_package_already_as_it_would_build_it(tmp_path: Path):
    """``pipeline`` and ``demo`` (``ensure_blueprint``) leave a package that is this
    installation's rendering of the blueprint byte for byte, report included: a checkout
    stays clean. One that differs is built again."""
    import shutil

    from paths import SERVERS_DIR

    from envfactory_mcp.build import ensure_blueprint
    from envfactory_mcp.emit.write import read_package
    from envfactory_mcp.settings import Settings

    shutil.copytree(SERVERS_DIR / "retail", tmp_path / "retail", ignore=shutil.ignore_patterns("__pycache__"))
    before = read_package(tmp_path / "retail")
    settings = Settings(servers_dir=tmp_path)
    kept = ensure_blueprint(settings, "retail")
    assert kept.reused and kept.report.passed and kept.report.probes > 100  # verified again, in the sandbox
    assert read_package(tmp_path / "retail") == before
    assert ensure_blueprint(settings, "retail", reverify=False).reused

    readme = tmp_path / "retail" / "README.md"
    readme.write_text(readme.read_text() + "\nedited\n")
    rebuilt = ensure_blueprint(settings, "retail")
    assert not rebuilt.reused and rebuilt.report.passed
    after = read_package(tmp_path / "retail")
    report = "retail_mcp/data/verification.json"
    assert {p: t for p, t in after.items() if p != report} == {p: t for p, t in before.items() if p != report}
