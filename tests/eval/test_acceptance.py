"""Acceptance (issues 15, 28): cross-server tasks over three linked servers and a
distractor, played by the host (over MCP, in memory); the oracle reaches coverage and pass
1.0, noop 0, a coin-flip agent lands in between, a wrong-tool agent and a
distractor-writing agent land in their failure classes, and the eval command writes its
results and re-runs a fixed eval set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.env import Environment
from envfactory_mcp.eval.agents import CoinFlipAgent, WrongToolAgent
from envfactory_mcp.eval.compose import (
    MAX_CLAIMS,
    MAX_STEPS,
    MAX_TOOLS,
    MIN_CLAIMS,
    MIN_STEPS,
    SEP,
    EvalTask,
    LinkedComposer,
    read_eval_set,
    state_of,
    write_eval_set,
)
from envfactory_mcp.eval.demo_envs import SHARED_ENTITIES
from envfactory_mcp.eval.report import render_html, summarize, table
from envfactory_mcp.llm import ToolCall
from envfactory_mcp.sim.agents import NoopAgent, OracleAgent, RandomAgent
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.tasks.model import Task


def test_tasks_span_linked_servers(eval_tasks: list[EvalTask], linked: list[Environment]) -> None:
    assert len(eval_tasks) >= 12
    seeds = {e.spec.name: e.seed_hash for e in linked}
    for task in eval_tasks:
        assert len(task.task.servers) >= 2
        tools = sum(len(e.spec.tools) for e in linked if e.spec.name in task.offered)
        assert 6 <= tools <= MAX_TOOLS
        assert MIN_STEPS <= len(task.relevant_tools) <= MAX_STEPS
        assert all(SEP in t for t in task.relevant_tools)
        # an output of one server's tool feeds another server's parameter
        assert any(
            a.split(SEP)[0] != b.split(SEP)[0] for a, _, b in (link.partition(" -> ") for link in task.links)
        )
        assert task.initial_hashes == {s: seeds[s] for s in task.offered}
        assert set(task.gold_hashes) == set(task.offered)
        # the host plays the task as it is: its servers are the offered ones, its hashes combined
        assert task.task.servers == task.offered and task.task.env == task.offered[0]
        assert task.task.initial_state.state_hash == state_of(task.initial_hashes)
        assert task.task.gold.final_state_hash == state_of(task.gold_hashes)
        assert "notes_1" in task.offered and "notes_1" not in {a.server for a in task.task.gold.actions}
        assert MIN_CLAIMS <= len(task.claims) <= MAX_CLAIMS and task.reference_answer
        assert [c.text for c in task.task.gold.claims] and len(task.task.gold.claims) == len(task.claims)
        assert [f"{a.server}{SEP}{a.name}" for a in task.task.gold.actions] == task.relevant_tools
    writes = [t for t in eval_tasks if t.writes]
    assert writes and {s for t in writes for s in t.writes} <= {"crm", "billing", "shipping"}
    assert any(not t.writes for t in eval_tasks)


def test_tasks_are_deterministic_and_the_eval_set_round_trips(
    eval_tasks: list[EvalTask], linked: list[Environment], tmp_path: Path
) -> None:
    again = LinkedComposer(linked, seed=3, shared_entities=SHARED_ENTITIES).compose(16)
    assert [t.model_dump() for t in again] == [t.model_dump() for t in eval_tasks]
    path = tmp_path / "eval_set.jsonl"
    digest = write_eval_set(eval_tasks, path)
    assert write_eval_set(read_eval_set(path), tmp_path / "again.jsonl") == digest
    line = json.loads(path.read_text().splitlines()[0])
    line["eval_version"] = 99
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(Exception, match="version 99"):
        read_eval_set(path)


def test_oracle_noop_and_in_between(eval_tasks: list[EvalTask], play: Any) -> None:
    oracle = summarize(play(eval_tasks, OracleAgent))
    assert oracle["coverage"] == 1.0 and oracle["pass_rate@0.75"] == 1.0 and oracle["state_ok"] == 1.0
    assert set(oracle["per_server"]) == {"crm", "billing", "shipping"}
    noop = summarize(play(eval_tasks, NoopAgent))
    assert noop["coverage"] == 0.0 and noop["pass_rate@0.75"] == 0.0 and noop["pass_rate@0.5"] == 0.0
    assert noop["failure_classes"]["no_tool_use"] == len(eval_tasks)
    flip = summarize(play(eval_tasks, lambda: CoinFlipAgent(seed=1)))
    assert 0.0 < flip["coverage"] < 1.0 and 0.0 < flip["pass_rate@0.75"] < 1.0
    random = summarize(play(eval_tasks, lambda: RandomAgent(seed=0, max_calls=4)))
    assert random["pass_rate@0.75"] < oracle["pass_rate@0.75"]
    assert sum(random["failure_classes"].values()) == random["scored"] - round(
        random["pass_rate@0.75"] * random["scored"]
    )
    text = table(flip)
    assert "coverage" in text and "shipping" in text and "early_termination" in text


def test_a_wrong_tool_lands_in_its_class(eval_tasks: list[EvalTask], play: Any) -> None:
    needing = [t for t in eval_tasks if "shipping__get_shipment_for_invoice" in t.relevant_tools]
    assert needing
    swap = {"shipping__get_shipment_for_invoice": "billing__get_invoice"}
    results = play(needing, lambda: WrongToolAgent(swap))
    assert all(not r.passed for r in results)
    assert {r.failure_class for r in results} == {"wrong_tool"}, [r.failure_detail for r in results]
    assert "billing__get_invoice" in results[0].failure_detail


class _OracleThenDistractor(OracleAgent):
    """The gold, then a delete on the distractor server before closing."""

    def __init__(self) -> None:
        super().__init__()
        self.extra_done = False

    async def act(self, messages: list[Message]) -> AgentTurn:
        task = self._task
        assert task is not None
        if self._next >= len(task.gold.actions) and not self.extra_done:
            self.extra_done = True
            return AgentTurn(tool_calls=[ToolCall.parse("x", "notes_1__delete_note", '{"note_id": "N0001"}')])
        return await super().act(messages)


class _SkipTheWrite(OracleAgent):
    """The gold without its writes, then the oracle's closing claims (copied, not seen)."""

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        reads = [a for a in task.gold.actions if not a.name.startswith(("pay_", "hold_", "set_"))]
        super().start(
            task.model_copy(update={"gold": task.gold.model_copy(update={"actions": reads})}),
            tools,
            system_prompt,
        )


