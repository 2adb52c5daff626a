"""May this package run? The one answer, from the verification report stored with it.

Every command that runs an emitted package's code asks here first: ``serve``, ``tasks``
(which loads the tool code in-process), ``rollout`` over stdio, HTTP and in memory,
``pipeline`` (through ``rollout``), ``graph``, and the host's launchers
(``host/launch.py``), so a library caller cannot start an unverified package either.

A package runs when its report passed, still covers its current files and carries this
installation's signature (``verify/signing.py``: ``verify --save`` and ``build`` sign
what they verify), or when the package is shipped code (below), whose verdict needs no
signature (``list`` shows either as ``passed``). Anyone can write a report, digests
included, so a report that is unsigned or signed by another key is ``unsigned`` and
refused like a missing, failed, stale or unreadable one, with an
:class:`UnverifiedPackageError` saying how to fix that, unless the caller allows
unverified code (``--allow-unverified``, for development), in which case the answer
carries a warning for the command to print.

And *how* it runs: a verification report says nothing about intent. Tool code runs in
this process only when the package is shipped code, every file of it (all that a
report's subject covers: code, runtime, spec, schema, seed, policy, entry points) byte
for byte what ``build`` wrote for the blueprint of the same name (``is_shipped_code``:
a lookup in the checkout's ``generated_servers/MANIFEST.json`` and this user's build
records, ``shipped.py``; no blueprint is rendered to decide) and no bytecode cache
beside ``tools.py`` says otherwise (``bytecode_is_its_source``), or when the user says
``--trust``; anything else (synthesised, imported, edited, received; a shipped
``tools.py`` beside an edited seed too) runs in jailed worker processes
(``runtime/isolation.py``), and where no jail works it does not run at all
(:class:`JailUnavailableError`). Either way only the package's data files and
``tools.py`` are used: envfactory-mcp's own runtime serves them, never the package's copy.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

RUNNABLE = "passed"
SERVERS_DIR_ENV = "ENVFACTORY_SERVERS_DIR"

_WHY = {
    "stale": "its files changed since it was verified",
    "unsigned": "its verification report was not signed by this installation",
    "failed": "it failed verification",
    "not verified": "it has no verification report",
    "unreadable report": "its verification report cannot be read",
    "unreadable package": "some of its files cannot be read",
}


class UnverifiedPackageError(EnvFactoryError):
    """A package whose verification report is missing, failed or stale was asked to run."""

    def __init__(self, env: str, status: str, message: str) -> None:
        self.env, self.status = env, status
        super().__init__(message)


class JailUnavailableError(EnvFactoryError):
    """A package's tool code must run jailed and this machine has no working jail."""


@dataclass(frozen=True)
class RunPermission:
    """A package allowed to run: verified, or unverified with the caller's explicit leave;
    ``jailed``: its tool code runs in jailed workers (it is not shipped code, or the
    caller asked for the jail)."""

    env: str
    folder: Path
    status: str  # verification_status(): "passed", or why it is not
    jailed: bool = True

    @property
    def package_dir(self) -> Path:
        """The ``<name>_mcp`` folder: ``tools.py`` and ``data/``."""
        from envfactory_mcp.emit.render import package_name

        return self.folder / package_name(self.env)

    def server_args(self) -> list[str]:
        """The runtime's command-line options that run the tool code as decided here."""
        return ["--jail"] if self.jailed else []

    @property
    def verified(self) -> bool:
        return self.status == RUNNABLE

    @property
    def warning(self) -> str | None:
        """What to tell the user when unverified code runs (None for a verified package)."""
        if self.verified:
            return None
        where = "runs jailed" if self.jailed else "runs with this process's rights"
        return (
            f"running UNVERIFIED package {self.env} ({self.status}: {_WHY.get(self.status, self.status)}) "
            f"because --allow-unverified was given: its code was not checked in the sandbox and {where}"
        )


