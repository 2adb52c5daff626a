"""Issue 30, item 5: a thin CLI. Fixed choices are enums defined once beside what
implements them and used by typer (``--help`` lists them, any other value is typer's
usage error) and by the configuration types; what the flags may hold together is checked
by ``RolloutConfig`` / ``EvalConfig`` (``ConfigError``, one line naming the fields), which
the command line says with its flags' names (exit 2, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest
from paths import SERVERS_DIR
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.cli.environments import GraphFormat, LogLevel, ServeTransport
from envfactory_mcp.cli.runs import ROLLOUT_FLAGS, ExportFormat
from envfactory_mcp.cli.tasks import Sampler
from envfactory_mcp.eval.config import EvalAgent, EvalConfig, EvalTransport
from envfactory_mcp.host.config import AgentKind, ConfigError, RolloutConfig, RolloutTransport, UserKind
from envfactory_mcp.tasks.generate import SamplerName
from envfactory_mcp.trajectories.export import FORMATS


def invoke(*args: str, columns: int = 80) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns)})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:") or "Invalid value" in line]


# (command line, option, the enum whose values are its choices)
CHOICES: list[tuple[list[str], str, Any]] = [
    (["rollout", "retail", "--tasks", "t.jsonl", "-o", "run"], "--agent", AgentKind),
    (["rollout", "retail", "--tasks", "t.jsonl", "-o", "run"], "--user", UserKind),
    (["rollout", "retail", "--tasks", "t.jsonl", "-o", "run"], "--transport", RolloutTransport),
    (["eval", "--envs", "crm", "-o", "ev"], "--agent", EvalAgent),
    (["eval", "--envs", "crm", "-o", "ev"], "--user", UserKind),
    (["eval", "--envs", "crm", "-o", "ev"], "--transport", EvalTransport),
    (["serve", "retail"], "--transport", ServeTransport),
    (["serve", "retail"], "--log-level", LogLevel),
    (["tasks", "retail", "-o", "t.jsonl"], "--sampler", Sampler),
    (["graph", "retail"], "--format", GraphFormat),
    (["export", "run"], "--format", ExportFormat),
]


@pytest.mark.parametrize(
    ("args", "option", "kinds"), CHOICES, ids=lambda v: v if isinstance(v, str) else None
)
def test_a_value_out_of_the_choices_is_typers_usage_error(
    args: list[str], option: str, kinds: Any, tmp_path: Path
):
    where = [str(tmp_path / a) if a in ("t.jsonl", "run", "ev") else a for a in args]
    servers = [] if args[0] == "export" else ["--servers-dir", str(tmp_path / "servers")]  # reads a run only
    code, output = invoke(*where, option, "wizard", *servers)
    assert code == 2, output
    (said,) = error_lines(output)
    assert f"Invalid value for '{option}'" in said and "'wizard'" in said, said
    choices = [kind.value.lower() if kinds is LogLevel else kind.value for kind in kinds]
    assert all(f"'{choice}'" in said for choice in choices), said
    # One line, as the commands' own usage errors, pointing at the command's help.
    assert output.splitlines() == [said] and said.startswith("error: "), output
    assert said.endswith(f"(see envfactory-mcp {args[0]} --help)"), said
    assert not any(path.exists() for path in tmp_path.iterdir()), list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("args", "option", "kinds"), CHOICES, ids=lambda v: v if isinstance(v, str) else None
)
def test_help_lists_the_choices_of_the_enum(args: list[str], option: str, kinds: Any):
    code, output = invoke(args[0], "--help", columns=300)  # the help's table unwrapped
    assert code == 0
    row = next(line for line in output.splitlines() if f" {option} " in line)
    choices = [kind.value.lower() if kinds is LogLevel else kind.value for kind in kinds]  # any case
    assert f"<{'|'.join(choices)}>" in row, row


def test_the_agent_kinds_are_the_agents_the_host_builds(retail_tasks: Any):
    from envfactory_mcp.host.rollout import make_agent

    (task,) = retail_tasks(1, seed=0)
    built = {}
    for kind in AgentKind:
        config = RolloutConfig(
            envs=["retail"],
            tasks_path="t.jsonl",
            agent=kind,
            agent_model="openai/m" if kind is AgentKind.llm else None,
            servers_dir=str(SERVERS_DIR),
        )
        built[kind] = type(make_agent(config, task)).__name__
    assert len(set(built.values())) == len(AgentKind), built  # one agent class per kind
    assert set(EvalAgent) >= set(AgentKind) and {"coinflip", "skip-read"} <= set(EvalAgent)


def test_the_spelled_choices_cover_what_they_name():
    assert {sampler.generator_name for sampler in Sampler} == set(get_args(SamplerName))
    assert {t.host_name for t in RolloutTransport} == {"stdio", "http", "memory"}


def test_serve_choices_are_the_runtimes_own():
    """The runtime cannot import this package; its argparse choices and serve's enums agree."""
    from envfactory_mcp.runtime.cli import parse_args

    for transport in ServeTransport:
        assert parse_args("x", ["--transport", transport.value]).transport == transport.value
    for level in LogLevel:
        assert parse_args("x", ["--log-level", level.value]).log_level == level.value
    for option in ("--transport", "--log-level"):
        with pytest.raises(SystemExit):
            parse_args("x", [option, "wizard"])


