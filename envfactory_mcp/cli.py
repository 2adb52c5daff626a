"""The ``envfactory-mcp`` command: parse flags, build ``Settings``, call one stage function.

Heavy imports (the MCP stack, litellm) happen inside commands, so ``--help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.settings import Settings

app = typer.Typer(
    name="envfactory-mcp",
    help="Manufacture verified, stateful MCP tool environments for training and evaluating agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

ServersDir = Annotated[
    Path,
    typer.Option("--servers-dir", envvar="ENVFACTORY_SERVERS_DIR", help="Where generated server packages live."),
]


def _settings(servers_dir: Path) -> Settings:
    return Settings(servers_dir=servers_dir)


def _fail(exc: Exception) -> typer.Exit:
    from rich.console import Console

    Console(stderr=True).print(f"[bold red]error:[/] {exc}")
    return typer.Exit(code=1)


@app.command("list")
def list_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    servers_dir: ServersDir = Path("generated_servers"),
) -> None:
    """List environments: name, domain, tool and table counts, verification status."""
    from envfactory_mcp.catalog import list_environments

    entries = list_environments(_settings(servers_dir))
    if as_json:
        typer.echo(json.dumps([e.as_dict() for e in entries], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("name", "domain", "tools", "tables", "source", "emitted", "verification")
    for e in entries:
        table.add_row(e.name, e.domain, str(e.tools), str(e.tables), e.source, "yes" if e.emitted else "no", e.verification)
    Console().print(table)


@app.command()
def build(
    name: Annotated[str, typer.Argument(help="Blueprint to build, e.g. retail.")],
    seed: Annotated[Optional[int], typer.Option(help="Seed for the seed data (default: the blueprint's).")] = None,
    servers_dir: ServersDir = Path("generated_servers"),
) -> None:
    """Build a blueprint into a standalone MCP server package under <servers-dir>/<name>/."""
    from envfactory_mcp.blueprints import load_blueprint
    from envfactory_mcp.emit import render_package, write_package
    from envfactory_mcp.env import build_env

    settings = _settings(servers_dir)
    try:
        env = build_env(load_blueprint(name), seed)
        dest = write_package(render_package(env), settings.server_dir(name))
    except EnvFactoryError as exc:
        raise _fail(exc) from None
    rows = sum(len(r) for r in env.seed_state.values())
    typer.echo(
        f"built {name}: {len(env.spec.tools)} tools, {len(env.spec.tables)} tables, {rows} seed rows, "
        f"seed hash {env.seed_hash[:12]} -> {dest}"
    )


@app.command()
def serve(
    name: Annotated[str, typer.Argument(help="Environment to serve, e.g. retail.")],
    transport: Annotated[str, typer.Option(help="stdio or streamable-http.")] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port.")] = 8000,
    db: Annotated[Optional[Path], typer.Option(help="Keep state in this SQLite file across restarts.")] = None,
    control: Annotated[bool, typer.Option("--control", help="Expose the control.* tools for hosts.")] = False,
    log_level: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING or ERROR (to stderr).")] = "WARNING",
    servers_dir: ServersDir = Path("generated_servers"),
) -> None:
    """Serve a generated environment over MCP (stdio by default). Logs go to stderr only."""
    from envfactory_mcp.host.launch import import_server_module

    try:
        module = import_server_module(servers_dir, name)
    except EnvFactoryError as exc:
        raise _fail(exc) from None
    argv = ["--transport", transport, "--host", host, "--port", str(port), "--log-level", log_level]
    if db is not None:
        argv += ["--db", str(db)]
    if control:
        argv.append("--control")
    module.main(argv)


@app.command()
def demo(
    name: Annotated[str, typer.Argument(help="Blueprint to demonstrate.")] = "retail",
    servers_dir: ServersDir = Path("generated_servers"),
) -> None:
    """Build an environment, serve it over stdio and drive a scripted customer session against it."""
    import anyio
    from rich.console import Console

    from envfactory_mcp.demo import format_output, run_demo

    console = Console()
    try:
        result = anyio.run(run_demo, _settings(servers_dir), name)
    except EnvFactoryError as exc:
        raise _fail(exc) from None
    console.print(f"[bold]{result.env_name}[/] server package: {result.package_dir}")
    console.print(f"seed state hash: {result.state_hash_before}")
    for i, call in enumerate(result.calls, 1):
        mark = "[red]error[/]" if call.is_error else "[green]ok[/]"
        console.print(f"\n[bold]{i}. {call.tool}[/]({json.dumps(call.arguments)}) -> {mark}")
        console.print(format_output(call.output), markup=False, highlight=False)
    console.print(f"\nfinal state hash: {result.state_hash_after}")
    console.print("[bold]state diff[/] (inserted / deleted / updated rows per table):")
    console.print_json(json.dumps(result.diff))


def main() -> None:
    app()
