"""Commands about runs: rollout, rescore, and the end-to-end pipeline."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from envfactory_mcp.cli.app import AllowUnverified, ServersDir, Trust, app, fail, settings, warn_unverified
from envfactory_mcp.errors import EnvFactoryError

MaxHarnessFailures = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Exit 1 when more than this share of a run's episodes are harness failures (not scored).",
    ),
]


@app.command()
def rollout(
    envs: Annotated[str, typer.Argument(help="Environment(s) to serve, comma-separated, e.g. retail.")],
    tasks_file: Annotated[Path, typer.Option("--tasks", help="tasks.jsonl to roll out.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Run directory (resumed if it exists).")],
    agent: Annotated[
        str,
        typer.Option(
            help="demonstrator (policy-following, grounded: the SFT source), oracle (replays the gold: a "
            "consistency check), noop, random or llm."
        ),
    ] = "demonstrator",
    agent_model: Annotated[str | None, typer.Option(help="litellm model string for the llm agent.")] = None,
    agent_api_base: Annotated[str | None, typer.Option(help="Base URL for the agent's model.")] = None,
    user: Annotated[str, typer.Option(help="scripted or llm.")] = "scripted",
    user_model: Annotated[str | None, typer.Option(help="litellm model string for the llm user.")] = None,
    user_api_base: Annotated[str | None, typer.Option(help="Base URL for the user's model.")] = None,
    trials: Annotated[int, typer.Option(min=1, help="Trials per task (for pass^k).")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes at once.")] = 8,
    max_steps: Annotated[int, typer.Option(min=1, help="Agent turns per episode.")] = 30,
    transport: Annotated[
        str, typer.Option(help="stdio (a subprocess per env), http (--url) or memory.")
    ] = "stdio",
    url: Annotated[
        list[str] | None, typer.Option(help="env=URL of a server started with --control (http).")
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
            help="Reward parts multiplied: state, claims, actions, trace_state, grounded (comma-separated)."
        ),
    ] = "state,claims",
    episode_timeout: Annotated[
        float, typer.Option(help="Seconds an episode may run; past it, it is a timeout (not scored).")
    ] = 600.0,
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
    servers_dir: ServersDir = Path("generated_servers"),
    backend: Annotated[
        str,
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
) -> None:
    """Run agent / simulated-user episodes over MCP, score them, and log trajectories (resumable).

    Every package served from --servers-dir must have a passing, current verification report."""
    import anyio

    from envfactory_mcp.host.rollout import AGENTS, USERS, RolloutConfig
    from envfactory_mcp.host.rollout import rollout as run_rollout

    if backend not in ("local", "ray") or (address is not None and backend != "ray"):
        raise fail(EnvFactoryError("choose --backend local|ray (--address goes with --backend ray)"))
    if agent not in AGENTS or user not in USERS or transport not in ("stdio", "http", "memory"):
        raise fail(
            EnvFactoryError(
                f"choose --agent from {AGENTS}, --user from {USERS}, --transport stdio|http|memory"
            )
        )
    if episode_timeout <= 0:
        raise fail(EnvFactoryError(f"--episode-timeout must be more than 0 seconds, got {episode_timeout:g}"))
    # A participant played by a model needs the model, checked before any run directory exists.
    for side, kind, model in (("agent", agent, agent_model), ("user", user, user_model)):
        if kind == "llm" and not model:
            raise fail(EnvFactoryError(f"--{side} llm needs --{side}-model (a litellm model string)"))
    # Sampling options of a participant without a model would be recorded as if they applied.
    for side, kind, options in (
        ("agent", agent, {"--temperature": temperature, "--max-tokens": max_tokens}),
        ("user", user, {"--user-temperature": user_temperature, "--user-max-tokens": user_max_tokens}),
    ):
        given = [flag for flag, value in options.items() if value is not None]
        if given and kind != "llm":
            raise fail(EnvFactoryError(f"{', '.join(given)} apply to an llm {side} only (--{side} llm)"))
    urls = dict(item.split("=", 1) for item in (url or []) if "=" in item)
    basis = tuple(part.strip() for part in reward_basis.split(",") if part.strip())
    from envfactory_mcp.scoring.reward import BASES

    unknown = set(basis) - set(BASES)
    if unknown or not basis:
        raise fail(EnvFactoryError(f"unknown reward basis {sorted(unknown)}: use {', '.join(BASES)}"))
    config = RolloutConfig(
        envs=[e for e in envs.split(",") if e],
        tasks_path=str(tasks_file),
        agent=agent,
        agent_model=agent_model,
        agent_api_base=agent_api_base,
        agent_temperature=temperature,
        agent_max_tokens=max_tokens,
        user=user,
        user_model=user_model,
        user_api_base=user_api_base,
        user_temperature=user_temperature,
        user_max_tokens=user_max_tokens,
        trials=trials,
        concurrency=concurrency,
        max_steps=max_steps,
        episode_timeout_s=episode_timeout,
        transport=transport,  # type: ignore[arg-type]
        servers_dir=str(servers_dir),
        urls=urls,
        seed=seed,
        reward_basis=basis,
        allow_unverified=allow_unverified,
        trust=trust,
        http_token=http_token,
        backend=backend,
        ray_address=address,
    )
    try:
        from envfactory_mcp.packages import check_served, ensure_shipped

        if transport != "http":
            for env in config.envs:
                ensure_shipped(servers_dir, env, note=lambda text: typer.echo(text, err=True))
        warn_unverified(
            check_served(servers_dir, config.envs, allow_unverified=allow_unverified, trust=trust)
        )
        with _progress_bar() as advance:
            summary = anyio.run(run_rollout, config, output, advance)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    _print_summary(summary)
    _judge_harness_failures({"rollout": summary}, max_harness_failures)


@app.command()
def rescore(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by rollout.")],
    tasks_file: Annotated[
        Path | None, typer.Option("--tasks", help="Task file (default: the run's).")
    ] = None,
) -> None:
    """Re-score a run's saved trajectories and rewrite its summary."""
    from envfactory_mcp.host.rollout import rescore as run_rescore

    try:
        summary = run_rescore(run_dir, str(tasks_file) if tasks_file else None)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    _print_summary(summary)


