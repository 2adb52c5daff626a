"""The Typer app and what every command shares: the servers folder option, settings, errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.settings import Settings

if TYPE_CHECKING:
    from envfactory_mcp.env import Environment

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
    from rich.markup import escape

    Console(stderr=True).print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)  # one line per error
    return typer.Exit(code=1)


def load_environment(name: str, servers_dir: Path) -> Environment:
    """The environment a rollout will serve: the verified package ``<servers_dir>/<name>/``
    when there is one (tasks then match its seed, whatever ``build --seed`` made), else the
    blueprint by that name."""
    from envfactory_mcp.blueprints import blueprint_names, load_blueprint
    from envfactory_mcp.env import build_env, load_package_env

    package = servers_dir / name
    if package.is_dir():
        try:
            return load_package_env(package)
        except EnvFactoryError:
            if name not in blueprint_names():
                raise
    if name in blueprint_names():
        return build_env(load_blueprint(name))
    raise EnvFactoryError(
        f"{name!r} is neither a blueprint ({', '.join(blueprint_names())}) nor a package in {servers_dir}/"
    )
