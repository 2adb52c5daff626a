"""Start-up benchmark (issue 14, item 5): how fast a generated server answers ``--help``
and an argument error (target: under 0.3 s, the MCP stack loads only after the arguments
parse), and how long until a client over stdio has the tool list, against the floor of
starting this interpreter with nothing (``python -c pass``) measured in the same run.

    python bench/bench_startup.py [--rounds 7]

Medians of interleaved rounds; the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "generated_servers" / "retail"


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=False, timeout=120)
    return time.perf_counter() - started


def first_tool_list(env: dict[str, str]) -> float:
    import anyio
    from mcp import Client, StdioServerParameters

    async def run() -> float:
        started = time.perf_counter()
        params = StdioServerParameters(command=sys.executable, args=["-m", "retail_mcp"], env=env)
        async with Client(params) as client:
            await client.list_tools()
        return time.perf_counter() - started

    return anyio.run(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    env = {**os.environ, "PYTHONPATH": str(PACKAGE)}
    cases = {
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
        "retail-mcp --help": [sys.executable, "-m", "retail_mcp", "--help"],
        "retail-mcp --port nope (argument error)": [sys.executable, "-m", "retail_mcp", "--port", "nope"],
        "envfactory-mcp --help": [sys.executable, "-m", "envfactory_mcp", "--help"],
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    times["stdio: start to tools/list"] = []
    for _ in range(rounds):
        for name, argv in cases.items():
            times[name].append(timed(argv, env))
        times["stdio: start to tools/list"].append(first_tool_list({"PYTHONPATH": str(PACKAGE)}))
    floor = statistics.median(times["python -c pass (floor)"])
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:42s} median {med * 1000:7.0f} ms of {rounds} ({med / floor:5.1f}x the floor)")
    print("target: --help and argument errors under 300 ms")


if __name__ == "__main__":
    main()
