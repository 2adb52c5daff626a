"""Verification benchmark: time per environment, and the verifier's catch rate on injected defects.

    python bench/bench_verify.py [--rounds 5] [--no-defects]

Times are medians over several rounds, with the stages broken out, next to a baseline
measured in the same run: starting an empty sandboxed worker (a fresh interpreter in its
own network namespace that answers at once), which is the floor any sandboxed check pays.
Target (issue 3): retail verified in <= 3 s on this 2-core machine, stdio stage included.
The catch rate runs every defect of ``envfactory_mcp.verify.defects`` once (target: all).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import mini_env

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.verify.defects import DEFECTS, inject
from envfactory_mcp.verify.sandbox import run_in_sandbox
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-defects", action="store_true")
    args = parser.parse_args()
    retail = build_env(load_blueprint("retail"))
    time_env("retail", retail, args.rounds)
    time_env("minibank", build_env(mini_env.BLUEPRINT), args.rounds)
    if not args.no_defects:
        catch_rate(retail)


if __name__ == "__main__":
    main()
