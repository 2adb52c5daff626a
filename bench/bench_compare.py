"""Side by side (issue 19): our retail server, the bare-SDK floor and EnvFactory's published
retail server, interleaved rounds in one run, then the 1x / 10x / 100x growth table.

    python bench/bench_compare.py [--rounds 5] [--calls 300] [--scale 1,10,100]
        [--envfactory DIR] [--envfactory-python PY] [--make-envfactory-venv DIR]

Figures (medians over ``--rounds`` interleaved rounds, each a median or a mean over
``--calls`` calls; ratios are against a baseline measured in the same run):

- stdio write: ``modify_user_address`` on one retail user over stdio, wall time per call
  and the server process's CPU time per call (``/proc/<pid>/stat``, utime + stime), for
  ours (``python -m envfactory_mcp.runtime <package>``, the host's launch), the floor
  (``bench/noop_server.py``: the same SDK, one no-op tool, none of our runtime) and
  EnvFactory's ``envs/tools/Retail.py`` (mcp 1.x FastMCP, state in Python objects, loaded
  with our retail seed through its ``load_scenario`` tool);
- HTTP write: the same call over streamable HTTP (protocol 2025-11-25: a session), ours
  (``python -m retail_mcp``) against the floor; and a read by key on the sessionless
  2026-07-28 path, where the SDK checks ``Mcp-Param`` headers against the tool's input
  schema (ours hands it the schema, ``get_tool_input_schema``);
- cold start: spawn to the ``initialize`` answer over stdio;
- growth: ``bench_state.measure`` at each ``--scale`` (reset, first write, hash after a
  one-row write, dump, read by key, memory per session).

EnvFactory's server needs its repository (``--envfactory``: a checkout of
LARK-AI-Lab/EnvFactory; only ``envs/tools/Retail.py`` is used) and a Python with mcp 1.x
(``--envfactory-python``; ``--make-envfactory-venv DIR`` makes one with pip). Without
them its columns say why they are missing.

Targets (issue 19): server CPU per stdio write <= 1.1x EnvFactory's; HTTP write <= 1.5x
the floor; cold start within 0.1 s of the floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
SERVERS = ROOT / "generated_servers"
PACKAGE = SERVERS / "retail"
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT / "tests"))


from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children() -> set[int]:
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            pass
    return pids


@dataclass
class Target:
    """One server and the call measured on it."""

    name: str
    connect: Callable[[], Any]  # what Client() takes
    tool: str
    args: dict[str, Any]
    mode: str = "legacy"
    prepare: Callable[[Client], Any] | None = None
    pid: int | None = None
    client: Client | None = None
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)


async def open_target(stack: AsyncExitStack, target: Target) -> None:
    before = children()
    target.client = await stack.enter_async_context(Client(target.connect(), mode=target.mode))
    if target.pid is None:  # a stdio server: the child process that just appeared
        new = children() - before
        target.pid = max(new) if new else None
    if target.prepare is not None:
        await target.prepare(target.client)
    for _ in range(20):  # warm up
        await call(target)


async def call(target: Target) -> None:
    assert target.client is not None
    result = await target.client.call_tool(target.tool, target.args)
    if result.is_error:
        raise RuntimeError(f"{target.name}: {target.tool} failed: {result.content}")


async def round_of(target: Target, calls: int) -> None:
    samples = []
    cpu0 = cpu_seconds(target.pid) if target.pid else 0.0
    for _ in range(calls):
        t0 = time.perf_counter()
        await call(target)
        samples.append(time.perf_counter() - t0)
    if target.pid:
        target.cpus.append((cpu_seconds(target.pid) - cpu0) / calls * 1000)
    target.walls.append(statistics.median(samples) * 1000)


async def compare(targets: list[Target], calls: int, rounds: int) -> None:
    async with AsyncExitStack() as stack:
        for target in targets:
            await open_target(stack, target)
        for _ in range(rounds):  # interleaved, so the machine's drift hits every server alike
            for target in targets:
                await round_of(target, calls)


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(title: str, targets: list[Target], base: Target, ratio_of: str = "cpu") -> None:
    print(f"\n{title}")
    for t in targets:
        wall, cpu = med(t.walls), med(t.cpus)
        print(
            f"  {t.name:<34} wall {wall:7.3f} ms ({wall / med(base.walls):4.2f}x)   "
            f"server CPU {cpu:6.3f} ms/call ({cpu / med(base.cpus):4.2f}x)"
        )


# --- the servers -----------------------------------------------------------------------


def write_args(env: Environment) -> dict[str, Any]:
    user = env.seed_state["users"][0]
    return {k: user[k] for k in ("user_id", "address1", "address2", "city", "state", "country", "zip")}


def envfactory_scenario(env: Environment) -> dict[str, Any]:
    """Our retail seed in the shape of EnvFactory's ``RetailScenario`` (users, products,
    orders), so both servers hold the same customers, catalogue and orders."""
    s = env.seed_state
    payment_ids: dict[str, list[str]] = {}
    for pm in s["payment_methods"]:
        payment_ids.setdefault(pm["user_id"], []).append(pm["payment_method_id"])
    order_ids: dict[str, list[str]] = {}
    for order in s["orders"]:
        order_ids.setdefault(order["user_id"], []).append(order["order_id"])
    item_product = {item["item_id"]: item["product_id"] for item in s["items"]}
    lines: dict[str, list[dict[str, str]]] = {}
    totals: dict[str, int] = {}
    for line in s["order_items"]:
        lines.setdefault(line["order_id"], []).append(
            {"item_id": line["item_id"], "product_id": item_product[line["item_id"]], "status": "normal"}
        )
        totals[line["order_id"]] = totals.get(line["order_id"], 0) + line["price_cents"]

    def address(row: dict[str, Any]) -> dict[str, str]:
        return {
            "street": row["address1"],
            "city": row["city"],
            "state": row["state"],
            "country": row["country"],
        }

    return {
        "users": {
            u["user_id"]: {
                "user_id": u["user_id"],
                "name": {"first": u["first_name"], "last": u["last_name"]},
                "email": u["email"],
                "address": address(u),
                "payment_methods": payment_ids.get(u["user_id"], []),
                "order_ids": order_ids.get(u["user_id"], []),
                "zip_code": u["zip"],
            }
            for u in s["users"]
        },
        "products": {
            p["product_id"]: {
                "product_id": p["product_id"],
                "name": p["name"],
                "description": p["name"],
                "item_ids": [i["item_id"] for i in s["items"] if i["product_id"] == p["product_id"]],
            }
            for p in s["products"]
        },
        "orders": {
            o["order_id"]: {
                "order_id": o["order_id"],
                "user_id": o["user_id"],
                "status": o["status"],
                "items": lines.get(o["order_id"], []),
                "total_amount": totals.get(o["order_id"], 0) / 100,
                "address": address(o),
            }
            for o in s["orders"]
        },
    }


@dataclass
class EnvFactory:
    """EnvFactory's retail server, or why it cannot run here."""

    script: Path | None = None
    python: str | None = None
    missing: str | None = None

    @classmethod
    def locate(cls, repo: Path | None, python: str | None) -> EnvFactory:
        if repo is None:
            return cls(missing="no --envfactory checkout given (git clone LARK-AI-Lab/EnvFactory)")
        script = repo / "envs" / "tools" / "Retail.py"
        if not script.is_file():
            return cls(missing=f"{script} does not exist")
        if python is None:
            return cls(
                missing="no --envfactory-python given (a Python with mcp<2; --make-envfactory-venv DIR)"
            )
        probe = subprocess.run(
            [python, "-c", "import mcp.server.fastmcp, importlib.metadata as m; print(m.version('mcp'))"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode != 0:
            return cls(missing=f"{python} cannot import mcp.server.fastmcp: {probe.stderr.strip()[-300:]}")
        return cls(script=script, python=python, missing=None)

    def params(self) -> StdioServerParameters:
        assert self.script is not None and self.python is not None
        # Its log line per request goes to the null device (it still writes it, as served).
        return StdioServerParameters(
            command="/bin/sh",
            args=["-c", 'exec "$0" "$1" 2>/dev/null', self.python, str(self.script)],
            cwd=str(self.script.parent),
        )


def make_venv(path: Path) -> str:
    """A virtual environment with mcp 1.x (what EnvFactory's servers import), made with pip."""
    python = path / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "mcp>=1.9,<2"], check=True)
    return str(python)


