"""The CI switch (tests/conftest.py): with ENVFACTORY_REQUIRE_SYSTEM_DEPS set a skip fails,
whether a mark, a call or a module-level import skipped it, unless CI may rightly skip it
(``ALLOWED_SKIPS``); ENVFACTORY_REQUIRE_JAIL fails only the skips that name the jail."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py")

SKIPPING = """
import pytest

needs_chromium = pytest.mark.skipif(True, reason="no Chromium here: apt-get install chromium")


@needs_chromium
def test_browser():
    pass


def test_jail():
    pytest.skip("no working jail here: bwrap is not installed")


def test_corpus():
    pytest.skip("no public corpus at /x (../shared/corpus beside the checkout)")


@pytest.mark.xfail(reason="a known miss", run=False)
def test_known_miss():
    pass


def test_passes():
    pass
"""

SKIPPED_MODULE = """
import pytest

pytest.importorskip("a_module_that_is_not_there_at_all", reason="the rl extra is not installed")


def test_never_collected():
    pass
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('envfactory_tests_conftest', {str(CONFTEST)!r})\n"
        "ours = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(ours)\n"
        "pytest_runtest_makereport = ours.pytest_runtest_makereport\n"
        "pytest_make_collect_report = ours.pytest_make_collect_report\n"
    )
    pytester.makepyfile(test_skipping=SKIPPING, test_skipped_module=SKIPPED_MODULE)
    return pytester


def _run(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str, **environ: str
) -> pytest.RunResult:
    for name in ("ENVFACTORY_REQUIRE_SYSTEM_DEPS", "ENVFACTORY_REQUIRE_JAIL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    return suite.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-rfEs", *args)


def test_without_a_switch_skips_stay_skips(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    _run(suite, monkeypatch).assert_outcomes(passed=1, skipped=4, xfailed=1)


def test_the_system_deps_switch_fails_every_skip_but_the_allowed(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(suite, monkeypatch, "test_skipping.py", ENVFACTORY_REQUIRE_SYSTEM_DEPS="1")
    result.assert_outcomes(passed=1, failed=1, errors=1, skipped=1, xfailed=1)  # a skipif mark skips in setup
    result.stdout.fnmatch_lines(
        [
            "*ENVFACTORY_REQUIRE_SYSTEM_DEPS is set (CI) and this test skipped: no Chromium here*",
            "*ENVFACTORY_REQUIRE_SYSTEM_DEPS is set (CI) and this test skipped: no working jail*",
            "SKIPPED *no public corpus*",
        ]
    )
    # A module skipped while collected is a collection error: the run stops there, failed.
    result = _run(suite, monkeypatch, ENVFACTORY_REQUIRE_SYSTEM_DEPS="1")
    result.assert_outcomes(errors=1)
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        ["*ENVFACTORY_REQUIRE_SYSTEM_DEPS is set (CI) and this module skipped: the rl extra*"]
    )


def test_the_jail_switch_fails_only_the_jail_skips(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(suite, monkeypatch, ENVFACTORY_REQUIRE_JAIL="1")
    result.assert_outcomes(passed=1, failed=1, skipped=3, xfailed=1)
    result.stdout.fnmatch_lines(
        ["*ENVFACTORY_REQUIRE_JAIL is set (CI) and this test skipped: no working jail*"]
    )
