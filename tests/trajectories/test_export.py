"""Exports to trainer formats, from records of a real in-memory rollout of retail tasks
(an oracle run that solves every task, a noop run that solves none)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.catalog import package_spec
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.store import read_records
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.passk import summarize
from envfactory_mcp.tasks.model import write_tasks
from envfactory_mcp.trajectories.export import (
    FORMATS,
    ExportStats,
    export_records,
    export_run,
    llamafactory_dataset_info,
)

POLICY = "You are a retail support agent. Authenticate the user first."


@dataclass
class Runs:
    oracle_dir: Path
    noop_dir: Path
    oracle: list[TrajectoryRecord]
    noop: list[TrajectoryRecord]


@pytest.fixture(scope="module")
def runs(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    root = tmp_path_factory.mktemp("export")
    tasks = retail_tasks(6, seed=3)
    write_tasks(tasks, root / "tasks.jsonl")
    dirs = {}
    for agent in ("oracle", "noop"):
        config = RolloutConfig(
            envs=["retail"],
            tasks_path=str(root / "tasks.jsonl"),
            servers_dir=str(SERVERS_DIR),
            transport="memory",
            agent=agent,
        )
        dirs[agent] = root / "runs" / agent
        anyio.run(rollout, config, dirs[agent])
    oracle, noop = (sorted(read_records(dirs[a]), key=lambda r: r.key) for a in ("oracle", "noop"))
    assert len(oracle) == len(noop) == 6
    assert all(r.reward == 1.0 for r in oracle) and all(r.reward == 0.0 for r in noop)
    assert any(_two_calls_first(r.messages) for r in oracle)
    return Runs(dirs["oracle"], dirs["noop"], oracle, noop)


def _two_calls_first(messages: list[dict[str, Any]]) -> bool:
    """Whether ``messages`` open with the user, then a call and its result twice."""
    roles = [m["role"] for m in messages[:5]]
    return roles == ["user", "assistant", "tool", "assistant", "tool"] and all(
        messages[i].get("tool_calls") for i in (1, 3)
    )


def export(records: list[TrajectoryRecord], fmt: str, **kw: Any) -> tuple[list[dict[str, Any]], ExportStats]:
    """Export with the stats checked. Ungrounded episodes are allowed unless ``kw`` says
    otherwise: the scripted oracle replays gold calls without asking the user anything,
    which is what the grounding filter (tested below) is for, not what the format tests are about."""
    kw.setdefault("allow_ungrounded", True)
    stats = ExportStats()
    examples = list(export_records(records, fmt, stats=stats, **kw))
    skipped = sum(stats.skipped.values())
    filtered = stats.filtered_by_reward + stats.excluded + stats.ungrounded + stats.policy_violations
    accounted = stats.exported + filtered + stats.deduplicated + skipped
    assert stats.seen == len(records) == accounted
    assert stats.exported == len(examples)
    return examples, stats


def with_malformed_call(record: TrajectoryRecord) -> TrajectoryRecord:
    """The record with the arguments of its first tool call replaced by ``{bad``."""
    messages = json.loads(json.dumps(record.messages))
    first = next(m for m in messages if m.get("tool_calls"))
    first["tool_calls"][0]["function"]["arguments"] = "{bad"
    return record.model_copy(update={"messages": messages})


def test_openai(runs: Runs):
    examples, stats = export(runs.oracle, "openai", system_prompt=POLICY)
    assert stats.exported == 6
    for example, record in zip(examples, runs.oracle, strict=True):
        assert set(example) == {"messages", "tools"} and example["tools"] == record.tools
        messages = example["messages"]
        assert messages[0] == {"role": "system", "content": POLICY}
        assert messages[1] == record.messages[0]  # the user's opening
        called: set[str] = set()
        for message in messages[1:]:
            assert message["role"] in ("user", "assistant", "tool")
            if message["role"] == "assistant":
                assert message["weight"] == 1
                for call in message.get("tool_calls", []):
                    assert call["type"] == "function" and isinstance(call["function"]["arguments"], str)
                    assert isinstance(json.loads(call["function"]["arguments"]), dict)
                    called.add(call["id"])
            elif message["role"] == "tool":
                assert set(message) == {"role", "tool_call_id", "content"}
                assert message["tool_call_id"] in called
            else:
                assert "weight" not in message
        # "Thanks, that's all. ###STOP###" keeps its text, loses the token
        assert record.messages[-1]["content"].endswith("###STOP###")
        assert messages[-1] == {"role": "user", "content": "Thanks, that's all."}
    plain, _ = export(runs.oracle, "openai")
    assert plain[0]["messages"][0]["role"] == "user"


def test_stop_only_final_message_is_dropped(runs: Runs):
    examples, _ = export(runs.noop, "openai", min_reward=None)
    assert len(examples) == 6
    for example, record in zip(examples, runs.noop, strict=True):
        assert record.messages[-1] == {"role": "user", "content": "###STOP###"}
        assert len(example["messages"]) == len(record.messages) - 1
        assert example["messages"][-1]["role"] == "assistant"
        assert all("###" not in str(m["content"]) for m in example["messages"])


def test_trl(runs: Runs):
    examples, _ = export(runs.oracle, "trl", system_prompt=POLICY)
    assert len(examples) == 6
    calls = 0
    for example in examples:
        assert set(example) == {"messages", "tools"}
        assert example["messages"][0]["role"] == "system"
        for message in example["messages"]:
            assert isinstance(message["content"], str)
            if message["role"] == "tool":
                assert set(message) == {"role", "name", "content"} and message["name"]
            for call in message.get("tool_calls", []):
                assert isinstance(call["function"]["arguments"], dict)
                calls += 1
    assert calls == sum(len(m.get("tool_calls") or []) for r in runs.oracle for m in r.messages)


def test_sharegpt(runs: Runs):
    examples, _ = export(runs.oracle, "sharegpt", system_prompt=POLICY)
    assert len(examples) == 6
    for example, record in zip(examples, runs.oracle, strict=True):
        assert example["system"] == POLICY
        tools = json.loads(example["tools"])
        assert [t["name"] for t in tools] == [t["function"]["name"] for t in record.tools]
        turns = example["conversations"]
        assert len(turns) % 2 == 0 and turns[-1]["from"] == "gpt"
        for i, turn in enumerate(turns):
            assert turn["from"] in (("human", "observation") if i % 2 == 0 else ("gpt", "function_call"))
            assert isinstance(turn["value"], str)
        function_calls = [json.loads(t["value"]) for t in turns if t["from"] == "function_call"]
        recorded = [c for m in record.messages for c in m.get("tool_calls") or []]
        assert [c["name"] for c in function_calls] == [c["function"]["name"] for c in recorded]
        assert all(isinstance(c["arguments"], dict) for c in function_calls)
    assert export(runs.oracle, "sharegpt")[0][0]["system"] == ""
    assert llamafactory_dataset_info("x.jsonl")["columns"]["messages"] == "conversations"


def test_sharegpt_parallel_calls_and_broken_alternation(runs: Runs):
    # an episode that opens with two calls in a row, each answered (the first greeting may
    # be words, a refusal's turn too: those are not what is merged here)
    record = next(r for r in runs.oracle if _two_calls_first(r.messages))
    user, a1, t1, a2, t2, *rest = record.messages
    merged = {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": a1["tool_calls"] + a2["tool_calls"],
    }
    parallel = record.model_copy(update={"messages": [user, merged, t1, t2, *rest]})
    (example,), _ = export([parallel], "sharegpt")
    kinds = [t["from"] for t in example["conversations"][:5]]
    assert kinds == ["human", "function_call", "observation", "function_call", "observation"]
    assert example["conversations"][2]["value"] == t1["content"]
    assert all(t["value"] != "Let me look." for t in example["conversations"])  # text dropped

    two_users = record.model_copy(update={"messages": [user, user, a1, t1, a2, t2, *rest]})
    examples, stats = export([two_users], "sharegpt")
    assert examples == [] and stats.skipped == {"sharegpt_alternation": 1}


def test_verl_one_row_per_task(runs: Runs):
    second_trials = [r.model_copy(update={"trial": 1}) for r in runs.oracle]
    rows, stats = export(runs.oracle + second_trials, "verl", system_prompt=POLICY)
    assert len(rows) == 6 and stats.deduplicated == 6
    assert [r["extra_info"]["task_id"] for r in rows] == [r.task_id for r in runs.oracle]
    for row, record in zip(rows, runs.oracle, strict=True):
        assert row["data_source"] == "envfactory/retail" and row["ability"] == "tool_use"
        assert row["prompt"] == [{"role": "system", "content": POLICY}, record.messages[0]]
        assert row["reward_model"] == {
            "style": "rule",
            "ground_truth": {"gold_state_hash": record.gold_state_hash, "task_id": record.task_id},
        }
        extra = row["extra_info"]
        assert extra["interaction_kwargs"] == {"name": "envfactory_user", "task_id": record.task_id}
        assert set(extra["tools_kwargs"]) == {t["function"]["name"] for t in record.tools}
        create = extra["tools_kwargs"]["calculate"]["create_kwargs"]
        assert create == {
            "env": "retail",
            "task_id": record.task_id,
            "initial_state_hash": record.initial_state_hash,
        }


@pytest.mark.parametrize("fmt", FORMATS)
def test_min_reward_filters_failed_episodes(runs: Runs, fmt: str):
    examples, stats = export(runs.noop, fmt)
    assert examples == [] and stats.filtered_by_reward == 6
    assert export(runs.noop, fmt, min_reward=0.0)[1].exported == 6
    assert export(runs.noop + runs.oracle, fmt, min_reward=0.5)[1].exported == 6


@pytest.mark.parametrize("fmt", FORMATS)
def test_excluded_episodes_are_not_exported(runs: Runs, fmt: str):
    failed = runs.oracle[0].model_copy(update={"termination": "infrastructure_error", "reward": None})
    for min_reward in (1.0, None):
        examples, stats = export([failed, *runs.oracle[1:]], fmt, min_reward=min_reward)
        assert len(examples) == 5 and stats.excluded == 1
    assert export([failed], fmt, include_excluded=True)[1].exported == 1


def test_malformed_tool_call(runs: Runs):
    bad = with_malformed_call(runs.oracle[0])
    (example,), _ = export([bad], "openai")
    assistants = [m for m in example["messages"] if m["role"] == "assistant"]
    assert assistants[0]["tool_calls"][0]["function"]["arguments"] == "{bad"
    assert assistants[0]["weight"] == 0 and all(m["weight"] == 1 for m in assistants[1:])
    for fmt in ("trl", "sharegpt"):
        examples, stats = export([bad, *runs.oracle[1:]], fmt)
        assert len(examples) == 5 and stats.skipped == {"malformed_tool_arguments": 1}


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_run_is_deterministic(runs: Runs, tmp_path: Path, fmt: str):
    first, second = tmp_path / "a" / "out.jsonl", tmp_path / "b.jsonl"
    kw: dict[str, Any] = {"system_prompt": POLICY, "allow_ungrounded": True}
    stats = export_run(runs.oracle_dir, fmt, first, **kw)
    assert stats.exported == 6 and stats == export_run(runs.oracle_dir, fmt, second, **kw)
    assert first.read_bytes() == second.read_bytes()
    rows = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6
    assert not list(tmp_path.rglob(".*"))  # no staging file left behind
    if fmt == "verl":  # sorted by task id, whatever order the rollout finished in
        assert [r["extra_info"]["task_id"] for r in rows] == sorted(r.task_id for r in runs.oracle)
    assert export_run(runs.noop_dir, fmt, first).exported == 0
    assert first.read_bytes() == b""


def test_read_records_is_read_only_and_tolerates_a_partial_line(runs: Runs, tmp_path: Path):
    run = tmp_path / "run"
    run.mkdir()
    lines = (runs.oracle_dir / "trajectories.jsonl").read_bytes().splitlines(keepends=True)
    data = b"".join(lines) + lines[0] + lines[1][:40]  # a duplicate, then a cut line
    (run / "trajectories.jsonl").write_bytes(data)
    assert len(read_records(run)) == 6
    assert (run / "trajectories.jsonl").read_bytes() == data and sorted(p.name for p in run.iterdir()) == [
        "trajectories.jsonl"
    ]
    (run / "trajectories.jsonl").write_bytes(lines[0] + b"{}\n" + lines[1])
    with pytest.raises(EnvFactoryError, match=":2: not a valid trajectory record"):
        read_records(run)
    with pytest.raises(EnvFactoryError, match="not a run directory"):
        read_records(tmp_path)
    with pytest.raises(EnvFactoryError, match="unknown export format"):
        export_records(runs.oracle, "alpaca")


# ---------------------------------------------------------------------- grounding


SPEC = load_blueprint("retail").build_spec(load_blueprint("retail").default_seed)


def conversation(opening: str, *, confirmed: bool = True) -> list[dict[str, Any]]:
    """Look the user up by email, then cancel an order from their account (after a yes)."""

    def call(i: int, name: str, **arguments: Any) -> dict[str, Any]:
        function = {"name": name, "arguments": json.dumps(arguments)}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": f"c{i}", "type": "function", "function": function}],
        }

    def tool(i: int, name: str, output: dict[str, Any]) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": f"c{i}", "name": name, "content": json.dumps(output)}

    asking = [
        {"role": "assistant", "content": "I will cancel #W0000007 (no longer needed). Shall I proceed?"},
        {"role": "user", "content": "Yes, go ahead."},
    ]
    return [
        {"role": "user", "content": opening},
        call(0, "find_user_id_by_email", email="ann.lee@example.com"),
        tool(0, "find_user_id_by_email", {"user_id": "user_000007"}),
        call(1, "get_user_details", user_id="user_000007"),
        tool(1, "get_user_details", {"user_id": "user_000007", "orders": ["#W0000007"]}),
        *(asking if confirmed else []),
        call(2, "cancel_pending_order", order_id="#W0000007", reason="no longer needed"),
        tool(2, "cancel_pending_order", {"status": "cancelled"}),
        {"role": "assistant", "content": "Done: the order is cancelled."},
        {"role": "user", "content": "Thanks. ###STOP###"},
    ]


def demonstrations(runs: Runs) -> dict[str, TrajectoryRecord]:
    """Three passing records: grounded and polite, with an invented email, and with a write
    the user never confirmed (rewards and parts as recorded by the rollout: the filter
    reads the messages when it has the spec)."""
    base = runs.oracle[0]
    cases = {
        "grounded": conversation("Hi, I'm Ann, ANN.LEE@example.com. Please cancel my pending order."),
        "invented": conversation("Hi, I'm Ann Lee. Please cancel my pending order."),
        "unconfirmed": conversation(
            "Hi, ann.lee@example.com here. Cancel my pending order.", confirmed=False
        ),
    }
    return {
        name: base.model_copy(
            update={"task_id": f"{base.task_id}-{name}", "messages": messages, "reward": 1.0}
        )
        for name, messages in cases.items()
    }


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_ungrounded_or_impolite_episode_is_left_out_unless_allowed(runs: Runs, fmt: str):
    records = demonstrations(runs)
    examples, stats = export(list(records.values()), fmt, allow_ungrounded=False, specs=[SPEC])
    assert (stats.exported, stats.ungrounded, stats.policy_violations) == (1, 1, 1)
    if fmt == "verl":
        assert [e["extra_info"]["task_id"] for e in examples] == [records["grounded"].task_id]
    kept, stats = export(list(records.values()), fmt, allow_ungrounded=True, specs=[SPEC])
    assert (len(kept), stats.ungrounded, stats.policy_violations) == (3, 0, 0)


def test_without_the_spec_the_recorded_reward_parts_decide(runs: Runs):
    records = demonstrations(runs)
    parts = records["invented"].reward_parts
    assert parts is not None
    flagged = records["invented"].model_copy(
        update={"reward_parts": parts.model_copy(update={"ungrounded_calls": 1})}
    )
    clean = records["invented"].model_copy(
        update={"reward_parts": parts.model_copy(update={"ungrounded_calls": 0, "policy_violations": []})}
    )
    # The filter has no spec here: it believes the parts, even of a record it could catch.
    examples, stats = export([flagged, clean], "openai", allow_ungrounded=False)
    assert (len(examples), stats.ungrounded) == (1, 1)


def test_the_rollout_records_grounding_and_policy_checks_with_the_package_spec(runs: Runs):
    from envfactory_mcp.scoring.grounding import ungrounded_calls
    from envfactory_mcp.scoring.policy import policy_violations

    spec = package_spec(SERVERS_DIR, "retail")
    assert spec is not None
    for record in runs.oracle:
        parts = record.reward_parts
        assert parts is not None
        assert parts.ungrounded_values == [u.describe() for u in ungrounded_calls(record.messages, spec)]
        assert parts.ungrounded_calls == len({u.call_index for u in ungrounded_calls(record.messages, spec)})
        assert parts.policy_violations == policy_violations(record.messages, spec)
    summary = summarize(runs.oracle)["grounding"]
    flagged = sum(1 for r in runs.oracle if r.reward_parts and r.reward_parts.ungrounded_calls)
    assert summary["episodes_with_ungrounded_calls"] == flagged
    assert summary["ungrounded_share"] == round(flagged / 6, 6)


def test_export_command_drops_ungrounded_episodes_and_allow_ungrounded_keeps_them(runs: Runs, tmp_path: Path):
    from typer.testing import CliRunner

    from envfactory_mcp.cli import app

    run = tmp_path / "run"
    run.mkdir()
    metadata = {"run_id": "run", "envs": ["retail"], "servers_dir": str(SERVERS_DIR)}
    (run / "metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
    lines = "".join(r.model_dump_json() + "\n" for r in demonstrations(runs).values())
    (run / "trajectories.jsonl").write_text(lines, encoding="utf-8")
    out = tmp_path / "sft.jsonl"
    strict = CliRunner().invoke(app, ["export", str(run), "-o", str(out)])
    assert strict.exit_code == 0, strict.output
    assert "1 with ungrounded tool-call values, 1 breaking the policy" in strict.output
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert "ANN.LEE@example.com" in row["messages"][1]["content"]
    allowed = CliRunner().invoke(
        app, ["export", str(run), "-o", str(out), "--allow-ungrounded", "--overwrite"]
    )
    assert allowed.exit_code == 0, allowed.output
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3
