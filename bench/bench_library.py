"""The library benchmark (issue 13): build --all with verification, what the library holds,
how distinct its services are, how many tasks each gives, and its size on disk.

    python bench/bench_library.py [--jobs 2] [--tasks 50] [--only a,b] [--no-tasks]

1. ``build --all`` into a temporary folder, ``--jobs`` at a time, timed (target: under 5
   minutes on this 2-core machine, verification included).
2. The catalogue of what was built: environments, domains, tools (total and median),
   every one verified.
3. Distinctness: the name-free shape similarity of every pair
   (``envfactory_mcp.library.distinct``); the highest pairs, the share above the threshold,
   and a renamed copy of one service as the reference point (1.0).
4. Tasks per environment: ``--tasks`` tasks (seed 1) generated from each built package and
   played by the oracle and the no-op agent with the scripted user over MCP (stdio, one
   server per run): valid tasks, oracle mean reward (must be 1.0), no-op mean reward (0).
5. Rules (issue 31): per environment, its declared rules by kind (``status``: the
   refusal rules; the other kinds from ``policy_rules.rules``, enforced by the runtime), and
   with tasks, the share whose outcome depends on a non-status rule (its gold would differ
   were the rule absent: a goal refused by that rule alone; ``depends_on_a_rule``; target
   >= 25%), overall and per environment.
6. Size: bytes of the built packages, and of their distinct file contents (what git
   stores: the vendored runtime is the same blob in every package).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import anyio

from envfactory_mcp.blueprints import blueprint_names, load_blueprint
from envfactory_mcp.build import build_all
from envfactory_mcp.library.distinct import THRESHOLD, pairwise, shapes, similarity
from envfactory_mcp.settings import Settings
from envfactory_mcp.verify.provenance import verification_status


def tasks_for(servers_dir: str, name: str, n: int, out: str) -> dict[str, object]:
    """Tasks from the built package, played by oracle and noop; the figures."""
    from envfactory_mcp.catalog import load_package_env
    from envfactory_mcp.host.rollout import RolloutConfig, rollout
    from envfactory_mcp.tasks.generate import generate_tasks
    from envfactory_mcp.tasks.model import write_tasks

    started = time.perf_counter()
    env = load_package_env(Path(servers_dir) / name)
    tasks, _ = generate_tasks(env, n, seed=1)
    path = Path(out) / name / "tasks.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_tasks(tasks, path)
    spec = json.loads((Path(servers_dir) / name / f"{name}_mcp" / "data" / "spec.json").read_text())
    on_rules = sum(depends_on_a_rule(t, spec) for t in tasks)
    rewards: dict[str, object] = {"on_rules": on_rules}
    for agent in ("oracle", "noop"):
        config = RolloutConfig(
            envs=[name],
            tasks_path=str(path),
            agent=agent,
            user="scripted",
            concurrency=8,
            servers_dir=servers_dir,
            seed=1,
        )
        summary = anyio.run(rollout, config, Path(out) / name / agent, None)
        failures = (summary.get("harness_failures") or {}).get("total", 0)
        rewards[agent] = summary.get("mean_reward")
        rewards[f"{agent}_harness_failures"] = failures
    return {"name": name, "tasks": len(tasks), "seconds": time.perf_counter() - started, **rewards}


def depends_on_a_rule(task: Any, spec: dict[str, Any]) -> bool:
    """Whether the task's gold outcome would differ were a non-status rule absent: one of
    its goals is a refusal by such a rule (the user asks for a write that rule alone
    refuses on the state at that point, checked at generation against the same tools
    without the rules: ``Oracle.refusal``; without the rule the write would be made). A
    task that merely calls a tool a rule restricts, with a call the rule allows, does not
    count: its outcome is the same without the rule."""
    policy = spec.get("policy_rules") or {}
    business = {r["reason"] for r in policy.get("rules") or []}
    status = {r["reason"] for r in policy.get("refusals") or []}
    return any(g.kind == "refuse" and g.reason in business - status for g in task.gold.goals)


def distinct_size(folder: Path) -> tuple[int, int]:
    total, blobs = 0, {}
    for path in folder.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            data = path.read_bytes()
            total += len(data)
            blobs[hashlib.sha256(data).hexdigest()] = len(data)
    return total, sum(blobs.values())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--only", default="", help="comma-separated environment names")
    parser.add_argument("--no-tasks", action="store_true")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or blueprint_names()

    with tempfile.TemporaryDirectory(prefix="bench-library-") as tmp:
        servers = Path(tmp) / "servers"
        settings = Settings(servers_dir=servers)
        started = time.perf_counter()
        outcomes = build_all(settings, names, jobs=args.jobs)
        build_seconds = time.perf_counter() - started
        failed = [o for o in outcomes if not o.ok]
        print(
            f"build --all: {len(names)} environments in {build_seconds:.1f} s with {args.jobs} jobs "
            f"(target < 300 s); failed: {[(o.name, o.error) for o in failed]}"
        )

        entries = []
        for name in names:
            spec = (
                json.loads((servers / name / f"{name}_mcp" / "data" / "spec.json").read_text())
                if (servers / name).is_dir()
                else None
            )
            if spec is not None:
                entries.append((spec["domain"], len(spec["tools"]), verification_status(servers / name)))
        tools = [t for _, t, _ in entries]
        domains = sorted({d for d, _, _ in entries})
        verified = sum(v == "passed" for _, _, v in entries)
        print(
            f"environments {len(entries)} (target >= 100), domains {len(domains)} (>= 8), tools {sum(tools)} "
            f"(>= 1,000), median tools {statistics.median(tools) if tools else 0} (>= 8), verified {verified}/{len(entries)}"
        )
        print(f"domains: {', '.join(domains)}")

        specs = {n: load_blueprint(n).build_spec(load_blueprint(n).default_seed) for n in names}
        pairs = pairwise(specs)
        over = [p for p in pairs if p[0] > THRESHOLD]
        values = [p[0] for p in pairs]
        if values:
            p99 = sorted(values)[int(0.99 * (len(values) - 1))]
            print(
                f"distinctness over {len(pairs)} pairs: max {values[0]:.3f}, p99 {p99:.3f}, "
                f"median {statistics.median(values):.3f}; above {THRESHOLD}: {len(over)}"
            )
            for value, a, b in pairs[:5]:
                print(f"  {value:.3f}  {a} ~ {b}")
            sample = specs[names[0]]
            renamed = json.loads(sample.model_dump_json().replace(names[0], "renamed_copy"))
            from envfactory_mcp.spec import parse_spec

            print(
                f"  reference: {names[0]} against itself renamed = "
                f"{similarity(shapes(sample), shapes(parse_spec(renamed))):.3f}"
            )

        kinds = ("status", "amount", "quota", "window", "eligibility", "exclusive")
        by_env: dict[str, dict[str, int]] = {}
        for name in names:
            path = servers / name / f"{name}_mcp" / "data" / "spec.json"
            if path.is_file():
                rules = json.loads(path.read_text()).get("policy_rules") or {}
                counts = dict.fromkeys(kinds, 0)
                counts["status"] = len(rules.get("refusals") or [])
                for rule in rules.get("rules") or []:
                    counts[rule["kind"]] = counts.get(rule["kind"], 0) + 1
                by_env[name] = counts
        print("rules per environment by kind (" + " ".join(kinds) + "):")
        for name, counts in by_env.items():
            print(f"  {name}: " + " ".join(str(counts[k]) for k in kinds))
        deep = [
            n
            for n, c in by_env.items()
            if sum(c[k] for k in kinds[1:]) >= 2 and sum(c[k] > 0 for k in kinds[1:]) >= 2
        ]
        print(
            "rules in all: "
            + ", ".join(f"{k} {sum(c[k] for c in by_env.values())}" for k in kinds)
            + f"; environments with >= 2 non-status rules of >= 2 kinds: {len(deep)}/{len(by_env)} (target: all)"
        )

        size, unique = distinct_size(servers)
        print(
            f"size on disk: {size / 1e6:.1f} MB in packages, {unique / 1e6:.1f} MB of distinct file contents "
            f"({len(entries)} packages)"
        )

        if not args.no_tasks:
            built = [o.name for o in outcomes if o.ok]
            started = time.perf_counter()
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                results = list(
                    pool.map(
                        tasks_for,
                        [str(servers)] * len(built),
                        built,
                        [args.tasks] * len(built),
                        [tmp + "/runs"] * len(built),
                    )
                )
            bad = [
                r
                for r in results
                if r["tasks"] < args.tasks
                or r["oracle"] != 1.0
                or r["noop"] != 0.0
                or r["oracle_harness_failures"]
                or r["noop_harness_failures"]
            ]
            counts = [int(r["tasks"]) for r in results]  # type: ignore[call-overload]
            print(
                f"tasks per environment (seed 1, asked {args.tasks}): min {min(counts)}, "
                f"median {statistics.median(counts)}; oracle 1.0 and noop 0.0 on {len(results) - len(bad)}/"
                f"{len(results)} in {time.perf_counter() - started:.0f} s"
            )
            on_rules = sum(int(r["on_rules"]) for r in results)  # type: ignore[call-overload]
            print(
                f"tasks whose outcome depends on a non-status rule: {on_rules}/{sum(counts)} "
                f"({on_rules / max(1, sum(counts)):.1%}; target >= 25%)"
            )
            low = sorted((int(r["on_rules"]) / max(1, int(r["tasks"])), str(r["name"])) for r in results)  # type: ignore[call-overload]
            print("  lowest shares: " + ", ".join(f"{n} {v:.0%}" for v, n in low[:8]))
            for r in bad:
                print(f"  not usable end to end: {r}")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