# --- cold start --------------------------------------------------------------------------


async def until_initialized(params: StdioServerParameters) -> tuple[float, float]:
    """Wall time from spawn to the ``initialize`` answer, and the server's CPU time by then."""
    before = children()
    started = time.perf_counter()
    async with Client(params, mode="legacy"):
        elapsed = time.perf_counter() - started
        new = children() - before
        cpu = cpu_seconds(max(new)) if new else float("nan")
    return elapsed, cpu


def cold_start(cases: dict[str, StdioServerParameters], rounds: int) -> None:
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, params in cases.items():
            wall, cpu = anyio.run(until_initialized, params)
            walls[name].append(wall)
            cpus[name].append(cpu)
    floor, floor_cpu = med(walls["bare SDK (floor)"]), med(cpus["bare SDK (floor)"])
    print("\ncold start: spawn to the initialize answer over stdio (target: within 0.1 s of the floor)")
    for name in cases:
        m, c = med(walls[name]), med(cpus[name])
        print(
            f"  {name:<44} wall {m * 1000:6.0f} ms ({(m - floor) * 1000:+5.0f})   "
            f"server CPU {c * 1000:6.0f} ms ({(c - floor_cpu) * 1000:+5.0f})"
        )


# --- main ---------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--scale", default="1,10,100", help="seed scales for the growth table ('' for none)")
    parser.add_argument("--envfactory", type=Path, default=None, help="a checkout of LARK-AI-Lab/EnvFactory")
    parser.add_argument("--envfactory-python", default=None, help="a Python with mcp 1.x for its server")
    parser.add_argument("--make-envfactory-venv", type=Path, default=None, metavar="DIR")
    parser.add_argument("--skip", default="", help="comma-separated: stdio,http,start")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    if args.make_envfactory_venv is not None:
        try:
            args.envfactory_python = make_venv(args.make_envfactory_venv)
        except (subprocess.CalledProcessError, OSError) as exc:
            print(f"EnvFactory's venv could not be made: {exc}")
    ef = EnvFactory.locate(args.envfactory, args.envfactory_python)
    env = build_env(load_blueprint("retail"))
    wargs = write_args(env)
    ef_args = {
        "user_id": wargs["user_id"],
        "address": wargs["address1"],
        "city": wargs["city"],
        "state": wargs["state"],
        "country": wargs["country"],
        "zip_code": wargs["zip"],
    }
    scenario = envfactory_scenario(env)
    noop_stdio = StdioServerParameters(command=sys.executable, args=[str(BENCH / "noop_server.py")])
    ours_stdio = StdioServerParameters(
        command=sys.executable, args=["-m", "envfactory_mcp.runtime", str(PACKAGE / "retail_mcp")], env={}
    )
    print(
        f"python {sys.version.split()[0]}; medians of {args.rounds} interleaved rounds x {args.calls} calls"
    )
    if ef.missing:
        print(f"EnvFactory's retail server: not run: {ef.missing}")

    if "stdio" not in skip:
        floor = Target("bare SDK no-op (floor)", lambda: noop_stdio, "noop", {})
        targets = [
            floor,
            Target("ours: modify_user_address", lambda: ours_stdio, "modify_user_address", wargs),
        ]
        if not ef.missing:

            async def load(client: Client) -> None:
                await client.call_tool("load_scenario", {"scenario": scenario})

            targets.append(
                Target(
                    "EnvFactory: modify_user_address", ef.params, "modify_user_address", ef_args, prepare=load
                )
            )
        anyio.run(compare, targets, args.calls, args.rounds)
        report("stdio write (ratios against the floor)", targets, floor)
        if not ef.missing:
            ours, theirs = targets[1], targets[2]
            print(
                f"  ours / EnvFactory: server CPU {med(ours.cpus) / med(theirs.cpus):.2f}x (target <= 1.1), "
                f"wall {med(ours.walls) / med(theirs.walls):.2f}x"
            )

    if "http" not in skip:
        http_main(args, wargs)

    if "start" not in skip:
        cases = {
            "bare SDK (floor)": noop_stdio,
            "python -m retail_mcp": StdioServerParameters(
                command=sys.executable, args=["-m", "retail_mcp"], env={"PYTHONPATH": str(PACKAGE)}
            ),
            "python -m envfactory_mcp.runtime <package>": ours_stdio,
            "envfactory-mcp serve retail": StdioServerParameters(
                command=sys.executable,
                args=["-m", "envfactory_mcp", "serve", "retail", "--servers-dir", str(SERVERS)],
                env={"HOME": os.environ.get("HOME", "/root")},
            ),
        }
        if not ef.missing:
            cases["EnvFactory: python Retail.py"] = ef.params()
        cold_start(cases, args.rounds)

    scales = [int(s) for s in args.scale.split(",") if s.strip()]
    if scales:
        growth(scales, max(3, args.rounds))


