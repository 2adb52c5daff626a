"""Commands about environments: list, build, verify, serve, demo, graph."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from envfactory_mcp import files
from envfactory_mcp.cli.app import (
    AllowUnverified,
    ServersDir,
    Trust,
    app,
    fail,
    load_environment,
    permit,
    settings,
    usage,
)
from envfactory_mcp.cli.progress import Quiet, Reporter, emit_json
from envfactory_mcp.clients import ClientName
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.ray_cluster import Backend
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

if TYPE_CHECKING:
    from envfactory_mcp.spec import EnvSpec


@app.command("list")
def list_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
) -> None:
    """List environments: name, domain, tool and table counts, verification status."""
    from envfactory_mcp.catalog import list_environments

    entries = list_environments(settings(servers_dir))
    if as_json:
        typer.echo(json.dumps([e.as_dict() for e in entries], indent=2))
        return
    header = ("name", "domain", "tools", "tables", "source", "emitted", "verification", "runtime")
    rows = [
        (
            e.name,
            e.domain,
            str(e.tools),
            str(e.tables),
            e.source,
            "yes" if e.emitted else "no",
            e.verification,
            e.runtime,
        )
        for e in entries
    ]
    if not sys.stdout.isatty():  # piped or redirected: whole names, plain columns, nothing cut
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            typer.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(*header)
        for row in rows:
            table.add_row(*row)
        Console().print(table)
    from envfactory_mcp.host.launch import lookup_rule

    built = sum(1 for e in entries if e.emitted)
    typer.echo(
        f"{built} package(s) in {servers_dir}/, the other shipped environments 'not built' there "
        f"({lookup_rule(servers_dir)}; --servers-dir chooses another folder)",
        err=True,
    )
    older = [e.name for e in entries if e.emitted and e.runtime != "current"]
    if older:
        typer.echo(
            f"{len(older)} package(s) on another runtime than this installation's: {', '.join(older)} "
            "(envfactory-mcp upgrade --all)",
            err=True,
        )


@app.command()
def build(
    name: Annotated[str | None, typer.Argument(help="Environment to build, e.g. retail.")] = None,
    all_: Annotated[
        bool,
        typer.Option("--all", help="Build and verify every shipped environment (hand-crafted and library)."),
    ] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Builds at once with --all.")] = 2,
    backend: Annotated[
        Backend, typer.Option(help="Where --all builds run: local (worker processes) or ray (a Ray cluster).")
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            help="Ray cluster to join with --backend ray: auto, or host:port (default: a private one)."
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed for the seed data (default: the environment's).")
    ] = None,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
    quiet: Quiet = False,
) -> None:
    """Build an environment, verify it, and emit it as a standalone MCP server package under <servers-dir>/<name>/.

    Nothing is written unless verification passes; the report is stored in the package.
    With --all, every shipped environment is built, several at once; the command exits 1
    if any failed, after building the others.
    """
    from envfactory_mcp.build import VerificationFailed, build_blueprint
    from envfactory_mcp.verify.verifier import VerifyOptions

    if all_ == (name is not None):
        raise usage("give an environment name or --all (not both)")
    if all_:
        if seed is not None:
            raise usage("--seed applies to one environment, not to --all")
        if address is not None and backend != "ray":
            raise usage("--address goes with --backend ray")
        _build_all(settings(servers_dir), jobs, backend, address, Reporter(quiet))
        return
    if backend != "local" or address is not None:
        raise usage("--backend and --address apply to --all")
    assert name is not None
    reporter = Reporter(quiet)
    reporter.say(f"[build {name}] building, then verifying in the sandbox")
    try:
        result = build_blueprint(settings(servers_dir), name, seed, VerifyOptions(progress=reporter.say))
    except VerificationFailed as exc:
        _print_report(exc.report)
        raise fail(exc) from None
    except EnvFactoryError as exc:
        raise fail(exc) from None
    env, report = result.env, result.report
    rows = sum(len(r) for r in env.seed_state.values())
    emit_json(
        {
            "env": name,
            "package": str(result.package_dir),
            "tools": len(env.spec.tools),
            "tables": len(env.spec.tables),
            "seed_rows": rows,
            "seed_hash": env.seed_hash,
            "verified": report.passed,
            "probes": report.probes,
            "seconds": round(report.timings["total"], 1),
        }
    )
    reporter.say(
        f"built {name}: {len(env.spec.tools)} tools, {len(env.spec.tables)} tables, {rows} seed rows, "
        f"seed hash {env.seed_hash[:12]}; verified ({report.probes} probes, {report.timings['total']:.1f} s) "
        f"-> {result.package_dir}"
    )


def _build_all(config: object, jobs: int, backend: Backend, address: str | None, reporter: Reporter) -> None:
    import time

    from envfactory_mcp.blueprints import blueprint_names
    from envfactory_mcp.build import BuildOutcome, build_all
    from envfactory_mcp.settings import Settings

    assert isinstance(config, Settings)
    names = blueprint_names()
    started = time.perf_counter()
    finished = 0
    with reporter.stages() as stage:
        advance = stage(f"building and verifying {len(names)} environments")

        def step(outcome: BuildOutcome) -> None:
            nonlocal finished
            finished += 1
            advance(finished, len(names))
            if not outcome.ok:
                typer.echo(f"failed {outcome.name}: {outcome.error}", err=True)

        try:
            outcomes = build_all(config, names, jobs, step, backend=backend, address=address)
        except EnvFactoryError as exc:
            raise fail(exc) from None
    failed = [o for o in outcomes if not o.ok]
    tools = sum(o.tools for o in outcomes)
    emit_json(
        {
            "servers_dir": str(config.servers_dir),
            "built": sorted(o.name for o in outcomes if o.ok),
            "failed": {o.name: o.error for o in failed},
            "tools": tools,
        }
    )
    reporter.say(
        f"built {len(outcomes) - len(failed)} of {len(outcomes)} environments ({tools} tools), each verified, "
        f"in {time.perf_counter() - started:.0f} s "
        + ("on Ray" if backend == "ray" else f"with {jobs} at a time")
        + f" -> {config.servers_dir}"
    )
    if failed:
        raise fail(EnvFactoryError(f"{len(failed)} failed: {', '.join(o.name for o in failed)}"))


@app.command()
def verify(
    target: Annotated[
        str, typer.Argument(help="An environment name (its package, else its blueprint) or a package folder.")
    ],
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Only the JSON report (on stdout, as always), without the table on stderr."
        ),
    ] = False,
    stdio: Annotated[
        bool, typer.Option("--stdio/--no-stdio", help="Also start the package over stdio.")
    ] = True,
    save: Annotated[
        bool, typer.Option("--save", help="Store the report in the package (data/verification.json).")
    ] = False,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict/--no-strict",
            help="--strict (the default): exit 0 only if every check of every tool passes, as a package "
            "is served whole or not at all. --no-strict: exit 0 also when only some tools failed on "
            "their own, and say which would be dropped (synthesize drops them, then verifies the rest).",
        ),
    ] = True,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
    quiet: Quiet = False,
) -> None:
    """Verify an environment in the sandbox; exit 0 only if every check passes (see --no-strict).

    Each finished chunk of tools is reported on stderr; the budget is CPU time that grows with
    the tools and the seed, so a busy machine is slower, not a failure."""
    from envfactory_mcp.blueprints import blueprint_names, load_blueprint
    from envfactory_mcp.env import build_env
    from envfactory_mcp.verify.provenance import REPORT_FILE, locate_package
    from envfactory_mcp.verify.verifier import VerifyOptions, verify_environment, verify_package

    reporter = Reporter(quiet)
    options = VerifyOptions(stdio=stdio, progress=reporter.say)
    where = settings(servers_dir)
    folder = Path(target) if Path(target).is_dir() else where.server_dir(target)
    try:
        if folder.is_dir():
            reporter.say(f"[verify] the package in {folder.resolve()}")
            report = verify_package(folder, options)
            from envfactory_mcp.packages import runtime_status

            if (runtime := runtime_status(folder)) != "current":
                typer.echo(f"runtime: {runtime}", err=True)
            if save:
                root, pkg = locate_package(folder)
                files.write_text(root / pkg / "data" / REPORT_FILE, report.to_json())
        elif target in blueprint_names():
            if save:
                raise EnvFactoryError(
                    f"{target} has no package to save a report in (run: envfactory-mcp build {target})"
                )
            reporter.say(f"[verify] the blueprint {target} (there is no package in {where.servers_dir})")
            report = verify_environment(build_env(load_blueprint(target)), options)
        else:
            raise EnvFactoryError(
                f"{target!r} is neither a package folder, nor a package in {servers_dir}/, nor a blueprint "
                f"({', '.join(blueprint_names())})"
            )
    except EnvFactoryError as exc:
        raise fail(exc) from None
    typer.echo(report.to_json(), nl=False)
    if not as_json:
        _print_report(report)
    if report.passed or strict:
        raise typer.Exit(code=0 if report.passed else 1)
    from envfactory_mcp.verify.dropping import droppable

    failing, why = droppable(report, _spec_of(folder, target))
    if not failing:
        typer.echo(f"not verified, and no tool can be dropped to fix it: {why}", err=True)
        raise typer.Exit(code=1)
    for tool, reason in sorted(failing.items()):
        typer.echo(f"would be dropped (not served): {tool}: {reason}", err=True)
    typer.echo(
        f"{len(failing)} tool(s) failed on their own; the other {len(report.tools) - len(failing)} verified "
        "(--no-strict). This package as it stands is not served: import or synthesize it again to drop them.",
        err=True,
    )
    raise typer.Exit(code=0)


def _spec_of(folder: Path, target: str) -> EnvSpec:
    """The spec verified: the package's in ``folder``, else blueprint ``target``'s."""
    from envfactory_mcp.spec import parse_spec

    if folder.is_dir():
        from envfactory_mcp.verify.provenance import locate_package

        root, pkg = locate_package(folder)
        return parse_spec(json.loads((root / pkg / "data" / "spec.json").read_text(encoding="utf-8")))
    from envfactory_mcp.blueprints import load_blueprint
    from envfactory_mcp.env import build_env

    return build_env(load_blueprint(target)).spec


@app.command()
def upgrade(
    name: Annotated[str | None, typer.Argument(help="A package to upgrade, e.g. retail.")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Upgrade every package in the servers folder.")] = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
) -> None:
    """Bring packages onto this installation's runtime: re-render each one's runtime, entry
    points, README and packaging (its tools, spec, schema, seed and policy kept byte for
    byte), verify it again and say what changed. A package that fails keeps its old files."""
    from envfactory_mcp.build import VerificationFailed, upgrade_package
    from envfactory_mcp.emit.render import package_name

    if all_ == (name is not None):
        raise usage("give a package name or --all (not both)")
    where = settings(servers_dir).servers_dir
    if all_:
        names = (
            sorted(
                p.name for p in where.iterdir() if (p / package_name(p.name) / "data" / "spec.json").is_file()
            )
            if where.is_dir()
            else []
        )
        if not names:
            raise fail(EnvFactoryError(f"no packages in {where}/"))
    else:
        assert name is not None
        if not (where / name).is_dir():
            raise fail(
                EnvFactoryError(f"no package {name!r} in {where}/ (build it: envfactory-mcp build {name})")
            )
        names = [name]
    failed: list[str] = []
    for env in names:
        try:
            done = upgrade_package(where / env)
        except VerificationFailed as exc:
            failed.append(env)
            typer.echo(
                f"{env}: kept as it was, the upgraded package failed verification: {exc.report.failures()[:1]}"
            )
            continue
        except EnvFactoryError as exc:
            failed.append(env)
            typer.echo(f"{env}: {str(exc).splitlines()[0]}")
            continue
        if not done.changed:
            typer.echo(f"{env}: runtime {done.after}, already current")
            continue
        shown = ", ".join(done.changed[:6]) + (
            f" and {len(done.changed) - 6} more" if len(done.changed) > 6 else ""
        )
        typer.echo(
            f"{env}: runtime {done.before or 'unstamped'} -> {done.after}, "
            f"{len(done.changed)} file(s) changed ({shown}); verified again"
        )
    if failed:
        raise fail(EnvFactoryError(f"{len(failed)} not upgraded: {', '.join(failed)}"))


def _print_report(report: object) -> None:
    """A verification report as a table: one row per tool, one column per check."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from envfactory_mcp.verify.report import TOOL_CHECKS, VerificationReport

    assert isinstance(report, VerificationReport)
    console = Console(stderr=True)
    marks = {"passed": "[green]ok[/]", "failed": "[bold red]FAIL[/]", "not run": "[dim]-[/]"}
    env_table = Table("environment check", "status", "reason", title=f"verification of {report.env}")
    for check in report.environment:
        env_table.add_row(check.check, marks[check.status], check.reason)
    console.print(env_table)
    tool_table = Table("tool", "effect", "probes", "succeeded", "checks")
    for tool in report.tools:
        failed = [c.check for c in tool.checks if c.failed]
        skipped = [c.check for c in tool.checks if c.status == "not run"]
        summary = (
            f"[bold red]FAIL[/] {', '.join(failed)}"
            if failed
            else f"[dim]{len(skipped)} not run[/]"
            if skipped
            else f"[green]{len(tool.checks)} passed[/]"
        )
        tool_table.add_row(tool.tool, tool.effect, str(tool.probes), str(tool.succeeded), summary)
    console.print(tool_table)
    console.print(f"[dim]tool checks: {', '.join(TOOL_CHECKS)}[/]")
    for line in report.failures():
        console.print(f"[red]x[/] {escape(line)}", highlight=False, soft_wrap=True)  # one grep-able line each
    if report.sandbox.warning:
        console.print(f"[bold red]WARNING:[/] {report.sandbox.warning}")
    timings = ", ".join(f"{k} {v:.2f} s" for k, v in report.timings.items())
    skipped = [c.check for c in report.environment if c.status == "not run"]
    if report.passed:
        verdict = "[bold green]PASSED[/]"
    elif report.failures():
        verdict = "[bold red]FAILED[/]"
    else:
        verdict = f"[bold yellow]INCOMPLETE[/] (not run: {', '.join(skipped)})"
    console.print(f"{verdict}: {report.probes} probes; {timings}")


