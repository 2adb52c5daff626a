"""MCP clients' configuration files: where each client keeps its servers, in what shape,
and how to add one without losing anything already there.

``install`` (the CLI command) asks here. Each client's location and format follows its
documentation:

- Claude Desktop: ``claude_desktop_config.json`` in ``~/Library/Application Support/Claude``
  (macOS), ``%APPDATA%\\Claude`` (Windows) or ``~/.config/Claude`` (Linux builds), under
  ``mcpServers``;
- Claude Code: the user-scope ``~/.claude.json``, under ``mcpServers`` with ``"type": "stdio"``;
- Cursor: ``~/.cursor/mcp.json``, under ``mcpServers``;
- VS Code: the user profile's ``mcp.json`` (``~/.config/Code/User`` on Linux,
  ``~/Library/Application Support/Code/User`` on macOS, ``%APPDATA%\\Code\\User`` on
  Windows), under ``servers`` with ``"type": "stdio"``;
- Windsurf: ``~/.codeium/windsurf/mcp_config.json``, under ``mcpServers``.

Adding a server reads the file (a file that is not a JSON object is refused, never
overwritten), sets one entry under the client's key, keeps a copy of the previous file
beside it (``<name>.bak``: the file as it was before envfactory-mcp first changed it,
never overwritten by a later run), and writes the new one atomically. An entry already
there as it would be written leaves the file untouched.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from envfactory_mcp import files
from envfactory_mcp.errors import EnvFactoryError

ClientName = Literal["claude-desktop", "claude-code", "cursor", "vscode", "windsurf"]
CLIENTS: tuple[ClientName, ...] = ("claude-desktop", "claude-code", "cursor", "vscode", "windsurf")


class ClientConfigError(EnvFactoryError):
    """A client's configuration file cannot be read or written safely."""


@dataclass(frozen=True)
class ClientConfig:
    client: ClientName
    path: Path
    key: str  # where the servers live in the file: "mcpServers" or "servers"
    typed: bool  # entries carry "type": "stdio"


@dataclass(frozen=True)
class Installed:
    path: Path
    backup: Path | None  # the user's file before envfactory-mcp first changed it; None when there was none
    replaced: bool  # an entry of that name was there and differed
    unchanged: bool = False  # the entry was there exactly as it would be written: nothing written


def client_config(client: ClientName, home: Path | None = None, platform: str | None = None) -> ClientConfig:
    """Where ``client`` keeps its MCP servers for this user, and in what shape."""
    home = home or Path.home()
    platform = platform or sys.platform
    appdata = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    if client == "claude-desktop":
        folder = {
            "darwin": home / "Library" / "Application Support" / "Claude",
            "win32": appdata / "Claude",
        }.get(platform, home / ".config" / "Claude")
        return ClientConfig(client, folder / "claude_desktop_config.json", "mcpServers", typed=False)
    if client == "claude-code":
        return ClientConfig(client, home / ".claude.json", "mcpServers", typed=True)
    if client == "cursor":
        return ClientConfig(client, home / ".cursor" / "mcp.json", "mcpServers", typed=False)
    if client == "vscode":
        folder = {
            "darwin": home / "Library" / "Application Support" / "Code" / "User",
            "win32": appdata / "Code" / "User",
        }.get(platform, home / ".config" / "Code" / "User")
        return ClientConfig(client, folder / "mcp.json", "servers", typed=True)
    if client == "windsurf":
        return ClientConfig(
            client, home / ".codeium" / "windsurf" / "mcp_config.json", "mcpServers", typed=False
        )
    raise ClientConfigError(f"unknown client {client!r}: use one of {', '.join(CLIENTS)}")


def server_entry(config: ClientConfig, command: str, args: list[str]) -> dict[str, Any]:
    """One server as the client's file writes it."""
    entry: dict[str, Any] = {"command": command, "args": args}
    return {"type": "stdio", **entry} if config.typed else entry


def snippet(config: ClientConfig, name: str, entry: dict[str, Any]) -> str:
    """The JSON to paste into the client's file by hand."""
    return json.dumps({config.key: {name: entry}}, indent=2)


def install(config: ClientConfig, name: str, entry: dict[str, Any]) -> Installed:
    """Add (or replace) server ``name`` in the client's file, keeping everything else."""
    data: dict[str, Any] = {}
    existed = config.path.is_file()
    if existed:
        try:
            loaded = json.loads(config.path.read_text(encoding="utf-8") or "{}")
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ClientConfigError(f"{config.path} is not readable JSON ({exc}); left as it is") from None
        if not isinstance(loaded, dict):
            raise ClientConfigError(f"{config.path} does not hold a JSON object; left as it is")
        data = loaded
    servers = data.setdefault(config.key, {})
    if not isinstance(servers, dict):
        raise ClientConfigError(f"{config.path}: {config.key!r} is not an object; left as it is")
    backup = config.path.with_name(config.path.name + ".bak")
    kept = backup if backup.is_file() else None
    if servers.get(name) == entry:
        return Installed(config.path, kept, replaced=False, unchanged=True)
    replaced = name in servers
    servers[name] = entry
    config.path.parent.mkdir(parents=True, exist_ok=True)
    if existed and kept is None:  # the user's own file, kept once: a later run never overwrites it
        shutil.copy2(config.path, backup)
        kept = backup
    files.write_json(config.path, data, new_mode=0o600)  # a new configuration is its user's alone
    return Installed(config.path, kept, replaced)
