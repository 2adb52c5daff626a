"""Verification benchmark: time per environment, the jail's overhead, and the catch rates
on injected defects and on malicious tool code.

    python bench/bench_verify.py [--rounds 5] [--no-defects] [--no-malicious]

Times are medians over several rounds, with the stages broken out, next to a baseline
measured in the same run: starting an empty sandboxed worker (a fresh interpreter in its
jail, or its own network namespace without one, that answers at once), which is the
floor any sandboxed check pays. Target (issue 3): retail verified in <= 3 s on this
2-core machine, stdio stage included.

The jail's overhead (issue 11): retail verified jailed and unjailed, interleaved, median
of each; per call, the median of the tools' mean call time in the sandbox, jailed and
not; and a *served* call with the tool code in a jailed worker (``serve --jail``, how
every package not shipped with envfactory-mcp is served) against the same call
in-process, through the MCP server (target: a jailed call <= 2x an unjailed one).

Catch rates: every defect of ``envfactory_mcp.verify.defects`` once (target: all), and
every malicious variant of ``tests/verify/malicious/malicious_tools.py`` once, jailed only
(those are real attacks): caught = verify rejected it, by any check; caught past the gate
= a check other than the static gate rejected it (the jail or the sandbox saw it);
contained = no file outside, no socket reached, the canary alive, no secret in the report.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "verify" / "malicious"))

import mini_env

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime.jail import NOBODY, JailSupport
from envfactory_mcp.verify import sandbox
from envfactory_mcp.verify.defects import DEFECTS, inject
from envfactory_mcp.verify.probes import ProbeBudget
from envfactory_mcp.verify.report import VerificationReport
from envfactory_mcp.verify.sandbox import SandboxLimits, run_in_sandbox
from envfactory_mcp.verify.verifier import VerifyOptions, verify_environment, verify_package


def empty_sandbox_seconds() -> float:
    started = time.perf_counter()
    result = run_in_sandbox({"kind": "none"})
    assert result.answer is not None and result.answer["stage"] == "request", result
    return time.perf_counter() - started


def time_env(label: str, env: Environment, rounds: int) -> None:
    totals, stages, baseline = [], {}, []
    report = None
    for _ in range(rounds):  # interleaved with the baseline, so drift hits both alike
        baseline.append(empty_sandbox_seconds())
        started = time.perf_counter()
        report = verify_environment(env)
        totals.append(time.perf_counter() - started)
        for stage, seconds in report.timings.items():
            stages.setdefault(stage, []).append(seconds)
    assert report is not None
    total, floor = statistics.median(totals), statistics.median(baseline)
    verdict = "passed" if report.passed else f"failed ({len(report.failures())} failures)"
    print(
        f"{label:<9} verify {total:.2f} s median of {rounds} (min {min(totals):.2f}, max {max(totals):.2f}); "
        f"{report.probes} probes; {verdict}"
    )
    print(
        "          stages: "
        + ", ".join(f"{k} {statistics.median(v):.2f} s" for k, v in stages.items() if k != "total")
    )
    print(f"          empty sandboxed worker {floor:.3f} s; verify / empty worker = {total / floor:.1f}x")


def catch_rate(env: Environment) -> None:
    files = render_package(env)
    options = VerifyOptions(call_seconds=0.5)
    caught, started = 0, time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for defect in DEFECTS:
            markers = {"path": str(Path(tmp) / f"{defect.name}.marker"), "port": "9"}
            t0 = time.perf_counter()
            folder = write_package(
                inject(files, "retail_mcp", defect, markers), Path(tmp) / defect.name / "retail"
            )
            report = verify_package(folder, options)
            hit = defect.expect <= report.failed_checks() and not report.passed
            escaped = Path(markers["path"]).exists()
            caught += hit and not escaped
            expected = sorted(defect.expect, key=lambda pair: pair[0] is None)  # a tool's own failure first
            lines = report.failures()
            first = next(
                (
                    line
                    for t, c in expected
                    for line in lines
                    if line.startswith(f"{t}: {c}: " if t else f"{c}: ")
                ),
                "",
            )
            print(
                f"  {'caught' if hit else 'MISSED'} {defect.name:<26} {time.perf_counter() - t0:5.2f} s  {first[:110]}"
            )
    print(
        f"catch rate {caught}/{len(DEFECTS)} = {caught / len(DEFECTS):.0%} in {time.perf_counter() - started:.1f} s (target 100%)"
    )


@contextmanager
def unjailed() -> Iterator[None]:
    """Verify as if bubblewrap were missing: today's sandbox, for comparison."""
    original = sandbox.jail_support
    sandbox.jail_support = lambda: JailSupport(False, "switched off by the benchmark")  # type: ignore[assignment]
    try:
        yield
    finally:
        sandbox.jail_support = original  # type: ignore[assignment]


