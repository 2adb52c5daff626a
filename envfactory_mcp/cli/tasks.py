"""The tasks command: synthesise tasks for an environment."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from envfactory_mcp.cli.app import (
    AllowUnverified,
    Overwrite,
    ServersDir,
    Trust,
    app,
    fail,
    load_environment,
    refuse_existing,
    skip_plugin_scan,
)
from envfactory_mcp.cli.progress import Quiet, Reporter, emit_json
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

if TYPE_CHECKING:
    from envfactory_mcp.tasks.generate import SamplerName


class Sampler(StrEnum):
    """``tasks --sampler``: ``tasks.generate.SamplerName``'s samplers as the command line spells them."""

    topology = "topology"
    random_walk = "random-walk"
    random_walk_old = "random_walk"  # the old spelling

    @property
    def generator_name(self) -> SamplerName:
        return "topology" if self is Sampler.topology else "random_walk"


@app.command()
def tasks(
    name: Annotated[
        str, typer.Argument(help="Blueprint or verified package to write tasks for, e.g. retail.")
    ],
    n: Annotated[int, typer.Option("-n", "--n", min=1, help="How many valid tasks.")] = 100,
    seed: Annotated[int, typer.Option(help="Sampler seed: same seed, same tasks, byte for byte.")] = 0,
    sampler: Annotated[
        Sampler, typer.Option(help="topology (the method) or random-walk (ablation baseline).")
    ] = Sampler.topology,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "--calibrate",  # the old name, still accepted ("--calibrate offline" is the default)
            help="litellm model string that calibrates the opening messages (default: offline, no model).",
        ),
    ] = None,
    api_base: Annotated[str | None, typer.Option(help="Base URL of an OpenAI-compatible endpoint.")] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Parallel model calls when calibrating with a model.")
    ] = 4,
    model_timeout: Annotated[
        float | None,
        typer.Option(min=0.001, help="Seconds one request to the calibrating model may take (default 60)."),
    ] = None,
    output: Annotated[Path, typer.Option("-o", "--output", help="tasks.jsonl to write.")] = Path(
        "tasks.jsonl"
    ),
    overwrite: Overwrite = False,
    stats: Annotated[
        bool, typer.Option("--stats", help="Add the quality figures to the JSON printed on stdout.")
    ] = False,
    allow_unverified: AllowUnverified = False,
    trust: Trust = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
    pool_cache: Annotated[
        bool,
        typer.Option(
            "--pool-cache/--no-pool-cache",
            help="Reuse the oracle's candidate pools cached for this environment and seed in the user's "
            "cache folder (the tasks are the same either way; ENVFACTORY_MCP_POOL_CACHE=off also turns "
            "it off).",
        ),
    ] = True,
    quiet: Quiet = False,
) -> None:
    """Synthesise tasks: sample tool chains, run them through the oracle, write and calibrate requests."""
    skip_plugin_scan()  # before pydantic builds its first model (the spec's, on the next line)
    from envfactory_mcp.cli.runs import interrupted
    from envfactory_mcp.tasks.generate import generate_tasks
    from envfactory_mcp.tasks.model import write_tasks

    calibrate = model if model and model != "offline" else None
    refuse_existing(output, overwrite)
    reporter = Reporter(quiet)
    try:
        env = load_environment(name, servers_dir, allow_unverified, trust, say=reporter.say)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    endpoint_errors = None
    try:
        with reporter.stages() as stage:
            advance = stage(f"generating {n} tasks for {name}")
            made_so_far = 0

            def on_task(_task: object) -> None:
                nonlocal made_so_far
                made_so_far += 1
                advance(made_so_far, n)

            made, report = generate_tasks(
                env, n, seed=seed, sampler=sampler.generator_name, on_task=on_task, pool_cache=pool_cache
            )
            if calibrate is not None:
                import anyio

                from envfactory_mcp.llm import LiteLLMClient
                from envfactory_mcp.tasks.calibrate import recalibrate_with_llm

                stage(f"calibrating {len(made)} messages with {calibrate}")
                client = LiteLLMClient(calibrate, api_base=api_base, timeout_s=model_timeout)
                outcome = anyio.run(recalibrate_with_llm, made, env.spec, client, concurrency)
    except KeyboardInterrupt:
        raise interrupted() from None
    if calibrate is not None:
        made = outcome.tasks
        cost = "unknown cost" if outcome.cost_usd is None else f"${outcome.cost_usd:.4f}"
        typer.echo(
            f"LLM calibration with {calibrate}: {outcome.rewritten} of {len(made)} tasks rewritten, "
            f"{outcome.rejected} kept the offline message after every rewrite was rejected; "
            f"{outcome.prompt_tokens} prompt + {outcome.completion_tokens} completion tokens, {cost}",
            err=True,
        )
        if outcome.endpoint_errors:
            endpoint_errors = EnvFactoryError(
                f"{outcome.endpoint_errors} of {len(made)} tasks kept the offline message because the "
                f"model endpoint failed: {'; '.join(outcome.errors[:3])}"
            )
    write_tasks(made, output)
    result: dict[str, object] = {"env": name, "output": str(output), "tasks": len(made), "requested": n}
    if stats:
        from envfactory_mcp.tasks.stats import task_stats

        result["stats"] = task_stats(made, report, env.spec)
    emit_json(result)
    reporter.say(f"wrote {len(made)} tasks to {output}")
    if endpoint_errors is not None:  # the file is written (nothing lost), but it is not what was asked
        raise fail(endpoint_errors)
    if len(made) < n:
        raise fail(EnvFactoryError(f"only {len(made)} of {n} valid tasks could be made (see --stats)"))
