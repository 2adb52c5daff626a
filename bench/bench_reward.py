"""Metamorphic reward bench (issue 24): right work in other words must score 1.0, gaming below.

    python bench/bench_reward.py [--domains retail,airline,telecom,banking,clinic] [--modes all]
        [--episodes-per-cell 25] [--pool 300] [--seed 0] [--json out.json] [--via-llm]
        [--examples 3] [--concurrency 8] [--tasks-dir DIR]

Every mode of ``envfactory_mcp.sim.metamorphic`` (the demonstrator with one thing changed:
six that do right in their own words, six that game the reward) runs on the tasks of each
domain it applies to (``--pool`` tasks generated at ``--seed``, the first
``--episodes-per-cell`` where the mode has something to change), over the real host:
``host.episode.run_episode`` on one generated server per domain over stdio, the scripted
user, the default reward. ``--via-llm`` puts the same agents behind an OpenAI
chat-completions server on 127.0.0.1 and reaches them the way a third party's model is
reached: ``--agent llm --agent-model openai/<mode> --agent-api-base http://127.0.0.1:<port>/v1``
(``LLMAgent`` through litellm). Printed: per mode and domain the applicable episodes and
the false negatives (a good mode scored below 1.0) or false positives (a gaming mode scored
1.0), the totals, and the first failing examples of each cell with the reward's parts. An
episode where the mode changed nothing is not counted ("not applied"), nor a harness
failure. The exit status is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envfactory_mcp.catalog import package_spec
from envfactory_mcp.host.connection import ServerConnection
from envfactory_mcp.host.episode import EpisodeConfig, run_episode
from envfactory_mcp.host.rollout import RolloutConfig, make_agent
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.sim.metamorphic import MODES, MetamorphicAgent, applicable, should_pass
from envfactory_mcp.sim.types import Agent
from envfactory_mcp.sim.users import ScriptedUser
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks

SERVERS = ROOT / "generated_servers"
DOMAINS = ("retail", "airline", "telecom", "banking", "clinic")


@dataclass
class Cell:
    domain: str
    mode: str
    should_pass: bool
    applicable: int = 0  # episodes where the mode changed something, scored
    wrong: int = 0  # false negatives (good mode < 1.0) or false positives (gaming mode at 1.0)
    not_applied: int = 0  # the mode found nothing to change in the episode
    excluded: int = 0  # harness failures (reward None)
    examples: list[dict[str, Any]] = field(default_factory=list)


def generate(domain: str, pool: int, seed: int) -> list[str]:
    from envfactory_mcp.blueprints import load_blueprint
    from envfactory_mcp.env import build_env
    from envfactory_mcp.tasks.generate import generate_tasks

    tasks, _ = generate_tasks(build_env(load_blueprint(domain)), pool, seed=seed)
    return [t.to_line() for t in tasks]


def load_all(domains: list[str], pool: int, seed: int, tasks_dir: Path | None) -> dict[str, list[Task]]:
    """The task pool of every domain: read from ``tasks_dir`` when there, else generated
    (two domains at a time) and written there."""
    found: dict[str, list[Task]] = {}
    paths = {d: tasks_dir / f"{d}-s{seed}-n{pool}.jsonl" for d in domains} if tasks_dir else {}
    missing = [d for d in domains if not (d in paths and paths[d].is_file())]
    with ProcessPoolExecutor(max_workers=max(1, min(2, len(missing), os.cpu_count() or 1))) as pool_:
        lines = dict(
            zip(
                missing,
                pool_.map(generate, missing, [pool] * len(missing), [seed] * len(missing)),
                strict=True,
            )
        )
    for domain in domains:
        if domain in lines:
            found[domain] = [Task.model_validate_json(line) for line in lines[domain]]
            if domain in paths:
                write_tasks(found[domain], paths[domain])
        else:
            found[domain] = read_tasks(paths[domain])
    return found


# ---------------------------------------------------------------- agents behind the protocol


def run_now(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The result of a coroutine that never waits (the scripted agents' ``act``)."""
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise RuntimeError("the agent awaited something")


class Responder:
    """Chat completions answered by metamorphic agents: the model name is the mode, the
    conversation's first user message says which task (one agent per mode and task)."""

    def __init__(self, tasks: list[Task], spec: EnvSpec | None, seed: int) -> None:
        self.by_opening = {t.user_scenario.opening_message: t for t in tasks}
        self.spec, self.seed = spec, seed
        self.agents: dict[tuple[str, str], MetamorphicAgent] = {}
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        mode = str(body["model"]).rsplit("/", 1)[-1]
        system = next((str(m.get("content")) for m in body["messages"] if m.get("role") == "system"), "")
        messages = [m for m in body["messages"] if m.get("role") != "system"]
        task = self.by_opening[str(messages[0].get("content"))]
        with self.lock:
            agent = self.agents.get((mode, task.task_id))
            if agent is None or len(messages) == 1:
                agent = MetamorphicAgent(mode, self.seed, self.spec)
                agent.start(task, body.get("tools") or [], system)
                self.agents[(mode, task.task_id)] = agent
        turn = run_now(agent.act(messages))
        reply: dict[str, Any] = {"content": turn.content}
        if turn.tool_calls:
            reply["tool_calls"] = [{"name": c.name, "arguments": c.arguments_json} for c in turn.tool_calls]
        return reply


