"""Commands about runs: rollout, rescore, view, export and the end-to-end pipeline.

Exit codes (every command): 0 ok; 1 a check failed (a file that is missing or malformed,
verification, harness failures above the limit, an output that exists without
``--overwrite``, a run configured otherwise); 2 the command line itself is wrong (an
unknown option, a value out of range, options that do not go together, malformed JSON in
``--agent-args``); 130 interrupted by Ctrl-C (rerun the same command to resume).
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from envfactory_mcp.cli.app import (
    AllowUnverified,
    Overwrite,
    ServersDir,
    Trust,
    app,
    config_usage,
    fail,
    refuse_existing,
    settings,
    skip_plugin_scan,
    started,
    starts_itself,
    usage,
    warn_unverified,
)
from envfactory_mcp.cli.progress import Quiet, Reporter, emit_json
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.host.config import AgentKind, ConfigError, RolloutTransport, UserKind
from envfactory_mcp.ray_cluster import Backend
from envfactory_mcp.settings import (
    CONCURRENCY,
    DEFAULT_SERVERS_DIR,
    EPISODE_TIMEOUT_S,
    MAX_ERRORS,
    MAX_STEPS,
    REWARD_BASIS,
)

INTERRUPTED = 130  # the shell's code for a process ended by SIGINT
# How ``rollout``'s flags name the fields of ``RolloutConfig`` in its errors (else
# ``--<field-with-dashes>``).
ROLLOUT_FLAGS = {
    "envs": "ENVS",
    "tasks_path": "--tasks",
    "agent_temperature": "--temperature",
    "agent_max_tokens": "--max-tokens",
    "agent_args['timeout']": "--agent-timeout",
    "user_args['timeout']": "--user-timeout",
    "episode_timeout_s": "--episode-timeout",
    "urls": "--url",
    "max_tasks": "--num-tasks",
    "ray_address": "--address",
}


def interrupted() -> typer.Exit:
    """The one line after Ctrl-C; every finished episode is already on disk."""
    from rich.console import Console

    Console(stderr=True).print(
        "[bold yellow]interrupted;[/] rerun the same command to resume", highlight=False, soft_wrap=True
    )
    return typer.Exit(code=INTERRUPTED)


def move_aside(run_dir: Path) -> Path:
    """Rename an existing run directory to ``<name>.replaced-<UTC time>`` beside it."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = run_dir.with_name(f"{run_dir.name}.replaced-{stamp}")
    suffix = 1
    while target.exists():
        suffix += 1
        target = run_dir.with_name(f"{run_dir.name}.replaced-{stamp}-{suffix}")
    run_dir.rename(target)
    return target


MaxHarnessFailures = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Exit 1 when more than this share of a run's episodes are harness failures (not scored).",
    ),
]