@app.command()
def pipeline(
    name: Annotated[str, typer.Argument(help="Blueprint to run end to end, e.g. retail.")] = "retail",
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Folder for tasks, runs and the summary.")
    ] = Path("pipeline-out"),
    n: Annotated[int, typer.Option("-n", "--n", min=1, help="Tasks to synthesise.")] = 50,
    seed: Annotated[int, typer.Option(help="Seed for tasks and rollouts.")] = 0,
    trials: Annotated[int, typer.Option(min=1, help="Trials per task.")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes at once.")] = 8,
    max_harness_failures: MaxHarnessFailures = 0.1,
    servers_dir: ServersDir = Path("generated_servers"),
) -> None:
    """Build + verify, synthesise tasks, roll out the scripted agents (demonstrator, oracle, noop), summarise."""
    from rich.console import Console

    from envfactory_mcp.pipeline import PipelineOptions, run_pipeline

    console = Console(stderr=True)
    try:
        with _progress_bar() as advance:
            summary = run_pipeline(
                settings(servers_dir),
                name,
                output,
                PipelineOptions(n_tasks=n, seed=seed, trials=trials, concurrency=concurrency),
                say=lambda text: console.print(text, highlight=False),
                progress=lambda _agent, done, total: advance(done, total),
            )
    except EnvFactoryError as exc:
        raise fail(exc) from None
    for agent, run in summary["runs"].items():
        console.print(f"[bold]{agent}[/]")
        _print_summary(run)
    console.print(f"summary: {output / 'summary.json'}")
    _judge_harness_failures(summary["runs"], max_harness_failures)


@contextlib.contextmanager
def _progress_bar() -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on stderr, advanced by ``(done, total)`` calls."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("episodes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True
    ) as bar:
        task_id = bar.add_task("episodes", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task_id, completed=done, total=total)

        yield advance


def _print_summary(summary: dict[str, Any]) -> None:
    from rich.console import Console

    keys = ("episodes", "scored", "harness_failures", "mean_reward", "pass_k", "grounding", "terminations")
    shown = {k: summary[k] for k in keys if k in summary}
    Console().print_json(json.dumps(shown, default=str))


def _judge_harness_failures(runs: dict[str, dict[str, Any]], limit: float) -> None:
    """A warning line on stderr for each run with harness failures; exit 1 when any run's
    share of them is above ``limit`` (its scores describe too few of its episodes)."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True)
    over = []
    for name, summary in runs.items():
        failures = summary.get("harness_failures") or {}
        if not failures.get("total"):
            continue
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
        raise fail(
            EnvFactoryError(
                f"harness failures above --max-harness-failures {limit:g}: {', '.join(over)} "
                "(see termination_detail in trajectories.jsonl)"
            )
        )


@app.command()
def view(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by rollout.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The HTML file to write.")] = Path(
        "run.html"
    ),
) -> None:
    """Write a self-contained HTML page to read a run: summary, episodes, transcripts, diffs."""
    from envfactory_mcp.trajectories.view import write_view

    try:
        path = write_view(run_dir, output)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    typer.echo(f"wrote {path}", err=True)


@app.command()
def export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by rollout.")],
    fmt: Annotated[str, typer.Option("--format", help="openai, trl, sharegpt or verl.")] = "openai",
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
) -> None:
    """Export a run's trajectories as a training dataset (SFT: openai, trl, sharegpt; RL prompts: verl)."""
    from envfactory_mcp.trajectories.export import FORMATS, export_run

    if fmt not in FORMATS:
        raise fail(EnvFactoryError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}"))
    policy = _run_policy(run_dir) if system_prompt else None
    try:
        stats = export_run(
            run_dir,
            fmt,
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
        f"wrote {stats.exported} {fmt} examples to {output} ({stats.seen} episodes: {stats.filtered_by_reward} below "
        f"the reward bar, {stats.excluded} harness failures, {left_out}, {sum(stats.skipped.values())} skipped)",
        err=True,
    )


def _run_specs(run_dir: Path) -> list[Any]:
    """The specs of the run's environments whose packages are here (for the grounding check)."""
    from envfactory_mcp.host.launch import package_spec

    try:
        metadata = json.loads((run_dir / "metadata.json").read_text(encoding="utf-8"))
        envs, servers_dir = list(metadata["envs"]), Path(metadata["servers_dir"])
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [spec for env in envs if (spec := package_spec(servers_dir, env)) is not None]


def _run_policy(run_dir: Path) -> str | None:
    """The policy of the run's environment, from its package (None when it cannot be found)."""
    from envfactory_mcp.emit.render import package_name

    try:
        metadata = json.loads((run_dir / "metadata.json").read_text(encoding="utf-8"))
        (env,) = metadata["envs"]
        path = Path(metadata["servers_dir"]) / env / package_name(env) / "data" / "policy.md"
        return path.read_text(encoding="utf-8").strip() or None
    except (OSError, ValueError, KeyError):
        return None
