"""The Typer app and what every command shares: the servers folder option, settings, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
    typer.Option(
        "--servers-dir", envvar="ENVFACTORY_SERVERS_DIR", help="Where generated server packages live."
    ),
]


def settings(servers_dir: Path) -> Settings:
    return Settings(servers_dir=servers_dir)


def fail(exc: Exception) -> typer.Exit:
    """Print ``exc`` as a one-line error on stderr; raise the returned Exit."""
    from rich.console import Console

    Console(stderr=True).print(f"[bold red]error:[/] {exc}")
    return typer.Exit(code=1)
