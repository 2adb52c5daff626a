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
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from malicious_tools import VARIANTS, Variant
from processes import child_processes

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.jail import NOBODY
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
ENV_NAME = "ENVFACTORY_CANARY_SECRET"
# In the canary's initial environment, which /proc/<pid>/environ shows (a variable set
# in this process later, as monkeypatch does, shows only in os.environ).
CANARY_SECRET = f"canary-env-secret-{uuid.uuid4().hex}"
CANARY = """
import signal, sys, time
log = sys.argv[1]
def note(signum, frame):
    with open(log, "a") as fh:
        fh.write(signal.Signals(signum).name + "\\n")
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGCONT):
    signal.signal(s, note)
while True:
    time.sleep(1)
"""


@dataclass
class Canary:
    proc: subprocess.Popen[bytes]
    log: Path

    def state(self) -> str:
        """The process state letter from /proc (S sleeping, T stopped...), or 'gone'."""
        try:
            stat = Path(f"/proc/{self.proc.pid}/stat").read_text()
        except OSError:
            return "gone"
        return stat[stat.rindex(")") + 2]


@pytest.fixture(scope="module")
def canary(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Canary]:
    """A process running as the jail's own uid (when we are root), which logs every
    signal it can catch; SIGKILL and SIGSTOP show as its death or stop."""
    folder = tmp_path_factory.mktemp("canary")
    folder.chmod(0o777)
    log = folder / "signals.log"
    as_nobody = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if os.geteuid() == 0 else {}
    # An interpreter the jail's uid may run (ours may live in root's home).
    python = shutil.which("python3", path="/usr/bin:/bin") if as_nobody else sys.executable
    proc = subprocess.Popen(
        [python or sys.executable, "-c", CANARY, str(log), f"envfactory-canary-{uuid.uuid4().hex}"],
        stdin=subprocess.DEVNULL,
        env={"PATH": os.defpath, ENV_NAME: CANARY_SECRET},
        **as_nobody,  # type: ignore[arg-type]
    )
    time.sleep(0.3)  # handlers installed
    yield Canary(proc, log)
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def retail_files(retail_env: Environment) -> dict[str, str]:
    return render_package(retail_env)


@dataclass
class Host:
    """What a variant could reach on the host, and how to tell whether it did."""

    markers: dict[str, str]
    outside: Path
    secret_file: Path
    secret_value: str
    tcp: socket.socket
    udp: socket.socket
    unix: socket.socket
    abstract: socket.socket

    def reached_sockets(self) -> list[str]:
        reached = []
        for name, sock in (("tcp", self.tcp), ("unix", self.unix), ("abstract", self.abstract)):
            try:
                sock.accept()
                reached.append(name)
            except BlockingIOError:
                pass
        try:
            self.udp.recvfrom(16)
            reached.append("udp")
        except BlockingIOError:
            pass
        return reached


@pytest.fixture(scope="module")
def worlds() -> Iterator[list[Path]]:
    """The host folders of every variant, kept until the module ends for the late check."""
    made: list[Path] = []
    yield made
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch, worlds: list[Path]) -> Iterator[Host]:
    token = f"envfactory-attack-{uuid.uuid4().hex}"
    # Open to every uid, the jail's included: only the jail keeps the variant out of it.
    world = Path(tempfile.mkdtemp(prefix="envfactory-malicious-"))
    world.chmod(0o777)
    worlds.append(world)
    outside = world / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    secret_file = world / "host-secret.txt"
    secret_value = f"host-file-secret-{uuid.uuid4().hex}"
    secret_file.write_text(secret_value)
    secret_file.chmod(0o666)
    monkeypatch.setenv(ENV_NAME, f"env-secret-{uuid.uuid4().hex}")
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    unix_path = str(world / "host.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(unix_path)
    os.chmod(unix_path, 0o777)
    unix.listen()
    abstract_name = f"envfactory-abstract-{uuid.uuid4().hex}"
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0" + abstract_name)
    abstract.listen()
    for sock in (tcp, udp, unix, abstract):
        sock.setblocking(False)
    markers = {
        "marker": str(outside / "escaped"),
        "outside": str(outside),
        "port": str(tcp.getsockname()[1]),
        "udp_port": str(udp.getsockname()[1]),
        "unix_path": unix_path,
        "abstract": abstract_name,
        "secret_file": str(secret_file),
        "env_name": ENV_NAME,
        "token": token,
    }
    yield Host(markers, outside, secret_file, secret_value, tcp, udp, unix, abstract)
    for sock in (tcp, udp, unix, abstract):
        sock.close()


def processes_mentioning(text: str) -> list[int]:
    """Pids of live processes anywhere on the machine whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def new_children(before: set[int]) -> list[str]:
    """Command lines of this process's live children that were not there ``before``."""
    return [" ".join(argv) for pid, argv in child_processes().items() if pid not in before]


def shadow_line() -> str | None:
    try:
        return Path("/etc/shadow").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None


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
    assert os.listdir(host.outside) == [], "a file appeared outside the jail"
    assert host.reached_sockets() == []
    assert canary.state() not in ("gone", "T", "t"), "the canary was killed or stopped"
    assert not canary.log.exists(), f"the canary got {canary.log.read_text()}"
    after = host.secret_file.stat()
    assert (after.st_mode, after.st_nlink, after.st_size, after.st_mtime_ns) == (
        secret_stat.st_mode,
        secret_stat.st_nlink,
        secret_stat.st_size,
        secret_stat.st_mtime_ns,
    )
    assert host.secret_file.read_text() == host.secret_value
    text = report.to_json()
    assert os.environ[ENV_NAME] not in text and CANARY_SECRET not in text and host.secret_value not in text
    if (line := shadow_line()) is not None:
        assert line not in text
    assert processes_mentioning(markers["token"]) == [], "a process it started is still alive"
    assert new_children(children_before) == [], "a sandbox process outlived verify"
    for folder in ("/tmp", "/dev/shm", "/var/tmp"):
        assert not Path(folder, markers["token"]).exists()


def test_nothing_appeared_later_either(canary: Canary, worlds: list[Path]):
    """Spawned processes in the catalogue wait before they write: look again after that."""
    if not worlds:
        pytest.skip("no variant ran")
    time.sleep(3)
    assert [str(w) for w in worlds if os.listdir(w / "outside")] == []
    assert canary.state() not in ("gone", "T", "t") and not canary.log.exists()
    assert processes_mentioning("envfactory-attack-") == []


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
