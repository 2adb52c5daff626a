"""Build = blueprint -> environment -> verified package on disk, or nothing on disk at all.

The package is rendered, written to a staging folder and verified there (sandboxed probes
and the package itself over stdio). Only a package that passes is moved into
``generated_servers/<env>/``, with its report (signed by this installation) as
``<package>/data/verification.json``;
a failing one raises ``VerificationFailed`` carrying the report and leaves any earlier
package untouched.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.emit import package_name, render_package, write_package
from envfactory_mcp.emit.render import EXTRA_DATA_FILES
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.ray_cluster import Backend
from envfactory_mcp.settings import Settings
from envfactory_mcp.shipped import record_build
from envfactory_mcp.verify.report import VerificationReport
from envfactory_mcp.verify.verifier import VerifyOptions, report_relpath, verify_package


class VerificationFailed(EnvFactoryError):
    """The environment failed verification; nothing was emitted."""

    def __init__(self, report: VerificationReport) -> None:
        self.report = report
        lines = report.failures()
        shown = "\n  ".join(lines[:10]) + (f"\n  ... and {len(lines) - 10} more" if len(lines) > 10 else "")
        super().__init__(f"{report.env} failed verification, nothing was emitted:\n  {shown}")


@dataclass(frozen=True)
class BuildResult:
    env: Environment
    report: VerificationReport
    package_dir: Path
    reused: bool = False  # the package was already there as this build would write it: not rewritten


def emit_verified(
    env: Environment,
    dest: Path,
    options: VerifyOptions | None = None,
    extra_files: Mapping[str, str] | None = None,
) -> BuildResult:
    """Verify ``env`` as the package it renders to; write that package to ``dest`` only if it passes.

    ``extra_files`` (``{path in the package folder: text}``, e.g. an importer's
    ``<package>/data/fidelity.json``) are added before verification, so the report's
    file hashes cover them; they may not replace a file the package renders itself, and
    are data files the verifier expects (``emit.render.EXTRA_DATA_FILES``: it refuses
    any other file in a package). The report written with the package is signed by this
    installation (``verify/signing.py``)."""
    return _emit_verified(env, dest, options, extra_files)[0]


def _emit_verified(
    env: Environment, dest: Path, options: VerifyOptions | None, extra_files: Mapping[str, str] | None = None
) -> tuple[BuildResult, dict[str, str]]:
    """``emit_verified``, and the files it wrote."""
    files = render_package(env)
    data = f"{package_name(env.spec.name)}/data/"
    for path, text in (extra_files or {}).items():
        if path in files:
            raise EnvFactoryError(f"{path} is a file of the package itself and cannot be replaced")
        if not (path.startswith(data) and path[len(data) :] in EXTRA_DATA_FILES):
            raise EnvFactoryError(
                f"{path} cannot be added to a package: only {', '.join(sorted(EXTRA_DATA_FILES))} under {data}"
            )
        files[path] = text
    report = _verify_then_write(env.spec.name, files, dest, options)
    return BuildResult(env, report, dest.resolve()), files


def _verify_then_write(
    name: str, files: dict[str, str], dest: Path, options: VerifyOptions | None
) -> VerificationReport:
    """Verify ``files`` as the package ``name`` in a staging folder; only when it passes,
    replace ``dest`` with them and the report signed by this installation."""
    staging = Path(tempfile.mkdtemp(prefix=f"envfactory-build-{name}-"))
    try:
        report = verify_package(write_package(files, staging / name), options)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not report.passed:
        raise VerificationFailed(report)
    write_package({**files, report_relpath(name): report.to_json()}, dest)
    return report


@dataclass(frozen=True)
class Upgrade:
    """What ``upgrade_package`` did to one package."""

    name: str
    before: str  # the runtime version the package had ("" when it carried no stamp)
    after: str  # this installation's runtime version
    changed: tuple[str, ...]  # paths rewritten, added or removed, in path order
    report: VerificationReport | None  # the new report; None when nothing changed


def upgrade_package(folder: Path, options: VerifyOptions | None = None) -> Upgrade:
    """Re-render the frame of the package in ``folder`` (runtime, entry points, README,
    packaging, smoke test) with this installation, keeping its environment (tool code,
    spec, schema, seed, policy, importer data) byte for byte; verify the result and
    replace the package only when it passes (``VerificationFailed`` otherwise, the
    package untouched). Nothing of the package runs outside the sandbox: the frame is
    rendered from its spec alone. A package already current is left as it is."""
    import json

    from envfactory_mcp.emit.render import environment_paths, render_frame
    from envfactory_mcp.emit.write import read_package
    from envfactory_mcp.runtime.version import RUNTIME_VERSION, STAMP_FILE
    from envfactory_mcp.spec import parse_spec
    from envfactory_mcp.verify.provenance import locate_package

    root, pkg = locate_package(folder)
    name = root.name
    try:
        old = read_package(root)
        spec = parse_spec(json.loads(old[f"{pkg}/data/spec.json"]))
    except (OSError, UnicodeDecodeError, KeyError, ValueError) as exc:
        raise EnvFactoryError(f"{root}: not a readable package ({type(exc).__name__}: {exc})") from None
    if spec.name != name or pkg != package_name(name):
        raise EnvFactoryError(f"{root}: its spec names {spec.name!r}, not {name!r}")
    stamp = old.get(f"{pkg}/runtime/{STAMP_FILE}", "")
    try:
        before = str(json.loads(stamp).get("version", "")) if stamp else ""
    except (ValueError, AttributeError):
        before = ""
    kept = environment_paths(name) | {f"{pkg}/data/{extra}" for extra in EXTRA_DATA_FILES}
    files = {path: text for path, text in old.items() if path in kept}
    files.update(render_frame(spec))
    report_path = report_relpath(name)
    changed = tuple(
        sorted(p for p in (files.keys() | old.keys()) - {report_path} if files.get(p) != old.get(p))
    )
    if not changed:
        return Upgrade(name, before, RUNTIME_VERSION, (), None)
    report = _verify_then_write(name, dict(sorted(files.items())), root, options)
    return Upgrade(name, before, RUNTIME_VERSION, changed, report)


def build_blueprint(
    settings: Settings, name: str, seed: int | None = None, options: VerifyOptions | None = None
) -> BuildResult:
    """Build blueprint ``name`` into ``settings.server_dir(name)``, verified, and record
    what was written as shipped code (``shipped.record_build``: the package runs in
    process without rendering anything to decide it is the blueprint's)."""
    env = build_env(load_blueprint(name), seed)
    result, files = _emit_verified(env, settings.server_dir(name), options)
    record_build(name, env.spec.seed.seed, files)
    return result


def ensure_blueprint(
    settings: Settings, name: str, *, reverify: bool = True, options: VerifyOptions | None = None
) -> BuildResult:
    """Blueprint ``name`` as a verified package in ``settings.server_dir(name)``, built only
    when it is not already there as ``build`` would write it: a package whose every file
    (its report aside) is this installation's rendering of the blueprint, whose stored
    verdict passes here, is kept, and with ``reverify`` verified again in the sandbox (the
    verdict must pass again; nothing is written either way). So the quick start's
    ``pipeline`` and ``demo`` leave a checkout's committed package as it is. Anything else
    is built (``build_blueprint``)."""
    from envfactory_mcp.emit.write import read_package
    from envfactory_mcp.verify.provenance import UNSIGNED, read_report, verification_status

    folder = settings.server_dir(name)
    # "unsigned" too: the comparison below is what makes it shipped code, needing no signature
    spec = folder / package_name(name) / "data" / "spec.json"
    if spec.is_file() and verification_status(folder) in ("passed", UNSIGNED):
        env = build_env(load_blueprint(name))
        try:
            present = read_package(folder)
        except (OSError, UnicodeDecodeError):
            present = {}
        present.pop(report_relpath(name), None)
        if present == render_package(env):
            stored = read_report(folder)
            report = verify_package(folder, options) if reverify else stored
            if report is not None and report.passed:
                record_build(name, env.spec.seed.seed, present)
                return BuildResult(env, report, folder.resolve(), reused=True)
            if report is not None:
                raise VerificationFailed(report)
    return build_blueprint(settings, name, options=options)


@dataclass(frozen=True)
class BuildOutcome:
    """One environment of ``build --all``: built and verified, or why not."""

    name: str
    ok: bool
    seconds: float
    tools: int = 0
    tables: int = 0
    rows: int = 0
    probes: int = 0
    error: str = ""


def _build_one(servers_dir: str, name: str) -> BuildOutcome:
    """One build in a worker process (module level, so a process pool can run it)."""
    import time

    started = time.perf_counter()
    try:
        result = build_blueprint(Settings(servers_dir=Path(servers_dir)), name)
    except EnvFactoryError as exc:
        first = str(exc).splitlines()[0]
        return BuildOutcome(name, False, time.perf_counter() - started, error=first)
    env = result.env
    return BuildOutcome(
        name,
        True,
        time.perf_counter() - started,
        tools=len(env.spec.tools),
        tables=len(env.spec.tables),
        rows=sum(len(r) for r in env.seed_state.values()),
        probes=result.report.probes,
    )


def build_all(
    settings: Settings,
    names: list[str],
    jobs: int = 2,
    progress: Callable[[BuildOutcome], None] | None = None,
    backend: Backend = "local",
    address: str | None = None,
) -> list[BuildOutcome]:
    """Build and verify every environment in ``names``, ``jobs`` at a time in worker
    processes (``backend="ray"``: one Ray task per environment, one CPU each, on the
    cluster at ``address``, or on a private local one when None; the servers directory
    must be at the same path on every node). The packages are the same bytes whatever
    ``jobs`` or backend (each build is deterministic and writes only its own folder). A
    failure is reported, not raised, so one bad environment does not stop the others.
    Outcomes come back in ``names`` order."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    done: dict[str, BuildOutcome] = {}
    if backend == "ray":
        return _build_all_ray(settings, names, progress, address)
    if backend != "local":
        raise EnvFactoryError(f"unknown backend {backend!r}: use local or ray")
    if jobs <= 1:
        for name in names:
            done[name] = _build_one(str(settings.servers_dir), name)
            if progress:
                progress(done[name])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_build_one, str(settings.servers_dir), name) for name in names]
            for future in as_completed(futures):
                outcome = future.result()
                done[outcome.name] = outcome
                if progress:
                    progress(outcome)
    return [done[name] for name in names]


def _build_all_ray(
    settings: Settings,
    names: list[str],
    progress: Callable[[BuildOutcome], None] | None,
    address: str | None,
) -> list[BuildOutcome]:
    from envfactory_mcp.ray_cluster import import_ray

    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="warning")
    try:
        remote = ray.remote(num_cpus=1, max_retries=1)(_build_one)
        servers = str(settings.servers_dir.resolve())
        pending = {remote.remote(servers, name): name for name in names}
        done: dict[str, BuildOutcome] = {}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                name = pending.pop(ref)
                try:
                    outcome = ray.get(ref)
                except ray.exceptions.RayError as exc:  # a worker or node lost twice: not built
                    first = (str(exc).strip().splitlines() or ["Ray error"])[0]
                    outcome = BuildOutcome(name, False, 0.0, error=f"lost on the Ray cluster: {first}")
                done[name] = outcome
                if progress:
                    progress(outcome)
        return [done[name] for name in names]
    finally:
        if started_here:
            ray.shutdown()
