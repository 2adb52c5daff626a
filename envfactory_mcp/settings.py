"""The one settings object: built by the CLI from flags, passed down; library code reads no env vars."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    servers_dir: Path = Path("generated_servers")

    def server_dir(self, env_name: str) -> Path:
        return self.servers_dir / env_name
