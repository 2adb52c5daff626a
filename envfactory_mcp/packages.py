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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from envfactory_mcp.errors import EnvFactoryError

RUNNABLE = "passed"
DEFAULT_SERVERS_DIR = Path("generated_servers")

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


@dataclass(frozen=True)
class RunPermission:
    """A package allowed to run: verified, or unverified with the caller's explicit leave."""

    env: str
    folder: Path
    status: str  # verification_status(): "passed", or why it is not

    @property
    def verified(self) -> bool:
        return self.status == RUNNABLE

    @property
    def warning(self) -> str | None:
        """What to tell the user when unverified code runs (None for a verified package)."""
        if self.verified:
            return None
        return (
            f"running UNVERIFIED package {self.env} ({self.status}: {_WHY.get(self.status, self.status)}) "
            f"because --allow-unverified was given: its code was not checked in the sandbox and runs "
            f"with this process's rights"
        )


def check_runnable(folder: Path, *, allow_unverified: bool = False) -> RunPermission:
    """May the package in ``folder`` (``<servers_dir>/<env>/``) run?

    Returns the permission (read ``warning`` when unverified code was allowed); raises
    :class:`UnverifiedPackageError` (one line: the package, its status and the fix) when
    its report is not a passing one for its current files and ``allow_unverified`` is
    false, and ``NotAPackageError`` when ``folder`` holds no package.
    """
    from envfactory_mcp.verify.verifier import locate_package, verification_status

    root, _ = locate_package(folder)
    status = verification_status(root)
    permission = RunPermission(env=root.name, folder=root, status=status)
    if permission.verified or allow_unverified:
        return permission
    raise UnverifiedPackageError(
        root.name,
        status,
        f"refusing to run package {root.name} ({root}): verification {status}, "
        f"{_WHY.get(status, status)}; {_fix(root, status)}, or pass --allow-unverified to run it anyway",
    )


def check_served(
    servers_dir: Path, envs: list[str], *, allow_unverified: bool = False
) -> list[RunPermission]:
    """The permissions of the packages in ``servers_dir`` that a rollout serves, whatever
    the transport (stdio, http, memory). A package that is not here is left to the
    launcher, which says it was never built; over HTTP that is the normal case: the code
    runs in a ``serve`` process, which asked here itself."""
    return [
        check_runnable(servers_dir / env, allow_unverified=allow_unverified)
        for env in envs
        if (servers_dir / env).is_dir()
    ]


def _fix(root: Path, status: str) -> str:
    """The commands that give the package in ``root`` a passing report."""
    from envfactory_mcp.blueprints import blueprint_names

    where = "" if root.parent.resolve() == DEFAULT_SERVERS_DIR.resolve() else f" --servers-dir {root.parent}"
    fix = f"run `envfactory-mcp verify {root.name} --save{where}`"
    if status == "failed":
        fix = f"fix what `envfactory-mcp verify {root.name}{where}` reports, then {fix}"
    if root.name in blueprint_names():
        fix += f" (or rebuild it: `envfactory-mcp build {root.name}{where}`)"
    return fix
