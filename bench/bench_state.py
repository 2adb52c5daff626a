"""State-cost benchmark: how reset, state hash, dump, a read by key and session memory
grow with the size of the seed (issue 19).

    python bench/bench_state.py [--env retail] [--scale 1,10,100] [--rounds 5]

The seed is scaled with ``envfactory_mcp.env.scale_seed`` (every row repeated with fresh,
consistent keys). Figures are medians over ``--rounds`` rounds, each itself a median
over many operations, measured in-process on ``SessionDatabase`` and ``Toolbox`` (the
code a served call runs, without the MCP transport):

- reset: ``SessionDatabase.reset()`` to the seed, plus the hash a host reads next
  (``control.reset`` answers with it);
- first write: a new session's first write, which makes its copy of the seed (copy on
  first write: a session that only reads never makes one; a reset reloads a copy);
- hash after write: ``hash()`` right after a one-row write (``modify_user_address``);
- dump: a full canonical dump and the state hash (what ``control.state`` answers);
- read by key: ``get_user_details`` of one user through the Toolbox;
- memory/session: heap growth per open session that wrote (its own copy) and per session
  that only read (shares the seed), with the image size.

Targets (issue 19) at 100x: reset <= 2 ms, hash after a one-row write <= 2 ms, a read by
key within 1.2x of its 1x cost.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env, hash_state


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def heap_kb() -> float:
    """Bytes in use from malloc (glibc ``mallinfo2``: SQLite's pages included, unlike
    tracemalloc; unlike RSS, not hidden by memory freed earlier and reused)."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = _MallInfo2
        info = libc.mallinfo2()
        return (info.uordblks + info.hblkhd) / 1024
    except (OSError, AttributeError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return float(line.split()[1])
        return 0.0


def median_ms(fn: Any, n: int) -> float:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def measure(env: Environment, rounds: int) -> dict[str, float]:
    toolbox = env.toolbox()
    session = env.new_session()
    users = env.seed_state["users"]
    rng = random.Random(0)
    keys = [u["user_id"] for u in rng.sample(users, min(50, len(users)))]
    scale_rows = sum(len(rows) for rows in env.seed_state.values())
    dump_n = 3 if scale_rows < 20_000 else 1

    def reset() -> None:
        session.reset()
        session.hash()

    def read() -> None:
        out = toolbox.call(session.reader(), "get_user_details", {"user_id": rng.choice(keys)})
        assert out.ok, out.error

    flip = [0]

    def write_then_hash() -> float:
        user = users[flip[0] % len(users)]
        args = {k: user[k] for k in ("user_id", "address2", "city", "state", "country", "zip")}
        args["address1"] = f"{100 + flip[0] % 2} Bench St"
        flip[0] += 1
        out = toolbox.call(session.db, "modify_user_address", args)
        assert out.ok, out.error
        session.mark_written(out.written)
        t0 = time.perf_counter()
        session.hash()
        return time.perf_counter() - t0

    def first_write() -> float:  # a new session's first write: its copy of the seed, then the write
        fresh = env.new_session()
        user = users[0]
        args = {k: user[k] for k in ("user_id", "address2", "city", "state", "country", "zip")}
        t0 = time.perf_counter()
        out = toolbox.call(fresh.db, "modify_user_address", dict(args, address1="1 First St"))
        elapsed = time.perf_counter() - t0
        assert out.ok, out.error
        fresh.close()
        return elapsed

    def dump() -> None:  # what control.state does: the full dump, and the session's hash
        session.dump()
        session.hash()

    figures: dict[str, list[float]] = {"reset": [], "first": [], "hash": [], "dump": [], "read": []}
    session.reset()
    for _ in range(rounds):
        figures["reset"].append(median_ms(reset, 50))
        figures["first"].append(statistics.median(first_write() for _ in range(10)) * 1000)
        session.reset()
        session.hash()
        figures["hash"].append(statistics.median(write_then_hash() for _ in range(30)) * 1000)
        figures["read"].append(median_ms(read, 200))
        figures["dump"].append(median_ms(dump, dump_n))
    result = {name: statistics.median(values) for name, values in figures.items()}
    assert session.hash() == hash_state(session.dump())
    session.reset()
    assert session.hash() == env.seed_hash
    session.close()

    n = max(3, min(200, 20_000_000 // max(len(env.seed_image), 1)))
    for label, connection in (("mem_kb", lambda s: s.db), ("mem_read_kb", lambda s: s.reader())):
        gc.collect()
        before = heap_kb()
        sessions = []
        for _ in range(n):  # mem_kb: sessions that wrote (their own copy); mem_read_kb: that only read
            s = env.new_session()
            s.reset()
            toolbox.call(connection(s), "get_user_details", {"user_id": keys[0]})
            sessions.append(s)
        gc.collect()
        result[label] = (heap_kb() - before) / n
        for s in sessions:
            s.close()
    result["rows"] = scale_rows
    result["image_kb"] = len(env.seed_image) / 1024
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default="retail")
    parser.add_argument("--scale", default="1,10,100", help="comma-separated seed scale factors")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    blueprint = load_blueprint(args.env)
    scales = [int(s) for s in args.scale.split(",")]
    rows = {}
    print(
        f"{'scale':>5} {'rows':>8} {'image KB':>9} {'reset ms':>9} {'1st write ms':>13} {'hash/write ms':>14} "
        f"{'dump ms':>9} {'read ms':>8} {'KB/session':>11} {'KB/reader':>10}"
    )
    for scale in scales:
        env = build_env(blueprint, scale=scale)
        r = measure(env, args.rounds)
        rows[scale] = r
        print(
            f"{scale:>4}x {r['rows']:>8.0f} {r['image_kb']:>9.0f} {r['reset']:>9.4f} {r['first']:>13.3f} "
            f"{r['hash']:>14.3f} {r['dump']:>9.1f} {r['read']:>8.3f} {r['mem_kb']:>11.0f} {r['mem_read_kb']:>10.1f}",
            flush=True,
        )
        del env
        gc.collect()
    if len(scales) > 1:
        lo, hi = rows[scales[0]], rows[scales[-1]]
        print(
            f"growth {scales[0]}x -> {scales[-1]}x: reset {hi['reset'] / lo['reset']:.2f}x, "
            f"hash/write {hi['hash'] / lo['hash']:.2f}x, read {hi['read'] / lo['read']:.2f}x, "
            f"memory/session {hi['mem_kb'] / max(lo['mem_kb'], 1):.1f}x"
        )
    top = rows[scales[-1]]
    print(
        f"targets at {scales[-1]}x: reset {top['reset']:.3f} ms (<= 2), hash after write {top['hash']:.3f} ms "
        f"(<= 2), read {top['read'] / rows[scales[0]]['read']:.2f}x of {scales[0]}x (<= 1.2)"
    )


if __name__ == "__main__":
    main()
