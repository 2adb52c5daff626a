"""Verification over stdio where ``sys.stderr`` has no file descriptor (issue 33).

typer's CliRunner and Jupyter replace ``sys.stderr`` with a stream that has no ``fileno``;
the stdio stage starts the package as a child process, which can only be handed a real
file. Each case runs in a fresh interpreter so that nothing (this test process included)
has bound the MCP client's default error log to a real stderr before the command runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from paths import SERVERS_DIR


def run_child(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=1800,  # a far backstop: a busy machine is slower, not a failure
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.slow  # verifies retail in the sandbox, with a stdio session
def test_verify_over_stdio_with_a_stderr_that_has_no_descriptor():
    """The real CLI (the typer app, as ``envfactory-mcp verify`` runs it) with ``sys.stderr`` an
    ``io.StringIO``: the stdio check runs and passes, and the progress went to that stream."""
    done = run_child(
        f"""
        import io, json, sys
        real_stderr = sys.stderr
        sys.stderr = io.StringIO()  # no fileno(), as in Jupyter
        from envfactory_mcp.cli import app
        try:
            app(["verify", "retail", "--json", "--servers-dir", {str(SERVERS_DIR)!r}], prog_name="envfactory-mcp")
        except SystemExit as exc:
            code = exc.code
        else:
            code = 0
        captured = sys.stderr.getvalue()
        sys.stderr = real_stderr
        print(json.dumps({{"code": code, "stderr": captured}}), file=real_stderr)
        """
    )
    outcome = json.loads(done.stderr.strip().splitlines()[-1])
    assert outcome["code"] == 0, (outcome, done.stdout[-3000:])
    report = json.loads(done.stdout)
    checks = {c["check"]: c for c in report["environment"]}
    assert checks["stdio"]["status"] == "passed", checks["stdio"]
    assert report["passed"] is True
    assert "UnsupportedOperation" not in done.stdout + outcome["stderr"]


@pytest.mark.slow  # verifies retail in the sandbox, with a stdio session
def test_verify_over_stdio_under_typers_cli_runner():
    """What the issue met: the same command under typer's CliRunner, whose capture has no fileno."""
    done = run_child(
        f"""
        import json, sys
        from typer.testing import CliRunner
        from envfactory_mcp.cli import app
        result = CliRunner().invoke(app, ["verify", "retail", "--json", "--servers-dir", {str(SERVERS_DIR)!r}])
        print(json.dumps({{"code": result.exit_code, "stdout": result.stdout, "exception": repr(result.exception)}}))
        """
    )
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["code"] == 0, outcome
    report = json.loads(outcome["stdout"])
    assert {c["check"]: c["status"] for c in report["environment"]}["stdio"] == "passed"


def test_a_server_that_cannot_start_is_reported_with_its_stderr(tmp_path: Path):
    """The server's stderr is kept in a file and its last lines are in the failure's reason;
    ``sys.stderr`` here is an ``io.StringIO`` and nothing of the server's reaches it."""
    done = run_child(
        f"""
        import io, json, sys
        from pathlib import Path
        real_stderr = sys.stderr
        sys.stderr = io.StringIO()
        from envfactory_mcp.verify.sandbox import SandboxLimits
        from envfactory_mcp.verify.stdio_check import check_over_stdio
        root = Path({str(tmp_path)!r})
        (root / "broken_mcp").mkdir()
        (root / "broken_mcp" / "__init__.py").write_text("raise RuntimeError('broken on import: 7f3a')\\n")
        spec = {{"tools": [{{"name": "t", "input_schema": {{"type": "object"}}}}]}}
        result = check_over_stdio(root, "broken_mcp", spec, [], SandboxLimits())
        captured = sys.stderr.getvalue()
        sys.stderr = real_stderr
        print(json.dumps({{"status": result.status, "reason": result.reason, "stderr": captured}}))
        """
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["status"] == "failed"
    assert "the server's stderr ended:" in outcome["reason"], outcome["reason"]
    assert "broken on import: 7f3a" in outcome["reason"], outcome["reason"]
    assert "7f3a" not in outcome["stderr"] and "7f3a" not in done.stderr
