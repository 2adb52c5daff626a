"""Task synthesis benchmark: valid retail tasks per minute on one core, and quality figures
next to the random-walk baseline.

    python bench/bench_tasks.py [--n 500] [--rounds 3]

Generation is single-threaded (one core). Each round generates ``n`` tasks from scratch
(graph, oracle pools, sampling, oracle runs, scenarios, offline calibration); the
figure is the median over rounds. Target (issue 4): >= 1,000 valid retail tasks per
minute. The baseline (random-walk sampler) runs in the same process with the same n.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.stats import task_stats

SHOWN = (
    "valid_task_rate",
    "leakage_before_calibration",
    "leakage_after_calibration",
    "distinct_chains",
    "distinct_tool_bigrams",
    "distinct_2_opening_messages",
    "mean_chain_length",
    "write_share",
    "chain_length",
    "goals_per_task",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    env = build_env(load_blueprint("retail"))
    figures, medians = {}, {}
    for sampler in ("topology", "random_walk"):
        rates, cpu = [], []
        for round_ in range(args.rounds):
            wall0, cpu0 = time.perf_counter(), time.process_time()
            tasks, report = generate_tasks(env, args.n, seed=round_, sampler=sampler)  # type: ignore[arg-type]
            wall, used = time.perf_counter() - wall0, time.process_time() - cpu0
            rates.append(len(tasks) / wall * 60)
            cpu.append(used)
        figures[sampler] = task_stats(tasks, report, env.spec)
        medians[sampler] = statistics.median(rates)
        print(
            f"{sampler:<12} {statistics.median(rates):7.0f} valid tasks/min (median of {args.rounds}; "
            f"min {min(rates):.0f}, max {max(rates):.0f}); CPU {statistics.median(cpu):.1f} s per {args.n}"
            + ("  (target >= 1,000)" if sampler == "topology" else "")
        )
    print(f"throughput topology / random walk = {medians['topology'] / medians['random_walk']:.1f}x")
    print(f"quality figures (last round, n={args.n}):")
    print(f"{'figure':<30} {'topology':>24} {'random walk':>24}")
    for key in SHOWN:
        a, b = figures["topology"].get(key), figures["random_walk"].get(key)
        print(f"{key:<30} {json.dumps(a):>24} {json.dumps(b):>24}")


if __name__ == "__main__":
    main()