# (RolloutConfig's fields, the rollout command's flags for the same mistake, what both say)
ROLLOUT_MISTAKES: list[tuple[dict[str, Any], list[str], str]] = [
    ({"agent": "llm"}, ["--agent", "llm"], "{agent} llm needs {agent_model}"),
    ({"user": "llm"}, ["--user", "llm"], "{user} llm needs {user_model}"),
    ({"agent_temperature": 0.2}, ["--temperature", "0.2"], "{agent_temperature} apply to an llm agent only"),
    ({"user_max_tokens": 9}, ["--user-max-tokens", "9"], "{user_max_tokens} apply to an llm user only"),
    ({"agent_args": '{"top_p": 1}'}, ["--agent-args", '{"top_p": 1}'], "{agent_args} apply to an llm agent only"),
    ({"user_args": {"timeout": 5.0}}, ["--user-timeout", "5"], "{user_timeout} applies to a user with a model"),
    ({"agent": "llm", "agent_model": "m", "agent_args": "{oops"}, ["--agent", "llm", "--agent-model", "m",
      "--agent-args", "{oops"], "{agent_args}: not valid JSON"),
    ({"agent": "llm", "agent_model": "m", "agent_args": "[1]"}, ["--agent", "llm", "--agent-model", "m",
      "--agent-args", "[1]"], "{agent_args}: expected a JSON object"),
    ({"agent": "llm", "agent_model": "m", "agent_args": {"timeout": -1}}, ["--agent", "llm", "--agent-model", "m",
      "--agent-args", '{"timeout": -1}'], "{agent_args}: timeout must be a number of seconds above 0"),
    ({"agent": "llm", "agent_model": "m", "agent_max_tokens": 5, "agent_args": {"max_tokens": 9}},
     ["--agent", "llm", "--agent-model", "m", "--max-tokens", "5", "--agent-args", '{"max_tokens": 9}'],
     "{agent_max_tokens} and max_tokens in {agent_args}: give one"),
    ({"episode_timeout_s": 0.0}, ["--episode-timeout", "0"], "{episode_timeout_s} must be more than 0 seconds"),
    ({"transport": "streamable-http"}, ["--transport", "streamable-http"], "{transport} streamable-http needs {urls} retail=URL"),
    ({"ray_address": "auto"}, ["--address", "auto"], "{ray_address} goes with {backend} ray"),
    ({"reward_basis": ("state", "luck")}, ["--reward-basis", "state,luck"], "{reward_basis}: unknown ['luck']"),
    ({"task_ids": ()}, ["--task-ids", " , "], "{task_ids}: give task ids"),
]  # fmt: skip


def _library(name: str) -> str:
    """A field as RolloutConfig names it (a request deadline is held in the model's args)."""
    return {"user_timeout": "user_args['timeout']", "agent_timeout": "agent_args['timeout']"}.get(name, name)


def _flag(name: str) -> str:
    return ROLLOUT_FLAGS.get(_library(name), "--" + name.replace("_", "-"))