@app.command()
@starts_itself
def rollout(
    envs: Annotated[str, typer.Argument(help="Environment(s) to serve, comma-separated, e.g. retail.")],
    tasks_file: Annotated[Path, typer.Option("--tasks", help="tasks.jsonl to roll out.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Run directory (resumed if it exists).")],
    agent: Annotated[
        AgentKind,
        typer.Option(
            help="demonstrator (policy-following, decides from the user's words and tool outputs only: "
            "the SFT source), gold-replay (the same procedure following the gold's calls: a reference), "
            "oracle (replays the gold: a consistency check), noop, random or llm (--agent-model)."
        ),
    ] = AgentKind.demonstrator,
    agent_model: Annotated[
        str | None,
        typer.Option(
            help="litellm model string for the llm agent; with --agent demonstrator, a model that rewrites "
            "its text, every grounded value kept (sim/rewrite.py)."
        ),
    ] = None,
    agent_api_base: Annotated[str | None, typer.Option(help="Base URL for the agent's model.")] = None,
    agent_args: Annotated[
        str | None,
        typer.Option(
            metavar="JSON",
            help="Keyword arguments of the agent model's requests, e.g. '{\"temperature\": 0}'.",
        ),
    ] = None,
    agent_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            help="Seconds one request to the agent's model may take (default 60; each of its retries "
            "gets as long). A slow local model needs more.",
        ),
    ] = None,
    user: Annotated[UserKind, typer.Option(help="scripted or llm (--user-model).")] = UserKind.scripted,
    user_model: Annotated[str | None, typer.Option(help="litellm model string for the llm user.")] = None,
    user_api_base: Annotated[str | None, typer.Option(help="Base URL for the user's model.")] = None,
    user_args: Annotated[
        str | None, typer.Option(metavar="JSON", help="Keyword arguments of the user model's requests.")
    ] = None,
    user_timeout: Annotated[
        float | None,
        typer.Option(min=0.001, help="Seconds one request to the user's model may take (default 60)."),
    ] = None,
    trials: Annotated[int, typer.Option(min=1, help="Trials per task (for pass^k).")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes at once.")] = CONCURRENCY,
    max_steps: Annotated[int, typer.Option(min=1, help="Agent turns per episode.")] = MAX_STEPS,
    max_errors: Annotated[
        int, typer.Option(min=1, help="Tool errors in a row that end an episode (too_many_errors).")
    ] = MAX_ERRORS,
    task_ids: Annotated[
        str | None,
        typer.Option(metavar="ID,ID,...", help="Only these tasks of the file (comma-separated task ids)."),
    ] = None,
    num_tasks: Annotated[
        int | None, typer.Option(min=1, help="Only the first N tasks of the file (after --task-ids).")
    ] = None,
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed",
            help="Also re-run recorded episodes that ended in a harness failure (infrastructure_error, "
            "model_unavailable, user_error, timeout); the new record is appended and counts instead.",
        ),
    ] = False,
    force_new: Annotated[
        bool,
        typer.Option(
            "--force-new",
            help="Start a fresh run in -o: an existing run there is moved aside to <run>.replaced-<time>.",
        ),
    ] = False,
    transport: Annotated[
        RolloutTransport,
        typer.Option(
            help="stdio (a subprocess per env), streamable-http (--url, servers started with serve "
            "--control; http is its old name) or memory."
        ),
    ] = RolloutTransport.stdio,
    url: Annotated[
        list[str] | None, typer.Option(help="env=URL of a server started with --control (streamable-http).")
    ] = None,
    http_token: Annotated[
        str | None,
        typer.Option(
            help="Bearer token for the http servers (their serve --auth-token); never stored in the run.",
            envvar="ENVFACTORY_MCP_AUTH_TOKEN",
            show_envvar=True,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for random agents and episode order.")] = 0,
    reward_basis: Annotated[
        str,
        typer.Option(
            help="Reward parts multiplied: state, claims, policy, actions, trace_state, grounded (comma-separated)."
        ),
    ] = ",".join(REWARD_BASIS),
    episode_timeout: Annotated[
        float, typer.Option(help="Seconds an episode may run; past it, it is a timeout (not scored).")
    ] = EPISODE_TIMEOUT_S,
    temperature: Annotated[
        float | None, typer.Option(min=0.0, help="Sampling temperature of the llm agent's model.")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Max tokens per reply of the llm agent's model.")
    ] = None,
    user_temperature: Annotated[
        float | None, typer.Option(min=0.0, help="Sampling temperature of the llm user's model.")
    ] = None,
    user_max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Max tokens per reply of the llm user's model.")
    ] = None,
    max_harness_failures: MaxHarnessFailures = 0.1,
    allow_unverified: AllowUnverified = False,
    trust: Trust = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
    backend: Annotated[
        Backend,
        typer.Option(
            help="Where episodes run: local (this process) or ray (a Ray cluster; pip install "
            "'envfactory-mcp[ray]'). A run may resume on either."
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            help="Ray cluster to join with --backend ray: auto (this machine's, from ray start) or "
            "host:port; default: a private local cluster for the run."
        ),
    ] = None,
    quiet: Quiet = False,
) -> None:
    """Run agent / simulated-user episodes over MCP, score them, and log trajectories (resumable).

    Every package served from --servers-dir must have a passing, current verification report.
    Rerun the same command to resume a run; add --retry-failed to redo its harness failures."""

    skip_plugin_scan()  # before pydantic builds its first model
    from envfactory_mcp.host.config import RolloutConfig, parse_model_args
    from envfactory_mcp.host.rollout import rollout as run_rollout
    from envfactory_mcp.host.rollout import run_interruptibly
    from envfactory_mcp.records.store import MetadataMismatch

    # What the flags hold is checked by RolloutConfig (a ConfigError, said here with the
    # flags' names), before any run directory exists; here only the text is read.
    bad_urls = [item for item in (url or []) if "=" not in item]
    if bad_urls:
        raise usage(f"--url {bad_urls[0]!r}: give env=URL, e.g. --url retail=http://127.0.0.1:8000/mcp")
    try:
        # A model's request deadline is its requests' ``timeout`` (llm/litellm_client.py:
        # each attempt's), so it is recorded with the run's model arguments.
        kwargs = {}
        for side, text, timeout in (("agent", agent_args, agent_timeout), ("user", user_args, user_timeout)):
            kwargs[side] = parse_model_args(f"{side}_args", text)
            if timeout is not None:
                if "timeout" in kwargs[side]:
                    raise usage(f"--{side}-timeout and timeout in --{side}-args: give one")
                kwargs[side]["timeout"] = timeout
        config = RolloutConfig(
            envs=[e for e in envs.split(",") if e],
            tasks_path=str(tasks_file),
            agent=agent,
            agent_model=agent_model,
            agent_api_base=agent_api_base,
            agent_temperature=temperature,
            agent_max_tokens=max_tokens,
            agent_args=kwargs["agent"],
            user=user,
            user_model=user_model,
            user_api_base=user_api_base,
            user_temperature=user_temperature,
            user_max_tokens=user_max_tokens,
            user_args=kwargs["user"],
            trials=trials,
            concurrency=concurrency,
            max_steps=max_steps,
            max_errors=max_errors,
            episode_timeout_s=episode_timeout,
            transport=transport.host_name,
            servers_dir=str(servers_dir),
            urls=dict(item.split("=", 1) for item in (url or [])),
            seed=seed,
            reward_basis=tuple(part.strip() for part in reward_basis.split(",") if part.strip()),
            max_tasks=num_tasks,
            task_ids=None
            if task_ids is None
            else tuple(part.strip() for part in task_ids.split(",") if part.strip()),
            retry_failed=retry_failed,
            allow_unverified=allow_unverified,
            trust=trust,
            http_token=http_token,
            backend=backend,
            ray_address=address,
        )
    except ConfigError as exc:
        raise config_usage(exc, ROLLOUT_FLAGS) from None
    reporter = Reporter(quiet)
    try:
        from envfactory_mcp.packages import check_served, ensure_shipped
        from envfactory_mcp.tasks.model import read_tasks

        # A missing or malformed file is refused before any run directory exists; the
        # tasks read and the packages' permissions are handed on (issue 32: each check
        # hashes a package's files, each read parses every task).
        tasks = read_tasks(tasks_file)
        if config.transport != "http":
            for env in config.envs:
                ensure_shipped(servers_dir, env, note=reporter.say)
        checked = check_served(servers_dir, config.envs, allow_unverified=allow_unverified, trust=trust)
        warn_unverified(checked)
        if force_new and output.exists():
            typer.echo(f"--force-new: moved the old run to {move_aside(output)}", err=True)
        with reporter.stages() as stage:
            roll = functools.partial(run_rollout, tasks=tasks, checked=checked)
            started()
            summary = run_interruptibly(roll, config, output, stage(f"rollout {agent}"))
    except KeyboardInterrupt:
        raise interrupted() from None
    except MetadataMismatch as exc:
        raise fail(
            EnvFactoryError(
                f"{exc}; rerun with the stored values to resume it, or add --force-new to start a fresh run "
                f"(the old one is moved to {output.name}.replaced-<time>)"
            )
        ) from None
    except EnvFactoryError as exc:
        raise fail(exc) from None
    emit_json(_shown(summary))
    over = _judge_harness_failures({"rollout": summary}, max_harness_failures)
    reporter.say(f"run: {output}/ (trajectories.jsonl, summary.json; {summary.get('episodes', 0)} episodes)")
    if over:
        raise typer.Exit(code=1)


