"""The whole method on one environment: build and verify, synthesise tasks, roll out the
scripted agents, summarise. This is the README's main job; it needs no model endpoint.

Output folder::

    <out>/tasks.jsonl            the tasks (offline calibration)
    <out>/task_stats.json        their quality figures
    <out>/runs/demonstrator/     demonstrator + scripted user (the SFT source: asks, confirms,
                                 grounded, reward 1.0)
    <out>/runs/oracle/           oracle agent + scripted user (the consistency check: reward 1.0)
    <out>/runs/noop/             no-op agent + scripted user (the floor: 0 on every task)
    <out>/summary.json           verification, task figures and every run's summary
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from envfactory_mcp.build import build_blueprint
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.settings import Settings
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import write_tasks
from envfactory_mcp.tasks.stats import task_stats


@dataclass(frozen=True)
class PipelineOptions:
    n_tasks: int = 50
    seed: int = 0
    trials: int = 1
    concurrency: int = 8
    agents: tuple[str, ...] = ("demonstrator", "oracle", "noop")


def run_pipeline(
    settings: Settings,
    env_name: str,
    out: Path,
    options: PipelineOptions = PipelineOptions(),
    say: Callable[[str], None] = lambda _: None,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    built = build_blueprint(settings, env_name)
    report = built.report
    say(
        f"verified {env_name}: {report.probes} probes, every check passed ({report.timings['total']:.1f} s) -> {built.package_dir}"
    )
    tasks, generation = generate_tasks(built.env, options.n_tasks, seed=options.seed)
    tasks_path = out / "tasks.jsonl"
    write_tasks(tasks, tasks_path)
    stats = task_stats(tasks, generation, built.env.spec)
    (out / "task_stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    say(
        f"tasks: {len(tasks)} ({stats['write_share']:.0%} write), valid-task rate {stats['valid_task_rate']:.0%}, "
        f"leakage {stats['leakage_before_calibration']:.0%} -> {stats['leakage_after_calibration']:.0%} -> {tasks_path}"
    )
    runs: dict[str, Any] = {}
    for agent in options.agents:
        config = RolloutConfig(
            envs=[env_name],
            tasks_path=str(tasks_path),
            agent=agent,
            user="scripted",
            trials=options.trials,
            concurrency=options.concurrency,
            servers_dir=str(settings.servers_dir),
            seed=options.seed,
        )
        report_progress = (lambda done, total, a=agent: progress(a, done, total)) if progress else None
        runs[agent] = anyio.run(rollout, config, out / "runs" / agent, report_progress)
        say(f"rollout {agent}: mean reward {runs[agent].get('mean_reward')} -> {out / 'runs' / agent}")
    summary = {
        "env": env_name,
        "verification": {
            "passed": report.passed,
            "probes": report.probes,
            "seconds": report.timings.get("total"),
        },
        "tasks": stats,
        "runs": runs,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary
