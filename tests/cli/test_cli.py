"""The envfactory-mcp command: fast start-up, list, build, serve errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from envfactory_mcp.cli import app
from paths import SERVERS_DIR

runner = CliRunner()


def test_startup_imports_nothing_heavy():
    code = "import sys, envfactory_mcp.cli; print(sorted(m for m in ('litellm', 'mcp', 'uvicorn') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_list_json_reports_counts_and_status():
    result = runner.invoke(app, ["list", "--json", "--servers-dir", str(SERVERS_DIR)])
    assert result.exit_code == 0, result.output
    entries = {e["name"]: e for e in json.loads(result.output)}
    retail = entries["retail"]
    assert retail["tools"] >= 14 and retail["tables"] >= 5 and retail["emitted"] is True
    assert retail["domain"] == "retail"
    assert retail["verification"] == "not verified"


def test_build_writes_a_package_and_list_sees_it(tmp_path: Path):
    result = runner.invoke(app, ["build", "retail", "--servers-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "built retail" in result.output
    assert (tmp_path / "retail" / "retail_mcp" / "data" / "spec.json").is_file()
    listed = json.loads(runner.invoke(app, ["list", "--json", "--servers-dir", str(tmp_path)]).output)
    assert [e["name"] for e in listed if e["emitted"]] == ["retail"]


def test_unknown_blueprint_and_unbuilt_server_are_clear_errors(tmp_path: Path):
    result = runner.invoke(app, ["build", "bakery", "--servers-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "unknown blueprint 'bakery'" in result.output and "retail" in result.output
    result = runner.invoke(app, ["serve", "retail", "--servers-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "no generated server for 'retail'" in result.output and "envfactory-mcp build retail" in result.output
