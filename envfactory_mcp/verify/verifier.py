"""Verify an environment: the stages in order, each recorded in one report.

``verify_package`` takes an emitted package folder (``generated_servers/<env>/`` or any
folder ``render_package`` produced) and never imports its code: the spec is parsed as
data, the tool source is read as text, and everything that runs it is a sandboxed child
process. ``verify_environment`` renders an in-memory environment to a temporary folder
first, which is what ``build`` does before it writes anything.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from envfactory_mcp import __version__
from envfactory_mcp.emit.render import package_name, render_package, unvendor_tools_source, vendored_runtime
from envfactory_mcp.emit.write import write_package
from envfactory_mcp.env.environment import Environment
from envfactory_mcp.errors import SpecError
from envfactory_mcp.spec import parse_spec
from envfactory_mcp.verify import sandbox
from envfactory_mcp.verify.budget import CHUNK_TOOLS, Budget, verification_budget
from envfactory_mcp.verify.checks import environment_failure, judge_tools
from envfactory_mcp.verify.package_files import unexpected_files
from envfactory_mcp.verify.probes import ProbeBudget
from envfactory_mcp.verify.provenance import REPORT_FILE, locate_package, subject_digests
from envfactory_mcp.verify.report import (
    ENVIRONMENT_CHECKS,
    CheckResult,
    DroppedTool,
    SandboxInfo,
    ToolReport,
    VerificationReport,
)
from envfactory_mcp.verify.sandbox import SandboxLimits
from envfactory_mcp.verify.sql_gate import check_data_sql
from envfactory_mcp.verify.static_gate import check_tool_code

NO_JAIL = (
    "NO JAIL: bubblewrap could not jail the code under test on this machine ({reason}), so it ran "
    "as this process's user ({uid}) with only rlimits, the audit hook and time limits{network} between "
    "it and the host; install bubblewrap (apt-get install -y bubblewrap)"
)
NO_NETWORK_NAMESPACE = (
    "NO NETWORK NAMESPACE: 'unshare -n' does not work on this machine, so the code under test ran "
    "with the host's network; only the audit hook stood between it and the network"
)


def scaled_limits(limits: SandboxLimits, tools: int, seed_bytes: int = 0) -> SandboxLimits:
    """``limits`` for verifying ``tools`` tools over a seed of ``seed_bytes`` in one
    sandboxed worker: its CPU budget grows with both (``verify.budget``), its wall-clock
    limit is a far backstop (``WALL_PER_CPU`` times that), neither below ``limits``."""
    budget = verification_budget([f"t{i}" for i in range(tools)], seed_bytes, chunk_tools=max(1, tools))
    return budget.chunk_limits(limits, tools)


@dataclass(frozen=True)
class VerifyOptions:
    limits: SandboxLimits = field(default_factory=SandboxLimits)  # the floor of every chunk's limits
    scale_limits: bool = (
        True  # grow the limits with the work (``verify.budget``); else ``limits`` as they are
    )
    call_seconds: float = 2.0  # CPU seconds of one tool call; a hang is cut off after this
    budget: ProbeBudget = field(default_factory=ProbeBudget)
    probe_seed: int = 0
    stdio: bool = True
    jobs: int | None = None  # chunks probed at once (None: ``budget.default_jobs()``)
    chunk_tools: int = CHUNK_TOOLS  # tools per sandboxed worker
    # One line per finished chunk ("<env>: chunk 2/5: ..."); None: silent.
    progress: Callable[[str], None] | None = field(default=None, compare=False)
    # Tools of the source left out before this package was rendered (``verify.dropping``),
    # recorded in the report's ``dropped``.
    dropped: tuple[DroppedTool, ...] = ()
    extra_job: dict[str, Any] = field(default_factory=dict)  # passed to the worker as is (tests)


def verify_environment(env: Environment, options: VerifyOptions | None = None) -> VerificationReport:
    """Render ``env`` to a temporary package and verify that."""
    staging = Path(tempfile.mkdtemp(prefix=f"envfactory-verify-{env.spec.name}-"))
    try:
        folder = write_package(render_package(env), staging / env.spec.name)
        return verify_package(folder, options)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def verify_package(folder: Path, options: VerifyOptions | None = None) -> VerificationReport:
    """Run every stage on the package in ``folder``; the report says what passed and why not."""
    options = options or VerifyOptions()
    limits = options.limits  # scaled to the work once the spec is read
    budget: Budget | None = None
    root, pkg = locate_package(folder)
    package_dir = root / pkg
    # Taken before anything runs: the report vouches for the files as they were read, and
    # a package that changes itself while being verified is then stale, not passed.
    subject = subject_digests(root)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    env_checks: dict[str, CheckResult] = {}
    tools: list[ToolReport] = []
    isolated = sandbox.network_namespace_available()  # replaced by what the sandboxed run reports
    support = sandbox.jail_support()
    jailed: str | None = support.reason if support.available else None  # likewise
    layers: dict[str, bool] = {}

    def record(check: str, reason: str = "", failed: bool = False) -> None:
        env_checks[check] = CheckResult(check=check, status="failed" if failed else "passed", reason=reason)

    def finish(name: str) -> VerificationReport:
        timings["total"] = time.perf_counter() - started
        environment = [
            env_checks.get(c) or CheckResult(check=c, status="not run", reason="an earlier stage failed")
            for c in ENVIRONMENT_CHECKS
        ]
        passed = (
            all(c.status == "passed" for c in environment) and all(t.passed for t in tools) and bool(tools)
        )
        report = VerificationReport(
            env=name,
            passed=passed,
            envfactory_version=__version__,
            subject=subject,
            sandbox=SandboxInfo(
                network_isolated=isolated,
                jail=jailed,
                layers=layers,
                warning=_sandbox_warning(jailed, isolated),
                limits=_limits_shown(limits, budget, options),
            ),
            environment=environment,
            tools=tools,
            probes=sum(t.probes for t in tools),
            timings={k: round(v, 4) for k, v in timings.items()},
            dropped=list(options.dropped),
        )
        return report.signed()  # this installation's word for it: see verify/signing.py

    # 1. spec ------------------------------------------------------------------------
    t0 = time.perf_counter()
    try:
        spec_text = _read_text(package_dir / "data" / "spec.json")
        spec = json.loads(spec_text)
        spec_model = parse_spec(spec)
        schema_sql = _read_text(package_dir / "data" / "schema.sql")
        seed_sql = _read_text(package_dir / "data" / "seed.sql")
        tools_source = unvendor_tools_source(_read_text(package_dir / "tools.py"))
    except SpecError as exc:
        record("spec", str(exc), failed=True)
        return finish(root.name)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        record("spec", f"cannot read the package: {exc}", failed=True)
        return finish(root.name)
    record("spec")
    name = spec_model.name
    budget = verification_budget(
        [t.name for t in spec_model.tools],
        len(seed_sql.encode()),
        options.call_seconds,
        jobs=options.jobs,
        chunk_tools=options.chunk_tools,
    )
    if options.scale_limits:
        limits = budget.chunk_limits(options.limits, budget.tools)  # what the chunks add up to

    # 2. nothing in the folder but what the emitter writes (an argparse.py, a .pth or an
    #    envfactory_mcp/ beside the code would run in whatever process starts there) -----
    unexpected = unexpected_files(root, name)
    record("package_files", _shown(unexpected), failed=bool(unexpected))

    # 3. runtime intact ----------------------------------------------------------------
    expected = vendored_runtime()
    runtime_dir = package_dir / "runtime"
    try:
        present = (
            {p.name: _read_text(p) for p in sorted(runtime_dir.glob("*.py"))} if runtime_dir.is_dir() else {}
        )
    except (OSError, UnicodeDecodeError):
        present = {}  # unreadable: every file differs
    differing = sorted(n for n in expected.keys() | present.keys() if expected.get(n) != present.get(n))
    record(
        "runtime_intact",
        f"runtime/ differs from envfactory-mcp {__version__}'s in {', '.join(differing)} (rebuild the package)"
        if differing
        else "",
        failed=bool(differing),
    )

    # 4. static gate --------------------------------------------------------------------
    violations = check_tool_code(tools_source, filename=f"{pkg}/tools.py")
    record("static_gate", _shown([str(v) for v in violations]), failed=bool(violations))

    # 5. the data's SQL: the emitter's statements, SQLite's core functions ------------------
    sql_problems = [
        f"{pkg}/data/{file}:{problem.line}: {problem.message}"
        for file, text in (("schema.sql", schema_sql), ("seed.sql", seed_sql))
        for problem in check_data_sql(text, file)
    ]
    record("data_sql", _shown(sql_problems), failed=bool(sql_problems))
    timings["static"] = time.perf_counter() - t0

    # 6. sandboxed probes (the gate's verdict does not stop them: the sandbox is built for
    #    hostile code, and its findings make the report complete) --------------------------
    t0 = time.perf_counter()
    job = {
        "kind": "verify",
        "spec": spec,
        "schema_sql": schema_sql,
        "seed_sql": seed_sql,
        "tools_source": tools_source,
        "probe_seed": options.probe_seed,
        "call_seconds": options.call_seconds,
        "budget": vars(options.budget),
        **options.extra_job,
    }
    run = _probe_in_chunks(job, budget, options, name)
    result = run.result
    isolated, jailed, layers = result.network_isolated, result.jail, result.layers
    timings["sandbox"] = time.perf_counter() - t0
    timings["sandbox_cpu"] = run.cpu_seconds
    answer = run.answer
    if answer is None:
        reason, probe_id = environment_failure(result)
        record("sandbox", reason, failed=True)
        if probe_id:
            tool_name = probe_id.split("/", 1)[0]
            tools.append(
                ToolReport(
                    tool=tool_name,
                    effect=next((t["effect"] for t in spec["tools"] if t["name"] == tool_name), "read"),
                    checks=[
                        CheckResult(
                            check="sandbox",
                            status="failed",
                            reason=f"{result.failure} during probe {probe_id}",
                        )
                    ],
                )
            )
        return finish(name)
    if answer.get("stage") == "seed":
        record("schema_and_seed", answer["error"], failed=True)
        return finish(name)
    record("schema_and_seed")
    if answer.get("stage") == "load":
        refused = answer.get("refused") or []
        record("tools_load", answer["error"], failed=True)
        if refused:
            record(
                "sandbox",
                f"tools.py tried {refused[0]} while loading, which the sandbox refused",
                failed=True,
            )
        return finish(name)
    if answer.get("stage") != "done":
        record("sandbox", f"unexpected answer from the sandbox: {str(answer)[:200]}", failed=True)
        return finish(name)
    record("tools_load")
    tools.extend(judge_tools(spec, answer))
    # Only an attempt to get out fails the run as a whole; a tool that hangs, runs out of
    # memory or over its CPU budget fails its own ``sandbox`` check (and can be dropped).
    escaped = sorted({r["tool"] for r in answer["results"] if r.get("refused")})
    record(
        "sandbox",
        f"tool(s) {', '.join(escaped)} broke the sandbox's rules (see their checks)" if escaped else "",
        failed=bool(escaped),
    )
    results = answer["results"]
    bad_resets = [r for r in results if "reset_hash" in r and r["reset_hash"] != answer["seed_state_hash"]]
    record(
        "reset",
        f"after {bad_resets[0]['tool']} ({bad_resets[0]['id']}) a reset did not restore the seed state"
        if bad_resets
        else "",
        failed=bool(bad_resets),
    )

    # 7. the emitted package over stdio, only when everything before it passed -------------
    if (
        options.stdio
        and all(c.status == "passed" for c in env_checks.values())
        and all(t.passed for t in tools)
    ):
        from envfactory_mcp.verify.stdio_check import check_over_stdio

        t0 = time.perf_counter()
        replays = [r for r in results if "output" in r and "state_hash" in r]
        env_checks["stdio"] = check_over_stdio(root, pkg, spec, replays, limits)
        timings["stdio"] = time.perf_counter() - t0
    elif not options.stdio:
        env_checks["stdio"] = CheckResult(
            check="stdio", status="not run", reason="skipped on request (--no-stdio)"
        )
    return finish(name)


@dataclass
class _ChunkedRun:
    """The chunks' answers merged into one (or the failure that stopped them)."""

    answer: dict[str, Any] | None
    result: sandbox.SandboxResult  # the last chunk's run (isolation), or the failing one
    cpu_seconds: float = 0.0  # what the workers report they used


