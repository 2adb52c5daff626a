"""The verifier end to end: retail passes every check, a second domain's broken tools are
named precisely, and tampering with a package is noticed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from paths import SERVERS_DIR

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.jail import JailSupport
from envfactory_mcp.verify import sandbox
from envfactory_mcp.verify.provenance import NotAPackageError
from envfactory_mcp.verify.report import ENVIRONMENT_CHECKS, TOOL_CHECKS, VerificationReport
from envfactory_mcp.verify.verifier import VerifyOptions, verify_environment, verify_package

pytestmark = pytest.mark.slow
NO_STDIO = VerifyOptions(stdio=False)


@pytest.fixture(scope="module")
def retail_report(retail_env: Environment) -> VerificationReport:
    return verify_environment(retail_env)


def test_retail_passes_every_check_including_stdio(
    retail_env: Environment, retail_report: VerificationReport
):
    assert retail_report.passed, retail_report.failures()
    assert [c.check for c in retail_report.environment] == list(ENVIRONMENT_CHECKS)
    assert all(c.status == "passed" for c in retail_report.environment)
    for tool in retail_report.tools:
        expected = [c for c in TOOL_CHECKS if not (c == "read_only" and tool.effect != "read")]
        expected = [c for c in expected if not (c == "declared_writes" and tool.effect != "write")]
        restricted = any(r.tool == tool.tool for r in retail_env.spec.policy_rules.refusals)
        expected = [c for c in expected if not (c == "policy_refusals" and not restricted)]
        assert [c.check for c in tool.checks] == expected
        assert tool.succeeded >= 1
        # Every write the policy restricts by state met calls it must refuse, and refused them.
        assert (tool.probe_kinds.get("refused", 0) >= 4) == restricted


def test_every_retail_tool_met_valid_invalid_and_hostile_probes(retail_report: VerificationReport):
    kinds: dict[str, dict[str, int]] = {t.tool: t.probe_kinds for t in retail_report.tools}
    assert retail_report.probes >= 300
    for tool, counts in kinds.items():
        if tool == "list_all_product_types":  # no parameters: one call is all there is
            continue
        assert (
            counts.get("valid", 0) >= 1 and counts.get("missing", 0) >= 1 and counts.get("wrong_type", 0) >= 1
        )
    assert kinds["get_order_details"].get("unknown_id", 0) >= 1
    assert kinds["modify_pending_order_address"].get("hostile", 0) >= 5
    assert kinds["modify_pending_order_address"].get("boundary", 0) >= 1
    for name in (
        "modify_pending_order_items",
        "return_delivered_order_items",
        "exchange_delivered_order_items",
    ):
        assert kinds[name]["valid"] >= 1


def test_verification_is_reproducible(retail_env: Environment):
    first = verify_environment(retail_env, NO_STDIO)
    second = verify_environment(retail_env, NO_STDIO)
    assert first.without_timings() == second.without_timings()
    # What a package stores holds no timings: the same verdict writes the same bytes.
    assert first.timings and first.to_json() == second.to_json()
    assert '"timings"' not in first.to_json() and '"seconds"' not in first.to_json()


def test_a_second_domain_gets_each_broken_tool_named(mini_env: Environment):
    report = verify_environment(mini_env, NO_STDIO)
    failed = report.failed_checks()
    assert ("sneaky_read", "read_only") in failed
    assert ("undeclared_write", "declared_writes") in failed
    assert ("bad_output", "output_schema") in failed
    assert ("crash", "no_internal_error") in failed
    healthy = {"get_account", "transfer", "noop"}
    assert not {tool for tool, _ in failed} & healthy, report.failures()


def test_a_tampered_runtime_is_noticed(retail_env: Environment, tmp_path: Path):
    files = render_package(retail_env)
    files["retail_mcp/runtime/toolbox.py"] = files["retail_mcp/runtime/toolbox.py"].replace(
        "db.set_authorizer(guard)", "pass  # authorizer removed"
    )
    report = verify_package(write_package(files, tmp_path / "retail"), NO_STDIO)
    reason = next(c.reason for c in report.environment if c.check == "runtime_intact")
    assert (None, "runtime_intact") in report.failed_checks() and "toolbox.py" in reason


def test_a_package_that_serves_something_else_fails_the_stdio_stage(retail_env: Environment, tmp_path: Path):
    files = render_package(retail_env)
    main = "def main(argv: Sequence[str] | None = None) -> None:\n"
    assert main in files["retail_mcp/server.py"]
    files["retail_mcp/server.py"] = files["retail_mcp/server.py"].replace(
        main,
        main + "    from .runtime import Bundle\n\n    load = Bundle.from_package\n\n"
        "    def drop_one(*args: Any, **kwargs: Any) -> Bundle:\n"
        "        bundle = load(*args, **kwargs)\n"
        "        bundle.spec['tools'].pop()\n"
        "        return bundle\n\n"
        "    Bundle.from_package = drop_one\n",
    )
    report = verify_package(write_package(files, tmp_path / "retail"))
    stdio = next(c for c in report.environment if c.check == "stdio")
    assert stdio.status == "failed" and "transfer_to_human_agents" in stdio.reason


def test_without_a_network_namespace_the_report_says_so_loudly(
    mini_env: Environment, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(sandbox, "jail_support", lambda: JailSupport(False, "no bubblewrap in this test"))
    monkeypatch.setattr(sandbox, "network_namespace_available", lambda: False)
    report = verify_environment(mini_env, NO_STDIO)
    assert report.sandbox.network_isolated is False and report.sandbox.jail is None
    assert report.sandbox.warning and "NO NETWORK NAMESPACE" in report.sandbox.warning
    assert "NO JAIL" in report.sandbox.warning and "no bubblewrap in this test" in report.sandbox.warning
    assert report.sandbox.layers["jail"] is False and report.sandbox.layers["seccomp"] is False


def test_a_folder_without_a_package_is_a_clear_error(tmp_path: Path):
    with pytest.raises(NotAPackageError, match=r"no <package>/data/spec\.json"):
        verify_package(tmp_path)


def test_an_unparseable_spec_fails_the_spec_check_and_runs_nothing(tmp_path: Path):
    shutil.copytree(SERVERS_DIR / "retail", tmp_path / "retail")
    (tmp_path / "retail" / "retail_mcp" / "data" / "spec.json").write_text(
        '{"name": "retail"}', encoding="utf-8"
    )
    report = verify_package(tmp_path / "retail", NO_STDIO)
    statuses = {c.check: c.status for c in report.environment}
    assert statuses["spec"] == "failed" and statuses["tools_load"] == "not run" and not report.passed


def test_a_seed_row_breaking_a_check_constraint_fails_schema_and_seed(tmp_path: Path):
    shutil.copytree(SERVERS_DIR / "retail", tmp_path / "retail")
    seed = tmp_path / "retail" / "retail_mcp" / "data" / "seed.sql"
    text = seed.read_text(encoding="utf-8")
    seed.write_text(text.replace("'pending'", "'lost in the post'", 1), encoding="utf-8")
    report = verify_package(tmp_path / "retail", NO_STDIO)
    reason = next(c.reason for c in report.environment if c.check == "schema_and_seed")
    assert (None, "schema_and_seed") in report.failed_checks() and "CHECK constraint failed" in reason
