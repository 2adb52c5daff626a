"""Start-up benchmark (issues 14 and 32): the CPU a generated server spends answering
``--help`` and an argument error (target: under 0.3 s, the MCP stack loads only after the
arguments parse), and serving a short stdio connection from its start to its end:
a 2026-07-28 client (``server/discover``, ``tools/list``, one tool call: what the host's
lean client sends, all answered without the MCP SDK) and a handshake-era client
(``initialize``, the same list and call: the SDK loads). Against the floor of starting
this interpreter with nothing (``python -c pass``) and the SDK's import alone, measured
in the same run.

    python bench/bench_startup.py [--rounds 7] [--servers-dir generated_servers]

CPU time of the child (``wait4``: user + system), medians of interleaved rounds, the
load average before and after; the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
CALL = {"name": "get_user_details", "arguments": {"user_id": "user_000001"}}
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}


def line(id_: int | None, method: str, params: dict[str, object]) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        message["id"] = id_
    return json.dumps(message).encode() + b"\n"


MODERN = [
    line(1, "server/discover", {"_meta": ENVELOPE}),
    line(2, "tools/list", {"_meta": ENVELOPE}),
    line(3, "tools/call", {**CALL, "_meta": ENVELOPE}),
]
LEGACY = [
    line(1, "initialize", INIT),
    line(None, "notifications/initialized", {}),
    line(2, "tools/list", {}),
    line(3, "tools/call", CALL),
]


def cpu(argv: list[str], env: dict[str, str], requests: list[bytes] | None = None) -> float:
    """CPU seconds of the process ``argv`` (user + system), given ``requests`` one at a
    time (each answered before the next), then the end of its input."""
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    for request in requests or []:
        proc.stdin.write(request)
        proc.stdin.flush()
        if b'"id"' in request:
            answer = json.loads(proc.stdout.readline())
            if "result" not in answer:
                raise SystemExit(f"{argv}: {answer}")
    proc.stdin.close()
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--servers-dir", type=Path, default=ROOT / "generated_servers")
    args = parser.parse_args()
    package = args.servers_dir / "retail"
    env = {**os.environ, "PYTHONPATH": str(package)}
    serve = [sys.executable, "-m", "retail_mcp"]
    cases: dict[str, tuple[list[str], list[bytes] | None]] = {
        "python -c pass (floor)": ([sys.executable, "-c", "pass"], None),
        "python -c 'import mcp.server' (the SDK)": ([sys.executable, "-c", "import mcp.server"], None),
        "retail-mcp --help": ([*serve, "--help"], None),
        "retail-mcp --port nope (argument error)": ([*serve, "--port", "nope"], None),
        "stdio 2026 era: discover, list, call": (serve, MODERN),
        "stdio handshake era: init, list, call": (serve, LEGACY),
        "envfactory-mcp --help": ([sys.executable, "-m", "envfactory_mcp", "--help"], None),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    print(f"load before: {load()}")
    for _ in range(args.rounds):
        for name, (argv, requests) in cases.items():
            times[name].append(cpu(argv, env, requests))
    floor = statistics.median(times["python -c pass (floor)"])
    for name, values in times.items():
        med = statistics.median(values)
        print(
            f"{name:42s} median {med * 1000:7.0f} ms CPU of {args.rounds} "
            f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}; {med / floor:5.1f}x the floor)"
        )
    modern = statistics.median(times["stdio 2026 era: discover, list, call"])
    legacy = statistics.median(times["stdio handshake era: init, list, call"])
    print(f"2026-era connection / handshake-era connection: {modern / legacy:.2f}x the CPU")
    print(f"load after: {load()}")
    print("target: --help and argument errors under 300 ms")


if __name__ == "__main__":
    main()