@app.command()
def rescore(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by rollout.")],
    tasks_file: Annotated[
        Path | None, typer.Option("--tasks", help="Task file (default: the run's).")
    ] = None,
) -> None:
    """Re-score a run's saved trajectories and rewrite its summary."""
    from envfactory_mcp.scoring.rescore import rescore as run_rescore

    try:
        summary = run_rescore(run_dir, str(tasks_file) if tasks_file else None)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    emit_json(_shown(summary))
    _outputs(f"rescored: {run_dir}/ (trajectories.jsonl, summary.json)")


@app.command()
def pipeline(
    name: Annotated[str, typer.Argument(help="Blueprint to run end to end, e.g. retail.")] = "retail",
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Folder for tasks, runs and the summary.")
    ] = Path("pipeline-out"),
    n: Annotated[int, typer.Option("-n", "--n", min=1, help="Tasks to synthesise.")] = 50,
    seed: Annotated[int, typer.Option(help="Seed for tasks and rollouts.")] = 0,
    trials: Annotated[int, typer.Option(min=1, help="Trials per task.")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes at once.")] = CONCURRENCY,
    max_errors: Annotated[
        int, typer.Option(min=1, help="Tool errors in a row that end an episode (too_many_errors).")
    ] = MAX_ERRORS,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Re-run episodes that ended in harness failures.")
    ] = False,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Replace the outputs of a pipeline run with another configuration in -o "
            "(by default it is refused before anything is written).",
        ),
    ] = False,
    max_harness_failures: MaxHarnessFailures = 0.1,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
    quiet: Quiet = False,
) -> None:
    """Build + verify, synthesise tasks, roll out the scripted agents (demonstrator, oracle, noop), summarise.

    Rerun the same command to resume; -o holding another configuration is refused unless --overwrite."""
    from envfactory_mcp.pipeline import PipelineOptions, run_pipeline

    reporter = Reporter(quiet)
    options = PipelineOptions(
        n_tasks=n,
        seed=seed,
        trials=trials,
        concurrency=concurrency,
        max_errors=max_errors,
        retry_failed=retry_failed,
        overwrite=overwrite,
    )
    try:
        with reporter.stages() as stage:
            advance: dict[str, Callable[[int, int | None], None]] = {}

            def progress(label: str, done: int, total: int | None) -> None:
                if label not in advance:
                    advance[label] = stage(label)
                advance[label](done, total)

            summary = run_pipeline(
                settings(servers_dir),
                name,
                output,
                options,
                say=reporter.say,
                progress=progress,
            )
    except KeyboardInterrupt:
        raise interrupted() from None
    except EnvFactoryError as exc:
        raise fail(exc) from None
    emit_json(
        {
            "env": summary["env"],
            "output": str(output),
            "verification": summary["verification"],
            "runs": {agent: _shown(run) for agent, run in summary["runs"].items()},
        }
    )
    over = _judge_harness_failures(summary["runs"], max_harness_failures)
    reporter.say(f"outputs: {output}/ (summary.json, tasks.jsonl, runs/{{{','.join(summary['runs'])}}}/)")
    if over:
        raise typer.Exit(code=1)