# ---------------------------------------------------------------- episodes


class Waves:
    """Which episodes to run: first the first ``per_cell`` tasks each mode applies to, then,
    twice at most, more of them for the modes that changed nothing in some episodes."""

    WAVES = 3

    def __init__(
        self, modes: list[str], tasks: list[Task], spec: EnvSpec | None, per_cell: int, seed: int
    ) -> None:
        self.candidates = {m: [t for t in tasks if applicable(m, t, spec)] for m in modes}
        self.used = dict.fromkeys(modes, 0)
        self.per_cell, self.waves = per_cell, 0
        self.rng = random.Random(f"order:{seed}")

    def __call__(self, done: list[Any]) -> list[tuple[str, Task]]:
        if self.waves >= self.WAVES:
            return []
        self.waves += 1
        counted = dict.fromkeys(self.used, 0)
        for mode, _, record, agent in done:
            counted[mode] += record.reward is not None and agent is not None and agent.applied
        episodes = []
        for mode, used in self.used.items():
            missing = self.per_cell - counted[mode]
            if missing > 0:  # a little more than missing after the first wave: not every one applies
                more = self.candidates[mode][used : used + missing + (missing // 2 + 1 if used else 0)]
                self.used[mode] += len(more)
                episodes += [(mode, t) for t in more]
        self.rng.shuffle(episodes)
        return episodes


async def run_domain(
    domain: str,
    waves: Callable[[list[Any]], list[tuple[str, Task]]],
    spec: EnvSpec | None,
    args: argparse.Namespace,
    api_base: str | None,
    responder: Responder | None,
) -> list[tuple[str, Task, TrajectoryRecord, MetamorphicAgent | None]]:
    """The (mode, task) episodes of one domain on one server, concurrently, in waves:
    ``waves`` gets the results so far and says which episodes to run next (none: done)."""
    conn = ServerConnection(domain, args.transport, SERVERS)
    gold = GoldCache()
    config = EpisodeConfig(run_id=f"bench-reward-{domain}", seed=args.seed)
    limiter = anyio.CapacityLimiter(args.concurrency)
    done: list[tuple[str, Task, TrajectoryRecord, MetamorphicAgent | None]] = []

    async def one(trial: int, mode: str, task: Task) -> None:
        async with limiter:
            agent: Agent
            if api_base is None:
                agent = MetamorphicAgent(mode, args.seed, spec)
            else:
                rollout = RolloutConfig(
                    envs=[domain],
                    tasks_path="",
                    agent="llm",
                    agent_model=f"openai/{mode}",
                    agent_api_base=api_base,
                )
                agent = make_agent(rollout, task)
            await conn.ensure()
            record = await run_episode(task, trial, agent, ScriptedUser(), conn, config, gold)
            wrapper = agent if isinstance(agent, MetamorphicAgent) else None
            if responder is not None:
                wrapper = responder.agents.get((mode, task.task_id))
            done.append((mode, task, record, wrapper))

    async with anyio.create_task_group() as owners:
        owners.start_soon(conn.owner)
        try:
            while episodes := waves(done):
                async with anyio.create_task_group() as group:
                    for mode, task in episodes:
                        group.start_soon(one, MODES.index(mode), mode, task)
        finally:
            with anyio.CancelScope(shield=True):
                await conn.shutdown()
    return done


def summary(record: TrajectoryRecord, agent: MetamorphicAgent | None) -> dict[str, Any]:
    parts = record.reward_parts
    return {
        "task_id": record.task_id,
        "reward": record.reward,
        "termination": record.termination,
        "claims_missing": parts.claims_missing if parts else None,
        "state_match": parts.state_match if parts else None,
        "policy_violations": parts.policy_violations if parts else None,
        "extra_calls": parts.extra_calls if parts else None,
        "changes": (agent.changes if agent else [])[:4],
    }


def judge(cells: dict[tuple[str, str], Cell], results: list[Any], examples: int) -> None:
    for mode, task, record, agent in results:
        cell = cells[(task.env, mode)]
        if record.reward is None:
            cell.excluded += 1
        elif agent is None or not agent.applied:
            cell.not_applied += 1
        else:
            cell.applicable += 1
            wrong = record.reward < 1.0 if cell.should_pass else record.reward >= 1.0
            cell.wrong += wrong
            if wrong and len(cell.examples) < examples:
                cell.examples.append(summary(record, agent))


# ---------------------------------------------------------------- output


def write_records(path: Path, results: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for mode, _, record, agent in sorted(results, key=lambda r: (r[0], r[1].task_id)):
            meta = {
                "mode": mode,
                "applied": bool(agent and agent.applied),
                "changes": agent.changes if agent else [],
            }
            out.write(json.dumps({**meta, "record": record.model_dump(mode="json")}) + "\n")


def percent(wrong: int, n: int) -> str:
    return f"{wrong}/{n} ({100 * wrong / n:.1f}%)" if n else "-"


def print_table(cells: dict[tuple[str, str], Cell], domains: list[str], modes: list[str], title: str) -> None:
    width = 18
    print(f"\n{title}")
    print(f"{'mode':20} {'kind':4} " + " ".join(f"{d:>{width}}" for d in [*domains, "total"]))
    for mode in modes:
        row = [cells[(d, mode)] for d in domains]
        total = percent(sum(c.wrong for c in row), sum(c.applicable for c in row))
        kind = "FN" if should_pass(mode) else "FP"
        print(
            f"{mode:20} {kind:4} "
            + " ".join(f"{percent(c.wrong, c.applicable):>{width}}" for c in row)
            + f" {total:>{width}}"
        )
    for kind, good in (
        ("false negatives (good modes < 1.0)", True),
        ("false positives (gaming modes at 1.0)", False),
    ):
        chosen = [c for c in cells.values() if c.should_pass == good]
        print(f"{kind:40} {percent(sum(c.wrong for c in chosen), sum(c.applicable for c in chosen))}")
    every = list(cells.values())
    print(
        f"{'applicable episodes':40} {sum(c.applicable for c in every)}"
        f"  (not applied: {sum(c.not_applied for c in every)}, harness failures: {sum(c.excluded for c in every)})"
    )


def print_examples(cells: dict[tuple[str, str], Cell]) -> None:
    shown = [c for c in cells.values() if c.examples]
    if shown:
        print("\nfirst failing examples per cell:")
    for cell in shown:
        print(f"  {cell.mode} / {cell.domain}:")
        for ex in cell.examples:
            violations = ex["policy_violations"] or []
            print(
                f"    {ex['task_id']} reward={ex['reward']} state_match={ex['state_match']} "
                f"claims_missing={ex['claims_missing']} policy={violations} extra_calls={ex['extra_calls']}"
            )
            for change in ex["changes"]:
                print(f"      changed: {change[:150]}")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--modes", default="all", help="comma-separated modes, or all")
    parser.add_argument("--episodes-per-cell", type=int, default=25)
    parser.add_argument("--pool", type=int, default=300, help="tasks generated per domain to choose from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write the cells and totals here")
    parser.add_argument("--via-llm", action="store_true", help="reach the agents over the OpenAI protocol")
    parser.add_argument("--transport", choices=("stdio", "memory"), default="stdio")
    parser.add_argument("--examples", type=int, default=3, help="failing examples shown per cell")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--tasks-dir", type=Path, help="keep and reuse the generated task pools here")
    parser.add_argument(
        "--records", type=Path, help="write every episode (mode, changes, record) here, a file a domain"
    )
    args = parser.parse_args(argv)
    args.domains = [d for d in args.domains.split(",") if d]
    args.modes = list(MODES) if args.modes == "all" else [m for m in args.modes.split(",") if m]
    for mode in args.modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    return args


def measure(args: argparse.Namespace, pools: dict[str, list[Task]]) -> dict[tuple[str, str], Cell]:
    """Every cell of the suite, run over ``pools`` (the tasks of each domain)."""
    cells = {(d, m): Cell(d, m, should_pass(m)) for d in args.domains for m in args.modes}
    for domain in args.domains:
        spec = package_spec(SERVERS, domain)
        tasks = pools[domain]
        if args.via_llm:  # the opening message names the episode: tasks that share one are left out
            openings = [t.user_scenario.opening_message for t in tasks]
            tasks = [t for t in tasks if openings.count(t.user_scenario.opening_message) == 1]
        waves = Waves(args.modes, tasks, spec, args.episodes_per_cell, args.seed)
        if args.via_llm:
            sys.path.insert(0, str(ROOT / "tests"))
            from llm_server import openai_server

            responder = Responder(tasks, spec, args.seed)
            with openai_server([], responder=responder, record=False) as server:
                results = anyio.run(run_domain, domain, waves, spec, args, server.base_url, responder)
        else:
            results = anyio.run(run_domain, domain, waves, spec, args, None, None)
        judge(cells, results, args.examples)
        if args.records:
            write_records(args.records / f"{domain}.jsonl", results)
    return cells


def main() -> None:
    args = parse()
    started = time.perf_counter()
    if args.tasks_dir:
        args.tasks_dir.mkdir(parents=True, exist_ok=True)
    pools = load_all(args.domains, args.pool, args.seed, args.tasks_dir)
    generated = time.perf_counter() - started
    cells = measure(args, pools)
    wall = time.perf_counter() - started
    path = "over the OpenAI protocol (--agent llm)" if args.via_llm else "direct"
    title = f"metamorphic reward suite, {path}, {args.transport}, seed {args.seed}: wrong / applicable"
    print_table(cells, args.domains, args.modes, title)
    print_examples(cells)
    print(f"\nwall time {wall:.0f} s (task generation {generated:.0f} s)")
    if args.json:
        payload = {
            "args": {k: str(v) for k, v in vars(args).items()},
            "wall_s": wall,
            "cells": [asdict(c) for c in cells.values()],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
