"""The Typer app and what every command shares: the servers folder option, settings, errors."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.core

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.settings import Settings

if TYPE_CHECKING:
    from envfactory_mcp.env import Environment
    from envfactory_mcp.host.config import ConfigError
    from envfactory_mcp.packages import RunPermission


def _no_flag_metavar(params: list[Any]) -> None:
    """On/off flags take no value, but typer labels them ``<bool>`` in ``--help``."""
    for param in params:
        if getattr(param, "is_flag", False):  # typer's own (vendored) click Option
            param.metavar = ""


class _HelpWithoutFlagTypes:
    """Mixed into the app's command and group classes: ``--help`` shows no value type."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        _no_flag_metavar([option])
        return option


class _Command(_HelpWithoutFlagTypes, typer.core.TyperCommand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _no_flag_metavar(self.params)

    def invoke(self, ctx: Any) -> Any:
        if not getattr(self.callback, "starts_itself", False):
            _resume_collection()  # its start-up ends here (``own_process``)
        return super().invoke(ctx)


class _Group(_HelpWithoutFlagTypes, typer.core.TyperGroup):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _no_flag_metavar(self.params)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **kwargs: Any,
    ) -> Any:
        """Run as click does, but a mistake in the command line (typer's parsing errors:
        an unknown option, a value not among the choices) is one line on stderr, like the
        errors the commands raise themselves (``usage``), never a box that wraps at the
        terminal's width; exit code 2 as click's."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **kwargs)
        from typer import _click  # typer vendors its own click
        from typer.exceptions import Abort

        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **kwargs)
        except _click.exceptions.NoArgsIsHelpError as exc:
            exc.show()  # the help, as click shows it
            sys.exit(exc.exit_code)
        except _click.exceptions.ClickException as exc:
            ctx = getattr(exc, "ctx", None)
            hint = f" (see {ctx.command_path} --help)" if ctx is not None else ""
            line = " ".join(exc.format_message().split())
            _echo_error(f"{line}{hint}")
            sys.exit(exc.exit_code)
        except Abort:
            _echo_error("aborted")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


class _App(typer.Typer):
    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", _Command)
        return super().command(*args, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command line. Typer builds every command's options from its signature
        before it parses anything (about 45 ms for all of them, at every start); when the
        first argument names a command, only that one is built, in a group of one, so
        ``serve`` starts sooner. Anything else (``--help``, a typo) builds them all."""
        argv = sys.argv[1:] if not args and "args" not in kwargs else None
        if argv and not argv[0].startswith("-") and not self.registered_groups:
            import copy

            from typer.main import get_command_name, get_group

            wanted = [
                info
                for info in self.registered_commands
                if (info.name or get_command_name(getattr(info.callback, "__name__", ""))) == argv[0]
            ]
            if len(wanted) == 1:
                one = copy.copy(self)
                one.registered_commands = wanted
                for info in (*wanted, self.registered_callback):
                    if info is not None and info.callback is not None:
                        _evaluate_annotations(info.callback)
                return get_group(one)(*args, **kwargs)
        return super().__call__(*args, **kwargs)


def _evaluate_annotations(callback: Callable[..., Any]) -> None:
    """Evaluate a command's parameter annotations once (issue 32). They are strings here
    (``from __future__ import annotations``), and typer evaluates every one of them each
    time it reads the signature (``typer.utils.get_params_from_function``: ``inspect.signature``
    with ``eval_str`` and ``typing.get_type_hints``, six readings for one command: ~176
    evaluations for ``rollout``'s 38 parameters, ~7 ms at every start). The function keeps
    what the strings evaluate to, in the same module's names, which is what typer read."""
    import inspect

    annotations = getattr(callback, "__annotations__", None)
    if isinstance(annotations, dict) and any(isinstance(value, str) for value in annotations.values()):
        callback.__annotations__ = inspect.get_annotations(callback, eval_str=True)


app = _App(
    name="envfactory-mcp",
    cls=_Group,
    help="Manufacture verified, stateful MCP tool environments for training and evaluating agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def version_line() -> str:
    """``envfactory-mcp 0.1.0 (runtime 1.0.0 sha256:abcdef123456, Python 3.11.7)``: what
    ``--version`` prints, and what a bug report should quote."""
    import platform

    from envfactory_mcp import __version__
    from envfactory_mcp.emit.render import runtime_digest
    from envfactory_mcp.runtime.version import RUNTIME_VERSION

    digest = runtime_digest().removeprefix("sha256:")[:12]
    return f"envfactory-mcp {__version__} (runtime {RUNTIME_VERSION} sha256:{digest}, Python {platform.python_version()})"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print envfactory-mcp's version, its server runtime's version and digest, and Python's.",
        ),
    ] = False,
) -> None:
    """Manufacture verified, stateful MCP tool environments for training and evaluating agents."""