# A chunk that dies of these is stopped by a limit of its own while a tool ran (named by
# the worker's ``envfactory-probe`` line): that tool fails, the others are probed again.
_RESOURCE_DEATHS = ("(CPU time limit", "of wall-clock time")
MAX_RETRIES = 16  # chunks started again after one of their tools killed them


def _probe_in_chunks(job: dict[str, Any], budget: Budget, options: VerifyOptions, name: str) -> _ChunkedRun:
    """Probe the tools chunk by chunk, ``budget.jobs`` sandboxed workers at once; merge
    their answers. A chunk killed by its CPU or wall-clock limit while one tool ran
    runs again without it, and that tool alone in a worker of its own: it fails only when
    it is killed there too, so no tool fails for the chunk it landed in or for what the
    tools before it used. Any other failure (the seed or the code does not load, a forged
    answer, the jail's filter) stops the whole run."""
    answers: list[dict[str, Any]] = []
    killed: dict[str, str] = {}
    total = len(budget.chunks)
    retries = 0
    done = 0
    last: sandbox.SandboxResult | None = None
    with ThreadPoolExecutor(max_workers=budget.jobs) as pool:
        running: dict[Future[sandbox.SandboxResult], tuple[int, tuple[str, ...]]] = {}

        def start(number: int, chunk: tuple[str, ...]) -> None:
            limits = (
                budget.chunk_limits(options.limits, len(chunk)) if options.scale_limits else options.limits
            )
            chunk_job = job | {"tools": list(chunk), "tool_cpu_seconds": budget.tool_cpu_seconds}
            running[pool.submit(sandbox.run_in_sandbox, chunk_job, limits)] = (number, chunk)

        for number, chunk in enumerate(budget.chunks, 1):
            start(number, chunk)
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                number, chunk = running.pop(future)
                result = last = future.result()
                answer = result.answer
                if answer is not None and answer.get("stage") == "done":
                    answers.append(answer)
                    done += 1
                    _report_chunk(options, name, number, total, chunk, result, answer)
                    continue
                if answer is not None:  # the seed or the code did not load: the same in every chunk
                    _stop(running)
                    return _ChunkedRun(answer, result, _cpu(answers))
                _, probe_id = environment_failure(result)
                culprit = probe_id.split("/", 1)[0] if probe_id else None
                resource_death = any(mark in (result.failure or "") for mark in _RESOURCE_DEATHS)
                if culprit not in chunk or not resource_death or retries >= MAX_RETRIES:
                    _stop(running)
                    return _ChunkedRun(None, result, _cpu(answers))
                assert culprit is not None
                rest = tuple(t for t in chunk if t != culprit)
                alone = not rest
                if alone:
                    killed[culprit] = f"{result.failure} during probe {probe_id}"
                if options.progress:
                    then = (
                        f"{culprit} fails (it was probed alone)"
                        if alone
                        else f"{culprit} is probed again alone, in a worker of its own, and the chunk's "
                        "other tools are probed again"
                    )
                    options.progress(
                        f"{name}: chunk {number}/{total}: {result.failure} during probe {probe_id}; {then}"
                    )
                retries += 1
                if rest:
                    start(number, rest)
                    start(number, (culprit,))
    assert last is not None
    if not answers:  # every tool of every chunk was killed
        return _ChunkedRun(
            {"stage": "done", "seed_hash": "", "seed_state_hash": "", "results": [], "killed": killed},
            last,
        )
    merged = _merge(answers, killed)
    if merged is None:
        failure = replace(last, answer=None, failure="the sandboxed chunks disagree about the seed state")
        return _ChunkedRun(None, failure, _cpu(answers))
    return _ChunkedRun(merged, last, _cpu(answers))