class ServeTransport(StrEnum):
    """``serve --transport``: the runtime's transports (``runtime/cli.py``'s ``--transport``
    choices, which cannot import this package; tests/cli/test_choices.py holds them equal)."""

    stdio = "stdio"
    streamable_http = "streamable-http"


class LogLevel(StrEnum):
    """``serve --log-level`` (any case): the runtime's ``--log-level`` choices."""

    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"


@app.command()
def serve(
    name: Annotated[str, typer.Argument(help="Environment to serve, e.g. retail.")],
    transport: Annotated[
        ServeTransport, typer.Option(help="stdio or streamable-http.")
    ] = ServeTransport.stdio,
    host: Annotated[str, typer.Option(help="HTTP bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="HTTP port.")] = 8000,
    db: Annotated[Path | None, typer.Option(help="Keep state in this SQLite file across restarts.")] = None,
    control: Annotated[bool, typer.Option("--control", help="Expose the control.* tools for hosts.")] = False,
    auth_token: Annotated[
        str | None,
        typer.Option(
            help="Bearer token for every HTTP request; needed beyond loopback (or ENVFACTORY_MCP_AUTH_TOKEN)."
        ),
    ] = None,
    allowed_host: Annotated[
        list[str] | None, typer.Option(help="A Host name clients use beyond loopback (repeatable).")
    ] = None,
    log_level: Annotated[
        LogLevel, typer.Option(case_sensitive=False, help="DEBUG, INFO, WARNING or ERROR (to stderr).")
    ] = LogLevel.WARNING,
    call_timeout: Annotated[
        float | None,
        typer.Option(
            min=0, max=86_400, help="Time limit of one tool call in seconds, 0 for none (default 5)."
        ),
    ] = None,
    max_memory_mb: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Address-space limit of the server in MiB, 0 for none, else at least 256 (default 6144).",
        ),
    ] = None,
    allow_unverified: AllowUnverified = False,
    trust: Trust = False,
    jail: Annotated[
        bool,
        typer.Option("--jail", help="Run the tool code jailed even when it is shipped with envfactory-mcp."),
    ] = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
) -> None:
    """Serve a generated environment over MCP (stdio by default). Logs go to stderr only.

    Only a package whose verification report passed and matches its files is served. Its
    tool code runs jailed (bubblewrap) unless it is a blueprint shipped with envfactory-mcp
    or --trust is given; the package's data and tools.py are served by envfactory-mcp's
    own runtime."""
    from envfactory_mcp import __version__
    from envfactory_mcp.host.launch import package_dir
    from envfactory_mcp.packages import ensure_shipped
    from envfactory_mcp.runtime.cli import serve as serve_package

    # Every mistake in the command line is found here, before anything is built, and is a
    # usage error (exit 2) in this CLI's words, never the runtime's argparse usage.
    mistake = _serve_mistake(transport, host, auth_token, max_memory_mb, db, jail)
    if mistake is not None:
        raise usage(mistake)
    try:
        _check_db(db)
        ensure_shipped(servers_dir, name, note=lambda text: typer.echo(text, err=True))
        permission = permit(package_dir(servers_dir, name), allow_unverified, trust, jail)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    if permission.jailed and db is not None:
        raise usage(
            f"--db keeps state in a file on this machine, which a jailed server cannot write, and {name}'s "
            "tool code runs jailed (it is not shipped with envfactory-mcp): drop --db, or --trust code you have read"
        )
    argv = [
        *permission.server_args(),
        "--transport",
        transport.value,
        "--host",
        host,
        "--port",
        str(port),
        "--log-level",
        log_level.value,
    ]
    if db is not None:
        argv += ["--db", str(db)]
    if control:
        argv.append("--control")
    if auth_token is not None:
        argv += ["--auth-token", auth_token]
    for name_ in allowed_host or []:
        argv += ["--allowed-host", name_]
    if call_timeout is not None:
        argv += ["--call-timeout", str(call_timeout)]
    if max_memory_mb is not None:
        argv += ["--max-memory-mb", str(max_memory_mb)]
    serve_package(permission.package_dir, prog="envfactory-mcp serve", argv=argv, version=__version__)