def _fields(template: str) -> dict[str, str]:
    import string

    return {name: _library(name) for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize(("fields", "flags", "says"), ROLLOUT_MISTAKES)
def test_rollout_config_refuses_a_mistake_in_one_line_naming_its_fields(
    fields: dict[str, Any], flags: list[str], says: str
):
    with pytest.raises(ConfigError) as caught:
        RolloutConfig(envs=["retail"], tasks_path="t.jsonl", **fields)
    error = caught.value
    assert isinstance(error, ValueError)  # a library user's ordinary refusal of a value
    text = str(error)
    assert "\n" not in text and says.format_map(_fields(says)) in text, text
    assert set(_fields(says).values()) <= set(error.fields.values()), error.fields


@pytest.mark.parametrize(("fields", "flags", "says"), ROLLOUT_MISTAKES)
def test_the_rollout_command_says_the_same_rule_with_its_flags(
    fields: dict[str, Any], flags: list[str], says: str, tmp_path: Path
):
    tasks = tmp_path / "t.jsonl"
    tasks.write_text("", encoding="utf-8")
    code, output = invoke("rollout", "retail", "--tasks", str(tasks), "-o", str(tmp_path / "run"),
                          "--servers-dir", str(SERVERS_DIR), *flags)  # fmt: skip
    assert code == 2, output
    (said,) = error_lines(output)
    expected = says.format_map({name: _flag(name) for name in _fields(says)})
    assert said.startswith("error: ") and expected in said, (said, expected)
    assert not (tmp_path / "run").exists()


def test_enum_members_and_plain_words_make_the_same_recorded_run(tmp_path: Path):
    tasks = tmp_path / "t.jsonl"
    tasks.write_text("{}\n", encoding="utf-8")
    words = RolloutConfig(envs=["retail"], tasks_path=str(tasks), agent="llm", agent_model="m", user="scripted",
                          transport="http", urls={"retail": "http://127.0.0.1:1/mcp"},
                          agent_args={"temperature": 0})  # fmt: skip
    members = RolloutConfig(envs=["retail"], tasks_path=str(tasks), agent=AgentKind.llm, agent_model="m",
                            user=UserKind.scripted, transport=RolloutTransport.streamable_http.host_name,
                            urls={"retail": "http://127.0.0.1:1/mcp"},
                            agent_args='{"temperature": 0}')  # type: ignore[arg-type]  # JSON text, read at construction  # fmt: skip
    assert words == members
    recorded = json.loads(json.dumps(members.metadata("r")))
    assert recorded == words.metadata("r")
    assert (recorded["agent"], recorded["user"], recorded["transport"]) == ("llm", "scripted", "http")
    assert type(members.agent) is str and members.agent_args == {"temperature": 0}


# (EvalConfig's fields, the eval command's flags, what both say)
EVAL_MISTAKES: list[tuple[dict[str, Any], list[str], str]] = [
    ({"agent": "llm"}, ["--agent", "llm"], "{agent} llm needs {agent_model}"),
    ({"user": "llm"}, ["--user", "llm"], "{user} llm needs {user_model}"),
    ({"judge_timeout": 5.0}, ["--judge-timeout", "5"], "{judge_timeout} applies to a judge with a model ({judge_model})"),
    ({"agent_timeout": 5.0}, ["--agent-timeout", "5"], "{agent_timeout} applies to an agent with a model"),
    ({"agent_temperature": 0.5}, ["--agent-temperature", "0.5"], "{agent_temperature} apply to an llm agent only"),
    ({"envs": []}, ["--envs", ","], "{envs} names no server"),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "flags", "says"), EVAL_MISTAKES)
def test_eval_config_and_the_eval_command_say_the_same_rule(
    fields: dict[str, Any], flags: list[str], says: str, tmp_path: Path
):
    with pytest.raises(ConfigError) as caught:
        EvalConfig(**{"envs": ["crm"], **fields})
    names = {name: name for name in _fields(says)}  # EvalConfig holds each deadline in a field of its own
    assert says.format_map(names) in str(caught.value) and "\n" not in str(caught.value)
    args = ["eval", *(["--envs", "crm"] if "--envs" not in flags else []), *flags, "-o", str(tmp_path / "ev")]
    code, output = invoke(*args, "--servers-dir", str(SERVERS_DIR))
    assert code == 2, output
    (said,) = error_lines(output)
    assert says.format_map({name: "--" + name.replace("_", "-") for name in _fields(says)}) in said, said
    assert not (tmp_path / "ev").exists()


def test_eval_config_widens_the_rollouts_agents_to_its_own():
    """eval plays its scorer checks through the host's rollout; the host's own refuses them."""
    from envfactory_mcp.eval.main import _EvalRollout

    assert _EvalRollout(envs=["crm"], tasks_path="t.jsonl", agent="coinflip").agent == "coinflip"
    with pytest.raises(ConfigError, match="agent 'coinflip': choose one of demonstrator"):
        RolloutConfig(envs=["crm"], tasks_path="t.jsonl", agent="coinflip")
    assert (
        EvalConfig(envs=["crm"], agent=EvalAgent("skip-read"), transport=EvalTransport.stdio).agent
        == "skip-read"
    )


def test_export_formats_are_the_exporters():
    """``ExportFormat`` lives in the CLI so that it starts without the exporter: the same set."""
    assert tuple(kind.value for kind in ExportFormat) == FORMATS
