"""The verifier rejects every injected defect with the right check on the right tool,
and no sandbox attack has any effect outside the sandbox."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from processes import child_processes

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.verify.defects import DEFECTS, Defect, inject
from envfactory_mcp.verify.sandbox import SandboxLimits
from envfactory_mcp.verify.verifier import VerifyOptions, verify_package

pytestmark = pytest.mark.slow
OPTIONS = VerifyOptions(call_seconds=0.5, limits=SandboxLimits(cpu_seconds=10, wall_seconds=30))


@pytest.fixture(scope="module")
def retail_files(retail_env: Environment) -> dict[str, str]:
    return render_package(retail_env)


@pytest.mark.parametrize("defect", DEFECTS, ids=[d.name for d in DEFECTS])
def test_each_injected_defect_is_rejected_for_the_right_reason(
    defect: Defect, retail_files: dict[str, str], tmp_path: Path
):
    marker_file = tmp_path / "outside" / "escaped.txt"
    marker_file.parent.mkdir()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        markers = {"path": str(marker_file), "port": str(listener.getsockname()[1])}
        folder = write_package(
            inject(retail_files, "retail_mcp", defect, markers), tmp_path / "pkg" / "retail"
        )
        report = verify_package(folder, OPTIONS)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing connected to the host, whatever the defect tried

    assert not report.passed
    failed = report.failed_checks()
    assert defect.expect <= failed, report.failures()
    # Precision: no other tool is blamed for this defect.
    blamed_tools = {tool for tool, _ in failed if tool is not None}
    assert blamed_tools <= {tool for tool, _ in defect.expect if tool is not None}
    lines = report.failures()
    for tool, check in defect.expect:
        prefix = f"{tool}: {check}: " if tool else f"{check}: "
        assert any(line.startswith(prefix) and len(line) > len(prefix) for line in lines), lines
    assert not marker_file.exists()
    assert os.listdir(marker_file.parent) == []
    assert sandboxed_processes() == []  # every worker (and anything it started) is gone


def sandboxed_processes() -> list[str]:
    """Command lines of live sandbox workers started by this test process (other processes
    on the machine may be verifying things of their own)."""
    commands = [" ".join(argv) for argv in child_processes().values()]
    return [c for c in commands if "from envfactory_mcp.verify import worker" in c]


def test_the_catalogue_covers_every_defect_the_issue_names():
    names = {d.name for d in DEFECTS}
    assert {
        "read_tool_writes",
        "undeclared_write",
        "exception_on_valid_id",
        "nondeterministic",
        "seed_breaks_foreign_key",
        "output_schema_mismatch",
        "dead_write_tool",
        "attack_network",
        "attack_write_outside",
        "attack_spawn_process",
        "attack_infinite_loop",
        "attack_allocate_10gb",
    } <= names


def test_a_failed_probe_is_reported_with_its_arguments(retail_files: dict[str, str], tmp_path: Path):
    defect = next(d for d in DEFECTS if d.name == "exception_on_valid_id")
    folder = write_package(inject(retail_files, "retail_mcp", defect), tmp_path / "retail")
    report = verify_package(folder, VerifyOptions(stdio=False))
    tool = next(t for t in report.tools if t.tool == "get_user_details")
    check = next(c for c in tool.checks if c.check == "no_internal_error")
    assert check.probe is not None and check.probe.kind == "valid"
    assert check.probe.arguments["user_id"].startswith("user_")
    assert "KeyError: 'firstname'" in check.reason
