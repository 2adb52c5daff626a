"""Verification budgets grow with the work and are counted in CPU time: a busy machine makes
verification slower, never a failure. No assertion here is about how long anything took."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from verify.test_dropping import parts_document

from envfactory_mcp.env import Environment, assemble_env
from envfactory_mcp.synth.resource import import_resource
from envfactory_mcp.verify.budget import (
    CHUNK_TOOLS,
    LOAD_CPU,
    TOOL_CPU,
    WALL_PER_CPU,
    verification_budget,
)
from envfactory_mcp.verify.sandbox import SandboxLimits
from envfactory_mcp.verify.verifier import VerifyOptions, verify_environment, verify_package


def names(count: int) -> list[str]:
    return [f"tool_{i}" for i in range(count)]


def test_the_cpu_budget_grows_with_the_tool_count():
    budgets = {n: verification_budget(names(n), seed_bytes=200_000) for n in (1, 10, 85, 100, 465, 1049)}
    cpu = [budgets[n].cpu_seconds for n in sorted(budgets)]
    assert cpu == sorted(cpu) and len(set(cpu)) == len(cpu)  # strictly more for more tools
    # linear in the tools: each brings its own budget (and each chunk loads the seed once)
    small, large = budgets[100], budgets[1049]
    per_tool = small.tool_cpu_seconds + 4 * small.call_seconds
    assert large.cpu_seconds - small.cpu_seconds >= (1049 - 100) * per_tool
    # the failures: 85+ tools under a fixed 30 s wall / 20 s CPU; now each of them has
    # at least a tool's budget, and the wall-clock limit is a far backstop of its CPU budget
    for n in (85, 100, 465):
        budget = budgets[n]
        assert budget.cpu_seconds >= n * TOOL_CPU + LOAD_CPU
        for chunk in budget.chunks:
            limits = budget.chunk_limits(SandboxLimits(), len(chunk))
            assert limits.cpu_seconds >= len(chunk) * budget.tool_cpu_seconds
            assert limits.wall_seconds == WALL_PER_CPU * limits.cpu_seconds


def test_the_budget_grows_with_the_seed_and_the_call_limit():
    tools = names(50)
    small = verification_budget(tools, seed_bytes=100_000)
    big = verification_budget(tools, seed_bytes=2_400_000)
    assert big.tool_cpu_seconds > small.tool_cpu_seconds and big.load_cpu_seconds > small.load_cpu_seconds
    assert big.cpu_seconds > small.cpu_seconds
    slow_calls = verification_budget(tools, seed_bytes=100_000, call_seconds=5.0)
    assert slow_calls.cpu_seconds > small.cpu_seconds


def test_tools_are_split_into_chunks_every_tool_once():
    budget = verification_budget(names(465), seed_bytes=0, jobs=2)
    assert len(budget.chunks) == -(-465 // CHUNK_TOOLS)
    assert [t for chunk in budget.chunks for t in chunk] == names(465)
    assert max(map(len, budget.chunks)) - min(map(len, budget.chunks)) <= 1  # balanced
    assert budget.jobs == 2
    assert len(verification_budget(names(12), seed_bytes=0).chunks) == 1  # a small environment stays whole
    assert verification_budget(names(12), seed_bytes=0, jobs=4).jobs == 1  # never more workers than chunks


def test_the_report_carries_the_budget_it_was_given(mini_env: Environment):
    report = verify_environment(mini_env, VerifyOptions(stdio=False))  # (the mini bank's broken tools fail)
    budget = verification_budget(
        [t.name for t in mini_env.spec.tools], len(mini_env.seed_sql.encode()), call_seconds=2.0
    )
    assert report.sandbox.limits["cpu_seconds"] == budget.cpu_seconds
    assert report.sandbox.limits["tool_cpu_seconds"] == budget.tool_cpu_seconds
    assert report.sandbox.limits["wall_seconds"] >= WALL_PER_CPU * budget.chunk_cpu_seconds(
        len(budget.chunks[0])
    )


@pytest.fixture
def burners() -> Any:
    """Processes that burn CPU on every core of this machine (twice over), so the
    verification below runs on a machine at least as loaded as a busy CI runner."""
    import os

    count = 2 * (os.cpu_count() or 1)
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield procs
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_a_document_of_a_hundred_tools_verifies_on_a_loaded_machine(tmp_path: Path, burners: Any):
    document = tmp_path / "parts.json"
    document.write_text(json.dumps(parts_document(21)), encoding="utf-8")  # 105 operations
    imported = import_resource(document)
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    lines: list[str] = []
    # A tiny floor (1 s CPU, 1 s wall): everything the run gets comes from the computed budget.
    options = VerifyOptions(
        limits=SandboxLimits(cpu_seconds=1, wall_seconds=1.0), chunk_tools=30, progress=lines.append
    )
    report = verify_environment(env, options)
    assert all(proc.poll() is None for proc in burners)  # the load was there all along
    assert report.passed, report.failures()[:5]
    assert len(report.tools) == 105 and report.dropped == []
    assert report.sandbox.limits["chunks"] == 4
    chunk_lines = [line for line in lines if " probed: " in line]
    assert len(chunk_lines) == 4 and all("s CPU in" in line for line in chunk_lines)


@pytest.mark.slow
def test_a_tool_stuck_in_c_code_fails_alone_and_the_others_are_probed_again(
    mini_env: Environment, tmp_path: Path
):
    from envfactory_mcp.emit import render_package, write_package

    files = render_package(mini_env)
    tools_py = next(path for path in files if path.endswith("/tools.py"))
    # hashlib's loop never returns to Python: the call timer cannot interrupt it, the
    # per-call backstop (ITIMER_VIRTUAL's SIGVTALRM) ends the worker, naming the probe it ran
    files[tools_py] += (
        "\n\ndef noop(ctx):\n    import hashlib\n    hashlib.pbkdf2_hmac('sha256', b'x', b'y', 10 ** 9)\n    return {}\n"
    )
    folder = write_package(files, tmp_path / "pkg" / mini_env.spec.name)
    lines: list[str] = []
    report = verify_package(folder, VerifyOptions(call_seconds=0.5, stdio=False, progress=lines.append))
    by_tool = {t.tool: t for t in report.tools}
    sandbox = next(c for c in by_tool["noop"].checks if c.check == "sandbox")
    assert sandbox.failed and "SIGVTALRM" in sandbox.reason and "noop/" in sandbox.reason
    assert "CPU time limit of one call" in sandbox.reason
    for (
        name,
        tool,
    ) in by_tool.items():  # probed again in a new worker (the mini bank's broken tools fail as usual)
        if name != "noop":
            assert tool.probes > 0 and not any(c.failed for c in tool.checks if c.check == "sandbox"), name
    environment = {c.check: c for c in report.environment}
    assert environment["sandbox"].status == "passed"  # a tool over its limits is not an escape
    # first probed again alone (a tool never fails for the chunk it landed in), then failed
    assert any("noop is probed again alone" in line for line in lines)
    assert any("noop fails (it was probed alone)" in line for line in lines)
