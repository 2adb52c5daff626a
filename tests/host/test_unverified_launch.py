"""The host's launchers ask the same question as the CLI: a package whose report does not
vouch for its current files starts neither as a subprocess nor in this process; tool code
not shipped with envfactory-mcp runs jailed; and only the package's data and tools.py
are used, never its own copy of the runtime."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest
from mcp import Client
from paths import SERVERS_DIR

from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.host.connection import ServerConnection
from envfactory_mcp.host.launch import build_server, stdio_params
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.packages import JailUnavailableError, UnverifiedPackageError, check_runnable
from envfactory_mcp.runtime import isolation
from envfactory_mcp.runtime.isolation import jail_problem

PKG = "retail_mcp"
needs_jail = pytest.mark.skipif(jail_problem() is not None, reason=f"no working jail here: {jail_problem()}")


@pytest.fixture
def servers(tmp_path: Path) -> Path:
    dest = tmp_path / "servers"
    shutil.copytree(SERVERS_DIR / "retail", dest / "retail", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def remove_authorizer(servers: Path) -> None:
    toolbox = servers / "retail" / PKG / "runtime" / "toolbox.py"
    text = toolbox.read_text(encoding="utf-8")
    toolbox.write_text(text.replace("        db.set_authorizer(guard)\n", "", 1), encoding="utf-8")


def edit_tools(servers: Path, extra: str) -> None:
    tools = servers / "retail" / PKG / "tools.py"
    tools.write_text(tools.read_text(encoding="utf-8") + extra, encoding="utf-8")


def test_launchers_refuse_a_stale_package_unless_allowed(servers: Path):
    remove_authorizer(servers)
    for launch in (stdio_params, build_server):
        with pytest.raises(UnverifiedPackageError) as caught:
            launch(servers, "retail")
        assert caught.value.env == "retail" and caught.value.status == "stale"
        assert "envfactory-mcp verify retail --save" in str(caught.value)
    params = stdio_params(servers, "retail", allow_unverified=True)
    assert params.args[:4] == ["-I", "-m", "envfactory_mcp.runtime", str(servers.resolve() / "retail" / PKG)]
    assert "--jail" in params.args  # not shipped: its runtime/ is not what this installation renders


def test_shipped_code_runs_in_process_and_anything_else_jailed_unless_trusted(servers: Path):
    assert check_runnable(SERVERS_DIR / "retail").jailed is False
    assert check_runnable(SERVERS_DIR / "retail", jail=True).jailed is True
    edit_tools(servers, "\n# one comment more than the shipped code\n")
    assert check_runnable(servers / "retail", allow_unverified=True).jailed is True
    assert "--jail" in stdio_params(servers, "retail", allow_unverified=True).args
    assert check_runnable(servers / "retail", allow_unverified=True, trust=True).jailed is False


def test_foreign_code_does_not_run_where_no_jail_works(servers: Path, monkeypatch: pytest.MonkeyPatch):
    edit_tools(servers, "\n# not the shipped code\n")
    monkeypatch.setattr(isolation, "jail_problem", lambda: "bubblewrap is not installed")
    with pytest.raises(
        JailUnavailableError, match=r"there is no jail here .bubblewrap is not installed.*--trust"
    ):
        check_runnable(servers / "retail", allow_unverified=True)
    assert check_runnable(SERVERS_DIR / "retail").jailed is False  # shipped code still runs


@needs_jail
async def test_an_in_process_server_of_edited_code_runs_it_jailed(servers: Path):
    edit_tools(
        servers,
        "\n\ndef transfer_to_human_agents(ctx, *, summary):\n"
        "    import os\n"
        "    return {'transferred': True, 'message': f'uid {os.getuid()}', 'summary': summary}\n",
    )
    with anyio.fail_after(30):
        async with Client(build_server(servers, "retail", allow_unverified=True)) as client:
            result = await client.call_tool("transfer_to_human_agents", {"summary": "help"})
    assert not result.is_error and result.structured_content["message"] == "uid 65534"


async def test_the_package_runtime_copy_never_runs(servers: Path):
    """A package's runtime/ is not what serves it: breaking it changes nothing."""
    for name in ("server.py", "toolbox.py", "__init__.py"):
        (servers / "retail" / PKG / "runtime" / name).write_text(
            "raise SystemExit('the package runtime ran')\n"
        )
    with anyio.fail_after(30):
        async with Client(build_server(servers, "retail", allow_unverified=True)) as client:
            listed = await client.list_tools()
        async with Client(stdio_params(servers, "retail", allow_unverified=True)) as client:
            served = await client.list_tools()
    assert len(listed.tools) == len(served.tools) == 15


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