def http_main(args: argparse.Namespace, wargs: dict[str, Any]) -> None:
    from servers import http_module

    with (
        http_module("noop_server", pythonpath=BENCH) as noop,
        http_module("retail_mcp", pythonpath=PACKAGE) as ours,
    ):
        floor = Target("bare SDK no-op (floor)", lambda: noop.url, "noop", {}, pid=noop.pid)
        write = Target(
            "ours: modify_user_address", lambda: ours.url, "modify_user_address", wargs, pid=ours.pid
        )
        anyio.run(compare, [floor, write], args.calls, args.rounds)
        report(
            "HTTP write, protocol 2025-11-25 (a session each; target <= 1.5x the floor)",
            [floor, write],
            floor,
        )
        modern = "2026-07-28"
        floor2 = Target("bare SDK no-op (floor)", lambda: noop.url, "noop", {}, mode=modern, pid=noop.pid)
        read = Target(
            "ours: get_user_details",
            lambda: ours.url,
            "get_user_details",
            {"user_id": wargs["user_id"]},
            mode=modern,
            pid=ours.pid,
        )
        anyio.run(compare, [floor2, read], args.calls, args.rounds)
        report("HTTP read, protocol 2026-07-28 (sessionless)", [floor2, read], floor2)


def growth(scales: list[int], rounds: int) -> None:
    import bench_state

    blueprint = load_blueprint("retail")
    print(f"\ngrowth with the seed's size (bench_state.measure, medians of {rounds} rounds)")
    print(
        f"  {'scale':>5} {'rows':>8} {'image KB':>9} {'reset ms':>9} {'1st write ms':>13} {'hash/write ms':>14} "
        f"{'dump ms':>9} {'read ms':>8} {'KB/written':>11} {'KB/reader':>10}"
    )
    rows = {}
    for scale in scales:
        r = rows[scale] = bench_state.measure(build_env(blueprint, scale=scale), rounds)
        print(
            f"  {scale:>4}x {r['rows']:>8.0f} {r['image_kb']:>9.0f} {r['reset']:>9.4f} {r['first']:>13.3f} "
            f"{r['hash']:>14.3f} {r['dump']:>9.1f} {r['read']:>8.3f} {r['mem_kb']:>11.0f} {r['mem_read_kb']:>10.1f}",
            flush=True,
        )
    lo, hi = rows[scales[0]], rows[scales[-1]]
    print(
        f"  at {scales[-1]}x: reset {hi['reset']:.3f} ms (<= 2), hash after a one-row write {hi['hash']:.3f} ms "
        f"(<= 2), read by key {hi['read'] / lo['read']:.2f}x its {scales[0]}x cost (<= 1.2)"
    )


if __name__ == "__main__":
    main()
