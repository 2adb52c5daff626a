"""The host's launchers ask the same question as the CLI: a package whose report does not
vouch for its current files starts neither as a subprocess nor in this process, and an
in-process server is the package from exactly the folder that was checked."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.host.connection import InfrastructureError, ServerConnection
from envfactory_mcp.host.launch import import_server_module, stdio_params
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.packages import UnverifiedPackageError

PKG = "retail_mcp"


@pytest.fixture
def servers(tmp_path: Path) -> Path:
    dest = tmp_path / "servers"
    shutil.copytree(SERVERS_DIR / "retail", dest / "retail", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def remove_authorizer(servers: Path) -> None:
    toolbox = servers / "retail" / PKG / "runtime" / "toolbox.py"
    text = toolbox.read_text(encoding="utf-8")
    toolbox.write_text(text.replace("        db.set_authorizer(guard)\n", "", 1), encoding="utf-8")


def test_launchers_refuse_a_stale_package_unless_allowed(servers: Path):
    remove_authorizer(servers)
    for launch in (stdio_params, import_server_module):
        with pytest.raises(UnverifiedPackageError) as caught:
            launch(servers, "retail")
        assert caught.value.env == "retail" and caught.value.status == "stale"
        assert "envfactory-mcp verify retail --save" in str(caught.value)
    assert stdio_params(servers, "retail", allow_unverified=True).args[:2] == ["-m", PKG]
    module = import_server_module(servers, "retail", allow_unverified=True)
    assert Path(module.__file__).is_relative_to(servers / "retail" / PKG)


def test_the_in_process_server_comes_from_the_folder_that_was_checked(servers: Path):
    committed = import_server_module(SERVERS_DIR, "retail")
    assert Path(committed.__file__).is_relative_to(SERVERS_DIR / "retail" / PKG)
    copy = import_server_module(servers, "retail")
    assert Path(copy.__file__).is_relative_to(servers / "retail" / PKG)
    assert copy is not committed and copy.tools is not committed.tools
    assert import_server_module(SERVERS_DIR, "retail") is committed


def test_a_library_rollout_refuses_before_making_a_run_directory(servers: Path, tmp_path: Path):
    (servers / "retail" / PKG / "data" / "verification.json").unlink()
    config = RolloutConfig(envs=["retail"], tasks_path=str(tmp_path / "none.jsonl"), transport="memory",
                           servers_dir=str(servers))  # fmt: skip
    with pytest.raises(UnverifiedPackageError, match="verification not verified"):
        anyio.run(rollout, config, tmp_path / "run")
    assert not (tmp_path / "run").exists()


async def test_a_connection_to_a_stale_package_does_not_open(servers: Path):
    remove_authorizer(servers)
    with pytest.raises(InfrastructureError, match="refusing to run package retail"):
        async with ServerConnection("retail", "memory", servers):
            pass
