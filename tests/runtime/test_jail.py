"""The jail: its seccomp program (run through a small BPF interpreter and through the
kernel), its bwrap command line, and what a jailed program can and cannot do."""

from __future__ import annotations

import ast
import json
import os
import platform
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from envfactory_mcp.runtime import jail
from envfactory_mcp.runtime.jail import NOBODY, WORKDIR, JailSpec
from envfactory_mcp.runtime.seccomp import (
    CLONE_THREAD,
    DENIED,
    JAIL_PID,
    RET_ALLOW,
    RET_ERRNO,
    RET_KILL_PROCESS,
    seccomp_filter,
    syscall_numbers,
)

ARCHES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
THREAD_FLAGS = 0x3D0F00  # what glibc's pthread_create passes to clone
SIGCHLD = 17
EPERM = 1

# ----------------------------------------------------------------------------- a BPF interpreter


def run_bpf(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """Execute a classic BPF seccomp program on one system call; returns its verdict.

    Only the instructions the jail uses exist here (ld word abs, jeq/jge/jset k, ret k);
    anything else fails the test, as does a jump out of the program."""
    code = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    words = list(args) + [0] * (6 - len(args))
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(w & 0xFFFFFFFFFFFFFFFF for w in words))
    acc, pc = 0, 0
    while True:
        assert 0 <= pc < len(code), f"jump out of the program at {pc}"
        op, jt, jf, k = code[pc]
        if op == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op in (0x15, 0x35, 0x45):  # jeq, jge, jset
            hit = acc == k if op == 0x15 else acc >= k if op == 0x35 else bool(acc & k)
            pc += 1 + (jt if hit else jf)
        elif op == 0x06:  # BPF_RET | BPF_K
            return k
        else:
            raise AssertionError(f"unexpected BPF opcode {op:#x}")


@pytest.fixture(params=sorted(ARCHES))
def arch(request: pytest.FixtureRequest) -> str:
    return request.param


def verdict(arch: str, name: str, *args: int, stage: str = "start", violation: int = RET_KILL_PROCESS) -> int:
    program = seccomp_filter(stage, arch, violation)
    return run_bpf(program, syscall_numbers(arch)[name], ARCHES[arch], args)


def test_every_denied_call_is_refused(arch: str):
    names = [n for n in DENIED if n in syscall_numbers(arch)]
    assert len(names) > 50
    for name in names:
        assert verdict(arch, name) == RET_KILL_PROCESS, name


def test_ordinary_calls_pass(arch: str):
    program = seccomp_filter("start", arch)
    denied = {syscall_numbers(arch)[n] for n in DENIED if n in syscall_numbers(arch)}
    special = {syscall_numbers(arch)[n] for n in ("clone", "clone3", "socketpair", "kill", "tgkill",
                                                  "rt_sigqueueinfo", "rt_tgsigqueueinfo", "ioctl")}  # fmt: skip
    for nr in range(460):
        if nr not in denied | special:
            assert run_bpf(program, nr, ARCHES[arch]) == RET_ALLOW, nr


def test_threads_may_be_made_but_not_processes(arch: str):
    assert verdict(arch, "clone", THREAD_FLAGS) == RET_ALLOW
    assert verdict(arch, "clone", SIGCHLD) == RET_KILL_PROCESS  # fork()
    assert (
        verdict(arch, "clone", THREAD_FLAGS | 0x10000000) == RET_KILL_PROCESS
    )  # ... in a new user namespace
    assert verdict(arch, "clone", THREAD_FLAGS & ~CLONE_THREAD) == RET_KILL_PROCESS
    assert verdict(arch, "clone3") == RET_ERRNO | 38  # ENOSYS: the C library falls back to clone


def test_only_unix_socketpairs(arch: str):
    assert verdict(arch, "socketpair", 1, 1, 0) == RET_ALLOW
    assert verdict(arch, "socketpair", 2, 1, 0) == RET_KILL_PROCESS
    assert verdict(arch, "socket", 1, 1, 0) == RET_KILL_PROCESS


def test_signals_only_to_itself(arch: str):
    for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        assert verdict(arch, name, JAIL_PID, 10) == RET_ALLOW, name
        for pid in (1, 0, -1, 3, 12345):
            assert verdict(arch, name, pid, 10) == RET_KILL_PROCESS, (name, pid)
    assert verdict(arch, "tkill", JAIL_PID, 10) == RET_KILL_PROCESS


def test_no_terminal_injection(arch: str):
    assert verdict(arch, "ioctl", 0, 0x5412) == RET_KILL_PROCESS  # TIOCSTI
    assert verdict(arch, "ioctl", 0, 0x541C) == RET_KILL_PROCESS  # TIOCLINUX
    assert verdict(arch, "ioctl", 0, 0x5401) == RET_ALLOW  # TCGETS


def test_execve_is_allowed_once_then_never(arch: str):
    assert verdict(arch, "execve") == RET_ALLOW  # bwrap starts the program after installing the filter
    for name in ("execve", "execveat"):
        assert verdict(arch, name, stage="running") == RET_KILL_PROCESS
    assert verdict(arch, "clone", SIGCHLD, stage="running") == RET_ALLOW  # the start filter stays underneath


def test_other_architectures_and_x32_are_killed():
    program = seccomp_filter("start", "x86_64")
    assert run_bpf(program, 0, 0x40000003) == RET_KILL_PROCESS  # i386 through int 0x80
    assert run_bpf(program, 0x40000000 | 1, ARCHES["x86_64"]) == RET_KILL_PROCESS  # x32 write


def test_the_violation_action_can_be_an_error_instead():
    assert verdict("x86_64", "mknodat", violation=RET_ERRNO | EPERM) == RET_ERRNO | EPERM


def test_the_programs_are_small():
    for arch in ARCHES:
        for stage in ("start", "running"):
            program = seccomp_filter(stage, arch)
            assert len(program) % 8 == 0 and len(program) // 8 < 256  # BPF_MAXINSNS is 4096


