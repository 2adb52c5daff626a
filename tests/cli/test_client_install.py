"""``envfactory-mcp install <env> --client ...`` (issue 14, item 2): each client's file, in its
place and shape, merged into what is there with a backup, never clobbered; and what is
written really starts the server the way the client would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from paths import SERVERS_DIR

from envfactory_mcp.clients import CLIENTS, ClientName, client_config

EXPECTED: dict[ClientName, tuple[str, str, bool]] = {
    "claude-desktop": (".config/Claude/claude_desktop_config.json", "mcpServers", False),
    "claude-code": (".claude.json", "mcpServers", True),
    "cursor": (".cursor/mcp.json", "mcpServers", False),
    "vscode": (".config/Code/User/mcp.json", "servers", True),
    "windsurf": (".codeium/windsurf/mcp_config.json", "mcpServers", False),
}


def install(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": os.environ["PATH"]}
    command = [
        sys.executable,
        "-m",
        "envfactory_mcp",
        "install",
        "retail",
        *args,
        "--servers-dir",
        str(SERVERS_DIR),
    ]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_every_client_has_a_documented_place_and_shape(tmp_path: Path):
    assert set(CLIENTS) == set(EXPECTED)
    for client, (relative, key, typed) in EXPECTED.items():
        config = client_config(client, home=tmp_path, platform="linux")
        assert config.path == tmp_path / relative and config.key == key and config.typed == typed
    mac = client_config("claude-desktop", home=tmp_path, platform="darwin").path
    assert mac == tmp_path / "Library/Application Support/Claude/claude_desktop_config.json"


@pytest.mark.slow
def test_install_merges_keeps_a_backup_and_never_clobbers(tmp_path: Path):
    # A Cursor file with another server and settings of its own.
    cursor = tmp_path / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True)
    before: dict[str, Any] = {"mcpServers": {"other": {"command": "other-mcp", "args": []}}, "theme": "dark"}
    cursor.write_text(json.dumps(before))
    done = install(tmp_path, "--client", "cursor")
    assert done.returncode == 0, done.stderr
    after = json.loads(cursor.read_text())
    assert after["theme"] == "dark" and after["mcpServers"]["other"] == before["mcpServers"]["other"]
    assert after["mcpServers"]["retail"]["args"][-4:] == [
        "serve",
        "retail",
        "--servers-dir",
        str(SERVERS_DIR),
    ]
    assert json.loads((cursor.parent / "mcp.json.bak").read_text()) == before
    assert done.stdout.startswith("added retail in ") and "your file as it was before is kept" in done.stdout
    # Run again: nothing to write, and the user's original stays the backup.
    again = install(tmp_path, "--client", "cursor")
    assert again.returncode == 0 and "already in" in again.stdout and "nothing changed" in again.stdout
    assert json.loads(cursor.read_text()) == after
    # A changed entry is updated; the backup is still the user's file from before the first run.
    edited = {**after, "mcpServers": {**after["mcpServers"], "retail": {"command": "old", "args": []}}}
    cursor.write_text(json.dumps(edited))
    updated = install(tmp_path, "--client", "cursor")
    assert updated.returncode == 0 and updated.stdout.startswith("updated retail in "), updated.stdout
    assert json.loads(cursor.read_text())["mcpServers"]["retail"] == after["mcpServers"]["retail"]
    assert json.loads((cursor.parent / "mcp.json.bak").read_text()) == before
    # --print writes nothing; a file that is not JSON is refused and left as it is.
    vscode = tmp_path / ".config" / "Code" / "User" / "mcp.json"
    shown = install(tmp_path, "--client", "vscode", "--print")
    assert shown.returncode == 0 and str(vscode) in shown.stdout and not vscode.exists()
    assert json.loads(shown.stdout.split("\n", 1)[1])["servers"]["retail"]["type"] == "stdio"
    broken = tmp_path / ".codeium" / "windsurf" / "mcp_config.json"
    broken.parent.mkdir(parents=True)
    broken.write_text("{ not json")
    refused = install(tmp_path, "--client", "windsurf")
    assert (
        refused.returncode == 1
        and "is not readable JSON" in refused.stderr
        and "Traceback" not in refused.stderr
    )
    assert broken.read_text() == "{ not json"


@pytest.mark.slow
async def test_what_install_writes_starts_the_server_as_the_client_would(tmp_path: Path):
    done = await anyio.to_thread.run_sync(lambda: install(tmp_path, "--client", "claude-desktop"))
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / EXPECTED["claude-desktop"][0]).read_text())
    entry = config["mcpServers"]["retail"]
    params = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        cwd="/",
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            result = await client.call_tool("list_all_product_types", {})
    assert len(tools) == 15 and not result.is_error


@pytest.mark.parametrize("client", CLIENTS)
def test_install_writes_each_clients_own_file(
    client: ClientName, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from typer.testing import CliRunner

    from envfactory_mcp.cli import app

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("APPDATA", raising=False)
    done = CliRunner().invoke(
        app, ["install", "retail", "--client", client, "--servers-dir", str(SERVERS_DIR)]
    )
    assert done.exit_code == 0, done.output
    relative, key, typed = EXPECTED[client]
    entry = json.loads((tmp_path / relative).read_text())[key]["retail"]
    assert entry["command"] == sys.executable
    # -I: the client's working folder and PYTHONPATH never shadow envfactory_mcp
    assert entry["args"] == [
        "-I",
        "-m",
        "envfactory_mcp",
        "serve",
        "retail",
        "--servers-dir",
        str(SERVERS_DIR.resolve()),
    ]
    assert (entry.get("type") == "stdio") == typed


def test_an_unknown_client_is_a_usage_mistake(tmp_path: Path):
    from typer.testing import CliRunner

    from envfactory_mcp.cli import app
    from envfactory_mcp.clients import CLIENTS

    done = CliRunner().invoke(
        app,
        ["install", "retail", "--client", "zed", "--servers-dir", str(SERVERS_DIR)],
        env={"COLUMNS": "80"},
    )
    assert done.exit_code == 2
    # typer's usage error, on one line at any width: the option's choices are the clients.
    (said,) = done.output.splitlines()
    assert said.startswith("error: Invalid value"), said
    assert "'--client'" in said and "'zed'" in said and all(f"'{client}'" in said for client in CLIENTS), said
