"""Rollout benchmark: scripted episodes per second over stdio, one server process for all
episodes vs a fresh server process per episode.

    python bench/bench_rollout.py [--tasks 100] [--trials 3] [--rounds 3] [--concurrency 4]

Oracle agent + scripted user on retail tasks, over real stdio. The shared-server figure is
the median over rounds of (episodes / wall time) for a whole rollout into a fresh run
directory: server start, gold replay (once per task), resets, scoring and the fsynced
JSONL log all included. The baseline runs
episodes one by one, each on a server process started for it, as a harness without
sessions must. Target (issue 5): >= 50 episodes/s with one server process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env
from envfactory_mcp.host.connection import ServerConnection
from envfactory_mcp.host.episode import EpisodeConfig, run_episode
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.sim.agents import OracleAgent
from envfactory_mcp.sim.users import ScriptedUser
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import Task, write_tasks

SERVERS = ROOT / "generated_servers"


def shared(tasks_path: Path, concurrency: int, n: int, trials: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        config = RolloutConfig(
            envs=["retail"],
            tasks_path=str(tasks_path),
            servers_dir=str(SERVERS),
            concurrency=concurrency,
            trials=trials,
        )
        started = time.perf_counter()
        summary = anyio.run(rollout, config, Path(tmp) / "run")
        elapsed = time.perf_counter() - started
    assert summary["mean_reward"] == 1.0, summary
    return n * trials / elapsed


async def fresh_per_episode(tasks: list[Task]) -> float:
    config = EpisodeConfig(run_id="bench-fresh")
    started = time.perf_counter()
    for task in tasks:
        async with ServerConnection("retail", "stdio", SERVERS) as conn:
            record = await run_episode(task, 0, OracleAgent(), ScriptedUser(), conn, config, GoldCache())
        assert record.reward == 1.0, record.termination_detail
    return len(tasks) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--fresh-tasks", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    if not (SERVERS / "retail").is_dir():
        sys.exit("generated_servers/retail is missing: run envfactory-mcp build retail")
    env = build_env(load_blueprint("retail"))
    tasks, _ = generate_tasks(env, args.tasks, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tasks.jsonl"
        write_tasks(tasks, path)
        rates_shared, rates_fresh = [], []
        for _ in range(args.rounds):  # interleaved, so drift hits both alike
            rates_shared.append(shared(path, args.concurrency, len(tasks), args.trials))
            rates_fresh.append(anyio.run(fresh_per_episode, tasks[: args.fresh_tasks]))
    one, fresh = statistics.median(rates_shared), statistics.median(rates_fresh)
    print(
        f"one server process : {one:6.1f} episodes/s (median of {args.rounds}, {len(tasks) * args.trials} episodes "
        "each, server start included; "
        f"concurrency {args.concurrency}; min {min(rates_shared):.1f}, max {max(rates_shared):.1f})  (target >= 50)"
    )
    print(
        f"fresh process each : {fresh:6.1f} episodes/s (median of {args.rounds}, {args.fresh_tasks} episodes each)"
    )
    print(f"ratio              : {one / fresh:6.1f}x")


if __name__ == "__main__":
    main()