def _merge(answers: list[dict[str, Any]], killed: dict[str, str]) -> dict[str, Any] | None:
    """One answer from the chunks' (None when they disagree about the seed)."""
    first = answers[0]
    if any(
        a["seed_hash"] != first["seed_hash"] or a["seed_state_hash"] != first["seed_state_hash"]
        for a in answers
    ):
        return None
    merged: dict[str, Any] = {
        "stage": "done",
        "seed_hash": first["seed_hash"],
        "seed_state_hash": first["seed_state_hash"],
        "results": [r for a in answers for r in a["results"]],
        "over_budget": {k: v for a in answers for k, v in a.get("over_budget", {}).items()},
        "killed": killed,
    }
    return merged


def _cpu(answers: list[dict[str, Any]]) -> float:
    return round(sum(float(a.get("cpu_seconds", 0.0)) for a in answers), 3)


def _stop(running: dict[Future[sandbox.SandboxResult], Any]) -> None:
    """Chunks not started yet are not started (those running finish: their process group
    is killed at their answer or their limit, as always)."""
    for future in running:
        future.cancel()


def _report_chunk(
    options: VerifyOptions,
    name: str,
    number: int,
    total: int,
    chunk: tuple[str, ...],
    result: sandbox.SandboxResult,
    answer: dict[str, Any],
) -> None:
    if options.progress is None:
        return
    failing = sorted(answer.get("over_budget", {}))
    options.progress(
        f"{name}: chunk {number}/{total} probed: {len(chunk)} tools, {len(answer['results'])} probes, "
        f"{float(answer.get('cpu_seconds', 0.0)):.1f} s CPU in {result.wall_seconds:.1f} s"
        + (f"; over budget: {', '.join(failing)}" if failing else "")
    )


