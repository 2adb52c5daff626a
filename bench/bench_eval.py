"""Eval throughput (issue 15): scored cross-server episodes per second with scripted agents.

    python bench/bench_eval.py [--tasks 40] [--rounds 3] [--concurrency 8] [--json FILE]

For 1, 3 and 10 servers per task (the linked demo servers crm, billing and shipping, then
``notes_<k>`` distractors; one server gives chains within crm), builds ``--tasks`` tasks
once, then plays and scores every task with the oracle, coin-flip and noop agents and the
scripted user (claims scored deterministically, no judge), and prints tasks/s (median of
``--rounds``; this machine is shared and noisy), the tools offered per task, and the
oracle's coverage and pass rate as a check that the figures are of working episodes.
Composing the tasks is timed apart.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envfactory_mcp.env import Environment
from envfactory_mcp.eval.agents import CoinFlipAgent
from envfactory_mcp.eval.compose import EvalTask, LinkedComposer
from envfactory_mcp.eval.demo_envs import SHARED_ENTITIES, linked_envs
from envfactory_mcp.eval.report import summarize
from envfactory_mcp.eval.runner import EpisodeSettings, EvalResult, run_eval
from envfactory_mcp.sim.agents import NoopAgent, OracleAgent
from envfactory_mcp.sim.types import Agent
from envfactory_mcp.sim.users import ScriptedUser

AGENTS: dict[str, Callable[[], Agent]] = {"oracle": OracleAgent, "coinflip": CoinFlipAgent, "noop": NoopAgent}


def play(
    tasks: list[EvalTask], envs: list[Environment], factory: Callable[[], Agent], concurrency: int
) -> list[EvalResult]:
    async def go() -> list[EvalResult]:
        return await run_eval(
            tasks,
            envs,
            lambda t: factory(),
            lambda t: ScriptedUser(),
            concurrency=concurrency,
            settings=EpisodeSettings(keep_messages=False),
        )

    return anyio.run(go)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rows = []
    print(
        f"{'servers':>7} {'tasks':>6} {'tools':>6} {'compose s':>10} "
        + " ".join(f"{a + ' t/s':>13}" for a in AGENTS)
        + "  oracle cov/pass"
    )
    for servers in (1, 3, 10):
        envs = linked_envs(servers)
        t0 = time.perf_counter()
        tasks = LinkedComposer(envs, seed=0, shared_entities=SHARED_ENTITIES).compose(args.tasks)
        compose_s = time.perf_counter() - t0
        rates: dict[str, float] = {}
        check: dict[str, float] = {}
        for name, factory in AGENTS.items():
            timings = []
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                results = play(tasks, envs, factory, args.concurrency)
                timings.append(time.perf_counter() - t0)
            rates[name] = len(tasks) / statistics.median(timings)
            if name == "oracle":
                summary = summarize(results)
                check = {"coverage": summary["coverage"], "pass": summary["pass_rate@0.75"]}
        tools = statistics.mean(
            sum(len(e.spec.tools) for e in envs if e.spec.name in t.offered) for t in tasks
        )
        row = {
            "servers": servers,
            "tasks": len(tasks),
            "tools_offered": tools,
            "compose_s": compose_s,
            "tasks_per_s": rates,
            "oracle": check,
        }
        rows.append(row)
        print(
            f"{servers:>7} {len(tasks):>6} {tools:>6.1f} {compose_s:>10.2f} "
            + " ".join(f"{rates[a]:>13.1f}" for a in AGENTS)
            + f"  {check['coverage']:.2f}/{check['pass']:.2f}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
