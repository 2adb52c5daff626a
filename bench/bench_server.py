"""Server benchmark: call latency vs a bare no-op tool, session reset time, memory of 1,000 sessions.

    python bench/bench_server.py [--env retail] [--calls 400] [--rounds 5]

Every figure is a median over several rounds, measured against a baseline in the same
run (the machine is shared and noisy). Targets (issue 2): write/no-op latency ratio over
stdio <= 1.5; session reset <= 1 ms; RSS of one process with 1,000 sessions <= 300 MB.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import noop_server
from servers import http_server

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env
from envfactory_mcp.host.launch import stdio_params
from envfactory_mcp.runtime import SESSION_META_KEY, ServerOptions, create_server


def write_call(env: Any) -> tuple[str, dict[str, Any]]:
    """An always-valid write call for the benchmark, taken from the seed state."""
    user = env.seed_state["users"][0]
    args = {k: user[k] for k in ("user_id", "address1", "address2", "city", "state", "country", "zip")}
    return "modify_user_address", args


async def per_call_ms(client: Client, tool: str, args: dict[str, Any], n: int) -> float:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        result = await client.call_tool(tool, args)
        samples.append(time.perf_counter() - t0)
        assert not result.is_error, result.content
    return statistics.median(samples) * 1000


async def latency(label: str, baseline_target: Any, env_target: Any, tool: str, args: dict[str, Any], calls: int, rounds: int) -> None:
    base, ours = [], []
    async with Client(baseline_target) as b, Client(env_target) as e:
        await per_call_ms(b, "noop", {}, 20)  # warm up
        await per_call_ms(e, tool, args, 20)
        for _ in range(rounds):  # interleaved, so drift hits both alike
            base.append(await per_call_ms(b, "noop", {}, calls))
            ours.append(await per_call_ms(e, tool, args, calls))
    b_med, e_med = statistics.median(base), statistics.median(ours)
    print(f"{label:<10} no-op {b_med:.3f} ms | {tool} {e_med:.3f} ms | ratio {e_med / b_med:.2f}  (target <= 1.5)")


def reset_time(env: Any, rounds: int) -> None:
    session = env.new_session()
    medians = []
    for _ in range(rounds):
        samples = []
        for _ in range(1000):
            session.db.execute("UPDATE users SET zip = '00000'")
            t0 = time.perf_counter()
            session.reset()
            samples.append(time.perf_counter() - t0)
        medians.append(statistics.median(samples) * 1000)
    assert session.hash() == env.seed_hash
    print(f"session reset (deserialize seed image, {len(env.seed_image) // 1024} KiB): {statistics.median(medians):.3f} ms  (target <= 1)")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def memory(env_name: str, tool: str, args: dict[str, Any], sessions: int) -> None:
    package_dir = ROOT / "generated_servers" / env_name
    with http_server(package_dir, f"{env_name}_mcp", "--control") as server:
        pid = server.pid
        async with Client(server.url) as client:
            await client.call_tool(tool, args)
            before = rss_mb(pid)
            for i in range(sessions):
                await client.call_tool("control.reset", {}, meta={SESSION_META_KEY: f"s{i}"})  # opens the key
                result = await client.call_tool(tool, args, meta={SESSION_META_KEY: f"s{i}"})
                assert not result.is_error
            after = rss_mb(pid)
    print(f"RSS of one server process: {before:.0f} MB with 1 session, {after:.0f} MB with {sessions} sessions open (target <= 300)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="retail")
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    env = build_env(load_blueprint(args.env))
    tool, tool_args = write_call(env)
    servers_dir = ROOT / "generated_servers"
    noop_stdio = StdioServerParameters(command=sys.executable, args=[str(ROOT / "bench" / "noop_server.py")])
    print(f"median of {args.rounds} rounds x {args.calls} calls; python {sys.version.split()[0]}")
    anyio.run(latency, "stdio", noop_stdio, stdio_params(servers_dir, args.env), tool, tool_args, args.calls, args.rounds)
    anyio.run(latency, "in-memory", noop_server.build(), create_server(env.bundle(), ServerOptions()), tool, tool_args, args.calls, args.rounds)
    reset_time(env, args.rounds)
    anyio.run(memory, args.env, tool, tool_args, args.sessions)


if __name__ == "__main__":
    main()