def _limits_shown(limits: SandboxLimits, budget: Budget | None, options: VerifyOptions) -> dict[str, float]:
    """The report's ``sandbox.limits``: the whole verification's CPU budget and the
    largest chunk's wall-clock backstop, each call's and each tool's CPU limit, the chunks."""
    shown = {k: float(v) for k, v in vars(limits).items()} | {"call_seconds": options.call_seconds}
    if budget is None:
        return shown
    chunk = max((len(c) for c in budget.chunks), default=0)
    per_chunk = budget.chunk_limits(options.limits, chunk) if options.scale_limits else options.limits
    return shown | {
        "cpu_seconds": float(budget.cpu_seconds if options.scale_limits else limits.cpu_seconds),
        "wall_seconds": float(per_chunk.wall_seconds),
        "tool_cpu_seconds": budget.tool_cpu_seconds,
        "chunks": float(len(budget.chunks)),
    }


def _read_text(path: Path) -> str:
    """A package file's text; ``OSError`` for anything but a regular file (a FIFO would
    block the verifier, a symlink to ``/dev/zero`` never end)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with open(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError(f"{path.name} is not a regular file")
        return fh.read().decode("utf-8")


def _shown(problems: list[str], most: int = 5) -> str:
    """The first ``most`` problems of a check, in one reason."""
    more = f"; and {len(problems) - most} more" if len(problems) > most else ""
    return "; ".join(problems[:most]) + more


def _sandbox_warning(jailed: str | None, isolated: bool) -> str | None:
    """The report's loud line when the code under test ran with fewer layers than a jail."""
    if jailed is not None:
        return None
    network = ", an empty network namespace" if isolated else ""
    warning = NO_JAIL.format(reason=sandbox.jail_support().reason, uid=os.getuid(), network=network)
    return warning if isolated else f"{warning}. {NO_NETWORK_NAMESPACE}"


def report_relpath(env_name: str) -> str:
    """Where the report lives inside ``generated_servers/<env>/``."""
    return f"{package_name(env_name)}/data/{REPORT_FILE}"