def _serve_mistake(
    transport: ServeTransport,
    host: str,
    auth_token: str | None,
    max_memory_mb: int | None,
    db: Path | None,
    jail: bool,
) -> str | None:
    """What is wrong with ``serve``'s options together (the runtime's own checks, said
    first), or None; typer refuses a value out of its choices or range itself."""
    import os

    from envfactory_mcp.runtime.network import TOKEN_ENV, token_problem

    if max_memory_mb is not None and 0 < max_memory_mb < 256:
        return f"--max-memory-mb must be 0 (none) or at least 256, not {max_memory_mb}"
    if jail and db is not None:
        return "--db keeps state in a file on this machine, which a jailed server cannot write; drop --jail or --db"
    if transport is ServeTransport.streamable_http:
        return token_problem(auth_token or os.environ.get(TOKEN_ENV) or None, host)
    return None


def _check_db(db: Path | None) -> None:
    """``--db`` names a file that is there or can be made: its folder exists, it is no folder."""
    if db is None:
        return
    if db.is_dir():
        raise EnvFactoryError(f"--db {db}: a folder; --db names the SQLite file that keeps the state")
    if not db.parent.is_dir():
        raise EnvFactoryError(f"--db {db}: the folder {db.parent} does not exist; create it first")


@app.command()
def install(
    name: Annotated[str, typer.Argument(help="Environment to add, e.g. retail.")],
    client: Annotated[
        ClientName, typer.Option(help="claude-desktop, claude-code, cursor, vscode or windsurf.")
    ],
    print_only: Annotated[
        bool, typer.Option("--print", help="Print the configuration and where it goes; write nothing.")
    ] = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
) -> None:
    """Add an environment to an MCP client's configuration (merged into what is there, the
    previous file kept as .bak), or print it. The client then starts `envfactory-mcp serve`."""
    from envfactory_mcp.clients import (
        client_config,
        server_entry,
        snippet,
    )
    from envfactory_mcp.clients import (
        install as install_server,
    )
    from envfactory_mcp.host.launch import package_dir
    from envfactory_mcp.packages import ensure_shipped

    try:
        ensure_shipped(servers_dir, name, note=lambda text: typer.echo(text, err=True))
        permit(package_dir(servers_dir, name), allow_unverified=False)
        config = client_config(client)
        entry = server_entry(
            config,
            sys.executable,
            ["-I", "-m", "envfactory_mcp", "serve", name, "--servers-dir", str(servers_dir)],
        )
        if print_only:
            typer.echo(f"# {config.path}")
            typer.echo(snippet(config, name, entry))
            return
        done = install_server(config, name, entry)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    if done.unchanged:
        typer.echo(f"{name} is already in {done.path} ({client}) as it would be written; nothing changed.")
        return
    kept = f"; your file as it was before is kept as {done.backup}" if done.backup else ""
    verb = "updated" if done.replaced else "added"
    typer.echo(f"{verb} {name} in {done.path} ({client}){kept}. Restart the client to load it.")


