"""generated_servers/retail installs into a fresh virtual environment and serves without envfactory_mcp."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from paths import SERVERS_DIR

pytestmark = pytest.mark.slow


def test_retail_package_installs_alone_and_passes_its_own_tests(tmp_path: Path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, clear=True)
    python = env_dir / "bin" / "python"
    package = SERVERS_DIR / "retail"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"{package}[test]"],
        capture_output=True,
        text=True,
        timeout=480,
        cwd=tmp_path,
        check=False,
    )
    assert install.returncode == 0, install.stderr[-3000:]

    probe = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('envfactory_mcp') is None)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert probe.stdout.strip() == "True", "envfactory_mcp must not be importable in the fresh environment"

    async def list_tools() -> list[str]:
        params = StdioServerParameters(
            command=str(env_dir / "bin" / "retail-mcp"), args=[], cwd=str(tmp_path)
        )
        with anyio.fail_after(60):
            async with Client(params) as client:
                return [t.name for t in (await client.list_tools()).tools]

    names = anyio.run(list_tools)
    assert len(names) >= 14 and "cancel_pending_order" in names

    smoke = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package / "tests")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        check=False,
    )
    assert smoke.returncode == 0, smoke.stdout[-3000:] + smoke.stderr[-2000:]
