"""Server benchmark: call latency vs a bare no-op tool, session reset time, memory of many sessions.

    python bench/bench_server.py [--env retail] [--calls 400] [--rounds 5]
        [--sessions 10000] [--written 1000] [--scale 100 --scaled-sessions 1000] [--skip ...]

Every figure is a median over several rounds, measured against a baseline in the same
run (the machine is shared and noisy). Targets (issue 2): write/no-op latency ratio over
stdio <= 1.5; session reset <= 1 ms. Memory (issue 19): an isolated session is a session
key opened with ``control.reset`` and used (one read); 10,000 of them in one retail
server process <= 1 GB of RSS, and 1,000 at a 100x seed <= 2 GB. Sessions that wrote
one row are reported beside them (each holds its own copy of the seed image).
"""

from __future__ import annotations

import argparse
import os
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
from envfactory_mcp.runtime import SESSION_META_KEY, ServerOptions, SessionLimits, create_server


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


async def latency(
    label: str,
    baseline_target: Any,
    env_target: Any,
    tool: str,
    args: dict[str, Any],
    calls: int,
    rounds: int,
) -> None:
    base, ours = [], []
    async with Client(baseline_target) as b, Client(env_target) as e:
        await per_call_ms(b, "noop", {}, 20)  # warm up
        await per_call_ms(e, tool, args, 20)
        for _ in range(rounds):  # interleaved, so drift hits both alike
            base.append(await per_call_ms(b, "noop", {}, calls))
            ours.append(await per_call_ms(e, tool, args, calls))
    b_med, e_med = statistics.median(base), statistics.median(ours)
    print(
        f"{label:<10} no-op {b_med:.3f} ms | {tool} {e_med:.3f} ms | ratio {e_med / b_med:.2f}  (target <= 1.5)"
    )


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
    print(
        f"session reset (deserialize seed image, {len(env.seed_image) // 1024} KiB): {statistics.median(medians):.3f} ms  (target <= 1)"
    )


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def memory(
    env_name: str, env: Any, tool: str, args: dict[str, Any], sessions: int, written: int
) -> None:
    """RSS of a real HTTP server process (``--control``) as one client opens ``sessions``
    session keys (``control.reset``) and reads once in each (an isolated session that was
    used), then ``written`` more that write one row each (a session that pays for its
    own copy of the seed)."""
    package_dir = ROOT / "generated_servers" / env_name
    user = env.seed_state["users"][0]
    read_tool, read_args = "get_user_details", {"user_id": user["user_id"]}
    with http_server(package_dir, f"{env_name}_mcp", "--control", "--max-session-keys", str(sessions + written + 10),
                     "--session-keys-per-connection", str(sessions + written + 10)) as server:  # fmt: skip
        pid = server.pid
        async with Client(server.url) as client:
            await client.call_tool(read_tool, read_args)
            before = rss_mb(pid)
            for i in range(sessions):
                await client.call_tool("control.reset", {}, meta={SESSION_META_KEY: f"r{i}"})  # opens the key
                result = await client.call_tool(read_tool, read_args, meta={SESSION_META_KEY: f"r{i}"})
                assert not result.is_error
            after_reads = rss_mb(pid)
            for i in range(written):
                await client.call_tool("control.reset", {}, meta={SESSION_META_KEY: f"w{i}"})
                result = await client.call_tool(tool, args, meta={SESSION_META_KEY: f"w{i}"})
                assert not result.is_error
            after_writes = rss_mb(pid)
    print(
        f"RSS of one HTTP server process: {before:.0f} MB with 1 session; {after_reads:.0f} MB with {sessions} "
        f"sessions that read ({(after_reads - before) * 1024 / sessions:.1f} KB each; target: 10,000 <= 1 GB); "
        f"+{after_writes - after_reads:.0f} MB for {written} that wrote one row "
        f"({(after_writes - after_reads) * 1024 / max(written, 1):.0f} KB each)"
    )


async def memory_in_process(
    env: Any, tool: str, args: dict[str, Any], sessions: int, written: int, scale: int
) -> None:
    """The same through the in-memory transport, in this process, for a scaled seed."""
    limits = SessionLimits(keys_per_owner=sessions + written + 10, max_keys=sessions + written + 10)
    server = create_server(env.bundle(), ServerOptions(control=True, session_limits=limits))
    user = env.seed_state["users"][0]
    read_tool, read_args = "get_user_details", {"user_id": user["user_id"]}
    async with Client(server) as client:
        await client.call_tool(read_tool, read_args)
        before = rss_mb(os.getpid())
        for i in range(sessions):
            await client.call_tool("control.reset", {}, meta={SESSION_META_KEY: f"r{i}"})
            result = await client.call_tool(read_tool, read_args, meta={SESSION_META_KEY: f"r{i}"})
            assert not result.is_error
        after_reads = rss_mb(os.getpid())
        for i in range(written):
            await client.call_tool("control.reset", {}, meta={SESSION_META_KEY: f"w{i}"})
            result = await client.call_tool(tool, args, meta={SESSION_META_KEY: f"w{i}"})
            assert not result.is_error
        after_writes = rss_mb(os.getpid())
    print(
        f"{scale}x seed ({len(env.seed_image) // 1024} KiB image), in process: RSS {before:.0f} MB with 1 session, "
        f"{after_reads:.0f} MB with {sessions} that read (target at 100x: 1,000 <= 2 GB); "
        f"+{after_writes - after_reads:.0f} MB for {written} that wrote one row "
        f"({(after_writes - after_reads) * 1024 / max(written, 1):.0f} KB each)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="retail")
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions that read, over HTTP")
    parser.add_argument("--written", type=int, default=1_000, help="sessions that write one row, over HTTP")
    parser.add_argument("--scaled-sessions", type=int, default=1_000, help="sessions at --scale, in process")
    parser.add_argument("--scale", type=int, default=100)
    parser.add_argument("--skip", default="", help="comma-separated: latency,reset,memory,scaled")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    env = build_env(load_blueprint(args.env))
    tool, tool_args = write_call(env)
    servers_dir = ROOT / "generated_servers"
    noop_stdio = StdioServerParameters(command=sys.executable, args=[str(ROOT / "bench" / "noop_server.py")])
    print(f"median of {args.rounds} rounds x {args.calls} calls; python {sys.version.split()[0]}")
    if "latency" not in skip:
        anyio.run(
            latency,
            "stdio",
            noop_stdio,
            stdio_params(servers_dir, args.env),
            tool,
            tool_args,
            args.calls,
            args.rounds,
        )
        anyio.run(
            latency,
            "in-memory",
            noop_server.build(),
            create_server(env.bundle(), ServerOptions()),
            tool,
            tool_args,
            args.calls,
            args.rounds,
        )
    if "reset" not in skip:
        reset_time(env, args.rounds)
    if "memory" not in skip:
        anyio.run(memory, args.env, env, tool, tool_args, args.sessions, args.written)
    if "scaled" not in skip:
        scaled = build_env(load_blueprint(args.env), scale=args.scale)
        anyio.run(memory_in_process, scaled, tool, tool_args, args.scaled_sessions, 20, args.scale)


if __name__ == "__main__":
    main()