@app.command()
def demo(
    name: Annotated[str, typer.Argument(help="Blueprint to demonstrate.")] = "retail",
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
) -> None:
    """Build and verify an environment, serve it over stdio and drive a scripted customer session against it."""
    import anyio
    from rich.console import Console

    from envfactory_mcp.demo import format_output, run_demo

    console = Console()
    try:
        result = anyio.run(run_demo, settings(servers_dir), name)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    console.print(f"[bold]{result.env_name}[/] server package: {result.package_dir}")
    if result.reused:
        console.print(
            f"verified package already there: {result.verified_probes} probes passed when it was built"
        )
    else:
        console.print(
            f"verified in the sandbox: {result.verified_probes} probes, every check passed ({result.verify_seconds:.1f} s)"
        )
    console.print(f"seed state hash: {result.state_hash_before}")
    for i, call in enumerate(result.calls, 1):
        mark = "[red]error[/]" if call.is_error else "[green]ok[/]"
        console.print(f"\n[bold]{i}. {call.tool}[/]({json.dumps(call.arguments)}) -> {mark}")
        console.print(format_output(call.output), markup=False, highlight=False)
    console.print(f"\nfinal state hash: {result.state_hash_after}")
    console.print("[bold]state diff[/] (inserted / deleted / updated rows per table):")
    console.print_json(json.dumps(result.diff))


