"""Rollout benchmark: scripted episodes per second over stdio, one server process for all
episodes vs a fresh server process per episode.

    python bench/bench_rollout.py [--tasks 100] [--trials 2] [--rounds 3] [--concurrency 4] [--budget]
        [--servers-dir generated_servers --trust]

Oracle agent + scripted user on retail tasks, over real stdio. The shared-server figure is
the median over rounds of (episodes / wall time) for a whole rollout into a fresh run
directory: server start, gold replay (once per task), resets, scoring and the fsynced
JSONL log all included. The baseline runs
episodes one by one, each on a server process started for it, as a harness without
sessions must. Also printed: the CPU one episode costs this process (the host: agent,
user, MCP client, scoring, log) and the server process (its start included, spread over
the episodes). Targets: >= 50 episodes/s with one server process (issue 5), >= 100
(issue 19, issue 32: at load <= 1). Issue 32's CPU figure, host + server per episode
<= 15 ms with start-up included over 200 episodes, is printed twice: in this process
(the rollout call alone: this script has already imported what it uses) and for the
whole ``envfactory-mcp rollout`` command in a fresh process (its imports, the server's
start and every episode; CPU from ``wait4``, children included; the package byte-compiled
first, as an installed one is), each a median of the
rounds, with the load average before and after. ``--budget`` adds where one episode's CPU goes: each kind of request over
stdio, timed alone (host and server CPU), times how many an episode sends, and the
host's own work on a record (scoring, writing it, reading it back for the summary).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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
TRUST = False  # --trust: a package built elsewhere (--servers-dir) runs unjailed, as shipped code does
TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def child_pids() -> set[int]:
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            pass
    return pids


async def request_costs(tasks: list[Task]) -> dict[str, tuple[float, float, int]]:
    """(host CPU s, server CPU s) per request of each kind, and how many were timed:
    resets, tool calls (the tasks' gold actions), state hashes, session ends."""
    before = child_pids()
    costs: dict[str, tuple[float, float, int]] = {}
    async with ServerConnection("retail", "stdio", SERVERS, trust=TRUST) as conn:
        (pid,) = child_pids() - before
        keys = [f"budget/{i}" for i in range(len(tasks))]
        for key in keys[:20]:  # warm up
            await conn.reset(key)
            await conn.end(key)

        async def timed(name: str, ops: list[Any]) -> None:
            host, server = time.process_time(), process_cpu(pid)
            for op in ops:
                await op()
            n = len(ops)
            costs[name] = ((time.process_time() - host) / n, (process_cpu(pid) - server) / n, n)

        await timed("control.reset", [lambda key=key: conn.reset(key) for key in keys])
        calls = [(key, a) for key, task in zip(keys, tasks, strict=True) for a in task.gold.actions]
        await timed(
            "tool call (gold actions)",
            [lambda key=key, a=a: conn.call(a.name, a.arguments, key) for key, a in calls],
        )
        await timed("control.state_hash", [lambda key=key: conn.state_hash(key) for key in keys])
        await timed("control.end_session", [lambda key=key: conn.end(key) for key in keys])
    return costs


def budget(tasks: list[Task], tasks_path: Path, trials: int) -> None:
    from envfactory_mcp.catalog import package_spec
    from envfactory_mcp.records.trajectory import TrajectoryRecord
    from envfactory_mcp.scoring.rescore import score_record

    costs = anyio.run(request_costs, tasks)
    with tempfile.TemporaryDirectory() as tmp:
        config = RolloutConfig(
            envs=["retail"], tasks_path=str(tasks_path), servers_dir=str(SERVERS), trials=trials, trust=TRUST
        )
        anyio.run(rollout, config, Path(tmp) / "run")
        lines = (Path(tmp) / "run" / "trajectories.jsonl").read_bytes().splitlines()
    records = [TrajectoryRecord.model_validate_json(line) for line in lines]
    n = len(records)
    by_id = {t.task_id: t for t in tasks}
    spec = package_spec(SERVERS, "retail")
    started = time.process_time()
    for r in records:
        score_record(r, by_id[r.task_id], spec=spec)
    scoring = (time.process_time() - started) / n
    started = time.process_time()
    for r in records:
        r.to_line()
    writing = (time.process_time() - started) / n
    started = time.process_time()
    for line in lines:
        TrajectoryRecord.model_validate_json(line)
    reading = (time.process_time() - started) / n
    calls = sum(s.calls for r in records for s in r.tool_stats.values()) / n
    gold = sum(len(t.gold.actions) for t in tasks) / n
    per_episode = {  # what one episode sends (gold replay: once per task, spread over its trials)
        "control.reset": 1 + len(tasks) / n,
        "tool call (gold actions)": calls + gold,
        "control.state_hash": 1 + len(tasks) / n,
        "control.end_session": len(tasks) / n,  # episodes park their sessions; gold replays end theirs
    }
    print(
        f"\nCPU budget of one episode ({n} episodes of {len(tasks)} tasks; requests timed alone, sequential)"
    )
    print(f"  {'':28} {'per episode':>11} {'host ms':>9} {'server ms':>10}")
    total_host = total_server = 0.0
    for name, count in per_episode.items():
        host, server, _ = costs[name]
        total_host += count * host
        total_server += count * server
        print(f"  {name:28} {count:11.2f} {count * host * 1000:9.2f} {count * server * 1000:10.2f}")
    for name, host in (
        ("scoring (score_record)", scoring),
        ("record to JSON", writing),
        ("record read back", reading),
    ):
        total_host += host
        print(f"  {name:28} {1:11.2f} {host * 1000:9.2f} {'':>10}")
    print(f"  {'sum':28} {'':11} {total_host * 1000:9.2f} {total_server * 1000:10.2f}")
    print(
        f"  (agent, user, fsync and the event loop's scheduling come on top; 100 episodes/s needs the "
        f"busier side under {1000 / 100:.0f} ms per episode)"
    )


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # server processes that have ended
    return usage.ru_utime + usage.ru_stime


def shared(tasks_path: Path, concurrency: int, n: int, trials: int, cpu: dict[str, list[float]]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        config = RolloutConfig(
            envs=["retail"],
            tasks_path=str(tasks_path),
            servers_dir=str(SERVERS),
            concurrency=concurrency,
            trials=trials,
            trust=TRUST,
        )
        started, host, server = time.perf_counter(), time.process_time(), children_cpu()
        summary = anyio.run(rollout, config, Path(tmp) / "run")
        elapsed = time.perf_counter() - started
        cpu["host"].append((time.process_time() - host) / (n * trials))
        cpu["server"].append((children_cpu() - server) / (n * trials))
    assert summary["mean_reward"] == 1.0, summary
    return n * trials / elapsed


def whole_command(tasks_path: Path, concurrency: int, episodes: int, trials: int) -> float:
    """CPU seconds per episode of ``envfactory-mcp rollout`` in a fresh process, its
    server included (``wait4`` counts the children it waited for)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "envfactory_mcp", "rollout", "retail", "--tasks", str(tasks_path),
                   "-o", str(Path(tmp) / "run"), "--agent", "oracle", "--trials", str(trials),
                   "--concurrency", str(concurrency), "--servers-dir", str(SERVERS), "-q",
                   *(["--trust"] if TRUST else [])]  # fmt: skip
        process = subprocess.Popen(command, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert process.stderr is not None
        stderr = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"envfactory-mcp rollout failed:\n{stderr.decode()[-2000:]}")
    return (usage.ru_utime + usage.ru_stime) / episodes


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def verdict(value: float, target: float, *, at_most: bool) -> str:
    met = value <= target if at_most else value >= target
    if met:
        return "meets the target"
    return f"misses by {abs(value - target):.1f} ({value / target:.2f}x the target)"


async def fresh_per_episode(tasks: list[Task]) -> float:
    config = EpisodeConfig(run_id="bench-fresh")
    started = time.perf_counter()
    for task in tasks:
        async with ServerConnection("retail", "stdio", SERVERS, trust=TRUST) as conn:
            record = await run_episode(task, 0, OracleAgent(), ScriptedUser(), conn, config, GoldCache())
        assert record.reward == 1.0, record.termination_detail
    return len(tasks) / (time.perf_counter() - started)


def main() -> None:
    global SERVERS, TRUST
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--fresh-tasks", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--budget", action="store_true", help="also print the CPU budget of one episode")
    parser.add_argument("--servers-dir", type=Path, default=SERVERS, help="where the retail package is")
    parser.add_argument("--trust", action="store_true", help="run a package built elsewhere unjailed")
    args = parser.parse_args()
    SERVERS, TRUST = args.servers_dir, args.trust
    if not (SERVERS / "retail").is_dir():
        sys.exit("generated_servers/retail is missing: run envfactory-mcp build retail")
    # The whole command's figure is an installed package's: byte-compiled (pip compiles at
    # install), not every module compiled from source again in each fresh process, which is
    # what a checkout under PYTHONDONTWRITEBYTECODE=1 would otherwise count (~0.2 s a run).
    compileall.compile_dir(ROOT / "envfactory_mcp", quiet=1)
    env = build_env(load_blueprint("retail"))
    tasks, _ = generate_tasks(env, args.tasks, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tasks.jsonl"
        write_tasks(tasks, path)
        rates_shared, rates_fresh, commands = [], [], []
        cpu: dict[str, list[float]] = {"host": [], "server": []}
        episodes = len(tasks) * args.trials
        print(f"load before: {load()}")
        for _ in range(args.rounds):  # interleaved, so drift hits both alike
            rates_shared.append(shared(path, args.concurrency, len(tasks), args.trials, cpu))
            commands.append(whole_command(path, args.concurrency, episodes, args.trials))
            rates_fresh.append(anyio.run(fresh_per_episode, tasks[: args.fresh_tasks]))
    one, fresh = statistics.median(rates_shared), statistics.median(rates_fresh)
    print(
        f"one server process : {one:6.1f} episodes/s (median of {args.rounds}, {episodes} episodes "
        "each, server start included; "
        f"concurrency {args.concurrency}; min {min(rates_shared):.1f}, max {max(rates_shared):.1f})  "
        f"(target >= 100 at load <= 1: {verdict(one, 100, at_most=False)})"
    )
    host, server = statistics.median(cpu["host"]), statistics.median(cpu["server"])
    total = (host + server) * 1000
    print(
        f"CPU per episode    : host {host * 1000:5.2f} ms, server {server * 1000:5.2f} ms (start included), "
        f"sum {total:5.2f} ms = {1 / (host + server):5.1f} episodes per CPU second  "
        f"(target <= 15 ms: {verdict(total, 15, at_most=True)})"
    )
    command = statistics.median(commands) * 1000
    print(
        f"whole command      : {command:5.2f} ms CPU per episode (envfactory-mcp rollout in a fresh process: "
        f"imports, server start, {episodes} episodes; median of {args.rounds}, min {min(commands) * 1000:.2f}, "
        f"max {max(commands) * 1000:.2f})  (target <= 15 ms: {verdict(command, 15, at_most=True)})"
    )
    print(
        f"fresh process each : {fresh:6.1f} episodes/s (median of {args.rounds}, {args.fresh_tasks} episodes each)"
    )
    print(f"ratio              : {one / fresh:6.1f}x")
    print(f"load after: {load()}")
    if args.budget:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "tasks.jsonl"
            write_tasks(tasks, path)
            budget(tasks, path, args.trials)


if __name__ == "__main__":
    main()
