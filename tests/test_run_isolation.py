"""The suite keeps to itself (issue 30): its envfactory-mcp home and cache are a folder of
this run's own under the temp dir, never the user's, so two copies of the suite can run at
once without sharing a key, a build record or a cache."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from envfactory_mcp.runtime.cache import cache_home
from envfactory_mcp.verify.signing import data_home


def test_home_and_cache_are_this_runs_own_temp_folder() -> None:
    home, cache = data_home(), cache_home()
    temp = Path(tempfile.gettempdir()).resolve()
    assert home.resolve().is_relative_to(temp) and cache.resolve().is_relative_to(home.resolve())
    assert not home.resolve().is_relative_to(Path.home().resolve() / ".local")
    assert not cache.resolve().is_relative_to(Path.home().resolve() / ".cache")
    assert home.name.startswith("envfactory-test-home-")


def test_a_second_run_gets_a_home_of_its_own(tmp_path: Path) -> None:
    """A second pytest started from outside this run (no inherited home) makes its own."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "from envfactory_mcp.runtime.cache import cache_home\n"
        "from envfactory_mcp.verify.signing import data_home\n"
        "def test_where():\n"
        "    print('HOME=' + str(data_home()) + ' CACHE=' + str(cache_home()))\n",
        encoding="utf-8",
    )
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ENVFACTORY_TEST_HOME", "ENVFACTORY_MCP_"))
    }
    conftest = Path(__file__).parent / "conftest.py"
    (tmp_path / "conftest.py").write_text(conftest.read_text(encoding="utf-8"), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-n", "0", str(probe)],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    line = next(x for x in out.stdout.splitlines() if "HOME=" in x)
    theirs = Path(line.split("HOME=", 1)[1].split(" CACHE=", 1)[0])
    assert theirs != data_home() and theirs.name.startswith("envfactory-test-home-")
    assert not theirs.exists()  # removed when that run ended