class GraphFormat(StrEnum):
    """``graph --format``: the tool graph's renderings (``graph.export``), one each in ``graph``."""

    json = "json"
    dot = "dot"
    html = "html"


@app.command()
def graph(
    name: Annotated[str, typer.Argument(help="Blueprint or verified package to draw, e.g. retail.")],
    fmt: Annotated[GraphFormat, typer.Option("--format", help="json, dot or html.")] = GraphFormat.html,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here (default: stdout).")
    ] = None,
    allow_unverified: AllowUnverified = False,
    servers_dir: ServersDir = DEFAULT_SERVERS_DIR,
) -> None:
    """The tool dependency graph: data-flow, state-flow and user-provided parameters."""
    from collections.abc import Callable

    from envfactory_mcp.graph import ToolGraph, build_graph
    from envfactory_mcp.graph.export import to_dot, to_html, to_json

    renderers: dict[GraphFormat, Callable[[ToolGraph], str]] = {
        GraphFormat.json: to_json,
        GraphFormat.dot: to_dot,
        GraphFormat.html: lambda g: to_html(g, f"{name}: tool dependency graph"),
    }
    try:
        env = load_environment(name, servers_dir, allow_unverified)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    text = renderers[fmt](build_graph(env.spec))
    if output is None:
        typer.echo(text, nl=False)
    else:
        files.write_text(output, text)
        typer.echo(f"wrote {fmt} graph of {name} to {output}", err=True)
