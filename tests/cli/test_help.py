"""Every command's --help: flags read as flags (no value type), options that take a value
say which."""

from __future__ import annotations

import pytest
import typer.main
from typer.testing import CliRunner

from envfactory_mcp.cli import app

runner = CliRunner()
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def _help(*args: str) -> str:
    result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_flags_show_no_value_type(command: str):
    text = _help(*([command] if command else []))
    assert "<bool>" not in text
    help_row = next(line for line in text.splitlines() if "--help" in line)
    assert help_row.split("--help", 1)[1].split()[0] == "Show"


def test_options_that_take_a_value_still_name_its_type():
    text = _help("rollout")
    rows = [line for line in text.splitlines() if line.startswith("│")]
    retry = next(line for line in rows if "--retry-failed" in line)
    concurrency = next(line for line in rows if "--concurrency" in line)
    assert retry.split("--retry-failed", 1)[1].split()[0] == "Also"
    assert "<int range>" in concurrency


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["build"], "give an environment name or --all (not both)"),
        (["build", "retail", "--all"], "give an environment name or --all (not both)"),
        (["build", "--all", "--seed", "3"], "--seed applies to one environment, not to --all"),
        (["build", "--all", "--backend", "slurm"], "Invalid value for '--backend'"),
        (["build", "retail", "--backend", "ray"], "--backend and --address apply to --all"),
    ],
)
def test_build_option_mistakes_are_usage_errors(args: list[str], says: str, tmp_path):
    result = runner.invoke(app, [*args, "--servers-dir", str(tmp_path / "servers")])
    assert result.exit_code == 2 and says in result.output and "Traceback" not in result.output
    assert not (tmp_path / "servers").exists()
