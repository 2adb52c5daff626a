"""Rollout backends: episodes per second with the local backend and with Ray on this
machine, and what Ray adds per episode.

    python bench/bench_backends.py [--tasks 25] [--trials 8] [--rounds 3] [--transport stdio]

Oracle agent + scripted user on retail tasks (200 episodes by default), every round a
whole ``rollout`` into a fresh run directory. ``local`` is one process with
``--concurrency`` episodes at once; ``ray`` is the same rollout with ``backend="ray"`` on a
Ray cluster started once by this script on this machine (one CPU per worker), so the
figures include what every Ray run pays: starting the workers and their servers, shipping
tasks and records, and the driver's fsynced log. Reported per backend (medians over
rounds): episodes/s over the whole run, seconds to the first record (start-up), and
episodes/s from the first record to the last (steady state). Ray's per-episode overhead is
(Ray's wall time - local's) / episodes, whole run and steady state; with more CPUs than
one process can use, Ray's parallelism can make it negative. Needs ``pip install
envfactory-mcp[ray]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import write_tasks

SERVERS = ROOT / "generated_servers"


def one_run(
    tasks_path: Path, backend: str, transport: str, trials: int, concurrency: int
) -> dict[str, float]:
    config = RolloutConfig(
        envs=["retail"],
        tasks_path=str(tasks_path),
        servers_dir=str(SERVERS),
        agent="oracle",
        transport=transport,  # type: ignore[arg-type]
        trials=trials,
        concurrency=concurrency,
        backend=backend,
    )
    marks: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        summary = anyio.run(
            rollout, config, Path(tmp) / "run", lambda done, total: marks.append(time.perf_counter())
        )
        wall = time.perf_counter() - started
    assert summary["mean_reward"] == 1.0, summary
    episodes = int(summary["episodes"])
    steady = (episodes - 1) / (marks[-1] - marks[0]) if len(marks) > 1 and marks[-1] > marks[0] else 0.0
    return {
        "episodes": episodes,
        "wall_s": wall,
        "episodes_per_s": episodes / wall,
        "first_record_s": marks[0] - started,
        "steady_episodes_per_s": steady,
        "steady_s": marks[-1] - marks[0],
    }


def median_of(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=25)
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--transport", default="stdio", choices=["stdio", "memory"])
    args = parser.parse_args()
    try:
        import ray
    except ImportError:
        sys.exit("bench_backends needs Ray: pip install 'envfactory-mcp[ray]'")

    env = build_env(load_blueprint("retail"))
    tasks, _ = generate_tasks(env, args.tasks, seed=21)
    results: dict[str, list[dict[str, Any]]] = {"local": [], "ray": []}
    with tempfile.TemporaryDirectory() as tmp:
        tasks_path = Path(tmp) / "tasks.jsonl"
        write_tasks(tasks, tasks_path)
        cluster_started = time.perf_counter()
        ray.init(include_dashboard=False, log_to_driver=False, logging_level="warning")
        cluster_s = time.perf_counter() - cluster_started
        try:
            for _ in range(args.rounds):
                for backend in ("local", "ray"):
                    results[backend].append(
                        one_run(tasks_path, backend, args.transport, args.trials, args.concurrency)
                    )
        finally:
            ray.shutdown()
    episodes = len(tasks) * args.trials
    print(
        f"retail, {len(tasks)} tasks x {args.trials} trials = {episodes} oracle episodes, "
        f"transport {args.transport}, concurrency {args.concurrency} per process, "
        f"{os.cpu_count()} CPUs, {args.rounds} rounds (medians); Ray cluster start {cluster_s:.1f} s (once)"
    )
    print(f"{'backend':8} {'episodes/s':>11} {'first record s':>15} {'steady episodes/s':>18}")
    for backend, runs in results.items():
        print(
            f"{backend:8} {median_of(runs, 'episodes_per_s'):11.1f} {median_of(runs, 'first_record_s'):15.2f}"
            f" {median_of(runs, 'steady_episodes_per_s'):18.1f}"
        )
    overhead = (median_of(results["ray"], "wall_s") - median_of(results["local"], "wall_s")) / episodes
    steady = (median_of(results["ray"], "steady_s") - median_of(results["local"], "steady_s")) / episodes
    print(
        f"Ray overhead per episode: {overhead * 1000:.1f} ms over the whole run, {steady * 1000:.1f} ms steady state"
    )


if __name__ == "__main__":
    main()
