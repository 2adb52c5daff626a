"""May this package run? The one answer, from the verification report stored with it.

Every command that runs an emitted package's code asks here first: ``serve``, ``tasks``
(which loads the tool code in-process), ``rollout`` over stdio, HTTP and in memory,
``pipeline`` (through ``rollout``), ``graph``, and the host's launchers
(``host/launch.py``), so a library caller cannot start an unverified package either.

A package runs when its report passed and still covers its current files (``list`` shows
it as ``passed``). A report that is missing, failed, stale or unreadable refuses it with
an :class:`UnverifiedPackageError` saying how to fix that, unless the caller allows
unverified code (``--allow-unverified``, for development), in which case the answer
carries a warning for the command to print.

And *how* it runs: a verification report is written by whoever made the package, so it
says nothing about intent. Tool code runs in this process only when it is byte for byte
the code of a blueprint shipped with this installation of envfactory-mcp, or when the
user says ``--trust``; anything else (synthesised, imported, edited, received) runs in
jailed worker processes (``runtime/isolation.py``), and where no jail works it does not
run at all (:class:`JailUnavailableError`). Either way only the package's data files and
``tools.py`` are used: envfactory-mcp's own runtime serves them, never the package's copy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

RUNNABLE = "passed"
SERVERS_DIR_ENV = "ENVFACTORY_SERVERS_DIR"

_WHY = {
    "stale": "its files changed since it was verified",
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
    from envfactory_mcp.verify.provenance import locate_package, verification_status

    root, pkg = locate_package(folder)
    status = verification_status(root)
    jailed = jail or not (trust or is_shipped_code(root, pkg))
    permission = RunPermission(env=root.name, folder=root, status=status, jailed=jailed)
    if permission.verified or allow_unverified:
        if jailed:
            _require_jail(root.name, asked=jail)
        return permission
    raise UnverifiedPackageError(
        root.name,
        status,
        f"refusing to run package {root.name} ({root}): verification {status}, "
        f"{_WHY.get(status, status)}; {_fix(root, status)}, or pass --allow-unverified to run it anyway",
    )


def check_served(
    servers_dir: Path, envs: list[str], *, allow_unverified: bool = False, trust: bool = False
) -> list[RunPermission]:
    """The permissions of the packages in ``servers_dir`` that a rollout serves, whatever
    the transport (stdio, http, memory). A package that is not here is left to the
    launcher, which says it was never built; over HTTP that is the normal case: the code
    runs in a ``serve`` process, which asked here itself."""
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
    """Build and verify the shipped blueprint ``env`` into ``servers_dir`` when that is the
    per-user data directory and it has no package of that name yet; True when it built.
    Anywhere else nothing is written (the caller reports the missing package)."""
    from envfactory_mcp.emit.render import package_name

    if (servers_dir / env / package_name(env) / "server.py").is_file():
        return False  # built: nothing more is imported (``serve`` asks this at every start)
    from envfactory_mcp.blueprints import blueprint_names

    if env not in blueprint_names():
        return False
    if servers_dir.resolve() != user_servers_dir().resolve():
        return False
    from envfactory_mcp.build import build_blueprint
    from envfactory_mcp.settings import Settings

    if note is not None:
        note(f"building {env} once into {servers_dir} (verified; a few seconds)")
    servers_dir.mkdir(parents=True, exist_ok=True)
    build_blueprint(Settings(servers_dir=servers_dir), env)
    return True


def is_shipped_code(root: Path, pkg: str) -> bool:
    """Whether the package's ``tools.py`` is exactly what this installation emits for
    the blueprint of the same name (code shipped with envfactory-mcp, trusted as it is)."""
    try:
        actual = (root / pkg / "tools.py").read_bytes()
    except OSError:
        return False
    if _is_handcrafted_tools(root.name, actual):
        return True
    from envfactory_mcp.blueprints import blueprint_names, load_blueprint
    from envfactory_mcp.emit.render import vendor_tools_source

    if root.name not in blueprint_names():
        return False
    shipped = vendor_tools_source(load_blueprint(root.name).code())
    return actual == shipped.encode("utf-8")


def _is_handcrafted_tools(env: str, actual: bytes) -> bool:
    """The fast yes of ``is_shipped_code`` (what ``serve`` asks at every start): ``actual``
    is the vendored form of ``blueprints/<env>/tools.py`` of this installation, read as a
    file instead of importing the blueprint and its spec machinery. Only a yes is final;
    anything else (a library service, whose code is composed, or no match) takes the full
    comparison."""
    from envfactory_mcp.emit.render import unvendor_tools_source, vendor_tools_source

    source = Path(__file__).resolve().parent / "blueprints" / env / "tools.py"
    if not env.isidentifier() or not (source.parent / "__init__.py").is_file():
        return False
    try:
        shipped = source.read_text(encoding="utf-8")
        text = actual.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    # unvendor(actual) == shipped, and vendoring that gives actual back: no stray import
    # line that one direction rewrites and the other would not.
    return unvendor_tools_source(text) == shipped and vendor_tools_source(shipped) == text


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
