"""Eval throughput over real MCP (issue 28): scored eval episodes per second, stdio.

    python bench/bench_eval.py [--envs a,b,c] [--tasks 30] [--rounds 3] [--concurrency 8]
                               [--transport stdio|memory] [--json FILE]

Builds ``--tasks`` eval tasks once over ``--envs`` (default: three library services, every
task offered all three servers' tools), then plays the set through ``eval.main.evaluate``
(the host's rollout: the packages started as stdio subprocesses, one session per episode,
gold replayed per server, records written to a fresh run directory, the eval report read
from them) with the oracle, coin-flip and noop agents and the scripted user, and prints
episodes/s (median of ``--rounds``, server start-up included: a run is what a user waits
for), each agent's claim coverage (the oracle 1.0, noop 0, coin-flip between), the oracle's
pass rate as a check that the figures are of working
episodes, and the load average before and after (this machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envfactory_mcp.catalog import load_environment
from envfactory_mcp.eval.compose import write_eval_set
from envfactory_mcp.eval.main import EvalConfig, compose_set, evaluate
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

ENVS = "citycab_business_account,coastline_car_rental,cyclecity_bike_share"
AGENTS = ("oracle", "coinflip", "noop")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", default=ENVS)
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--transport", default="stdio", choices=("stdio", "memory"))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    names = [n for n in args.envs.split(",") if n]
    envs = [load_environment(n, DEFAULT_SERVERS_DIR).env for n in names]
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    built = compose_set(EvalConfig(envs=names, n=args.tasks), envs)
    compose_s = time.perf_counter() - t0
    print(built.statement())
    rates: dict[str, float] = {}
    check: dict[str, Any] = {}
    coverage: dict[str, float] = {}  # per agent: the oracle 1.0, noop 0, coin-flip between
    with tempfile.TemporaryDirectory(prefix="bench_eval_") as tmp:
        eval_set = Path(tmp) / "eval_set.jsonl"
        write_eval_set(built.tasks, eval_set)
        for agent in AGENTS:
            timings = []
            for round_ in range(args.rounds):
                config = EvalConfig(
                    envs=names,
                    agent=agent,
                    tasks_path=str(eval_set),
                    concurrency=args.concurrency,
                    transport=args.transport,
                )
                out = Path(tmp) / f"{agent}-{round_}"
                started = time.perf_counter()
                summary, results = anyio.run(evaluate, config, envs, out)
                timings.append(time.perf_counter() - started)
                if agent == "oracle":
                    check = {"coverage": summary["coverage"], "pass": summary["pass_rate@0.75"]}
                coverage[agent] = summary["coverage"]
            rates[agent] = len(results) / statistics.median(timings)
    load_after = os.getloadavg()
    row = {
        "envs": names,
        "transport": args.transport,
        "tasks": len(built.tasks),
        "kinds": built.counts,
        "needed_tools": round(statistics.mean(len(t.relevant_tools) for t in built.tasks), 2),
        "compose_s": round(compose_s, 2),
        "episodes_per_s": {a: round(r, 2) for a, r in rates.items()},
        "oracle": check,
        "coverage": {a: round(c, 3) for a, c in coverage.items()},
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
        "cpus": os.cpu_count(),
    }
    print(
        f"{len(built.tasks)} tasks over {len(names)} servers ({args.transport}), composed in {compose_s:.1f} s;"
        f" episodes/s (median of {args.rounds}, server start-up included): "
        + ", ".join(f"{a} {r:.1f}" for a, r in rates.items())
        + f"; oracle coverage {check['coverage']:.2f}, pass {check['pass']:.2f}; coverage "
        + ", ".join(f"{a} {c:.2f}" for a, c in coverage.items())
        + ";"
        f" load average {load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} CPUs)"
    )
    if args.json:
        args.json.write_text(json.dumps(row, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