def _servers_dir(ctx: typer.Context, param: typer.CallbackParam, value: Path) -> Path:
    """``--servers-dir`` as given (or ``ENVFACTORY_SERVERS_DIR``), else ``default_servers_dir()``."""
    from envfactory_mcp.packages import default_servers_dir

    # Compared by name: typer vendors its own click, whose ParameterSource is another enum.
    source = ctx.get_parameter_source(param.name) if param.name else None
    if source is None or source.name == "DEFAULT":
        return default_servers_dir()
    return value.resolve()


ServersDir = Annotated[
    Path,
    typer.Option(
        "--servers-dir",
        envvar="ENVFACTORY_SERVERS_DIR",
        callback=_servers_dir,
        show_default="./generated_servers if it exists, else the checkout's, else the per-user data dir",
        help="Where generated server packages live.",
    ),
]


AllowUnverified = Annotated[
    bool,
    typer.Option(
        "--allow-unverified",
        help="Run a package whose verification report is missing, failed or stale (development only; "
        "its code was not checked in the sandbox). Prints a warning.",
    ),
]


Trust = Annotated[
    bool,
    typer.Option(
        "--trust",
        help="Run a package's tool code in this process although it was not shipped with envfactory-mcp "
        "(synthesised, imported or edited code runs jailed otherwise). Only for code you have read.",
    ),
]


def settings(servers_dir: Path) -> Settings:
    return Settings(servers_dir=servers_dir)


def _echo_error(message: str) -> None:
    """``error: message`` on stderr, on one line however wide the terminal."""
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True).print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)


def fail(exc: Exception) -> typer.Exit:
    """Print ``exc`` as a one-line error on stderr; raise the returned Exit."""
    _echo_error(str(exc))
    return typer.Exit(code=1)


def usage(message: str) -> typer.Exit:
    """Print ``message`` as a one-line error; return an Exit with code 2: a mistake in the
    command line (an option missing, two that do not go together, a value not among the
    choices), as typer's own parsing errors are."""
    fail(EnvFactoryError(message))
    return typer.Exit(code=2)


def config_usage(exc: ConfigError, flags: Mapping[str, str]) -> typer.Exit:
    """A configuration's refusal (``host.config.ConfigError``) as a usage error (exit 2)
    in the command line's words: each field named by its flag."""
    names = {field: flags.get(field, "--" + field.replace("_", "-")) for field in exc.fields.values()}
    return usage(exc.said(names))


Overwrite = Annotated[bool, typer.Option("--overwrite", help="Replace -o if it exists.")]


def refuse_existing(output: Path, overwrite: bool) -> None:
    """A command's -o file must not exist unless ``--overwrite``, and is never a folder."""
    if output.is_dir():
        raise fail(EnvFactoryError(f"-o {output}: a folder; -o names the file to write"))
    if output.exists() and not overwrite:
        raise fail(
            EnvFactoryError(f"-o {output}: exists; add --overwrite to replace it, or choose another -o")
        )


def permit(folder: Path, allow_unverified: bool, trust: bool = False, jail: bool = False) -> RunPermission:
    """The package in ``folder`` may run, and how (``packages.check_runnable``): raises
    ``UnverifiedPackageError`` unless it has a passing, current verification report or
    ``allow_unverified`` (then a loud warning goes to stderr), and
    ``JailUnavailableError`` when it must run jailed and cannot."""
    from envfactory_mcp.packages import check_runnable

    permission = check_runnable(folder, allow_unverified=allow_unverified, trust=trust, jail=jail)
    warn_unverified([permission])
    return permission


_PROCESS = {"owned": False, "paused": False}  # ``own_process``


def own_process() -> None:
    """Said by ``cli.main`` (the ``envfactory-mcp`` command, ``python -m envfactory_mcp``):
    the command is the whole process, not a call inside another program (a test's
    ``CliRunner``), so it may tune the process's garbage collector (issue 32). Start-up
    (parsing the flags, the command's imports) makes many objects that live as long as
    the process and few cycles, so nothing is collected until it is over: when the
    command begins (``_Command.invoke``), or, for a command marked ``starts_itself``,
    when it says so (``started``)."""
    import gc

    _PROCESS["owned"] = True
    if gc.isenabled():
        gc.disable()
        _PROCESS["paused"] = True


def _resume_collection() -> None:
    if _PROCESS["paused"]:
        import gc

        _PROCESS["paused"] = False
        gc.enable()


def starts_itself(command: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a command that calls ``started`` once its own start-up is over (a rollout:
    after its imports, checks and task file, before its episodes)."""
    command.starts_itself = True  # type: ignore[attr-defined]
    return command


def skip_plugin_scan() -> None:
    """Spare pydantic its plugin search when no installed distribution declares a plugin
    (issue 32; said by ``rollout`` before its imports, when the command is the whole
    process: ``own_process``). The first model pydantic builds looks for plugins among the
    entry points of every installed distribution (``importlib.metadata``: ~14 ms, at every
    start); ``declares_pydantic_plugins`` reads the same ``entry_points.txt`` files for a
    ``[pydantic]`` group in ~3 ms, and only when it finds none for sure is pydantic told
    it has none, which is what its own search would have found."""
    if not _PROCESS["owned"]:
        return
    import pydantic.plugin._loader as loader

    if loader._plugins is None and declares_pydantic_plugins() is False:
        loader._plugins = {}


def declares_pydantic_plugins(path: Sequence[str] | None = None) -> bool | None:
    """Whether a distribution on ``path`` (default ``sys.path``) declares an entry point in
    the ``pydantic`` group, as ``importlib.metadata.distributions()`` finds them: the
    ``*.dist-info`` and ``*.egg-info`` folders of each folder on the path (the working
    folder for ``""``), each one's ``entry_points.txt`` read for a ``[pydantic]`` section.
    None when it cannot tell so cheaply (a zip or an egg on the path, another finder of
    distributions, a file it cannot read as importlib would): then pydantic searches."""
    import os
    from importlib.machinery import PathFinder

    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return None
    for entry in sys.path if path is None else path:
        root = os.fspath(entry) or "."
        if os.path.basename(root).lower().endswith(".egg"):
            return None
        try:
            names = os.listdir(root)
        except NotADirectoryError:
            return None  # a zip file: its distributions are read by importlib
        except OSError:
            continue  # importlib finds nothing there either
        for name in names:
            if not name.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(root, name, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
                continue  # importlib reads no entry points there
            except (OSError, ValueError):
                return None
            found = _declares_pydantic_group(text)
            if found is not False:
                return found
    return False


def _declares_pydantic_group(text: str) -> bool | None:
    """Whether an ``entry_points.txt`` holds an entry point of the ``pydantic`` group, read
    line by line as ``importlib.metadata`` reads it (``Sectioned``: stripped lines, ``#``
    comments and blank lines skipped, ``[name]`` naming the section with every bracket at
    either end stripped); None for a line importlib cannot read (no ``=``), where its
    search, and pydantic with it, fails as it would have."""
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        if "=" not in line:
            return None
        if section == "pydantic":
            return True
    return False


def started() -> None:
    """The command's start-up is over (its imports, its checks, its files read) and its
    long work begins. When the command is the whole process (``own_process``), what
    start-up made (modules, classes, schemas: nearly all of the process's objects) lives
    as long as the process, so the garbage collector stops scanning it (``gc.freeze``),
    and collection resumes for everything made after: a rollout's collections walk its
    episodes' objects, not every module."""
    if _PROCESS["owned"]:
        import gc

        gc.freeze()
        _resume_collection()


def warn_unverified(permissions: list[RunPermission]) -> None:
    """One loud line on stderr for each package allowed to run unverified."""
    if not any(permission.warning for permission in permissions):
        return  # without importing rich: ``serve`` starts faster
    from rich.console import Console
    from rich.markup import escape

    for permission in permissions:
        if permission.warning:
            Console(stderr=True).print(f"[bold red]WARNING:[/] {escape(permission.warning)}", soft_wrap=True)


def load_environment(
    name: str,
    servers_dir: Path,
    allow_unverified: bool = False,
    trust: bool = False,
    say: Callable[[str], None] | None = None,
) -> Environment:
    """The environment a command will serve (``catalog.load_environment``: the package
    ``<servers_dir>/<name>/`` when there is one, else the blueprint), saying which with
    ``say`` (default: a line on stderr), with the warning of a package allowed to run
    unverified (always printed)."""
    from envfactory_mcp.catalog import load_environment as resolve

    tell = say if say is not None else (lambda text: typer.echo(text, err=True))
    found = resolve(name, servers_dir, allow_unverified=allow_unverified, trust=trust)
    if found.permission is not None:
        warn_unverified([found.permission])
        how = "jailed" if found.permission.jailed else "in this process"
        tell(f"using the package {name} in {found.where} (its tools run {how})")
    else:
        tell(f"using the blueprint {name} (there is no package in {servers_dir})")
    return found.env
