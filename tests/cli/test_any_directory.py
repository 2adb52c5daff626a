"""Issue 14, item 1: no dependence on the working directory.

An MCP client launches ``envfactory-mcp serve retail`` the way Claude Desktop does: from
``/`` with an environment of only HOME and PATH. The lookup order is one function
(``packages.default_servers_dir``); where no ``generated_servers`` folder is around, a
shipped blueprint is built and verified once into the per-user data directory.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from paths import SERVERS_DIR

from envfactory_mcp import packages
from envfactory_mcp.host.launch import ServerNotBuiltError, build_server, package_dir

SCRIPT = shutil.which("envfactory-mcp", path=os.path.dirname(sys.executable))


@pytest.mark.skipif(
    SCRIPT is None, reason="the envfactory-mcp script is not installed beside this interpreter"
)
async def test_a_client_launching_serve_from_root_with_only_home_and_path_gets_retail(tmp_path: Path):
    params = StdioServerParameters(
        command=str(SCRIPT),
        args=["serve", "retail"],
        env={"HOME": str(tmp_path), "PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin"},
        cwd="/",
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            listed = await client.list_tools()
            result = await client.call_tool("list_all_product_types", {})
    assert len(listed.tools) == 15
    assert not result.is_error and result.structured_content
    assert not (tmp_path / ".local").exists()  # the checkout's servers were found: nothing built


def test_the_lookup_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    # 1. the current directory's generated_servers, when there is one
    (tmp_path / "project" / "generated_servers").mkdir(parents=True)
    assert packages.default_servers_dir(tmp_path / "project") == (tmp_path / "project" / "generated_servers")
    # 2. else the checkout's (this test runs from one)
    assert packages.default_servers_dir(tmp_path) == SERVERS_DIR.resolve()
    # 3. else the per-user data directory
    monkeypatch.setattr(packages, "checkout_servers_dir", lambda: None)
    assert (
        packages.default_servers_dir(tmp_path) == tmp_path / "data" / "envfactory-mcp" / "generated_servers"
    )
    assert not (tmp_path / "data").exists()  # looking writes nothing


@pytest.mark.slow
def test_a_shipped_blueprint_is_built_once_into_the_per_user_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(packages, "checkout_servers_dir", lambda: None)
    user_dir = packages.default_servers_dir(tmp_path)
    with pytest.raises(ServerNotBuiltError):
        package_dir(user_dir, "retail")
    notes: list[str] = []
    assert packages.ensure_shipped(user_dir, "retail", note=notes.append) is True
    assert notes and "building retail once into" in notes[0]
    assert packages.ensure_shipped(user_dir, "retail") is False  # once
    assert packages.check_runnable(user_dir / "retail").verified

    async def listed() -> int:
        with anyio.fail_after(30):
            async with Client(build_server(user_dir, "retail")) as client:
                return len((await client.list_tools()).tools)

    assert anyio.run(listed) == 15
    # Never into a folder the user did not leave to it, nor for a name that is not shipped.
    assert packages.ensure_shipped(tmp_path / "elsewhere", "retail") is False
    assert packages.ensure_shipped(user_dir, "no_such_env") is False
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.slow
def test_a_checkout_builds_a_shipped_blueprint_on_first_use_once_also_from_inside_a_rollout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The checkout commits only golden packages (issue 29): a rollout over any other shipped
    environment builds it there first (``check_served`` runs inside the rollout's event
    loop, verification drives its own), and two processes that need it at once build it once."""
    import subprocess

    checkout = tmp_path / "checkout" / "generated_servers"
    checkout.mkdir(parents=True)
    monkeypatch.setattr(packages, "checkout_servers_dir", lambda: checkout)

    async def from_a_rollout() -> list[bool]:
        return [p.verified for p in packages.check_served(checkout, ["hair_salon"])]

    assert anyio.run(from_a_rollout) == [True]
    assert packages.package_status(checkout / "hair_salon") == "passed"

    # Two processes at once, each asked for the same unbuilt environment: one builds, one waits.
    code = (
        "import sys; from pathlib import Path; from envfactory_mcp import packages; "
        "packages.checkout_servers_dir = lambda: Path(sys.argv[1]); "
        "print(packages.ensure_shipped(Path(sys.argv[1]), 'retail'))"
    )
    both = [
        subprocess.Popen([sys.executable, "-c", code, str(checkout)], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    answers = sorted(p.communicate(timeout=600)[0].strip() for p in both)
    assert answers == ["False", "True"]
    assert packages.check_runnable(checkout / "retail").verified
