"""The one settings object: built by the CLI from flags, passed down; library code reads no env vars.

The defaults shared by the command line and the library live here, each once: the CLI's
options, the library's keyword arguments and the RL adapters' configurations name these
constants rather than spelling the value again."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

# Where emitted server packages live, relative to the current directory (the CLI resolves
# it further: ``packages.default_servers_dir``).
DEFAULT_SERVERS_DIR: Final = Path("generated_servers")
# Seconds one agent/user episode may run before it ends as a ``timeout`` (not scored):
# ``rollout --episode-timeout``, ``RolloutConfig``, ``EpisodeConfig`` and the eval runner.
EPISODE_TIMEOUT_S: Final = 600.0
# Seconds one MCP request may take on a host connection (``host/connection.py``): a far
# backstop for a server that stopped answering. The server bounds each tool call itself
# (``runtime --call-timeout``, 5 s); a machine at load 20 makes a server start or a state
# read slow, not broken, so this must sit far above what a busy machine needs.
CALL_TIMEOUT_S: Final = 300.0
# An episode's limits: agent turns, and tool errors in a row before it ends.
MAX_STEPS: Final = 30
MAX_ERRORS: Final = 5
# Episodes run at once by rollout, eval and pipeline.
CONCURRENCY: Final = 8
# The reward parts multiplied by default (``scoring/reward.py`` says what each means).
REWARD_BASIS: Final = ("state", "claims", "policy")


@dataclass(frozen=True)
class Settings:
    servers_dir: Path = DEFAULT_SERVERS_DIR

    def server_dir(self, env_name: str) -> Path:
        return self.servers_dir / env_name