def check_runnable(
    folder: Path, *, allow_unverified: bool = False, trust: bool = False, jail: bool = False
) -> RunPermission:
    """May the package in ``folder`` (``<servers_dir>/<env>/``) run, and how?

    Returns the permission (read ``warning`` when unverified code was allowed, ``jailed``
    for how its tool code runs: in-process only for shipped blueprint code or with
    ``trust``; ``jail`` jails even shipped code). Raises :class:`UnverifiedPackageError`
    (one line: the package, its status and the fix) when its report is not a passing
    one for its current files and ``allow_unverified`` is false,
    :class:`JailUnavailableError` when it must run jailed and no jail works here, and
    ``NotAPackageError`` when ``folder`` holds no package.
    """
    from envfactory_mcp.verify.provenance import UNSIGNED, locate_package, verification_status

    root, pkg = locate_package(folder)
    status = verification_status(root)
    shipped: bool | None = None
    if status == UNSIGNED:  # believed for shipped code, which needs no signature
        shipped = is_shipped_code(root, pkg)
        status = RUNNABLE if shipped else status
    if status == RUNNABLE or allow_unverified:
        if shipped is None and not (jail or trust):
            shipped = is_shipped_code(root, pkg)
        in_process = trust or (shipped and bytecode_is_its_source(root / pkg / "tools.py"))
        jailed = jail or not in_process
        if jailed:
            _require_jail(root.name, asked=jail)
        return RunPermission(env=root.name, folder=root, status=status, jailed=jailed)
    raise UnverifiedPackageError(
        root.name,
        status,
        f"refusing to run package {root.name} ({root}): verification {status}, "
        f"{_WHY.get(status, status)}; {_fix(root, status)}, or pass --allow-unverified to run it anyway",
    )


def package_status(folder: Path) -> str:
    """``verification_status`` of the package in ``folder`` as ``check_runnable`` judges
    it: ``passed`` also for an unsigned passing report of shipped code (what ``list``
    shows)."""
    from envfactory_mcp.verify.provenance import UNSIGNED, locate_package, verification_status

    root, pkg = locate_package(folder)
    status = verification_status(root)
    return RUNNABLE if status == UNSIGNED and is_shipped_code(root, pkg) else status


def runtime_stamp(folder: Path) -> tuple[str, str]:
    """The runtime version and digest the package in ``folder`` was rendered with
    (``<package>/runtime/stamp.json``), read as data: ``("", "")`` when it has none."""
    from envfactory_mcp.runtime.version import STAMP_FILE
    from envfactory_mcp.verify.provenance import locate_package

    try:
        root, pkg = locate_package(folder)
        stamp = json.loads((root / pkg / "runtime" / STAMP_FILE).read_text(encoding="utf-8"))
        return str(stamp["version"]), str(stamp["digest"])
    except (OSError, ValueError, KeyError, TypeError, EnvFactoryError):
        return "", ""


def runtime_status(folder: Path) -> str:
    """``current`` when the package in ``folder`` carries this installation's runtime
    (same content digest), else what it carries and what to do: ``1.0.0, not 1.1.0
    (envfactory-mcp upgrade retail)``, or ``unstamped (...)`` for a package rendered
    before runtimes had versions."""
    from envfactory_mcp.emit.render import runtime_digest
    from envfactory_mcp.runtime.version import RUNTIME_VERSION

    version, digest = runtime_stamp(folder)
    if digest == runtime_digest():
        return "current"
    fix = f"envfactory-mcp upgrade {folder.name}"
    if not version:
        return f"unstamped ({fix})"
    mine = RUNTIME_VERSION if version != RUNTIME_VERSION else f"{RUNTIME_VERSION} as installed"
    return f"{version}, not {mine} ({fix})"