def test_collateral_and_per_server_state(eval_tasks: list[EvalTask], play: Any) -> None:
    results = play(eval_tasks[:4], _OracleThenDistractor)
    assert all(r.collateral == ["notes_1"] and r.failure_class == "collateral_change" for r in results)
    assert all(r.coverage == 1.0 and not r.passed and not r.server_states["notes_1"] for r in results)
    writes = [t for t in eval_tasks if t.writes]
    skipped = play(writes, _SkipTheWrite)
    for task, r in zip(writes, skipped, strict=True):
        assert not r.state_ok and not r.passed
        assert [s for s, ok in r.server_states.items() if not ok] == task.writes


def test_the_eval_command_writes_results_and_reruns_a_fixed_set(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "first"
    args = ["eval", "--envs", "crm,billing,shipping,notes_1", "--agent", "oracle", "-n", "5", "-o", str(out)]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    assert "pass@0.75 1.000" in done.output
    results = json.loads((out / "results.json").read_text())
    assert results["summary"]["coverage"] == 1.0 and len(results["episodes"]) == 5
    assert "<table>" in (out / "report.html").read_text()
    again = runner.invoke(
        app,
        [
            "eval",
            "--envs",
            "crm,billing,shipping,notes_1",
            "--agent",
            "noop",
            "--tasks",
            str(out / "eval_set.jsonl"),
            "-o",
            str(tmp_path / "second"),
        ],
    )
    assert again.exit_code == 0, again.output
    second = json.loads((tmp_path / "second" / "results.json").read_text())["summary"]
    assert second["eval_set_sha256"] == results["summary"]["eval_set_sha256"]
    assert second["pass_rate@0.75"] == 0.0
    bad = runner.invoke(
        app,
        [
            "eval",
            "--envs",
            "crm",
            "--agent",
            "oracle",
            "--tasks",
            str(out / "eval_set.jsonl"),
            "-o",
            str(tmp_path / "x"),
        ],
    )
    assert bad.exit_code == 1 and "not loaded" in bad.output
    # the folder is a run directory: the same command again resumes it (nothing to play)
    rerun = runner.invoke(app, args)
    assert rerun.exit_code == 0, rerun.output
    lines = (out / "trajectories.jsonl").read_text().splitlines()
    assert len(lines) == 5 and (out / "metadata.json").is_file()


def test_the_html_view_escapes_what_models_wrote(eval_tasks: list[EvalTask], play: Any) -> None:
    results = play(eval_tasks[:1], NoopAgent)
    results[0].messages.append({"role": "assistant", "content": "<script>alert(1)</script>"})
    page = render_html(results, summarize(results))
    assert "<script>alert" not in page and "&lt;script&gt;" in page
