# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Run foreign code in a jail: the one place that decides what such code can reach.

A jailed program is started by bubblewrap (``bwrap``, Debian's ``bubblewrap`` package) in
fresh mount, pid, network, IPC, UTS and cgroup namespaces. Its filesystem is an empty
tmpfs root holding read-only binds of exactly what Python needs (the interpreter's
prefixes, the library folders, the paths the caller names) and one private,
size-capped tmpfs work directory. It runs as an unprivileged uid (65534, ``nobody``)
with no capabilities and no new privileges, under the seccomp filter of ``seccomp.py``,
which kills it on any attempt to start a process, trace or signal another one, take a
pidfd, make a device or FIFO node, open a socket, mount, or use keyrings or BPF. The
caller adds rlimits and time limits of its own (``verify/worker.py`` does).

bwrap installs the filter's *start* stage before it executes the program; the program
calls ``confine_self()`` before it loads any foreign code, which drops root if it still
has it and stacks the *running* stage (no ``execve`` from then on). A refused call kills
the whole process (``SECCOMP_RET_KILL_PROCESS``): foreign code cannot catch that, and
the caller sees ``SIGSYS`` (bwrap reports it as exit status 128 + 31).

When the caller is root, bwrap runs privileged without a user namespace (which would
map the jail's uid to root on the host) and keeps only CAP_SETUID, CAP_SETGID and
CAP_SETPCAP in the jail, which ``confine_self()`` spends on emptying the bounding set
and becoming 65534 for real. Other callers get a user namespace in which they appear
as 65534.

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
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

try:
    from .seccomp import seccomp_filter, supported
except ImportError:  # run as a script (the launcher) or loaded by path: no package around it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from seccomp import seccomp_filter, supported  # type: ignore[no-redef,import-not-found]

NOBODY = 65534
# This module and the filter it imports: what a jailed program binds to confine itself
# when it has no package of its own around them (the self-check).
OWN_FILES = tuple(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), f) for f in ("jail.py", "seccomp.py")
)
WORKDIR = "/jail"  # inside the jail: the private tmpfs, cwd, HOME and TMPDIR (no host path is under it)

# ----------------------------------------------------------------------------- the jail


class JailError(RuntimeError):
    """The jail could not be set up (or a jailed program could not confine itself)."""


@dataclass(frozen=True)
class JailSpec:
    """What one jailed program may see and how it starts.

    ``read_only``: host paths bound read-only at the same place inside (folders or files);
    the interpreter's own paths are added by ``interpreter_paths()``, not here.
    ``work_bytes`` caps the private tmpfs at ``WORKDIR``; ``work_writable=False`` makes
    it read-only (nothing a jailed process writes can reach another one), ``proc=False``
    mounts no ``/proc`` (no view of sibling processes at all). Per-session servers
    (``zygote.py``) use both.
    """

    read_only: tuple[str, ...] = ()
    work_bytes: int = 64 << 20
    work_writable: bool = True
    proc: bool = True
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
    command += ["--dev", "/dev", *(["--proc", "/proc"] if spec.proc else [])]
    if not spec.work_writable:
        command += ["--remount-ro", WORKDIR]
    command += ["--chdir", WORKDIR, "--clearenv"]
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
    if not supported():
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
        proc = run_jailed(JailSpec(read_only=OWN_FILES), argv, bwrap=bwrap, timeout=20)
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
    spec: JailSpec, argv: list[str], *, bwrap: str | None = None, stage: str = "start"
) -> tuple[list[str], tuple[int, ...]]:
    """(command line, descriptors to pass) for ``subprocess.Popen(command, pass_fds=...)``.

    The caller closes the descriptors once the process has started. ``stage``: the
    seccomp stage bwrap installs (``zygote`` for a fork server)."""
    bwrap = bwrap or find_bwrap()
    if bwrap is None:
        raise JailError("bubblewrap is not installed")
    fd = filter_pipe(stage)
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

_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_SET_SECCOMP, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = (
    1,
    4,
    22,
    24,
    38,
)
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
    _prctl(libc, _PR_SET_NO_NEW_PRIVS, 1)
    _prctl(libc, _PR_SET_PDEATHSIG, int(signal.SIGKILL))
    _stack_filter(libc, seccomp_filter("running"))
    return observe_self()


def confine_session() -> None:
    """Called in a process the zygote (``zygote.py``) just forked, before anything else:
    stack the start stage again with this process's own pid (no process of its own, no
    signal to any other process, the zygote included), die with the zygote, and become
    undumpable (no other process of the same uid may read its memory or descriptors)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    _prctl(libc, _PR_SET_PDEATHSIG, int(signal.SIGKILL))
    _prctl(libc, _PR_SET_DUMPABLE, 0)
    _stack_filter(libc, seccomp_filter("start", own_pid=os.getpid()))


def _prctl(libc: Any, option: int, arg2: int, arg3: int = 0) -> None:
    import ctypes

    if libc.prctl(option, arg2, arg3, 0, 0) != 0:
        raise JailError(f"prctl({option}) failed: {os.strerror(ctypes.get_errno())}")


def _stack_filter(libc: Any, program: bytes) -> None:
    import ctypes

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _prctl(libc, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog))


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


def death_signal(returncode: int, jailed: bool = True) -> int | None:
    """The signal that ended a (jailed) program, if one did. bwrap reports its child's
    death by signal N as exit status 128 + N; a negative status is bwrap (or an unjailed
    program) killed by signal -status."""
    if returncode < 0:
        return -returncode
    if jailed and returncode > 128:
        return returncode - 128
    return None


def signal_name(signum: int) -> str:
    """``SIGSYS`` for 31, or the number as text when Python knows no such signal."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return str(signum)


def missing_layers(seen: Mapping[str, object], host: Mapping[str, str] | None = None) -> list[str]:
    """The layers a jailed program's ``observe_self()`` report does not show."""
    return [name for name, present in layers_seen(seen, host).items() if not present]


if __name__ == "__main__":
    _launch(sys.argv[1])