def check_served(
    servers_dir: Path, envs: list[str], *, allow_unverified: bool = False, trust: bool = False
) -> list[RunPermission]:
    """The permissions of the packages in ``servers_dir`` that a rollout serves, whatever
    the transport (stdio, http, memory). A shipped blueprint not built yet is built first
    where that is done on first use (``ensure_shipped``); any other package that is not
    here is left to the launcher, which says it was never built (over HTTP that is the
    normal case: the code runs in a ``serve`` process, which asked here itself)."""
    for env in envs:
        ensure_shipped(servers_dir, env)
    return [
        check_runnable(servers_dir / env, allow_unverified=allow_unverified, trust=trust)
        for env in envs
        if (servers_dir / env).is_dir()
    ]


def default_servers_dir(cwd: Path | None = None) -> Path:
    """Where environments live when neither ``--servers-dir`` nor ``ENVFACTORY_SERVERS_DIR``
    says: the one lookup every command uses. The first of

    1. ``./generated_servers``, when the current directory has one (a project, a checkout);
    2. the ``generated_servers/`` folder of the checkout this package runs from (an
       editable install or a clone on ``PYTHONPATH``), so a client that starts
       ``envfactory-mcp serve retail`` from ``/`` or from the home directory finds it;
    3. the per-user data directory (``platformdirs.user_data_dir("envfactory-mcp")``,
       e.g. ``~/.local/share/envfactory-mcp/generated_servers``), where a blueprint shipped
       with envfactory-mcp is built and verified on first use (``ensure_shipped``).

    Nothing is ever written into the current directory unless it already holds a
    ``generated_servers`` folder or the user names one."""
    here = (cwd or Path.cwd()) / DEFAULT_SERVERS_DIR
    if here.is_dir():
        return here.resolve()
    checkout = checkout_servers_dir()
    if checkout is not None:
        return checkout
    return user_servers_dir()


def checkout_servers_dir() -> Path | None:
    """``generated_servers/`` beside the ``envfactory_mcp`` package when it runs from a
    checkout (the folder holds the project's ``pyproject.toml``), else None."""
    root = Path(__file__).resolve().parent.parent
    folder = root / DEFAULT_SERVERS_DIR
    return folder if folder.is_dir() and (root / "pyproject.toml").is_file() else None


