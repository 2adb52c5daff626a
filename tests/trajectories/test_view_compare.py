"""Issue 33, item 5: the viewer a researcher compares in, on real rollouts of two scripted
agents (demonstrator and random) on six retail tasks, through the real CLI: ``view run_a
run_b`` side by side on the shared tasks, per-episode tokens, cost and time, reward and
step histograms, failure reasons at the top, the request and gold in the rows; cost
counts that add up; the single-run page keeps working."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.records.store import read_records
from envfactory_mcp.trajectories.pages import write_view
from envfactory_mcp.trajectories.view import (
    episode_cost,
    failure_reason,
    gold_text,
    render_run,
    request_text,
    usage_summary,
)

runner = CliRunner()


def view(*args: Any) -> str:
    result = runner.invoke(app, ["view", *(str(a) for a in args)])
    assert result.exit_code == 0, result.output
    return result.output


def rewrite(run_dir: Path, to: Path, edit) -> Path:
    """A copy of ``run_dir`` with ``edit(index, record_dict)`` applied to every record, in
    ``(task_id, trial)`` order."""
    shutil.copytree(run_dir, to)
    path = to / "trajectories.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    records.sort(key=lambda r: (r["task_id"], r["trial"]))  # the order readers give
    for i, record in enumerate(records):
        edit(i, record)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return to


def section(page: str, start: str, end: str) -> str:
    return page[page.index(start) : page.index(end, page.index(start))]


def test_view_of_two_runs_puts_them_side_by_side_on_their_tasks(scripted_runs, tmp_path: Path):
    runs = scripted_runs
    output = view(runs.demonstrator, runs.random, "-o", tmp_path / "cmp.html")
    assert f"wrote {tmp_path / 'cmp.html'}" in output
    page = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    # Each run's own pages beside the comparison, where its cells link.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cmp-A.html", "cmp-B.html", "cmp.html"]
    for external in ("http://", "https://", "<script src", "<link"):
        assert external not in page
    demo, rand = read_records(runs.demonstrator), read_records(runs.random)
    assert [r.reward for r in demo] == [1.0] * 6 and all(r.reward is not None and r.reward < 1 for r in rand)

    # The task table: per run outcome, reward, steps, tokens, cost and time; request and gold.
    head = section(page, '<table id="compare">', "</thead>")
    for letter in "AB":
        for column in ("outcome", "reward", "steps", "tokens", "cost (USD)", "time (s)"):
            assert f"<th>{letter} {column}</th>" in head
    assert "<th>request</th>" in head and "<th>gold</th>" in head and "<th>differs</th>" in head
    rows = re.findall(r'<tr data-task="([^"]+)" data-differs="(yes|no)">(.*?)</tr>', page, re.S)
    assert [tid for tid, _, _ in rows] == sorted(t.task_id for t in runs.tasks)
    by_id = {t.task_id: t for t in runs.tasks}
    for tid, differs, cells in rows:
        task = by_id[tid]
        assert differs == "yes"  # the demonstrator succeeds where random fails
        assert html.escape(request_text(task)[0], quote=True) in cells
        assert html.escape(task.gold.actions[-1].name) in cells and "→" in cells
        assert 'href="cmp-A.html#ep-' in cells and 'href="cmp-B.html#ep-' in cells
        assert cells.count(">no model</td>") == 4  # tokens and cost of each scripted run
        demo_record = next(r for r in demo if r.task_id == tid)
        assert f'data-v="{demo_record.timings["total_s"]!r}">{demo_record.timings["total_s"]:.2f}<' in cells
        assert f">{demo_record.steps}</td>" in cells
    # The runs' figures side by side: the cost counts add up to the episodes.
    figures = section(page, '<table id="figures">', "</table>")
    for label, values in (
        ("mean reward", ("1.000", f"{sum(r.reward or 0 for r in rand) / 6:.3f}")),
        ("episodes: cost known", ("0", "0")),
        ("episodes: cost unknown", ("0", "0")),
        ("episodes: no model (scripted)", ("6", "6")),
    ):
        assert f"<tr><th>{label}</th>" + "".join(f'<td class="num">{v}</td>' for v in values) in figures
    # Charts: one bar per bin and run, counts from the records.
    reward_bars = re.findall(r'<rect class="bar"[^>]*data-series="([^"]+)" data-bin="([^"]+)" data-count="(\d+)"',
                             section(page, '<svg id="compare-reward"', "</svg>"))  # fmt: skip
    assert len(reward_bars) == 22
    assert ("A: demonstrator", "1.0", "6") in reward_bars
    assert sum(int(c) for s, _, c in reward_bars if s == "B: random") == 6
    steps = section(page, '<svg id="compare-steps"', "</svg>")
    for record in rand:
        assert f'data-series="B: random" data-bin="{record.steps}"' in steps
    # Failure reasons at the top, before the figures: random's, counted per reason.
    assert page.index('id="failures-B"') < page.index('<table id="figures">')
    reasons: dict[str, int] = {}
    for record in rand:
        found = failure_reason(record)
        assert found is not None
        reasons[found[0]] = reasons.get(found[0], 0) + 1
    failures = section(page, '<table id="failures-B"', "</table>")
    for reason, count in reasons.items():
        assert (
            f'<td class="">{html.escape(reason)}</td><td>scored</td><td class="num">{count}</td>' in failures
        )
    assert "0 of 6 episodes did not score 1" in section(page, "Failures of A", "</p>")


def test_a_single_run_page_keeps_working_with_the_new_columns_and_charts(scripted_runs, tmp_path: Path):
    view(scripted_runs.random, "-o", tmp_path / "one.html")
    page = (tmp_path / "one.html").read_text(encoding="utf-8")
    assert page == render_run(scripted_runs.random)
    head = section(page, '<table id="episodes"', "</thead>")
    for column in ("tokens", "cost (USD)", "time (s)", "request", "gold"):
        assert f"<th>{column}</th>" in head
    assert '<svg id="chart-reward"' in page and '<svg id="chart-steps"' in page
    assert page.index('id="failures"') < page.index("<h2>Summary</h2>")
    task = scripted_runs.tasks[0]
    assert html.escape(gold_text(task)[1], quote=True) in page  # the whole gold as the cell's tooltip


def test_cost_unknown_counts_add_up_and_a_harness_failure_is_explained_at_the_top(
    scripted_runs, tmp_path: Path
):
    """Agent with a model: episodes 0-1 priced, 2-3 not, 4-5 never reached the model (the
    endpoint was down: harness failures whose detail is several lines)."""

    def edit(i: int, record: dict[str, Any]) -> None:
        record["agent"] = {"kind": "llm", "model": "openai/x"}
        record["usage"]["agent"] = {"prompt_tokens": 100 * (i + 1), "completion_tokens": 10,
                                    "cost_usd": 0.002 if i < 2 else None}  # fmt: skip
        if i >= 4:
            record["termination"] = "model_unavailable"
            record["termination_detail"] = f"agent model: connection refused on port {i}\nTraceback line"
            record["reward"] = None
            record["reward_parts"] = None

    run = rewrite(scripted_runs.demonstrator, tmp_path / "llm", edit)
    records = read_records(run)
    assert [episode_cost(r)[0] for r in records] == ["known"] * 2 + ["unknown"] * 4
    usage = usage_summary(records)
    episodes = usage["rows"]["all (episodes)"]
    assert (episodes["cost known"], episodes["cost unknown"], episodes["no model"]) == (2, 4, 0)
    user = usage["rows"]["user"]  # the scripted user: no model, never "unknown"
    assert (user["cost known"], user["cost unknown"], user["no model"]) == (0, 0, 6)
    page = write_view(run, tmp_path / "llm.html").read_text(encoding="utf-8")
    top = page[: page.index("<h2>Summary</h2>")]
    assert "2 of 6 episodes did not score 1: 2 harness failures (not scored), 0 scored below 1" in top
    assert '<td class="bad">model_unavailable</td><td>harness failure</td><td class="num">2</td>' in top
    assert "agent model: connection refused on port 4" in top and "Traceback line" not in top
    usage_table = section(page, '<table id="usage">', "</table>")
    assert (
        "<tr><td>agent</td>" + "".join(f'<td class="num">{v}</td>' for v in (6, 2100, 60, 2, 4, 0))
        in usage_table
    )
    assert '<td class="num" data-v="0.002">0.0020</td>' in page and ">unknown</td>" in page
    # Compared with the scripted run: unknown where a model had no price, no model where none was used.
    cmp = write_view([run, scripted_runs.demonstrator], tmp_path / "cmp.html").read_text(encoding="utf-8")
    figures = section(cmp, '<table id="figures">', "</table>")
    assert '<tr><th>episodes: cost unknown</th><td class="num">4</td><td class="num">0</td></tr>' in figures
    assert '<tr><th>harness failures</th><td class="num">2</td><td class="num">0</td></tr>' in figures
    assert cmp.index('id="failures-A"') < cmp.index('<table id="figures">')
