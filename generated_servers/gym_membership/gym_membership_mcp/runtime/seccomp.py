# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""The jail's seccomp filter: a classic BPF program, written here in Python.

Two stages, because classic BPF has no memory of what came before: ``bwrap --seccomp``
installs the *start* filter just before it executes the jailed program (so ``execve``
is still allowed once), and the program stacks the *running* filter, which refuses
``execve``/``execveat``, before it loads any foreign code (``jail.confine_self()``).

Why written by hand: the program is ~180 instructions of one shape (check the
architecture, compare the syscall number, test an argument or two, return), this module
must stay stdlib-only because every generated package vendors ``runtime/``, and the
PyPI bindings of libseccomp are either unmaintained (``pyseccomp``, last release 2021) or
need libseccomp's headers and a compiler to build. Every block ends in a return on every
path, so a jump never leaves its block and a skipped block leaves the syscall number in
the accumulator. ``tests/runtime/test_jail.py`` runs the program through a small BPF
interpreter and through the kernel, and checks the syscall tables against the kernel
headers where they are installed.

Stdlib only: ``runtime/`` is copied into every generated package.
"""

from __future__ import annotations

import platform
import struct
from collections.abc import Mapping
from dataclasses import dataclass

JAIL_PID = 2  # bwrap's reaper is pid 1 of the jail's pid namespace; the program is pid 2

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
            "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66, "shmdt": 67,
            "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semtimedop": 220, "mq_open": 240,
            "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244,
            "mq_getsetattr": 245,
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
            "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184,
            "mq_getsetattr": 185, "msgget": 186, "msgctl": 187, "msgrcv": 188, "msgsnd": 189, "semget": 190,
            "semctl": 191, "semtimedop": 192, "semop": 193, "shmget": 194, "shmctl": 195, "shmat": 196,
            "shmdt": 197,
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
    **dict.fromkeys(("shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget",
                     "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend",
                     "mq_timedreceive", "mq_notify", "mq_getsetattr"),
                    "System V and POSIX IPC (a channel between jailed processes sharing an IPC namespace)"),
}  # fmt: skip
# What the zygote stage (a fork server: ``runtime/zygote.py``) may do that the start stage
# refuses: start a process of its own, in no new namespace. Each process it starts stacks
# the start stage again at once (``jail.confine_session()``).
FORK_CALLS = ("fork", "vfork")
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


def seccomp_filter(
    stage: str = "start", arch: str | None = None, violation: int = RET_KILL_PROCESS, own_pid: int = JAIL_PID
) -> bytes:
    """The jail's seccomp program as raw ``struct sock_filter`` bytes.

    ``stage="start"`` is what bwrap installs before it executes the program: everything
    in ``DENIED``; ``clone`` only for threads (``CLONE_THREAD`` and no namespace flags);
    ``clone3`` answers ENOSYS so the C library falls back to ``clone``; ``socketpair``
    only for AF_UNIX (the asyncio self-pipe); ``kill``/``tgkill``/``rt_*sigqueueinfo``
    only at the program's own pid (``own_pid``); ``ioctl`` never TIOCSTI or TIOCLINUX.
    ``stage="running"`` is stacked by ``confine_self()`` and refuses ``execve`` and
    ``execveat``. ``stage="zygote"`` is the start stage that may also fork (never into
    new namespaces) and signal any process of its pid namespace (its own sessions): the
    fork server of per-session jailed servers, whose children stack the start stage with
    their own pid before anything else. Any other architecture (or the x32 ABI) is refused. ``violation`` is the
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
    if stage not in ("start", "zygote"):
        raise ValueError(f"unknown seccomp stage {stage!r}")
    forks = stage == "zygote"
    for name in DENIED:
        if name in n and not (forks and name in FORK_CALLS):
            p.when_syscall(n[name], _block(_i(_RET, violation)))
    p.when_syscall(n["clone3"], _block(_i(_RET, RET_ERRNO | ENOSYS)))
    if forks:  # a process or a thread, never in new namespaces
        clone = _block(
            _i(_LD_W_ABS, _arg_low(0)),
            _i(_JSET, CLONE_NAMESPACES, 1, 0),
            _i(_RET, RET_ALLOW),
            _i(_RET, violation),
        )
    else:
        clone = _block(
            _i(_LD_W_ABS, _arg_low(0)),
            _i(_JSET, CLONE_THREAD, 0, 2),  # not a thread: refuse
            _i(_JSET, CLONE_NAMESPACES, 1, 0),  # a thread in new namespaces: refuse
            _i(_RET, RET_ALLOW),
            _i(_RET, violation),
        )
    p.when_syscall(n["clone"], clone)
    p.when_syscall(
        n["socketpair"],
        _block(_i(_LD_W_ABS, _arg_low(0)), _i(_JEQ, AF_UNIX, 0, 1), _i(_RET, RET_ALLOW), _i(_RET, violation)),
    )
    for name in () if forks else SIGNAL_CALLS:  # the zygote ends its sessions: any pid of its namespace
        p.when_syscall(
            n[name],
            _block(
                _i(_LD_W_ABS, _arg_low(0)), _i(_JEQ, own_pid, 0, 1), _i(_RET, RET_ALLOW), _i(_RET, violation)
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


def supported(arch: str | None = None) -> bool:
    """Whether there is a syscall table for ``arch`` (default: this machine's)."""
    return (arch or platform.machine()) in _ARCHES


def syscall_numbers(arch: str | None = None) -> Mapping[str, int]:
    """The syscall numbers the filter uses, for ``arch`` (default: this machine's)."""
    return _ARCHES[arch or platform.machine()].numbers
