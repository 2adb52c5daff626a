"""Verify an environment: the stages in order, each recorded in one report.

``verify_package`` takes an emitted package folder (``generated_servers/<env>/`` or any
folder ``render_package`` produced) and never imports its code: the spec is parsed as
data, the tool source is read as text, and everything that runs it is a sandboxed child
process. ``verify_environment`` renders an in-memory environment to a temporary folder
first, which is what ``build`` does before it writes anything.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import stat
import tempfile
import time
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
from envfactory_mcp.verify.checks import environment_failure, judge_tools
from envfactory_mcp.verify.package_files import unexpected_files
from envfactory_mcp.verify.probes import ProbeBudget
from envfactory_mcp.verify.provenance import REPORT_FILE, locate_package, subject_digests
from envfactory_mcp.verify.report import (
    ENVIRONMENT_CHECKS,
    CheckResult,
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


# Probing costs grow with the tool count (about 30 probes a tool) and with the seed (each
# probe restores the whole seed, and hashes every table after a write), so past this many
# tools the sandbox's limits grow with both: a document with hundreds of operations
# verifies, and an environment of retail's size keeps exactly its limits.
FREE_TOOLS = 100


def probing_estimate(tools: int, seed_bytes: int) -> float:
    """CPU seconds verification takes here, roughly: ``tools * (0.05 + 0.25 * seed MB)``.
    On the corpus of issue 12 (a 2-core machine under load): Discord's 234 tools over a
    2.4 MB seed took about 140 s, DigitalOcean's 654 over 2.3 MB 278 s of wall time,
    Mastodon's 201 over 0.8 MB 22 s, 700 generated tools over a small seed 21 s."""
    return tools * (0.05 + 0.25 * seed_bytes / 1_000_000)


def scaled_limits(limits: SandboxLimits, tools: int, seed_bytes: int = 0) -> SandboxLimits:
    """``limits`` for verifying ``tools`` tools over a seed of ``seed_bytes``: unchanged up
    to ``FREE_TOOLS`` tools, then at least twice ``probing_estimate`` of CPU seconds and
    twice that of wall time. These limits stop runaway code (each call has its own time
    limit besides), so they err on the generous side rather than cut a verification that
    is progressing on a busy machine."""
    if tools <= FREE_TOOLS:
        return limits
    cpu = max(limits.cpu_seconds, math.ceil(2 * probing_estimate(tools, seed_bytes)))
    return replace(limits, cpu_seconds=cpu, wall_seconds=max(limits.wall_seconds, 2.0 * cpu))


@dataclass(frozen=True)
class VerifyOptions:
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    scale_limits: bool = True  # grow ``limits`` with the tool count (``scaled_limits``)
    call_seconds: float = 2.0  # one tool call; a hang is cut off after this
    budget: ProbeBudget = field(default_factory=ProbeBudget)
    probe_seed: int = 0
    stdio: bool = True
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
    limits = options.limits  # scaled to the tool count once the spec is read
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
                limits={k: float(v) for k, v in vars(limits).items()}
                | {"call_seconds": options.call_seconds},
            ),
            environment=environment,
            tools=tools,
            probes=sum(t.probes for t in tools),
            timings={k: round(v, 4) for k, v in timings.items()},
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
    if options.scale_limits:
        limits = scaled_limits(options.limits, len(spec_model.tools), len(seed_sql.encode()))

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
    result = sandbox.run_in_sandbox(job, limits)
    isolated, jailed, layers = result.network_isolated, result.jail, result.layers
    timings["sandbox"] = time.perf_counter() - t0
    answer = result.answer
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
    escaped = [t.tool for t in tools if any(c.check == "sandbox" and c.failed for c in t.checks)]
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