def mean_call_seconds(report: VerificationReport) -> float:
    """The median over tools of a tool's mean call time in the sandbox."""
    return statistics.median(t.seconds / t.probes for t in report.tools if t.probes)


def jail_overhead(env: Environment, rounds: int) -> None:
    if not sandbox.jail_support().available:
        print(f"jail overhead: no jail on this machine ({sandbox.jail_support().reason})")
        return
    runs: dict[str, list[VerificationReport]] = {"jailed": [], "unjailed": []}
    totals: dict[str, list[float]] = {"jailed": [], "unjailed": []}
    floors: dict[str, list[float]] = {"jailed": [], "unjailed": []}
    for _ in range(rounds):  # interleaved, so drift on a shared machine hits both alike
        for mode in ("jailed", "unjailed"):
            with unjailed() if mode == "unjailed" else _nothing():
                floors[mode].append(empty_sandbox_seconds())
                started = time.perf_counter()
                report = verify_environment(env)
                totals[mode].append(time.perf_counter() - started)
                assert report.passed and (report.sandbox.jail is not None) == (mode == "jailed"), (
                    report.failures()
                )
                runs[mode].append(report)
    med = {mode: statistics.median(values) for mode, values in totals.items()}
    call = {mode: statistics.median(mean_call_seconds(r) for r in reports) for mode, reports in runs.items()}
    stage = {
        mode: {k: statistics.median(r.timings.get(k, 0.0) for r in reports) for k in ("sandbox", "stdio")}
        for mode, reports in runs.items()
    }
    print(
        f"jail overhead, retail verify median of {rounds}: jailed {med['jailed']:.2f} s "
        f"(sandbox {stage['jailed']['sandbox']:.2f}, stdio {stage['jailed']['stdio']:.2f}), unjailed "
        f"{med['unjailed']:.2f} s (sandbox {stage['unjailed']['sandbox']:.2f}, stdio {stage['unjailed']['stdio']:.2f}); "
        f"+{med['jailed'] - med['unjailed']:.2f} s = {med['jailed'] / med['unjailed']:.2f}x (target: jailed <= 3 s)"
    )
    print(
        f"          empty worker: jailed {statistics.median(floors['jailed']):.3f} s, unjailed "
        f"{statistics.median(floors['unjailed']):.3f} s; one call (median over tools of the mean): "
        f"jailed {call['jailed'] * 1e6:.0f} us, unjailed {call['unjailed'] * 1e6:.0f} us = "
        f"{call['jailed'] / call['unjailed']:.2f}x (target <= 2x)"
    )


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def served_call_overhead(env: Environment, rounds: int) -> None:
    """A served call with the tool code jailed (``--jail``: a worker process, every SQL
    statement sent back) against the same call in-process, through the real MCP server
    and an in-memory client: retail's demo session, median per call, interleaved rounds."""
    import anyio
    from mcp import Client

    from envfactory_mcp.runtime import Bundle, ServerOptions, create_server
    from envfactory_mcp.runtime.isolation import jail_problem

    if jail_problem() is not None:
        print(f"served call: no jail on this machine ({jail_problem()})")
        return
    package = ROOT / "generated_servers" / "retail" / "retail_mcp"
    calls = load_blueprint("retail").demo_calls(env.seed_state)
    bundles = {
        "jailed": Bundle.from_package(package, jailed=True),
        "in-process": Bundle.from_package(package, jailed=False),
    }
    per_call: dict[str, list[float]] = {mode: [] for mode in bundles}

    async def session(bundle: Bundle) -> list[float]:
        times = []
        async with Client(create_server(bundle, ServerOptions())) as client:
            for name, arguments in calls:
                started = time.perf_counter()
                result = await client.call_tool(name, arguments)
                times.append(time.perf_counter() - started)
                assert not result.is_error, (name, result.content)
        return times

    try:
        for _ in range(rounds):
            for mode, bundle in bundles.items():
                for _ in range(5):
                    per_call[mode].extend(anyio.run(session, bundle))
    finally:
        bundles["jailed"].tools_module.close()  # type: ignore[union-attr]
    med = {mode: statistics.median(values) for mode, values in per_call.items()}
    print(
        f"served call (retail demo session, {len(calls)} calls x 5 sessions x {rounds} rounds, in-memory MCP): "
        f"jailed {med['jailed'] * 1e3:.2f} ms, in-process {med['in-process'] * 1e3:.2f} ms per call = "
        f"{med['jailed'] / med['in-process']:.2f}x (target: a jailed call <= 2x an unjailed one)"
    )


