"""The host-side witnesses of the malicious-variant suites, and the one check of them.

``test_malicious.py`` (the variants through ``verify``) and ``test_malicious_serve.py``
(the same variants served by envfactory-mcp) set the same traps, built by the fixtures
in ``conftest.py`` from the classes here, and after each variant ask
:func:`assert_no_effects`, so both suites assert exactly the same effects: no file in a
folder outside the jail, no listening socket (TCP, UDP, AF_UNIX path, abstract AF_UNIX)
reached, a canary process running as the jail's own uid alive and unsignalled, a host
file unchanged, no secret (an environment variable of this process, the canary's
environment, a host file, ``/etc/shadow``) in what the variant's run showed, no process
it started alive, no new child of this process, nothing named after it in the folders
the host shares.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from processes import child_processes

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
                accepted, _ = sock.accept()
                accepted.close()  # only that it connected counts
                reached.append(name)
            except BlockingIOError:
                pass
        try:
            self.udp.recvfrom(16)
            reached.append("udp")
        except BlockingIOError:
            pass
        return reached


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


def assert_no_effects(
    host: Host,
    canary: Canary,
    markers: dict[str, str],
    secret_stat: os.stat_result,
    children_before: set[int],
    text: str,
) -> None:
    """Every effect a variant might have had outside the jail, asserted absent.

    ``secret_stat``: the host secret file's stat before the variant ran;
    ``children_before``: this process's children then; ``text``: everything the variant's
    run showed (verify's report, the server's answers), searched for the secrets.
    """
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
    assert os.environ[ENV_NAME] not in text and CANARY_SECRET not in text and host.secret_value not in text
    if (line := shadow_line()) is not None:
        assert line not in text
    assert processes_mentioning(markers["token"]) == [], "a process it started is still alive"
    assert new_children(children_before) == [], (
        "a sandbox or jail process outlived the run (verify, or the served call)"
    )
    for folder in ("/tmp", "/dev/shm", "/var/tmp"):
        assert not Path(folder, markers["token"]).exists()


def assert_nothing_appeared_later(canary: Canary, worlds: list[Path]) -> None:
    """After every variant of a module: spawned processes in the catalogue wait before
    they write, so look again after that."""
    time.sleep(3)
    assert [str(w) for w in worlds if os.listdir(w / "outside")] == []
    assert canary.state() not in ("gone", "T", "t") and not canary.log.exists()
    assert processes_mentioning("envfactory-attack-") == []
