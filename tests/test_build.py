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
