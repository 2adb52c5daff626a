"""The command line's values are read without a pydantic validator per option (issue 32,
``cli/params.py``): ``QuickCoercion`` gives what typer's own adapter gives, value for value
and error for error, and a command's start-up builds none of typer's adapters."""

from __future__ import annotations

import enum
import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
import typer

typer_coercion = pytest.importorskip("typer._coercion")
if not hasattr(typer_coercion, "build_runtime_param"):  # a typer with click's own types
    pytest.skip("this typer converts values with click's types", allow_module_level=True)

from envfactory_mcp.cli.params import QuickCoercion, kind_of  # noqa: E402


class Colour(enum.StrEnum):
    red = "red"
    dark_blue = "dark-blue"


def _command(tmp: Path) -> Any:
    app = typer.Typer(add_completion=False)

    @app.command()
    def every(
        word: Annotated[str, typer.Argument()],
        maybe: Annotated[str | None, typer.Option()] = None,
        count: Annotated[int, typer.Option(min=1)] = 1,
        bounded: Annotated[int, typer.Option(min=-3, max=5)] = 0,
        anyint: Annotated[int, typer.Option()] = 0,
        clamped: Annotated[int, typer.Option(min=0, max=3, clamp=True)] = 0,
        share: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.1,
        timeout: Annotated[float | None, typer.Option(min=0.001)] = None,
        anyfloat: Annotated[float, typer.Option()] = 300,
        flag: Annotated[bool, typer.Option("--flag")] = False,
        colour: Annotated[Colour, typer.Option()] = Colour.red,
        loose: Annotated[Colour, typer.Option(case_sensitive=False)] = Colour.red,
        backend: Annotated[Literal["local", "ray"], typer.Option()] = "local",
        path: Annotated[Path, typer.Option()] = Path("x.jsonl"),
        existing: Annotated[Path | None, typer.Option(exists=True, dir_okay=False)] = None,
        resolved: Annotated[Path | None, typer.Option(resolve_path=True)] = None,
        urls: Annotated[list[str] | None, typer.Option()] = None,
        paths: Annotated[list[Path] | None, typer.Option()] = None,
    ) -> None:
        pass

    command = typer.main.get_command(app)
    return command


STRINGS = ["", "a", "retail,clinic", " spaced ", "0", "-1", "x\x00y", "é", "a\udcffb"]
NUMBERS = ["0", "1", "5", "6", "-3", "-4", "007", "-0", "+5", " 5", "5.0", "1_000", "٣", "1e3", "nan",
           "inf", "-inf", "0.5", "1.0", "1.5", "0.0001", "0.001", "abc", "99999999999999999999", ""]  # fmt: skip
OBJECTS = [0, 1, 5, -4, 0.1, 0.0, 1.0, 300, 2**60, float("nan"), float("inf"), True, False, None]


def _values(name: str, tmp: Path) -> list[Any]:
    a_file = tmp / "a.txt"
    a_file.write_text("x")
    paths = ["x.jsonl", "", "-", str(tmp), str(a_file), str(tmp / "missing"), "a//b/", "~", "x\x00y"]
    paths += ["a\udcffb", str(a_file) + "/"]
    by_name: dict[str, list[Any]] = {
        "path": [*paths, Path("x.jsonl"), tmp, 3],
        "existing": [*paths, a_file, tmp],
        "resolved": [*paths, Path("rel")],
        "colour": ["red", "RED", "dark-blue", "blue", Colour.red, Colour.dark_blue, 1, ""],
        "loose": ["red", "RED", "Dark-Blue", "blue", Colour.dark_blue],
        "backend": ["local", "ray", "LOCAL", "x", ""],
        "urls": [(), ("a=b",), ["a", "b"], ("a", 3), "a=b", []],
        "paths": [(), ("a",), [Path("a"), "b"]],
        "flag": [True, False, "true", "1", "no", ""],
    }
    return by_name.get(name, [*STRINGS, *NUMBERS, *OBJECTS])


def _outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        result = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as exc:  # noqa: BLE001 - the error is part of what must agree
        return "error", (type(exc).__name__, str(exc))
    if isinstance(result, float) and result != result:
        return "nan", type(result)
    return "value", (
        result,
        type(result),
        [type(item) for item in result] if isinstance(result, list) else None,
    )


def test_every_value_is_read_as_typers_own_adapter_reads_it(tmp_path: Path) -> None:
    command = _command(tmp_path)
    ctx = command.make_context("every", ["w"], resilient_parsing=True)
    checked = 0
    for param in command.params:
        descriptor = param.type_descriptor
        quick = QuickCoercion(descriptor, kind_of(descriptor))
        for value in _values(param.name, tmp_path):
            real = typer_coercion.build_runtime_param(descriptor)
            assert _outcome(quick, value, param, ctx) == _outcome(real, value, param, ctx), (
                param.name,
                value,
            )
            checked += 1
    assert checked > 300


def test_the_kinds_read_quickly() -> None:
    command = _command(Path("."))
    kinds = {param.name: kind_of(param.type_descriptor) for param in command.params}
    assert kinds == {
        "word": "str",
        "maybe": "str",
        "count": "int",
        "bounded": "int",
        "anyint": "int",
        "clamped": None,  # clamping is left to typer's adapter
        "share": "float",
        "timeout": "float",
        "anyfloat": "float",
        "flag": "bool",
        "colour": "choice",
        "loose": "choice",
        "backend": "choice",
        "path": "path",
        "existing": "path",
        "resolved": "path",
        "urls": "str_list",
        "paths": None,
    }


def test_a_value_it_cannot_read_for_certain_goes_to_typers_adapter_once(tmp_path: Path) -> None:
    command = _command(tmp_path)
    ctx = command.make_context("every", ["w"], resilient_parsing=True)
    count = next(param for param in command.params if param.name == "count")
    quick = QuickCoercion(count.type_descriptor, "int")
    assert quick.coerce("3", count, ctx) == 3 and quick._real is None
    assert quick.coerce("007", count, ctx) == 7 and quick._real is not None
    real = quick._real
    with pytest.raises(Exception, match="greater than or equal to 1"):
        quick.coerce("0", count, ctx)
    assert quick._real is real


# A command run as the ``envfactory-mcp`` command runs it, its callback replaced: which of
# typer's adapters its command line built, and what the command received.
PARSE = """
import sys
import typer._coercion as coercion
built = []
real = coercion.build_runtime_param
coercion.build_runtime_param = lambda descriptor: built.append(descriptor.annotation) or real(descriptor)
import envfactory_mcp.cli.runs as runs
from envfactory_mcp.cli import app
received = {}
info = next(info for info in app.registered_commands if info.callback.__name__ == "rollout")
import functools, inspect
@functools.wraps(info.callback)
def rollout(**kwargs):
    received.update(kwargs)
rollout.__annotations__ = inspect.get_annotations(info.callback, eval_str=True)
info.callback = rollout
from envfactory_mcp.cli import main
sys.argv = ["envfactory-mcp", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print(repr(sorted((k, repr(v)) for k, v in received.items())))
print(built)
print("typer._adapters" in sys.modules)
"""


def test_the_rollout_command_line_builds_no_pydantic_validator(tmp_path: Path) -> None:
    args = ["rollout", "retail,clinic", "--tasks", "t.jsonl", "-o", str(tmp_path / "run")]
    args += [
        "--agent",
        "oracle",
        "--trials",
        "3",
        "--max-harness-failures",
        "0.5",
        "--temperature",
        "0",
        "--url",
        "a=b",
    ]
    args += ["--backend", "local", "--servers-dir", str(tmp_path)]
    done = subprocess.run([sys.executable, "-c", PARSE, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    received, built, adapters = done.stdout.strip().splitlines()[-3:]
    assert built == "[]"
    assert adapters == "False"
    values = dict(eval(received))  # our own repr of the values
    assert values["trials"] == "3" and values["max_harness_failures"] == "0.5"
    assert values["temperature"] == "0.0" and values["url"] == "['a=b']"
    assert values["agent"] == "<AgentKind.oracle: 'oracle'>" and values["backend"] == "'local'"
    assert values["output"] == repr(tmp_path / "run") and values["envs"] == "'retail,clinic'"
    assert values["servers_dir"] == repr(tmp_path.resolve())


def test_a_mistake_in_a_value_is_said_as_typer_says_it(tmp_path: Path) -> None:
    args = ["rollout", "retail", "--tasks", "t.jsonl", "-o", str(tmp_path / "run"), "--trials", "0"]
    done = subprocess.run([sys.executable, "-m", "envfactory_mcp", *args], capture_output=True, text=True)
    assert done.returncode == 2
    assert "--trials" in done.stderr and "greater than or equal to 1" in done.stderr


PLUGIN_SPY = """
import importlib.metadata as metadata, json, sys
scans = []
every = metadata.distributions
def distributions(*args, **kwargs):
    scans.append(1)
    return every(*args, **kwargs)
metadata.distributions = distributions
from envfactory_mcp.cli import main
from envfactory_mcp.cli.app import declares_pydantic_plugins
sys.argv = ["envfactory-mcp", *sys.argv[1:]]
try:
    main()
finally:
    import pydantic.plugin._loader as loader
    seen = {"scans": len(scans), "plugins": loader._plugins, "declared": declares_pydantic_plugins()}
    print(json.dumps(seen), file=sys.stderr)
"""


def test_tasks_spares_pydantic_its_plugin_search_when_nothing_declares_a_plugin(tmp_path: Path) -> None:
    from paths import SERVERS_DIR

    output = tmp_path / "tasks.jsonl"
    args = ["tasks", "retail", "-n", "2", "-o", str(output), "--no-pool-cache", "-q"]
    args += ["--servers-dir", str(SERVERS_DIR)]
    done = subprocess.run(
        [sys.executable, "-c", PLUGIN_SPY, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(output.read_text().splitlines()) == 2
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    if seen["declared"] is not False:
        pytest.skip(f"this interpreter's distributions may declare pydantic plugins ({seen['declared']})")
    assert seen == {"scans": 0, "plugins": {}, "declared": False}  # what the search would have found