def _outputs(line: str) -> None:
    """The last line of a command: where its outputs went (stderr)."""
    from rich.console import Console

    Console(stderr=True).print(line, highlight=False, soft_wrap=True)


@contextlib.contextmanager
def _stages(quiet: bool = False) -> Iterator[Callable[[str], Callable[[int, int | None], None]]]:
    """``Reporter(quiet).stages()`` (``cli/progress.py``): a progress bar on a terminal,
    plain stage and count lines otherwise."""
    with Reporter(quiet).stages() as stage:
        yield stage


def _shown(summary: dict[str, Any]) -> dict[str, Any]:
    """The part of a run's summary a command prints (the whole is in summary.json)."""
    keys = ("episodes", "scored", "harness_failures", "mean_reward", "pass_k", "grounding", "terminations")
    return {k: summary[k] for k in keys if k in summary}


def _judge_harness_failures(runs: dict[str, dict[str, Any]], limit: float) -> bool:
    """A warning line on stderr for each run with harness failures, and an error line when
    any run's share of them is above ``limit`` (its scores describe too few of its
    episodes): then True, for the caller to exit 1."""
    over = []
    for name, summary in runs.items():
        failures = summary.get("harness_failures") or {}
        if not failures.get("total"):
            continue
        # rich only for a run with failures: a clean run's command does not import it
        from rich.console import Console
        from rich.markup import escape

        console = Console(stderr=True)
        reasons = ", ".join(f"{k}: {v}" for k, v in failures["by_reason"].items() if v)
        console.print(
            f"[bold yellow]warning:[/] {escape(name)}: {failures['total']} of {summary['episodes']} episodes "
            f"({failures['share']:.0%}) were harness failures ({escape(reasons)}); they are not scored, so "
            "mean_reward and pass^k describe only the other episodes",
            soft_wrap=True,
        )
        if failures["share"] > limit:
            over.append(f"{name} {failures['share']:.0%}")
    if over:
        fail(
            EnvFactoryError(
                f"harness failures above --max-harness-failures {limit:g}: {', '.join(over)} "
                "(see termination_detail in trajectories.jsonl; rerun with --retry-failed once fixed)"
            )
        )
    return bool(over)


