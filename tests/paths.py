"""Where the repository's committed artefacts live, for tests that use them."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVERS_DIR = ROOT / "generated_servers"