MALICIOUS_OPTIONS = VerifyOptions(
    call_seconds=0.5,
    limits=SandboxLimits(cpu_seconds=4, wall_seconds=20),
    budget=ProbeBudget(valid_attempts=24, enough_successes=1, attempts_before_dead=100, per_kind=1),
)


def malicious_catch_rate(env: Environment) -> None:
    """Every malicious variant through verify, in the jail (never without: they are real)."""
    if not sandbox.jail_support().available:
        print(f"malicious catalogue skipped: no jail on this machine ({sandbox.jail_support().reason})")
        return
    from malicious_tools import VARIANTS

    files = render_package(env)
    caught = dynamic = contained = 0
    started = time.perf_counter()
    as_nobody = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if os.geteuid() == 0 else {}
    canary = subprocess.Popen(["sleep", "3600"], **as_nobody)  # type: ignore[call-overload]
    secret = f"bench-secret-{uuid.uuid4().hex}"
    os.environ["ENVFACTORY_CANARY_SECRET"] = secret
    try:
        for variant in VARIANTS:
            world = Path(tempfile.mkdtemp(prefix="envfactory-bench-malicious-"))
            world.chmod(0o777)
            (world / "outside").mkdir(mode=0o777)
            secret_file = world / "secret.txt"
            secret_file.write_text(secret)
            with socket.socket() as tcp:
                tcp.bind(("127.0.0.1", 0))
                tcp.listen()
                tcp.setblocking(False)
                markers = {
                    "marker": str(world / "outside" / "escaped"), "outside": str(world / "outside"),
                    "port": str(tcp.getsockname()[1]), "udp_port": "9", "unix_path": str(world / "none.sock"),
                    "abstract": "envfactory-bench-none", "canary": str(canary.pid), "secret_file": str(secret_file),
                    "env_name": "ENVFACTORY_CANARY_SECRET", "token": f"envfactory-attack-{uuid.uuid4().hex}",
                }  # fmt: skip
                files_v = dict(files)
                files_v["retail_mcp/tools.py"] += variant.source(markers)
                t0 = time.perf_counter()
                report = verify_package(write_package(files_v, world / "pkg" / "retail"), MALICIOUS_OPTIONS)
                try:
                    tcp.accept()
                    reached = True
                except BlockingIOError:
                    reached = False
            failed = report.failed_checks()
            hit = not report.passed
            past_gate = any(check != "static_gate" for _, check in failed)
            clean = (
                not os.listdir(world / "outside")
                and not reached
                and canary.poll() is None
                and secret not in report.to_json()
                and secret_file.read_text() == secret
            )
            caught += hit
            dynamic += past_gate
            contained += clean
            first = next((line for line in report.failures() if not line.startswith("static_gate")), "")
            print(
                f"  {'caught' if hit else 'MISSED'}{'' if clean else ' ESCAPED'} {variant.kind:<10} "
                f"{variant.name:<30} {time.perf_counter() - t0:5.2f} s  {first[:90]}"
            )
            shutil.rmtree(world, ignore_errors=True)
    finally:
        canary.kill()
        canary.wait()
        os.environ.pop("ENVFACTORY_CANARY_SECRET", None)
    n = len(VARIANTS)
    print(
        f"malicious catch rate {caught}/{n} = {caught / n:.0%}; caught past the static gate {dynamic}/{n} = "
        f"{dynamic / n:.0%}; contained {contained}/{n} = {contained / n:.0%}, in {time.perf_counter() - started:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-defects", action="store_true")
    parser.add_argument("--no-malicious", action="store_true")
    args = parser.parse_args()
    retail = build_env(load_blueprint("retail"))
    support = sandbox.jail_support()
    print(f"jail: {support.reason}" if support.available else f"NO JAIL: {support.reason}")
    time_env("retail", retail, args.rounds)
    time_env("minibank", build_env(mini_env.BLUEPRINT), args.rounds)
    jail_overhead(retail, args.rounds)
    served_call_overhead(retail, args.rounds)
    if not args.no_defects:
        catch_rate(retail)
    if not args.no_malicious:
        malicious_catch_rate(retail)


if __name__ == "__main__":
    main()
