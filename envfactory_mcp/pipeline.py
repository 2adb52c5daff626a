"""The whole method on one environment: build and verify, synthesise tasks, roll out the
scripted agents, summarise. This is the README's main job; it needs no model endpoint.

Output folder::

    <out>/pipeline.json          the options that made it (checked when it is run again)
    <out>/tasks.jsonl            the tasks (offline calibration)
    <out>/task_stats.json        their quality figures
    <out>/runs/demonstrator/     demonstrator + scripted user (the SFT source: asks, confirms,
                                 grounded, reward 1.0)
    <out>/runs/oracle/           oracle agent + scripted user (the consistency check: reward 1.0)
    <out>/runs/noop/             no-op agent + scripted user (the floor: 0 on every task)
    <out>/summary.json           verification, task figures and every run's summary

Run again with the same options, it resumes: the tasks come out byte for byte the same
and each rollout records only its missing episodes. Everything is checked before the
folder is touched: the options against ``pipeline.json`` (a folder holding another
pipeline's outputs, or other files, is refused unless ``overwrite``), the tasks against
an existing ``tasks.jsonl``, and each run's configuration against its ``metadata.json``.
Only the package in the servers folder is (re)built before those checks that need it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envfactory_mcp import files
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.host.rollout import RESUMABLE_KEYS, RolloutConfig, rollout, run_interruptibly
from envfactory_mcp.settings import CONCURRENCY, MAX_ERRORS, Settings
from envfactory_mcp.tasks.model import write_tasks
from envfactory_mcp.tasks.stats import task_stats

CONFIG = "pipeline.json"
OUTPUTS = ("pipeline.json", "tasks.jsonl", "task_stats.json", "summary.json", "runs")


@dataclass(frozen=True)
class PipelineOptions:
    n_tasks: int = 50
    seed: int = 0
    trials: int = 1
    concurrency: int = CONCURRENCY
    agents: tuple[str, ...] = ("demonstrator", "oracle", "noop")
    max_errors: int = MAX_ERRORS
    retry_failed: bool = False  # re-run episodes that ended in harness failures
    overwrite: bool = False  # replace the outputs of another configuration in the folder

    def recorded(self, env_name: str) -> dict[str, Any]:
        """What ``pipeline.json`` holds: the options that decide the outputs."""
        return {
            "env": env_name,
            "n_tasks": self.n_tasks,
            "seed": self.seed,
            "trials": self.trials,
            "agents": list(self.agents),
            "max_errors": self.max_errors,
        }


def check_folder(out: Path, env_name: str, options: PipelineOptions) -> bool:
    """Whether ``out`` holds outputs to replace (only with ``overwrite``); raises
    ``EnvFactoryError`` for a folder that may not be used. Writes nothing."""
    if out.exists() and not out.is_dir():
        raise EnvFactoryError(f"-o {out}: a file, not a folder; choose a folder for the pipeline's outputs")
    if not out.is_dir() or not any(out.iterdir()):
        return False
    path = out / CONFIG
    wanted = options.recorded(env_name)
    if not path.is_file():
        if options.overwrite:
            return True
        raise EnvFactoryError(
            f"-o {out}: the folder is not empty and holds no {CONFIG} (not a pipeline's outputs); choose "
            "another -o, or add --overwrite to replace its tasks, runs and summary"
        )
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(stored, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        raise EnvFactoryError(f"{path}: not valid ({exc}); remove it, or add --overwrite") from None
    differing = [key for key in wanted if stored.get(key) != wanted[key]]
    if not differing:
        return False
    if options.overwrite:
        return True
    parts = ", ".join(f"{key} (stored {stored.get(key)!r}, now {wanted[key]!r})" for key in differing)
    raise EnvFactoryError(
        f"-o {out}: it holds a pipeline run with other options: {parts}; rerun with those options to "
        "resume it, choose another -o, or add --overwrite to replace it"
    )


def run_pipeline(
    settings: Settings,
    env_name: str,
    out: Path,
    options: PipelineOptions = PipelineOptions(),
    say: Callable[[str], None] = lambda _: None,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> dict[str, Any]:
    """Run the pipeline into ``out`` (see the module doc); ``progress(stage, done, total)``
    names each stage (``total`` None: no count)."""
    from envfactory_mcp.blueprints import blueprint_names
    from envfactory_mcp.build import ensure_blueprint
    from envfactory_mcp.records.store import check_metadata
    from envfactory_mcp.tasks.generate import generate_tasks

    def stage(label: str, done: int = 0, total: int | None = None) -> None:
        if progress is not None:
            progress(label, done, total)

    if env_name not in blueprint_names():
        raise EnvFactoryError(
            f"pipeline {env_name!r}: not a blueprint; use one of {', '.join(blueprint_names())}"
        )
    replace = check_folder(out, env_name, options)  # before anything is written
    stage(f"building and verifying {env_name}")
    built = ensure_blueprint(
        settings, env_name
    )  # verified again in the sandbox; rewritten only if it differs
    report = built.report
    kept = " (the package there already; kept as it is)" if built.reused else ""
    say(
        f"verified {env_name}: {report.probes} probes, every check passed ({report.timings['total']:.1f} s) -> {built.package_dir}{kept}"
    )
    label = f"generating {options.n_tasks} tasks"
    stage(label, 0, options.n_tasks)
    made = 0

    def on_task(_task: object) -> None:
        nonlocal made
        made += 1
        stage(label, made, options.n_tasks)

    tasks, generation = generate_tasks(built.env, options.n_tasks, seed=options.seed, on_task=on_task)
    tasks_bytes = "".join(task.to_line() + "\n" for task in tasks).encode("utf-8")
    tasks_path = out / "tasks.jsonl"
    configs = {
        agent: RolloutConfig(
            envs=[env_name],
            tasks_path=str(tasks_path),
            agent=agent,
            user="scripted",
            trials=options.trials,
            concurrency=options.concurrency,
            max_errors=options.max_errors,
            servers_dir=str(settings.servers_dir),
            seed=options.seed,
            retry_failed=options.retry_failed,
        )
        for agent in options.agents
    }
    if not replace:  # what is there must be what this run would write
        if tasks_path.is_file() and tasks_path.read_bytes() != tasks_bytes:
            raise EnvFactoryError(
                f"{tasks_path}: differs from the tasks these options make now (another version of "
                "envfactory-mcp or of the environment?); choose another -o, or add --overwrite"
            )
        for agent, config in configs.items():
            run_dir = out / "runs" / agent
            try:
                check_metadata(run_dir, config.metadata(agent, tasks_bytes), RESUMABLE_KEYS)
            except EnvFactoryError as exc:
                raise EnvFactoryError(f"{exc}; choose another -o, or add --overwrite") from None
    # Checked: now write.
    if replace:
        for name in OUTPUTS:
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
        say(f"--overwrite: replaced the previous outputs in {out}")
    out.mkdir(parents=True, exist_ok=True)
    files.write_json(out / CONFIG, options.recorded(env_name))
    write_tasks(tasks, tasks_path)
    stats = task_stats(tasks, generation, built.env.spec)
    files.write_json(out / "task_stats.json", stats)
    say(
        f"tasks: {len(tasks)} ({stats['write_share']:.0%} write), valid-task rate {stats['valid_task_rate']:.0%}, "
        f"leakage {stats['leakage_before_calibration']:.0%} -> {stats['leakage_after_calibration']:.0%} -> {tasks_path}"
    )
    runs: dict[str, Any] = {}
    for agent, config in configs.items():
        run_label = f"rollout {agent}"
        stage(run_label, 0, None)
        runs[agent] = run_interruptibly(
            rollout, config, out / "runs" / agent, lambda done, total, lbl=run_label: stage(lbl, done, total)
        )
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
    files.write_json(out / "summary.json", summary)
    return summary
