# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Run foreign code in a jail: the one place that decides what such code can reach.

A jailed program is started by bubblewrap (``bwrap``, Debian's ``bubblewrap`` package) in
fresh mount, pid, network, IPC, UTS and cgroup namespaces. Its filesystem is an empty
tmpfs root holding read-only binds of exactly what Python needs (the interpreter's
prefixes, the library folders, the folders the caller names) and one private,
size-capped tmpfs work directory. It runs as an unprivileged uid (65534, ``nobody``)
with no capabilities and no new privileges, under a seccomp filter that refuses
process creation, tracing, signals to other processes, pidfds, device and FIFO nodes,
sockets, mounts, keyrings, BPF and the other calls a tool has no use for. The caller
adds rlimits and time limits of its own (``verify/worker.py`` does).

Two stages of seccomp, because classic BPF has no memory of what came before:
``bwrap --seccomp`` installs the *start* filter before it executes the program (so
``execve`` must still be allowed once), and the program itself calls
``confine_self()`` before it loads any foreign code, which drops root if it still has
it and stacks the *running* filter that refuses ``execve``/``execveat`` from then on.
A refused call kills the whole process (``SECCOMP_RET_KILL_PROCESS``): foreign code
cannot catch that, and the caller sees ``SIGSYS``.

When the caller is root, bwrap runs privileged without a user namespace and keeps only
CAP_SETUID/CAP_SETGID in the jail, which ``confine_self()`` spends on becoming 65534
for real (a user namespace would map the jail's uid to root on the host). Other callers
get a user namespace in which they appear as 65534.

Why a hand-written BPF program: the filter is ~130 instructions of one shape (arch check,
compare the syscall number, a few argument tests), this module must stay stdlib-only
because every generated package vendors ``runtime/``, and the PyPI bindings of
libseccomp are either unmaintained (``pyseccomp``, last release 2021) or need
libseccomp's headers to build. ``tests/runtime/test_jail.py`` runs the program through a
small BPF interpreter and through the kernel.

Stdlib only: ``runtime/`` is copied into every generated package.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import platform
import shutil
import signal
import struct
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

NOBODY = 65534
JAIL_PID = 2  # bwrap's reaper is pid 1 of the new pid namespace; the program is pid 2
WORKDIR = "/jail"  # inside the jail: the private tmpfs, cwd, HOME and TMPDIR (no host path is under it)

# ----------------------------------------------------------------------------- seccomp

# sock_filter opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
RET_KILL_PROCESS, RET_ERRNO, RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data


def _arg_low(index: int) -> int:
    """Offset of the low 32 bits of syscall argument ``index`` (little-endian)."""
    return 16 + 8 * index


@dataclass(frozen=True)
class _Arch:
    audit: int  # AUDIT_ARCH_*
    numbers: Mapping[str, int]
    x32_bit: int | None = None  # x86_64: numbers with this bit are the x32 ABI


_GENERIC = {  # asm-generic/unistd.h numbers shared by x86_64 and aarch64 from 424 on
    "pidfd_send_signal": 424, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "pidfd_open": 434, "clone3": 435, "pidfd_getfd": 438, "process_madvise": 440, "mount_setattr": 442,
    "quotactl_fd": 443, "process_mrelease": 448,
}  # fmt: skip
_ARCHES = {
    "x86_64": _Arch(
        0xC000003E,
        _GENERIC | {
            "ioctl": 16, "socket": 41, "socketpair": 53, "clone": 56, "fork": 57, "vfork": 58, "execve": 59,
            "kill": 62, "ptrace": 101, "syslog": 103, "rt_sigqueueinfo": 129, "mknod": 133, "uselib": 134,
            "personality": 135, "vhangup": 153, "modify_ldt": 154, "pivot_root": 155, "adjtimex": 159,
            "chroot": 161, "acct": 163, "settimeofday": 164, "mount": 165, "umount2": 166, "swapon": 167,
            "swapoff": 168, "reboot": 169, "sethostname": 170, "setdomainname": 171, "iopl": 172,
            "ioperm": 173, "init_module": 175, "delete_module": 176, "quotactl": 179, "tkill": 200,
            "lookup_dcookie": 212, "clock_settime": 227, "tgkill": 234, "kexec_load": 246, "add_key": 248,
            "request_key": 249, "keyctl": 250, "migrate_pages": 256, "mknodat": 259, "unshare": 272,
            "move_pages": 279, "rt_tgsigqueueinfo": 297, "perf_event_open": 298, "fanotify_init": 300,
            "name_to_handle_at": 303, "open_by_handle_at": 304, "clock_adjtime": 305, "setns": 308,
            "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "finit_module": 313,
            "kexec_file_load": 320, "bpf": 321, "execveat": 322, "userfaultfd": 323,
        },
        x32_bit=0x40000000,
    ),
    "aarch64": _Arch(
        0xC00000B7,
        _GENERIC | {
            "lookup_dcookie": 18, "ioctl": 29, "mknodat": 33, "umount2": 39, "mount": 40, "pivot_root": 41,
            "chroot": 51, "vhangup": 58, "quotactl": 60, "acct": 89, "personality": 92, "unshare": 97,
            "kexec_load": 104, "init_module": 105, "delete_module": 106, "clock_settime": 112, "syslog": 116,
            "ptrace": 117, "kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138, "reboot": 142,
            "sethostname": 161, "setdomainname": 162, "settimeofday": 170, "adjtimex": 171, "socket": 198,
            "socketpair": 199, "add_key": 217, "request_key": 218, "keyctl": 219, "clone": 220, "execve": 221,
            "swapon": 224, "swapoff": 225, "migrate_pages": 238, "move_pages": 239, "rt_tgsigqueueinfo": 240,
            "perf_event_open": 241, "fanotify_init": 262, "name_to_handle_at": 264, "open_by_handle_at": 265,
            "clock_adjtime": 266, "setns": 268, "process_vm_readv": 270, "process_vm_writev": 271,
            "kcmp": 272, "finit_module": 273, "bpf": 280, "execveat": 281, "userfaultfd": 282,
            "kexec_file_load": 294,
        },
    ),
}  # fmt: skip

# Refused outright, with the reason each is on the list.
DENIED: dict[str, str] = {
    **dict.fromkeys(("fork", "vfork"), "a new process"),
    **dict.fromkeys(("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "process_madvise"),
                    "reaching into another process"),
    **dict.fromkeys(("pidfd_open", "pidfd_send_signal", "pidfd_getfd", "process_mrelease", "tkill"),
                    "signalling or grabbing another process"),
    **dict.fromkeys(("mknod", "mknodat"), "device and FIFO nodes"),
    "socket": "sockets (only socketpair(AF_UNIX) is allowed)",
    **dict.fromkeys(("mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
                     "fsconfig", "fsmount", "fspick", "mount_setattr", "unshare", "setns"),
                    "changing mounts or namespaces"),
    **dict.fromkeys(("keyctl", "add_key", "request_key"), "kernel keyrings"),
    **dict.fromkeys(("bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
                     "io_uring_register"), "kernel interfaces with a history of escapes (io_uring bypasses seccomp)"),
    **dict.fromkeys(("kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
                     "swapon", "swapoff", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
                     "sethostname", "setdomainname", "quotactl", "quotactl_fd", "syslog", "vhangup",
                     "lookup_dcookie", "iopl", "ioperm", "modify_ldt", "uselib", "personality",
                     "fanotify_init", "name_to_handle_at", "open_by_handle_at", "migrate_pages", "move_pages"),
                    "administering the machine"),
}  # fmt: skip
SIGNAL_CALLS = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")  # first argument is a pid
CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
AF_UNIX = 1
TIOCSTI, TIOCLINUX = 0x5412, 0x541C  # push input into a terminal; console control
ENOSYS = 38


class _Program:
    """A classic BPF program under construction (struct sock_filter: u16 code, u8 jt, u8 jf, u32 k)."""

    def __init__(self) -> None:
        self.code: list[tuple[int, int, int, int]] = []

    def op(self, code: int, k: int, jt: int = 0, jf: int = 0) -> None:
        self.code.append((code, jt, jf, k))

    def ret(self, value: int) -> None:
        self.op(_RET, value)

    def when_syscall(self, nr: int, block: list[tuple[int, int, int, int]]) -> None:
        """Run ``block`` (which returns on every path) when the syscall number is ``nr``;
        otherwise skip it with the number still in the accumulator."""
        self.op(_JEQ, nr, 0, len(block))
        self.code.extend(block)

    def bytes(self) -> bytes:
        return b"".join(struct.pack("<HBBI", *ins) for ins in self.code)


def _block(*ops: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    return list(ops)


def _i(code: int, k: int, jt: int = 0, jf: int = 0) -> tuple[int, int, int, int]:
    return (code, jt, jf, k)


def seccomp_filter(stage: str = "start", arch: str | None = None, violation: int = RET_KILL_PROCESS) -> bytes:
    """The jail's seccomp program as raw ``struct sock_filter`` bytes.

    ``stage="start"`` is what bwrap installs before it executes the program: everything
    in ``DENIED``; ``clone`` only for threads (``CLONE_THREAD`` and no namespace flags);
    ``clone3`` answers ENOSYS so the C library falls back to ``clone``; ``socketpair``
    only for AF_UNIX (the asyncio self-pipe); ``kill``/``tgkill``/``rt_*sigqueueinfo``
    only at the program's own pid (``JAIL_PID``); ``ioctl`` never TIOCSTI or TIOCLINUX.
    ``stage="running"`` is stacked by ``confine_self()`` and refuses ``execve`` and
    ``execveat``. Any other architecture (or the x32 ABI) is refused. ``violation`` is the
    seccomp return value for a refused call (default: kill the process).
    """
    table = _ARCHES[arch or platform.machine()]
    n = table.numbers
    p = _Program()
    p.op(_LD_W_ABS, _ARCH)
    p.op(_JEQ, table.audit, 1, 0)
    p.ret(RET_KILL_PROCESS)
    p.op(_LD_W_ABS, _NR)
    if table.x32_bit is not None:
        p.op(_JGE, table.x32_bit, 0, 1)
        p.ret(RET_KILL_PROCESS)
    if stage == "running":
        for name in ("execve", "execveat"):
            p.when_syscall(n[name], _block(_i(_RET, violation)))
        p.ret(RET_ALLOW)
        return p.bytes()
    if stage != "start":
        raise ValueError(f"unknown seccomp stage {stage!r}")
    for name in DENIED:
        if name in n:
            p.when_syscall(n[name], _block(_i(_RET, violation)))
    p.when_syscall(n["clone3"], _block(_i(_RET, RET_ERRNO | ENOSYS)))
    p.when_syscall(
        n["clone"],
        _block(
            _i(_LD_W_ABS, _arg_low(0)),
            _i(_JSET, CLONE_THREAD, 0, 2),  # not a thread: refuse
            _i(_JSET, CLONE_NAMESPACES, 1, 0),  # a thread in new namespaces: refuse
            _i(_RET, RET_ALLOW),
            _i(_RET, violation),
        ),
    )
    p.when_syscall(
        n["socketpair"],
        _block(_i(_LD_W_ABS, _arg_low(0)), _i(_JEQ, AF_UNIX, 0, 1), _i(_RET, RET_ALLOW), _i(_RET, violation)),
    )
    for name in SIGNAL_CALLS:
        p.when_syscall(
            n[name],
            _block(
                _i(_LD_W_ABS, _arg_low(0)), _i(_JEQ, JAIL_PID, 0, 1), _i(_RET, RET_ALLOW), _i(_RET, violation)
            ),
        )
    p.when_syscall(
        n["ioctl"],
        _block(
            _i(_LD_W_ABS, _arg_low(1)),
            _i(_JEQ, TIOCSTI, 2, 0),
            _i(_JEQ, TIOCLINUX, 1, 0),
            _i(_RET, RET_ALLOW),
            _i(_RET, violation),
        ),
    )
    p.ret(RET_ALLOW)
    return p.bytes()


def syscall_numbers(arch: str | None = None) -> Mapping[str, int]:
    """The syscall numbers the filter uses, for ``arch`` (default: this machine's)."""
    return _ARCHES[arch or platform.machine()].numbers


# ----------------------------------------------------------------------------- the jail


class JailError(RuntimeError):
    """The jail could not be set up (or a jailed program could not confine itself)."""


@dataclass(frozen=True)
class JailSpec:
    """What one jailed program may see and how it starts.

    ``read_only``: host paths bound read-only at the same place inside (folders or files);
    the interpreter's own paths are added by ``interpreter_paths()``, not here.
    ``work_bytes`` caps the private tmpfs at ``WORKDIR``.
    """

    read_only: tuple[str, ...] = ()
    work_bytes: int = 64 << 20
    env: tuple[tuple[str, str], ...] = ()
    hostname: str = "jail"
    uid: int = NOBODY
    gid: int = NOBODY

    def environment(self) -> dict[str, str]:
        """The jailed program's whole environment: nothing of the caller's."""
        return {"PATH": "/nonexistent", "HOME": WORKDIR, "TMPDIR": WORKDIR, "LANG": "C.UTF-8"} | dict(
            self.env
        )


@dataclass(frozen=True)
class JailSupport:
    """Whether this machine can jail, how, and if not, why not."""

    available: bool
    reason: str
    bwrap: str | None = None
    version: str = ""
    privileged: bool = False  # the caller is root: bwrap runs without a user namespace
    layers: Mapping[str, bool] = field(default_factory=dict)  # what the self-check saw (layers_seen)


# What a root launch keeps until confine_self(): becoming spec.uid, and emptying the bounding set.
KEPT_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
# Every namespace but the user namespace, which --unshare-all would add even for root.
UNSHARE = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup")
LIBRARY_DIRS = ("/usr/lib", "/usr/lib64", "/usr/lib32", "/lib", "/lib64", "/lib32", "/usr/libx32", "/libx32")
LIBRARY_FILES = ("/etc/ld.so.cache",)


def interpreter_paths() -> tuple[str, ...]:
    """The folders this interpreter needs: its prefixes (a venv and its base), its
    site-packages, and the real file behind ``sys.executable``, deduplicated."""
    import site  # only when a jail is built

    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    candidates += [p for p in site.getsitepackages() if os.path.isdir(p)]
    candidates.append(os.path.dirname(os.path.realpath(sys.executable)))
    return _outermost(os.path.realpath(p) for p in candidates if p)


def _outermost(paths: Iterable[str]) -> tuple[str, ...]:
    """Paths with those inside another one dropped (one bind covers them)."""
    unique = sorted(set(paths))
    kept: list[str] = []
    for path in unique:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return tuple(kept)


def _ancestors(path: str) -> list[str]:
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def jail_command(spec: JailSpec, argv: list[str], seccomp_fd: int, bwrap: str) -> list[str]:
    """The bwrap command line that runs ``argv`` in the jail, reading the start filter
    from ``seccomp_fd`` (which the caller keeps open across the exec)."""
    privileged = os.geteuid() == 0
    command = [bwrap, *UNSHARE, "--die-with-parent", "--new-session", "--hostname", spec.hostname]
    if privileged:
        # No user namespace (bwrap would map the jail's uid to root here); the program
        # drops to spec.uid itself in confine_self() with the only two capabilities it keeps.
        command += ["--cap-drop", "ALL", *(a for cap in KEPT_CAPS for a in ("--cap-add", cap))]
    else:
        command += ["--unshare-user", "--disable-userns", "--uid", str(spec.uid), "--gid", str(spec.gid)]
        command += ["--cap-drop", "ALL"]
    # The work directory first, so that nothing bound later can be hidden by it.
    command += [
        "--perms",
        "1777" if privileged else "0700",
        "--size",
        str(spec.work_bytes),
        "--tmpfs",
        WORKDIR,
    ]
    binds = _outermost(
        [
            *(p for p in LIBRARY_DIRS if os.path.isdir(p) and not os.path.islink(p)),
            *(p for p in LIBRARY_FILES if os.path.isfile(p)),
            *interpreter_paths(),
            *(os.path.realpath(p) for p in spec.read_only),
        ]
    )
    # Run as root, bwrap would create the folders leading to a bind with mode 0700,
    # which the jail's uid could not cross.
    for folder in sorted({a for path in binds for a in _ancestors(path)} - {WORKDIR}):
        if not any(folder == b or folder.startswith(b + "/") for b in binds):
            command += ["--perms", "0755", "--dir", folder]
    for path in binds:
        command += ["--ro-bind", path, path]
    for path in LIBRARY_DIRS:  # /lib -> usr/lib on merged-/usr systems
        if os.path.islink(path):
            command += ["--symlink", os.readlink(path), path]
    command += ["--dev", "/dev", "--proc", "/proc", "--chdir", WORKDIR, "--clearenv"]
    for key, value in spec.environment().items():
        command += ["--setenv", key, value]
    command += ["--seccomp", str(seccomp_fd), "--", *argv]
    return command


def filter_pipe(stage: str = "start") -> int:
    """A pipe's read end holding the seccomp program (it fits the pipe's buffer); inheritable."""
    program = seccomp_filter(stage)
    read, write = os.pipe()
    try:
        os.write(write, program)
    finally:
        os.close(write)
    os.set_inheritable(read, True)
    return read


def find_bwrap() -> str | None:
    """The bubblewrap binary on PATH or in /usr/bin, or None."""
    return shutil.which("bwrap") or (
        shutil.which("bwrap", path="/usr/bin:/bin") if os.name == "posix" else None
    )


@functools.cache
def jail_support() -> JailSupport:
    """Whether a jail works on this machine, proven by jailing a Python that confines itself
    and reports what it sees (cached per process)."""
    if not sys.platform.startswith("linux"):
        return JailSupport(False, f"jails need Linux (this is {sys.platform})")
    if platform.machine() not in _ARCHES:
        return JailSupport(False, f"no seccomp syscall table for {platform.machine()}")
    bwrap = find_bwrap()
    if bwrap is None:
        return JailSupport(False, "bubblewrap is not installed (apt-get install -y bubblewrap)")
    try:
        version = subprocess.run(
            [bwrap, "--version"], check=False, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return JailSupport(False, f"{bwrap} --version failed: {exc}", bwrap)
    here = os.path.abspath(__file__)
    probe = (
        f"import importlib.util as u, json, sys; s = u.spec_from_file_location('jail', {here!r}); "
        "m = u.module_from_spec(s); sys.modules['jail'] = m; s.loader.exec_module(m); "
        "print(json.dumps(m.confine_self()))"
    )
    argv = [sys.executable, "-I", "-S", "-B", "-c", probe]
    try:
        proc = run_jailed(JailSpec(read_only=(here,)), argv, bwrap=bwrap, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return JailSupport(False, f"bubblewrap could not start: {exc}", bwrap, version)
    if proc.returncode != 0:
        tail = (
            proc.stderr.decode(errors="replace").strip().splitlines() or [f"exit status {proc.returncode}"]
        )[-1]
        return JailSupport(False, f"bubblewrap could not build the jail here: {tail}", bwrap, version)
    try:
        seen = json.loads(proc.stdout)
    except ValueError:
        return JailSupport(False, "the jail's self-check printed no report", bwrap, version)
    layers = layers_seen(seen)
    if not all(layers.values()):
        lacking = ", ".join(name for name, present in layers.items() if not present)
        return JailSupport(False, f"the jail lacks {lacking} here", bwrap, version, layers=layers)
    privileged = os.geteuid() == 0
    how = f"launched as root, uid {NOBODY} inside" if privileged else f"user namespace, uid {NOBODY} inside"
    return JailSupport(True, f"{version} ({how})", bwrap, version, privileged, layers)


def run_jailed(
    spec: JailSpec,
    argv: list[str],
    *,
    bwrap: str | None = None,
    timeout: float | None = None,
    stdin: bytes = b"",
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` in the jail to completion (for short checks; long runs use ``popen_args``)."""
    command, fds = popen_args(spec, argv, bwrap=bwrap)
    try:
        return subprocess.run(
            command, input=stdin, capture_output=True, timeout=timeout, pass_fds=fds, env={}, check=False
        )
    finally:
        for fd in fds:
            os.close(fd)


def popen_args(
    spec: JailSpec, argv: list[str], *, bwrap: str | None = None
) -> tuple[list[str], tuple[int, ...]]:
    """(command line, descriptors to pass) for ``subprocess.Popen(command, pass_fds=...)``.

    The caller closes the descriptors once the process has started."""
    bwrap = bwrap or find_bwrap()
    if bwrap is None:
        raise JailError("bubblewrap is not installed")
    fd = filter_pipe("start")
    return jail_command(spec, argv, fd, bwrap), (fd,)


def launcher_argv(spec: JailSpec, argv: list[str]) -> list[str]:
    """A command line that starts the jail by itself, for callers that cannot pass a
    descriptor (an MCP stdio client): this module run as a script builds the filter and
    executes bwrap."""
    # The launcher runs with -S, where a venv's prefix is unknown: resolve the binds here.
    config = {"read_only": [*spec.read_only, *interpreter_paths()], "work_bytes": spec.work_bytes, "env": dict(spec.env),
              "hostname": spec.hostname, "uid": spec.uid, "gid": spec.gid, "argv": argv}  # fmt: skip
    return [sys.executable, "-I", "-S", "-B", os.path.abspath(__file__), json.dumps(config)]


def _launch(config_json: str) -> None:
    config = json.loads(config_json)
    argv = config.pop("argv")
    spec = JailSpec(
        read_only=tuple(config["read_only"]),
        work_bytes=int(config["work_bytes"]),
        env=tuple(sorted(config["env"].items())),
        hostname=config["hostname"],
        uid=int(config["uid"]),
        gid=int(config["gid"]),
    )
    bwrap = find_bwrap()
    if bwrap is None:
        raise SystemExit("jail: bubblewrap is not installed")
    fd = filter_pipe("start")
    command = jail_command(spec, argv, fd, bwrap)
    os.execve(bwrap, command, {"PATH": os.defpath})


# ----------------------------------------------------------------------------- inside the jail

_PR_SET_PDEATHSIG, _PR_SET_SECCOMP, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 1, 22, 24, 38
_SECCOMP_MODE_FILTER, _LINUX_CAPABILITY_VERSION_3 = 2, 0x20080522
NAMESPACES = ("mnt", "pid", "net", "ipc", "uts", "cgroup")


def confine_self(uid: int = NOBODY, gid: int = NOBODY) -> dict[str, object]:
    """Called by the jailed program before it loads foreign code: become ``uid``/``gid``
    if still root (no groups, no capabilities left), set no-new-privileges and the
    parent-death signal (both reset by the uid change), stack the ``running`` seccomp
    filter (no more ``execve``). Returns what the process can see of its own confinement
    (``observe_self()``); raises ``JailError`` if any step fails."""
    import ctypes  # trusted code, before any foreign code is loaded

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if os.geteuid() == 0 or os.getuid() == 0:
        for cap in range(64):  # the bounding set: no capability can ever come back
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
                break  # past the last capability this kernel knows
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)  # clears the permitted, effective and ambient sets
    if 0 in os.getresuid() or 0 in os.getresgid():
        raise JailError("still root after dropping privileges")
    _clear_capabilities(libc)  # the inheritable set survives a uid change

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = seccomp_filter("running")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    for option, arg2, arg3 in (
        (_PR_SET_NO_NEW_PRIVS, 1, 0),
        (_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0),
        (_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog)),
    ):
        if libc.prctl(option, arg2, arg3, 0, 0) != 0:
            raise JailError(f"prctl({option}) failed: {os.strerror(ctypes.get_errno())}")
    return observe_self()


def _clear_capabilities(libc: Any) -> None:
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    data = (ctypes.c_uint32 * 6)()  # two __user_cap_data_struct {effective, permitted, inheritable}
    if libc.capset(ctypes.byref(Header(_LINUX_CAPABILITY_VERSION_3, 0)), data) != 0:
        raise JailError(f"capset failed: {os.strerror(ctypes.get_errno())}")


def observe_self() -> dict[str, object]:
    """What this process can see of its confinement: ids, capabilities, no-new-privs,
    seccomp mode and filter count (from /proc/self/status), and its namespace ids (which
    the caller compares with its own)."""
    status: dict[str, str] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                status[key] = value.strip()
    except OSError:
        pass
    namespaces = {}
    for name in NAMESPACES:
        try:
            namespaces[name] = os.readlink(f"/proc/self/ns/{name}")
        except OSError:
            namespaces[name] = ""
    return {
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "gid": os.getgid(),
        "groups": os.getgroups(),
        "cap_effective": status.get("CapEff", ""),
        "cap_permitted": status.get("CapPrm", ""),
        "cap_bounding": status.get("CapBnd", ""),
        "cap_inheritable": status.get("CapInh", ""),
        "cap_ambient": status.get("CapAmb", ""),
        "no_new_privs": status.get("NoNewPrivs") == "1",
        "seccomp": status.get("Seccomp") == "2",
        "seccomp_filters": int(status.get("Seccomp_filters", "0") or 0),
        "pid": os.getpid(),
        "namespaces": namespaces,
    }


def host_namespaces() -> dict[str, str]:
    """This (the caller's) process's namespace ids, to compare with a jailed report."""
    found = {}
    for name in NAMESPACES:
        try:
            found[name] = os.readlink(f"/proc/self/ns/{name}")
        except OSError:
            found[name] = ""
    return found


def layers_seen(seen: Mapping[str, object], host: Mapping[str, str] | None = None) -> dict[str, bool]:
    """Which layers a jailed program's ``observe_self()`` report shows, by name."""
    host = host or host_namespaces()
    namespaces = seen.get("namespaces")
    capability_sets = ("cap_effective", "cap_permitted", "cap_bounding", "cap_inheritable", "cap_ambient")
    return {
        "namespaces": isinstance(namespaces, dict)
        and all(namespaces.get(n) and namespaces.get(n) != host.get(n) for n in NAMESPACES),
        "unprivileged_uid": seen.get("uid") not in (0, None) and seen.get("euid") not in (0, None),
        "no_capabilities": all(str(seen.get(k, "x")).strip("0") == "" for k in capability_sets),
        "no_new_privileges": seen.get("no_new_privs") is True,
        "seccomp": seen.get("seccomp") is True and int(str(seen.get("seccomp_filters", 0))) >= 2,
    }


def missing_layers(seen: Mapping[str, object], host: Mapping[str, str] | None = None) -> list[str]:
    """The layers a jailed program's ``observe_self()`` report does not show."""
    return [name for name, present in layers_seen(seen, host).items() if not present]


if __name__ == "__main__":
    _launch(sys.argv[1])