@pytest.mark.parametrize(
    ("arch", "header"),
    [
        ("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
        ("aarch64", "/usr/include/asm-generic/unistd.h"),
    ],
)
def test_syscall_numbers_match_the_kernel_headers(arch: str, header: str):
    if not Path(header).is_file():
        pytest.skip(f"{header} is not installed (linux-libc-dev)")
    found = dict(re.findall(r"#define __NR(?:3264)?_(\w+)\s+(\d+)\b", Path(header).read_text()))
    for name, number in syscall_numbers(arch).items():
        assert int(found[name]) == number, name


# ----------------------------------------------------------------------------- the command line


def test_the_command_line_unshares_drops_and_binds_read_only(tmp_path: Path):
    spec = JailSpec(read_only=(str(tmp_path),), work_bytes=1 << 20)
    command = jail.jail_command(spec, ["prog", "arg"], 7, "/usr/bin/bwrap")
    assert command[-3:] == ["--", "prog", "arg"]
    for flag in (*jail.UNSHARE, "--die-with-parent", "--new-session", "--clearenv", "--proc", "--dev"):
        assert flag in command
    assert command[command.index("--seccomp") + 1] == "7"
    assert command[command.index("--cap-drop") + 1] == "ALL"
    assert not {"--bind", "--dev-bind", "--bind-try", "--share-net"} & set(command)
    tmpfs = command.index("--tmpfs")
    assert command[tmpfs + 1] == WORKDIR and command[tmpfs - 2 : tmpfs] == ["--size", str(1 << 20)]
    binds = [command[i + 1] for i, arg in enumerate(command) if arg == "--ro-bind"]
    assert str(tmp_path) in binds and os.path.realpath(sys.base_prefix) in {
        os.path.realpath(b) for b in binds
    }
    assert all(command.index("--tmpfs") < i for i, arg in enumerate(command) if arg == "--ro-bind")
    setenv = {command[i + 1]: command[i + 2] for i, arg in enumerate(command) if arg == "--setenv"}
    assert setenv["HOME"] == WORKDIR and not any(k.startswith(("PYTHON", "LD_")) for k in setenv)
    if os.geteuid() == 0:  # root keeps only what confine_self() spends, and no user namespace
        added = [command[i + 1] for i, arg in enumerate(command) if arg == "--cap-add"]
        assert added == list(jail.KEPT_CAPS) and "--unshare-user" not in command
    else:
        assert "--unshare-user" in command and command[command.index("--uid") + 1] == str(NOBODY)


# ----------------------------------------------------------------------------- in the kernel


# Folders a jail's root may hold: the work dir, /dev, /proc and the binds' first levels
# (the interpreter's, the checkout's and the test's own folder, wherever those live).
def _first_levels(path: str) -> set[str]:
    return {p.lstrip("/").split("/", 1)[0] for p in (path, os.path.realpath(path))}


ROOT_ENTRIES = {"dev", "jail", "proc"}.union(
    *(
        _first_levels(p)
        for p in (
            *jail.LIBRARY_DIRS,
            *jail.LIBRARY_FILES,
            *jail.interpreter_paths(),
            *jail.OWN_FILES,
            tempfile.gettempdir(),
        )
    )
)
needs_jail = pytest.mark.skipif(
    not jail.jail_support().available, reason=f"no working jail here: {jail.jail_support().reason}"
)
HERE = jail.__file__
BOOT = (
    f"import importlib.util as u, json, sys; s = u.spec_from_file_location('jail', {HERE!r}); "
    "m = u.module_from_spec(s); sys.modules['jail'] = m; s.loader.exec_module(m); seen = m.confine_self()\n"
)


def jailed(code: str, *, spec: JailSpec | None = None) -> subprocess.CompletedProcess[bytes]:
    spec = spec or JailSpec(read_only=jail.OWN_FILES)
    return jail.run_jailed(spec, [sys.executable, "-I", "-S", "-B", "-c", BOOT + code], timeout=30)


@needs_jail
def test_a_jailed_program_sees_every_layer():
    proc = jailed("print(json.dumps(seen))")
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert jail.layers_seen(seen) == dict.fromkeys(jail.layers_seen(seen), True)
    assert seen["uid"] == NOBODY and seen["gid"] == NOBODY and seen["groups"] == []
    assert seen["pid"] == JAIL_PID and seen["seccomp_filters"] == 2


@needs_jail
@pytest.mark.parametrize(
    "attempt",
    [
        "import os; os.fork()",
        "import os; os.execv(sys.executable, [sys.executable, '-c', '1'])",
        "import socket; socket.socket(socket.AF_UNIX)",
        "import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)",
        "import os; os.mkfifo('fifo')",
        "import os; os.kill(1, 9)",
        "import os; os.pidfd_open(1)",
        "import ctypes; ctypes.CDLL(None).ptrace(16, 1, 0, 0)",
        "import ctypes; ctypes.CDLL(None).unshare(0x10000000)",
        "import ctypes; ctypes.CDLL(None).mount(b'none', b'/jail', b'tmpfs', 0, None)",
        "import ctypes; ctypes.CDLL(None).syscall(321, 0, 0, 0)",  # bpf
        "import ctypes; ctypes.CDLL(None).syscall(250, 0, 0)",  # keyctl
        "import ctypes; ctypes.CDLL(None).syscall(425, 1, 0)",  # io_uring_setup
    ],
    ids=[
        "fork",
        "execve",
        "unix-socket",
        "inet-socket",
        "mkfifo",
        "kill-1",
        "pidfd",
        "ptrace",
        "unshare",
        "mount",
        "bpf",
        "keyctl",
        "io_uring",
    ],
)
def test_a_forbidden_call_kills_the_jailed_program(attempt: str):
    if platform.machine() != "x86_64" and "syscall(" in attempt:
        pytest.skip("raw syscall numbers are x86_64's")
    proc = jailed(attempt + "\nprint('survived')")
    assert b"survived" not in proc.stdout
    assert proc.returncode == 128 + signal.SIGSYS, proc.stderr  # bwrap reports the child's signal so


@needs_jail
def test_what_a_tool_and_a_server_need_still_works():
    code = """
import asyncio, signal, socket, threading, time
out = []
t = threading.Thread(target=out.append, args=("thread",)); t.start(); t.join()
a, b = socket.socketpair(); a.send(b"x"); out.append(b.recv(1).decode())
asyncio.run(asyncio.sleep(0)); out.append("loop")
signal.signal(signal.SIGUSR1, lambda *_: out.append("usr1")); signal.raise_signal(signal.SIGUSR1)
signal.signal(signal.SIGALRM, lambda *_: out.append("alarm")); signal.setitimer(signal.ITIMER_REAL, 0.01); time.sleep(0.2)
open("note", "w").write("mine"); out.append(open("note").read())
import sqlite3; out.append(str(sqlite3.connect(":memory:").execute("select 1").fetchone()[0]))
print(" ".join(out))
"""
    proc = jailed(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().split() == ["thread", "x", "loop", "usr1", "alarm", "mine", "1"]


@needs_jail
def test_the_host_is_out_of_sight_and_the_binds_are_read_only(tmp_path: Path):
    (tmp_path / "visible.txt").write_text("bound")
    tmp_path.chmod(0o755)
    code = f"""
import os
print(sorted(os.listdir("/")))
print(os.path.exists("/etc/shadow"), os.path.exists("/etc/passwd"), os.path.exists("/home"), os.path.exists("/usr/bin/sh"))
print(open({str(tmp_path / "visible.txt")!r}).read())
for path in ({str(tmp_path / "x")!r}, {sys.base_prefix + "/x"!r}, "/x"):
    try:
        open(path, "w")
        print("wrote", path)
    except OSError as exc:
        print(type(exc).__name__)
print(os.getcwd(), os.environ.get("HOME"), sorted(os.environ))
"""
    proc = jailed(code, spec=JailSpec(read_only=(*jail.OWN_FILES, str(tmp_path))))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert set(ast.literal_eval(lines[0])) <= ROOT_ENTRIES
    assert lines[1] == "False False False False"
    assert lines[2] == "bound"
    assert not [line for line in lines[3:6] if line.startswith("wrote")]
    assert lines[6].startswith(f"{WORKDIR} {WORKDIR} ")
    assert ast.literal_eval(lines[6].split(" ", 2)[2]) == ["HOME", "LANG", "PATH", "PWD", "TMPDIR"]


@needs_jail
def test_the_launcher_starts_the_same_jail_without_passing_a_descriptor():
    argv = jail.launcher_argv(
        JailSpec(read_only=jail.OWN_FILES),
        [sys.executable, "-I", "-S", "-B", "-c", BOOT + "print(json.dumps(seen))"],
    )
    proc = subprocess.run(argv, capture_output=True, timeout=30, check=False, env={"PATH": os.defpath})
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert all(jail.layers_seen(seen).values()) and seen["uid"] == NOBODY


@needs_jail
def test_the_jail_dies_with_its_parent():
    """bwrap killed (as verify does at its wall-clock limit): the jailed program goes too."""
    command, fds = jail.popen_args(
        JailSpec(read_only=jail.OWN_FILES),
        [
            sys.executable,
            "-I",
            "-S",
            "-B",
            "-c",
            BOOT + "import time; print('up', flush=True); time.sleep(60)",
        ],
    )
    with subprocess.Popen(
        command, pass_fds=fds, stdout=subprocess.PIPE, start_new_session=True, env={}
    ) as proc:  # the pipe closed on the way out
        for fd in fds:
            os.close(fd)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"up"
        inner = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _ancestor(int(p.name), proc.pid)]
        assert inner, "the jailed program should be a descendant of bwrap"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for _ in range(50):
        if not any(p.exists() for p in inner):
            break
        time.sleep(0.05)
    assert not any(p.exists() for p in inner)


def _ancestor(pid: int, ancestor: int) -> bool:
    while pid > 1:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False
        pid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
        if pid == ancestor:
            return True
    return False