def user_servers_dir() -> Path:
    """The per-user home of built environments (not created here)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("envfactory-mcp")) / DEFAULT_SERVERS_DIR


def ensure_shipped(servers_dir: Path, env: str, note: Callable[[str], None] | None = None) -> bool:
    """Build and verify the shipped blueprint ``env`` into ``servers_dir`` when that is a
    home of built environments (the checkout's ``generated_servers/``, which commits only
    a few golden packages and builds the rest on first use, or the per-user data
    directory) and it has no package of that name yet; True when it built. Anywhere else
    nothing is written (the caller reports the missing package). Processes that need the
    same package at once build it once: the others wait on a lock and find it built."""
    from envfactory_mcp.emit.render import package_name

    built = servers_dir / env / package_name(env) / "server.py"
    if built.is_file():
        return False  # built: nothing more is imported (``serve`` asks this at every start)
    from envfactory_mcp.blueprints import blueprint_names

    if env not in blueprint_names():
        return False
    homes = {user_servers_dir().resolve()} | ({c.resolve()} if (c := checkout_servers_dir()) else set())
    if servers_dir.resolve() not in homes:
        return False
    import fcntl

    from envfactory_mcp.build import build_blueprint
    from envfactory_mcp.settings import Settings

    servers_dir.mkdir(parents=True, exist_ok=True)
    with open(servers_dir / f".{env}.build-lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        if built.is_file():
            return False  # another process built it while this one waited
        if note is not None:
            note(f"building {env} once into {servers_dir} (verified; a few seconds)")
        _off_the_event_loop(lambda: build_blueprint(Settings(servers_dir=servers_dir), env))
    return True


def _off_the_event_loop(work: Callable[[], object]) -> None:
    """Run ``work`` here, or, when this thread runs an event loop (a rollout checking its
    servers), in a thread of its own and wait for it: verification drives an event loop of
    its own for its stdio stage, which cannot start inside a running one."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        work()
        return
    import threading

    failure: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, raised there
            failure.append(exc)

    thread = threading.Thread(target=run, name="envfactory-build", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def is_shipped_code(root: Path, pkg: str) -> bool:
    """Whether the package in ``root`` is code shipped with this installation: every file
    of it (all that a report's subject covers, the report aside; no symlink, nothing
    else) byte for byte what ``build`` wrote for the blueprint of the same name, by the
    checkout's manifest or this user's build record (``shipped.py``: a lookup and a digest
    compare, nothing rendered). Such a package is trusted as it is: its verdict needs no
    signature, and it may run in this process."""
    from envfactory_mcp.emit.render import package_name
    from envfactory_mcp.shipped import is_shipped

    env = root.name
    if not (env.isidentifier() and env.isascii()) or pkg != package_name(env):
        return False
    seed = _declared_seed(root / pkg / "data" / "spec.json")
    return seed is not None and is_shipped(root, pkg, env, seed)


def bytecode_is_its_source(source: Path) -> bool:
    """Whether loading ``source`` (a package's ``tools.py``) in this process runs what it
    says: Python takes ``__pycache__/<name>.<tag>.pyc`` instead when its header matches
    the source's modification time and size (which anyone can copy) or hash, and never
    checks the code in it, which the package's digests do not cover. True when there is
    no such file, when Python would not use it, or when it holds exactly the code the
    source compiles to (compared as bytes: nothing in the file is parsed but its header)."""
    import importlib.util
    import marshal

    try:
        cached = Path(importlib.util.cache_from_source(str(source)))
    except NotImplementedError:  # no bytecode cache in this interpreter
        return True
    try:
        fd = os.open(cached, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        with open(fd, "rb", closefd=False) as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False
            data = fh.read()
        text = source.read_bytes()
        st = source.stat()
    except OSError:
        return False
    finally:
        os.close(fd)
    if data[:4] != importlib.util.MAGIC_NUMBER:
        return True  # another Python's: this one ignores it
    flags = int.from_bytes(data[4:8], "little")
    if flags == 0:  # timestamp-based: used when modification time and size match
        mtime, size = int.from_bytes(data[8:12], "little"), int.from_bytes(data[12:16], "little")
        if (mtime, size) != (int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF):
            return True
    elif flags in (1, 3):  # hash-based: checked ones are used when the source's hash matches
        if flags == 3 and data[8:16] != importlib.util.source_hash(text):
            return True
    else:
        return False  # a header Python refuses: let nothing load it here
    code = compile(text, str(source), "exec", dont_inherit=True)
    return data[16:] == marshal.dumps(code)


def _declared_seed(spec_path: Path) -> int | None:
    """The seed the package's spec says it was built with (an int in range), else None."""
    try:
        seed = json.loads(spec_path.read_bytes())["seed"]["seed"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return seed if type(seed) is int and 0 <= seed < 2**63 else None


def _require_jail(env: str, asked: bool) -> None:
    from envfactory_mcp.runtime.isolation import jail_problem

    problem = jail_problem()
    if problem is None:
        return
    why = "--jail was given" if asked else "its tool code was not shipped with envfactory-mcp"
    raise JailUnavailableError(
        f"refusing to run package {env}: {why}, so it runs jailed, and there is no jail here ({problem}); "
        "install bubblewrap (apt-get install bubblewrap), or pass --trust to run its code with this process's rights"
    )


def _fix(root: Path, status: str) -> str:
    """The commands that give the package in ``root`` a passing report."""
    from envfactory_mcp.blueprints import blueprint_names

    where = "" if root.parent.resolve() == default_servers_dir() else f" --servers-dir {root.parent}"
    fix = f"run `envfactory-mcp verify {root.name} --save{where}`"
    if status == "failed":
        fix = f"fix what `envfactory-mcp verify {root.name}{where}` reports, then {fix}"
    if root.name in blueprint_names():
        fix += f" (or rebuild it: `envfactory-mcp build {root.name}{where}`)"
    return fix
