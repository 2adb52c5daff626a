"""The HTML view of a run, on real oracle and noop rollouts of four retail tasks."""

from __future__ import annotations

import html
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.store import RunStoreError
from envfactory_mcp.scoring.passk import summarize
from envfactory_mcp.tasks.model import Task, write_tasks
from envfactory_mcp.trajectories.pages import write_view
from envfactory_mcp.trajectories.view import MAX_CHARS, load_run, render_run


@pytest.fixture(scope="module")
def runs(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Task], Path, Path]:
    """``(tasks, oracle run dir, noop run dir)``."""
    root = tmp_path_factory.mktemp("view")
    # four tasks with something to tell (a task that only writes has no claim to miss)
    tasks = [task for task in retail_tasks(12, seed=3) if task.gold.claims][:4]
    assert len(tasks) == 4
    write_tasks(tasks, root / "tasks.jsonl")
    dirs = []
    for agent in ("oracle", "noop"):
        config = RolloutConfig(
            envs=["retail"],
            tasks_path=str(root / "tasks.jsonl"),
            servers_dir=str(SERVERS_DIR),
            transport="memory",
            agent=agent,
        )
        anyio.run(rollout, config, root / agent)
        dirs.append(root / agent)
    return tasks, dirs[0], dirs[1]


def edited_copy(run_dir: Path, to: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of ``run_dir`` whose first record went through ``edit(record_dict)``."""
    shutil.copytree(run_dir, to)
    path = to / "trajectories.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    edit(first)
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    return to


def test_the_page_shows_every_episode_and_the_summary(runs: tuple[list[Task], Path, Path]):
    tasks, oracle, _ = runs
    page = render_run(oracle)
    assert len(tasks) == 4
    for task in tasks:
        assert task.task_id in page
        assert f'data-task="{task.task_id}"' in page
        for action in task.gold.actions:  # the oracle made every gold call
            assert f"<b>{action.name}</b>(" in page
    assert "user_stop" in page and 'id="terminations"' in page
    _, records = load_run(oracle)
    summary = summarize(records)
    assert summary["mean_reward"] == 1.0
    assert 'id="mean-reward">1.000<' in page
    assert page.count("<details") == len(tasks) and "<details open" not in page  # collapsed
    for tool in summary["tools"]:
        assert f"<td>{tool}</td>" in page  # per-tool error rates
    assert "<h4>Final diff</h4>" in page and ">updated</div>" in page


def test_the_page_is_self_contained_and_deterministic(runs: tuple[list[Task], Path, Path], tmp_path: Path):
    _, oracle, noop = runs
    for run in (oracle, noop):
        page = render_run(run)
        for external in ("http://", "https://", "<script src", "<link"):
            assert external not in page
        assert render_run(run) == page
    out = write_view(oracle, tmp_path / "out" / "report.html")
    assert out.read_text(encoding="utf-8") == render_run(oracle)
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.html"]  # no temp file left


def test_message_text_is_escaped(runs: tuple[list[Task], Path, Path], tmp_path: Path):
    def edit(record: dict[str, Any]) -> None:
        record["messages"][0]["content"] = 'hi <b>&"</b> there'
        record["task_id"] += "<i>"

    copy = edited_copy(runs[1], tmp_path / "run", edit)
    page = render_run(copy)
    assert "hi &lt;b&gt;&amp;&quot;&lt;/b&gt; there" in page
    assert "<b>&" not in page and "<i>" not in page
    assert "&lt;i&gt;" in page


def test_a_noop_run_shows_reward_zero_and_missing_claims(runs: tuple[list[Task], Path, Path]):
    tasks, _, noop = runs
    page = render_run(noop)
    assert 'id="mean-reward">0.000<' in page
    _, records = load_run(noop)
    assert len(records) == len(tasks)
    for record in records:
        assert record.reward == 0.0 and record.reward_parts is not None
        assert record.reward_parts.claims_missing
        missing = "; ".join(record.reward_parts.claims_missing)
        assert f'<td class="bad">{html.escape(missing)}</td>' in page  # the episodes table
    assert page.count('data-outcome="failure"') == 2 * len(tasks)  # table row and details
    assert 'data-outcome="success"' not in page


def test_tool_errors_are_highlighted_and_long_outputs_cut(
    runs: tuple[list[Task], Path, Path], tmp_path: Path
):
    def edit(record: dict[str, Any]) -> None:
        tool = next(m for m in record["messages"] if m["role"] == "tool")
        tool["content"] = "Error: " + "x" * 5000

    copy = edited_copy(runs[1], tmp_path / "run", edit)
    page = render_run(copy)
    shown = re.search(r'<pre class="result error">Error: (x+)…', page)
    assert shown is not None and len(shown.group(1)) == MAX_CHARS - len("Error: ")
    assert f"[{5007 - MAX_CHARS:,} more characters not shown]" in page


def test_reading_a_run(runs: tuple[list[Task], Path, Path], tmp_path: Path):
    _, oracle, _ = runs
    copy = shutil.copytree(oracle, tmp_path / "run")
    with open(copy / "trajectories.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"schema_version": 1, "run_id"')  # a line still being written
    _, records = load_run(copy)
    assert [r.key for r in records] == sorted(r.key for r in records) and len(records) == 4
    with pytest.raises(RunStoreError, match="not a run directory"):
        render_run(tmp_path)


def test_ungrounded_values_and_policy_violations_are_listed_per_episode(
    runs: tuple[list[Task], Path, Path], tmp_path: Path
):
    def edit(record: dict[str, Any]) -> None:
        record["reward_parts"]["ungrounded_calls"] = 1
        record["reward_parts"]["ungrounded_values"] = [
            'call 0 find_user_id_by_email: email="made.up@example.com"'
        ]
        record["reward_parts"]["policy_violations"] = ["call 1 cancel_pending_order: no confirmation"]

    clean = runs[2]  # the noop never calls a tool: nothing to flag
    page = render_run(edited_copy(clean, tmp_path / "flagged", edit))
    assert 'id="ungrounded-share">25.0%<' in page and 'id="ungrounded-calls">1<' in page
    assert 'id="policy-violations">1<' in page and "no confirmation: 1" in page
    assert "email=&quot;made.up@example.com&quot;" in page
    assert '<td class="lines bad">call 1 cancel_pending_order: no confirmation</td>' in page
    assert 'id="ungrounded-share">0.0%<' in render_run(clean)
