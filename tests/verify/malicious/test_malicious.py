"""Every malicious tools.py variant runs through verify in the jail with no effect outside it.

Asserted on the host side, after verify returns, for every variant alike (whatever it
tried): no file appeared in a folder outside the jail, no process it started is alive,
a canary process running as the jail's own uid got no signal and still runs, no
listening socket (TCP, UDP, AF_UNIX path, abstract AF_UNIX) was reached, a host file
is unchanged, and neither an environment variable of the verifying process nor a host
file's content nor /etc/shadow shows in the report. And verify rejects the package.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from malicious_tools import VARIANTS, Variant
from processes import child_processes
from witnesses import CANARY, ENV_NAME, Canary, Host, assert_no_effects, assert_nothing_appeared_later

from envfactory_mcp.emit import write_package
from envfactory_mcp.verify.probes import ProbeBudget
from envfactory_mcp.verify.sandbox import SandboxLimits, jail_support
from envfactory_mcp.verify.verifier import VerifyOptions, verify_package

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not jail_support().available,
        reason=f"these attacks run only inside the jail, which is not available here: {jail_support().reason}",
    ),
]
# Small budgets: every variant acts on the first valid call of its tool.
OPTIONS = VerifyOptions(
    call_seconds=0.5,
    limits=SandboxLimits(cpu_seconds=4, wall_seconds=20),
    budget=ProbeBudget(valid_attempts=24, enough_successes=1, attempts_before_dead=100, per_kind=1),
)


def test_the_catalogue_is_large_and_covers_every_class():
    assert len(VARIANTS) >= 40 and len({v.name for v in VARIANTS}) == len(VARIANTS)
    kinds = {v.kind for v in VARIANTS}
    assert {"process", "signal", "filesystem", "network", "secret", "native", "resource", "verdict"} <= kinds


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_a_malicious_variant_has_no_effect_outside_the_jail_and_is_rejected(
    variant: Variant, retail_files: dict[str, str], canary: Canary, host: Host, tmp_path: Path
):
    markers = host.markers | {"canary": str(canary.proc.pid)}
    files = dict(retail_files)
    files["retail_mcp/tools.py"] += variant.source(markers)
    secret_stat = host.secret_file.stat()
    children_before = set(child_processes())  # the canary, and whatever other fixtures keep running
    report = verify_package(write_package(files, tmp_path / "pkg" / "retail"), OPTIONS)

    assert report.sandbox.jail is not None and all(report.sandbox.layers.values()), report.sandbox
    assert not report.passed, f"{variant.name} passed verify"
    assert_no_effects(host, canary, markers, secret_stat, children_before, report.to_json())


def test_nothing_appeared_later_either(canary: Canary, worlds: list[Path]):
    """Spawned processes in the catalogue wait before they write: look again after that."""
    if not worlds:
        pytest.skip("no variant ran")
    assert_nothing_appeared_later(canary, worlds)


def test_the_canary_can_tell_a_signal():
    """The canary is a real witness: a signal sent from here shows in its log."""
    folder = Path(f"/tmp/envfactory-canary-selftest-{uuid.uuid4().hex}")
    folder.mkdir()
    try:
        log = folder / "signals.log"
        proc = subprocess.Popen([sys.executable, "-c", CANARY, str(log)])
        time.sleep(0.5)
        proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 5
        while not log.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        assert log.read_text().strip() == "SIGUSR1"
    finally:
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()


# Escapes the issue found in today's unjailed sandbox, harmless to the machine: without the
# jail the witnesses above see them, so their silence under the jail means something.
UNJAILED_ESCAPES = {
    "mkfifo_outside": "file",
    "pidfd_signal_canary": "signal",
    "all_environ_scan_leak": "secret",
    "fork_exec_python_child_unix": "socket",
}


@pytest.mark.parametrize("name", sorted(UNJAILED_ESCAPES))
def test_without_the_jail_the_witnesses_see_todays_escapes(
    name: str,
    retail_files: dict[str, str],
    host: Host,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
):
    from envfactory_mcp.runtime.jail import JailSupport
    from envfactory_mcp.verify import sandbox

    monkeypatch.setattr(sandbox, "jail_support", lambda: JailSupport(False, "switched off by this test"))
    folder = tmp_path_factory.mktemp("witness")
    log = folder / "signals.log"
    secret = f"victim-env-secret-{uuid.uuid4().hex}"
    victim = subprocess.Popen(  # our own canary: this test signals it
        [sys.executable, "-c", CANARY, str(log)], env={"PATH": os.defpath, ENV_NAME: secret}
    )
    try:
        time.sleep(0.3)
        variant = next(v for v in VARIANTS if v.name == name)
        files = dict(retail_files)
        files["retail_mcp/tools.py"] += variant.source(host.markers | {"canary": str(victim.pid)})
        report = verify_package(write_package(files, tmp_path / "pkg" / "retail"), OPTIONS)
        assert report.sandbox.jail is None and "NO JAIL" in (report.sandbox.warning or "")
        deadline = time.monotonic() + 5
        seen: set[str] = set()
        while time.monotonic() < deadline and UNJAILED_ESCAPES[name] not in seen:
            if os.listdir(host.outside):
                seen.add("file")
            if log.exists():
                seen.add("signal")
            if secret in report.to_json():
                seen.add("secret")
            if host.reached_sockets():
                seen.add("socket")
            time.sleep(0.1)
        assert UNJAILED_ESCAPES[name] in seen, f"the witness missed {name} outside the jail"
    finally:
        victim.kill()
        victim.wait()