@app.command()
def view(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(help="A run directory written by rollout; two or more to compare them side by side."),
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="The HTML file to write.")] = Path(
        "run.html"
    ),
    failures: Annotated[
        bool,
        typer.Option(
            "--failures", help="Only the episodes with reward below 1 and the harness failures (not scored)."
        ),
    ] = False,
    overwrite: Overwrite = False,
) -> None:
    """Write a self-contained HTML page to read a run (summary, episodes, transcripts, diffs), or to
    compare runs on their shared tasks (view run_a run_b)."""
    from envfactory_mcp.trajectories.pages import write_view

    refuse_existing(output, overwrite)
    try:
        path = write_view(run_dirs[0] if len(run_dirs) == 1 else run_dirs, output, failures_only=failures)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    _outputs(f"wrote {path}" + (" (failures only)" if failures else ""))


class ExportFormat(StrEnum):
    """``export --format``: the datasets ``trajectories.export`` writes (its ``FORMATS``, kept
    here so the CLI starts without importing the exporter; tests/cli check they agree)."""

    openai = "openai"
    trl = "trl"
    sharegpt = "sharegpt"
    verl = "verl"


@app.command()
def export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by rollout.")],
    fmt: Annotated[
        ExportFormat, typer.Option("--format", help="openai, trl, sharegpt (SFT) or verl (RL prompts).")
    ] = ExportFormat.openai,
    output: Annotated[Path, typer.Option("-o", "--output", help="The JSONL file to write.")] = Path(
        "sft.jsonl"
    ),
    min_reward: Annotated[
        float | None,
        typer.Option(help="Keep episodes with at least this reward (default 1.0; pass -1 for all)."),
    ] = 1.0,
    system_prompt: Annotated[
        bool, typer.Option("--system-prompt/--no-system-prompt", help="Put the environment's policy first.")
    ] = True,
    allow_ungrounded: Annotated[
        bool,
        typer.Option(
            "--allow-ungrounded",
            help="Also export episodes whose tool calls use values nobody gave, or that break the policy.",
        ),
    ] = False,
    overwrite: Overwrite = False,
) -> None:
    """Export a run's trajectories as a training dataset (SFT: openai, trl, sharegpt; RL prompts: verl)."""
    from envfactory_mcp.trajectories.export import export_run

    refuse_existing(output, overwrite)
    policy = _run_policy(run_dir) if system_prompt else None
    try:
        stats = export_run(
            run_dir,
            fmt.value,
            output,
            min_reward=None if min_reward is not None and min_reward < 0 else min_reward,
            allow_ungrounded=allow_ungrounded,
            specs=_run_specs(run_dir),
            system_prompt=policy,
        )
    except EnvFactoryError as exc:
        raise fail(exc) from None
    left_out = (
        "kept (--allow-ungrounded)"
        if allow_ungrounded
        else f"{stats.ungrounded} with ungrounded tool-call values, {stats.policy_violations} breaking the policy"
    )
    typer.echo(
        f"wrote {stats.exported} {fmt.value} examples to {output} ({stats.seen} episodes: {stats.filtered_by_reward} below "
        f"the reward bar, {stats.excluded} harness failures, {left_out}, {sum(stats.skipped.values())} skipped)",
        err=True,
    )


def _run_specs(run_dir: Path) -> list[Any]:
    """The specs of the run's environments whose packages are here (for the grounding check)."""
    from envfactory_mcp.catalog import package_spec
    from envfactory_mcp.records.store import recorded_path

    try:
        metadata = json.loads((run_dir / "metadata.json").read_text(encoding="utf-8"))
        envs, servers_dir = list(metadata["envs"]), recorded_path(run_dir, metadata["servers_dir"])
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [spec for env in envs if (spec := package_spec(servers_dir, env)) is not None]


def _run_policy(run_dir: Path) -> str | None:
    """The policy of the run's environment, from its package (None when it cannot be found)."""
    from envfactory_mcp.emit.render import package_name
    from envfactory_mcp.records.store import recorded_path

    try:
        metadata = json.loads((run_dir / "metadata.json").read_text(encoding="utf-8"))
        (env,) = metadata["envs"]
        path = (
            recorded_path(run_dir, metadata["servers_dir"]) / env / package_name(env) / "data" / "policy.md"
        )
        return path.read_text(encoding="utf-8").strip() or None
    except (OSError, ValueError, KeyError):
        return None
