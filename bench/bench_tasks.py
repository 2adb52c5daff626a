"""Task synthesis benchmark: valid retail tasks per minute on one core, the quality figures
issue 10 holds the task set to, next to the random-walk baseline, and the demonstrations.

    python bench/bench_tasks.py [--n 500] [--rounds 3] [--no-rollout]

Generation is single-threaded (one core). Each round generates ``n`` tasks from scratch
(graph, oracle pools, goals, chains, oracle runs, policy completion, scenarios, offline
realisation); throughput is the median over rounds. The random-walk sampler runs in the
same process with the same n as the baseline. Then both agents that could be an SFT
source play every topology task with the scripted user over MCP (in-memory transport,
the retail package built and verified into a temporary folder): the demonstrator (the
default source) and the gold-replaying oracle (the old one), and the share of episodes
with every tool call grounded, no policy violation and reward 1.0 is printed for each.

Targets (issue 10): policy-consistent 100%; demonstrator calls grounded 100%; distinct-2
at a 2,000-word budget, the mean over 16 random orders, >= 0.6 (tau2-bench's 114
human-written retail tasks, their instructions: 0.61); tasks
with >= 2 writes >= 35%; mean gold actions >= 4.5; refusal + transfer >= 10%; contingent
or withheld information >= 25%; duplicate gold outcomes <= 5%; impossible addresses 0;
leakage 0; every tool in some gold.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.build import emit_verified
from envfactory_mcp.env import build_env
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import Task, write_tasks
from envfactory_mcp.tasks.stats import task_stats

# (figure, target, how it is compared)
TARGETS: list[tuple[str, float | None, str]] = [
    ("policy_consistent", 1.0, ">="),
    ("distinct_2_at_2000_words", 0.6, ">="),
    ("two_or_more_writes", 0.35, ">="),
    ("mean_gold_actions", 4.5, ">="),
    ("refusal_or_transfer", 0.10, ">="),
    ("contingent_or_withheld", 0.25, ">="),
    ("duplicate_gold_outcomes", 0.05, "<="),
    ("impossible_addresses", 0, "<="),
    ("leakage_after_calibration", 0, "<="),
    ("missing_facts_after_calibration", 0, "<="),
    ("tools_in_no_gold", None, "empty"),
    ("valid_task_rate", None, ""),
    ("goal_kinds", None, ""),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-rollout", action="store_true", help="skip the demonstration rollouts")
    args = parser.parse_args()
    env = build_env(load_blueprint("retail"))
    figures, medians, last = {}, {}, {}
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
        last[sampler] = tasks
        print(
            f"{sampler:<12} {statistics.median(rates):7.0f} valid tasks/min (median of {args.rounds}; "
            f"min {min(rates):.0f}, max {max(rates):.0f}); CPU {statistics.median(cpu):.1f} s per {args.n}"
        )
    print(f"throughput topology / random walk = {medians['topology'] / medians['random_walk']:.2f}x")
    print(f"quality figures (last round, n={args.n}):")
    print(f"{'figure':<34} {'target':>8} {'topology':>14} {'random walk':>14}")
    for key, target, how in TARGETS:
        a, b = figures["topology"].get(key), figures["random_walk"].get(key)
        mark = _verdict(a, target, how)
        shown = "" if target is None and how != "empty" else ("[]" if how == "empty" else f"{how}{target}")
        print(f"{key:<34} {shown:>8} {_show(a):>14} {_show(b):>14} {mark}")
    if not args.no_rollout:
        _demonstrations(env, last["topology"])


def _demonstrations(env, tasks: list[Task]) -> None:  # type: ignore[no-untyped-def]
    """Both candidate SFT sources over every task, scripted user, in-memory MCP."""
    with tempfile.TemporaryDirectory(prefix="bench-tasks-") as tmp:
        root = Path(tmp)
        emit_verified(env, root / "servers" / "retail")
        write_tasks(tasks, root / "tasks.jsonl")
        print(f"demonstrations ({len(tasks)} topology tasks, scripted user, in-memory MCP):")
        print(
            f"{'agent':<14} {'grounded':>10} {'no policy violation':>20} {'reward 1.0':>11} {'episodes/s':>11}"
        )
        for agent in ("demonstrator", "oracle"):
            config = RolloutConfig(
                envs=["retail"],
                tasks_path=str(root / "tasks.jsonl"),
                servers_dir=str(root / "servers"),
                agent=agent,
                transport="memory",
                concurrency=8,
            )
            start = time.perf_counter()
            anyio.run(rollout, config, root / "runs" / agent)
            took = time.perf_counter() - start
            records = [
                json.loads(line)
                for line in (root / "runs" / agent / "trajectories.jsonl")
                .read_text(encoding="utf-8")
                .splitlines()
            ]
            n = len(records)
            parts = [r.get("reward_parts") or {} for r in records]
            grounded = sum(1 for p in parts if p and not p.get("ungrounded_calls"))
            compliant = sum(1 for p in parts if p and not p.get("policy_violations"))
            solved = sum(1 for r in records if r.get("reward") == 1.0)
            print(
                f"{agent:<14} {grounded / n:>10.1%} {compliant / n:>20.1%} {solved / n:>11.1%} {n / took:>11.1f}"
                + ("   (target: grounded 100%, reward 1.0 on every task)" if agent == "demonstrator" else "")
            )


def _verdict(value: object, target: float | None, how: str) -> str:
    if how == "empty":
        return "ok" if value == [] else "MISSED"
    if target is None or not isinstance(value, int | float):
        return ""
    ok = value >= target if how == ">=" else value <= target
    return "ok" if ok else "MISSED"


def _show(value: object) -> str:
    return json.dumps(value) if not isinstance(value, float) else f"{value:.4g}"


if __name__ == "__main__":
    main()
