"""The per-session jailed server against the in-process one: CPU per call, session start,
memory per session (issue 25).

    python bench/bench_jail.py [--rounds 5] [--calls 300] [--sessions 1000]

Both servers are served over real stdio by envfactory-mcp's runtime from the committed
retail package: ``python -I -m envfactory_mcp.runtime <retail> --control`` (in-process,
the baseline) and the same with ``--jail`` (the front here, the package whole in jailed
session processes). The client is a raw JSON-RPC client (no SDK), so what is measured is
the server side. Every figure is a median over ``--rounds`` interleaved rounds.

* **server CPU per call**: user+system time of the server's whole process tree (the
  front, bubblewrap, the zygote and the session processes; read from /proc before and
  after) over ``--calls`` calls of a retail write (``modify_user_address``) and a read
  (``get_order_details``) in one session, divided by the calls. Target: jailed <= 1.5x.
* **session start**: wall time from a request with a new session key to its answer (a
  fork, the tool code loaded, the handshake, a reset), over 20 new sessions. Target:
  <= 150 ms.
* **memory**: ``--sessions`` session keys opened at once (each its own process), then the
  private memory (USS: Private_Clean + Private_Dirty of /proc/<pid>/smaps_rollup) of the
  session processes, per session, and the tree's total next to MemAvailable. Target:
  1,000 sessions fit.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RETAIL = Path(__file__).resolve().parents[1] / "generated_servers" / "retail" / "retail_mcp"
TICK = os.sysconf("SC_CLK_TCK")


class Raw:
    """A JSON-RPC client over a server's stdin/stdout, no SDK."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/")
        self.ids = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.ids:
                if "error" in answer:
                    raise RuntimeError(answer["error"])
                return answer["result"]

    def call(self, tool: str, arguments: dict, key: str) -> dict:
        result = self.request(
            "tools/call", {"name": tool, "arguments": arguments, "_meta": {"envfactory/session": key}}
        )
        if result.get("isError"):
            raise RuntimeError(result["content"][0]["text"])
        return result

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found


def cpu_seconds(pid: int) -> float:
    total = 0
    for member in tree(pid):
        try:
            with open(f"/proc/{member}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total / TICK


def uss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            return (
                sum(int(line.split()[1]) for line in f if line.startswith(("Private_Clean", "Private_Dirty")))
                << 10
            )
    except OSError:
        return 0


def server(jailed: bool) -> Raw:
    argv = [sys.executable, "-I", "-m", "envfactory_mcp.runtime", str(RETAIL), "--control"]
    return Raw(
        argv
        + (["--jail", "--jailed-sessions", "2000", "--jailed-sessions-per-client", "2000"] if jailed else [])
    )


def per_call(client: Raw, calls: int) -> float:
    key = "bench"
    client.call("control.reset", {}, key)
    user = client.call("find_user_id_by_email", {"email": "diego.patel48@inbox.example"}, key)
    user_id = user["structuredContent"]["user_id"] if "structuredContent" in user else None
    before = cpu_seconds(client.proc.pid)
    for i in range(calls):
        if i % 2 and user_id:
            address = {"address1": f"{i} Main St", "address2": "", "city": "Austin", "state": "TX",
                       "country": "USA", "zip": "78701"}  # fmt: skip
            client.call("modify_user_address", {"user_id": user_id, **address}, key)
        else:
            client.call("list_all_product_types", {}, key)
    return (cpu_seconds(client.proc.pid) - before) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    jailed, plain = server(True), server(False)
    try:
        cpu: dict[str, list[float]] = {"in-process": [], "jailed": []}
        for _ in range(args.rounds):
            cpu["in-process"].append(per_call(plain, args.calls))
            cpu["jailed"].append(per_call(jailed, args.calls))
        base, jail = statistics.median(cpu["in-process"]), statistics.median(cpu["jailed"])
        print(f"server CPU per call: in-process {base * 1e3:.3f} ms, jailed {jail * 1e3:.3f} ms, "
              f"ratio {jail / base:.2f}x (target <= 1.5x; medians of {args.rounds})")  # fmt: skip
        starts = []
        for i in range(20):
            started = time.perf_counter()
            jailed.call("control.reset", {}, f"start-{i}")
            starts.append(time.perf_counter() - started)
            jailed.call("control.end_session", {}, f"start-{i}")
        print(f"session start: median {statistics.median(starts) * 1e3:.1f} ms, "
              f"max {max(starts) * 1e3:.1f} ms over 20 (target <= 150 ms)")  # fmt: skip
    finally:
        plain.close()
    try:
        started = time.perf_counter()
        for i in range(args.sessions):
            jailed.call("control.reset", {}, f"mem-{i}")
            jailed.call("list_all_product_types", {}, f"mem-{i}")
        took = time.perf_counter() - started
        members = tree(jailed.proc.pid)
        sizes = sorted(uss(p) for p in members)
        sessions = sizes[: args.sessions]  # the session processes are the small ones
        total = sum(sizes)
        with open("/proc/meminfo") as f:
            available = next(int(line.split()[1]) for line in f if line.startswith("MemAvailable")) << 10
        print(f"{args.sessions} sessions open at once ({len(members)} processes, opened in {took:.1f} s): "
              f"{statistics.median(sessions) / 2**20:.1f} MiB private per session (median), "
              f"{total / 2**30:.2f} GiB private in all, {available / 2**30:.1f} GiB still available")  # fmt: skip
    finally:
        jailed.close()


if __name__ == "__main__":
    main()
