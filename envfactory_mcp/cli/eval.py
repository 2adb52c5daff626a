"""The eval command: MCP-Atlas-style evaluation of an agent across linked servers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from envfactory_mcp.cli.app import AllowUnverified, ServersDir, Trust, app, config_usage, fail, usage
from envfactory_mcp.cli.progress import Quiet, Reporter, emit_json
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.eval.config import EvalAgent, EvalTransport
from envfactory_mcp.host.config import ConfigError, UserKind
from envfactory_mcp.settings import CONCURRENCY, DEFAULT_SERVERS_DIR, MAX_STEPS

if TYPE_CHECKING:
    from envfactory_mcp.env import Environment


ORACLE = EvalAgent("oracle")  # eval's default agent


@app.command("eval")
def eval_command(
    envs: Annotated[
        str,
        typer.Option(
            "--envs",
            help="Servers, comma separated (packages or blueprints; crm, billing, shipping and notes_<k>"
            " are the built-in linked demo servers when no package has their name).",
        ),
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="Results folder.")] = Path("eval_results"),
    agent: Annotated[
        EvalAgent,
        typer.Option(
            help="The host's agents (as rollout's --agent), or eval's scorer checks: coinflip, skip-read."
        ),
    ] = ORACLE,
    agent_model: Annotated[str | None, typer.Option(help="litellm model string for the llm agent.")] = None,
    agent_api_base: Annotated[str | None, typer.Option(help="Base URL of the agent's endpoint.")] = None,
    agent_temperature: Annotated[float | None, typer.Option(help="The agent's sampling temperature.")] = None,
    agent_max_tokens: Annotated[int | None, typer.Option(help="The agent's completion limit.")] = None,
    agent_timeout: Annotated[
        float | None,
        typer.Option(min=0.001, help="Seconds one request to the agent's model may take (default 60)."),
    ] = None,
    judge_model: Annotated[
        str | None, typer.Option(help="litellm model that grades the claims the exact checks do not find.")
    ] = None,
    judge_api_base: Annotated[str | None, typer.Option(help="Base URL of the judge's endpoint.")] = None,
    judge_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            help="Seconds one request to the judge's model may take (default 60; each of its retries gets "
            "as long). A slow local model needs more.",
        ),
    ] = None,
    user: Annotated[UserKind, typer.Option(help="scripted or llm (--user-model).")] = UserKind.scripted,
    user_model: Annotated[str | None, typer.Option(help="litellm model string for the llm user.")] = None,
    user_api_base: Annotated[str | None, typer.Option(help="Base URL of the user's endpoint.")] = None,
    user_timeout: Annotated[
        float | None,
        typer.Option(min=0.001, help="Seconds one request to the user's model may take (default 60)."),
    ] = None,
    n: Annotated[int, typer.Option("-n", "--n", min=1, help="How many tasks to build.")] = 20,
    tasks: Annotated[
        Path | None, typer.Option("--tasks", help="Re-run this fixed eval set (an eval_set.jsonl) instead.")
    ] = None,
    trials: Annotated[int, typer.Option(min=1, help="Episodes per task.")] = 1,
    seed: Annotated[int, typer.Option(help="Task and agent seed.")] = 0,
    shared_entities: Annotated[
        str | None,
        typer.Option(
            help="Entity types whose ids mean the same thing on every server (e.g. customer,invoice):"
            " only these cross servers. Default: those at least two of the servers declare shared"
            " (linked services, e.g. page_turner_books and page_turner_payments), or the demo"
            " servers' own; with none, a task is several requests, one per server."
        ),
    ] = None,
    max_chain: Annotated[int, typer.Option(min=2, max=8, help="Longest chain of needed tools.")] = 4,
    max_steps: Annotated[int, typer.Option(min=1, help="Agent turns per episode.")] = MAX_STEPS,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes at once.")] = CONCURRENCY,
    transport: Annotated[
        EvalTransport,
        typer.Option(
            help="memory (the packages in --servers-dir served over MCP in this process) or stdio"
            " (each package a subprocess)."
        ),
    ] = EvalTransport.memory,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Re-run episodes that ended in harness failures.")
    ] = False,
    allow_unverified: AllowUnverified = False,
    trust: Trust = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
    quiet: Quiet = False,
) -> None:
    """Build (or re-run) an eval set over any servers, play it with an agent through the host
    (the -o folder is a run directory: rerun the same command to resume, view it with
    `view`), score claims and states, and write a results table (terminal, results.json,
    report.html) with failure classes."""
    from envfactory_mcp.cli.runs import interrupted
    from envfactory_mcp.eval.main import EvalConfig, evaluate
    from envfactory_mcp.eval.report import table
    from envfactory_mcp.host.rollout import run_interruptibly
    from envfactory_mcp.records.store import MetadataMismatch

    # What the flags hold is checked by EvalConfig (a ConfigError, said here with the flags'
    # names), before any server is loaded or task built.
    try:
        config = EvalConfig(
            envs=[e.strip() for e in envs.split(",") if e.strip()],
            agent=agent,
            agent_model=agent_model,
            agent_api_base=agent_api_base,
            agent_temperature=agent_temperature,
            agent_max_tokens=agent_max_tokens,
            judge_model=judge_model,
            judge_api_base=judge_api_base,
            user=user,
            user_model=user_model,
            user_api_base=user_api_base,
            n=n,
            trials=trials,
            seed=seed,
            max_chain=max_chain,
            max_steps=max_steps,
            concurrency=concurrency,
            tasks_path=str(tasks) if tasks else None,
            transport=transport,
            shared_entities=None
            if shared_entities is None
            else [e.strip() for e in shared_entities.split(",") if e.strip()],
            servers_dir=str(servers_dir),
            retry_failed=retry_failed,
            agent_timeout=agent_timeout,
            user_timeout=user_timeout,
            judge_timeout=judge_timeout,
        )
    except ConfigError as exc:
        raise config_usage(exc, {"n": "-n", "tasks_path": "--tasks"}) from None
    names = config.envs
    reporter = Reporter(quiet)
    try:
        loaded = load_envs(names, servers_dir, allow_unverified, trust, reporter.say)
        with reporter.stages() as stage:
            summary, _ = run_interruptibly(
                evaluate,
                config,
                loaded,
                output,
                stage(f"eval {agent}"),
                allow_unverified,
                trust,
                _agent_factory(),
                reporter.say,
            )
    except KeyboardInterrupt:
        raise interrupted() from None
    except MetadataMismatch as exc:
        raise fail(
            EnvFactoryError(f"{exc}; rerun with the stored values to resume it, or use another -o")
        ) from None
    except EnvFactoryError as exc:
        raise fail(exc) from None
    typer.echo(table(summary), err=True)
    emit_json(summary)
    reporter.say(
        f"wrote {output}/results.json, {output}/report.html, the eval set {output}/eval_set.jsonl and"
        f" the run {output}/trajectories.jsonl (view it: envfactory-mcp view {output})"
    )


@app.command("eval-compare")
def eval_compare_command(
    first: Annotated[Path, typer.Argument(help="An eval folder (results.json).")],
    second: Annotated[Path, typer.Argument(help="Another eval folder over the same eval set.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the side-by-side as HTML here.")
    ] = None,
) -> None:
    """Two eval runs of the same eval set side by side: figures, per server and kind, and the
    tasks where they differ."""
    from envfactory_mcp import files
    from envfactory_mcp.eval.report import compare, compare_html, compare_table

    try:
        side = compare(first, second)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    typer.echo(compare_table(side))
    if output is not None:
        files.write_text(output, compare_html(side))
        typer.echo(f"wrote {output}")


def _agent_factory() -> object:
    from envfactory_mcp.eval.main import agent_factory

    return agent_factory


def load_envs(
    names: list[str],
    servers_dir: Path,
    allow_unverified: bool,
    trust: bool,
    say: Callable[[str], None] | None = None,
) -> list[Environment]:
    """Each server: a package or blueprint (``cli.app.load_environment``), else a demo server
    (served from ``<output>/servers``, see ``eval.main.served_dir``)."""
    from envfactory_mcp.blueprints import blueprint_names
    from envfactory_mcp.cli.app import load_environment
    from envfactory_mcp.eval import demo_envs

    notes = [int(n[6:]) for n in names if n.startswith("notes_") and n[6:].isdigit()]
    demo = {e.spec.name: e for e in demo_envs.linked_envs(3 + max(notes, default=0))}
    loaded = []
    for name in names:
        if not (servers_dir / name).is_dir() and name not in blueprint_names() and name in demo:
            (say or (lambda text: typer.echo(text, err=True)))(f"using the demo server {name}")
            loaded.append(demo[name])
        else:
            loaded.append(load_environment(name, servers_dir, allow_unverified, trust, say=say))
    return loaded


@app.command("eval-standing")
def eval_standing_command(
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Where to write the eval set (a .jsonl file).")
    ],
    groups: Annotated[
        str | None, typer.Option(help="Only these groups, by index, comma separated (default: all).")
    ] = None,
    write_manifest: Annotated[
        bool, typer.Option("--write-manifest", help="Rewrite the committed manifest instead of checking it.")
    ] = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
) -> None:
    """Build the standing eval set (the library's flagships and services in groups of three,
    versioned), check it against the committed manifest, and write it for `eval --tasks`."""
    from envfactory_mcp.blueprints import blueprint_names
    from envfactory_mcp.catalog import load_environment
    from envfactory_mcp.eval import standing
    from envfactory_mcp.eval.compose import write_eval_set

    try:
        only = [int(g) for g in groups.split(",") if g.strip()] if groups else None
    except ValueError:
        raise usage(f"--groups: not a list of numbers: {groups}") from None
    try:
        manifest = None if write_manifest else standing.read_manifest()
        tasks, made = standing.build_standing(
            lambda name: load_environment(name, servers_dir).env, blueprint_names(), only, manifest
        )
    except EnvFactoryError as exc:
        raise fail(exc) from None
    if write_manifest and only is None:
        standing.write_manifest(made)
    digest = write_eval_set(tasks, output)
    servers = sorted({s for t in tasks for s in t.offered})
    typer.echo(
        f"standing set v{standing.STANDING_VERSION}: {len(tasks)} tasks ({made['kinds']['single']} single-server"
        f" with distractors, {made['kinds']['chain']} shared-entity chains,"
        f" {made['kinds']['flow']} value-flow chains) over {len(servers)} servers, sha256 {digest[:12]}"
    )
    typer.echo(
        f"wrote {output}; run it: envfactory-mcp eval --envs {','.join(servers)} --tasks {output} -o <dir>"
    )
