"""Runs side by side on their shared tasks (``envfactory-mcp view run_a run_b``).

:func:`render_comparison` returns the pages of a comparison: the main page and, beside
it, each run's own pages (:func:`~envfactory_mcp.trajectories.view.render_pages`, stem
``<stem>-A``, ``<stem>-B``, ...) that its cells link to for transcripts. The main page
puts first what a researcher compares: each run's failure reasons (counts and first
lines), then the runs' figures in one table (one column per run), the configuration
keys whose values differ, reward and step histograms with one colour per run, and a
table of the shared tasks, one row each: the request and the gold, then per run the
outcome, reward, steps, tokens, cost and time, and whether the runs differ on it
(sortable, filterable to the tasks where they differ). Every figure is over the
episodes of the shared tasks; tasks only some runs played are counted and named.
Like the single-run page it is self-contained, escaped and deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.passk import is_success, summarize
from envfactory_mcp.trajectories.charts import COLOURS
from envfactory_mcp.trajectories.view import (
    EPISODES_PER_PAGE,
    MAX_INLINE_EPISODES,
    _e,
    _fmt,
    _page,
    _pct,
    _table,
    _table_of_rows,
    _td,
    _usage_cells,
    charts_section,
    failures_section,
    load_run,
    load_tasks,
    render_pages,
    task_cells,
    usage_summary,
)

_COMPARE_JS = """
const $$ = (s) => Array.from(document.querySelectorAll(s));
const table = document.getElementById('compare'), body = table.tBodies[0];
let rows = Array.from(body.rows);
function show() {
  const text = document.getElementById('c-task').value.toLowerCase();
  const differ = document.getElementById('c-differ').checked;
  let n = 0;
  rows.forEach((r) => {
    const hide = (text && !r.dataset.task.toLowerCase().includes(text)) || (differ && r.dataset.differs !== 'yes');
    r.hidden = hide; if (!hide) n += 1;
  });
  document.getElementById('c-count').textContent = n;
}
document.getElementById('c-task').addEventListener('input', show);
document.getElementById('c-differ').addEventListener('input', show);
$$('#compare thead th').forEach((th, i) => th.addEventListener('click', () => {
  const dir = th.dataset.dir === 'asc' ? -1 : 1;
  $$('#compare thead th').forEach((h) => { delete h.dataset.dir; });
  th.dataset.dir = dir > 0 ? 'asc' : 'desc';
  const key = (r) => r.cells[i].dataset.v ?? r.cells[i].textContent;
  rows.sort((a, b) => {
    const x = key(a), y = key(b), nx = Number(x), ny = Number(y);
    return dir * (x !== '' && y !== '' && !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y));
  });
  rows.forEach((r) => body.appendChild(r));
  show();
}));
show();
"""

_CSS_EXTRA = """
#compare th{cursor:pointer;user-select:none}#compare th:hover{background:#e5e7eb}
#compare tr[data-differs="yes"]>td:first-child{border-left:4px solid #f59e0b}
th.run{border-bottom:3px solid var(--c)}
.runs{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
.runs>div{flex:1 1 420px;min-width:0}
"""

LETTERS = "ABCDEFGH"
PER_RUN = ["outcome", "reward", "steps", "tokens", "cost (USD)", "time (s)"]


def _names(run_dirs: Sequence[Path], metadatas: list[dict[str, Any]]) -> list[str]:
    """``A: <run id>``, ``B: <run id>``, ...: unique even when two runs share an id."""
    return [
        f"{LETTERS[k]}: {metadata.get('run_id') or Path(d).name}"
        for k, (d, metadata) in enumerate(zip(run_dirs, metadatas, strict=True))
    ]


def _run_href(stem: str, letter: str, index: int, total: int) -> str:
    """Where episode ``index`` of a run of ``total`` episodes is on its own pages."""
    if total > MAX_INLINE_EPISODES:
        return f"{stem}-{letter}-episodes-{index // EPISODES_PER_PAGE + 1}.html#ep-{index}"
    return f"{stem}-{letter}.html#ep-{index}"


def _outcome(records: list[TrajectoryRecord]) -> tuple[str, str, str]:
    """``(text, css, sort key)`` of a task's trials in one run: success / failure /
    excluded for one trial, ``k/n passed`` (and the excluded) for several."""
    scored = [r for r in records if r.reward is not None and not r.excluded]
    passed = sum(1 for r in scored if r.reward is not None and is_success(r.reward))
    excluded = len(records) - len(scored)
    if not scored:
        return "excluded", "excluded", "-1"
    css = "success" if passed == len(scored) else "failure"
    if len(records) == 1:
        return css, css, str(passed)
    text = f"{passed}/{len(scored)} passed" + (f", {excluded} excluded" if excluded else "")
    return text, css, f"{passed / len(scored)!r}"


def _mean_reward(records: list[TrajectoryRecord]) -> float | None:
    rewards = [r.reward for r in records if r.reward is not None and not r.excluded]
    return sum(rewards) / len(rewards) if rewards else None


def _run_figures(
    names: list[str], metadatas: list[dict[str, Any]], shared: list[list[TrajectoryRecord]], totals: list[int]
) -> str:
    """The runs' figures over the shared tasks, one column per run."""
    summaries = [summarize(records) for records in shared]
    usages = [usage_summary(records) for records in shared]
    rows: list[tuple[str, list[str]]] = [
        (
            "agent",
            [
                f"{m.get('agent', '?')}" + (f" ({m['agent_model']})" if m.get("agent_model") else "")
                for m in metadatas
            ],
        ),
        (
            "user",
            [
                f"{m.get('user', '?')}" + (f" ({m['user_model']})" if m.get("user_model") else "")
                for m in metadatas
            ],
        ),
        ("episodes in the run", [str(n) for n in totals]),
        ("episodes of shared tasks", [str(s["episodes"]) for s in summaries]),
        ("scored", [str(s["scored"]) for s in summaries]),
        ("harness failures", [str(s["excluded"]["total"]) for s in summaries]),
        ("mean reward", [_fmt(s["mean_reward"]) for s in summaries]),
        ("success rate", [_pct(s["success_rate"]) for s in summaries]),
        ("mean steps", [_fmt(s["mean_steps"]) for s in summaries]),
    ]
    ks = sorted({p["k"] for s in summaries for p in s["pass_k"]})
    for k in ks:
        values = [next((p["pass_hat_k"] for p in s["pass_k"] if p["k"] == k), None) for s in summaries]
        rows.append((f"pass^{k}", [_fmt(v) for v in values]))
    episodes = [u["rows"]["all (episodes)"] for u in usages]
    rows += [
        ("tokens (prompt + completion)", [f"{int(e['prompt tokens'] + e['completion tokens']):,}" for e in episodes]),
        ("cost (USD, episodes with a known cost)", [_fmt(round(e["cost (USD)"], 6)) if e["cost known"] else "—" for e in episodes]),
        ("episodes: cost known", [str(e["cost known"]) for e in episodes]),
        ("episodes: cost unknown", [str(e["cost unknown"]) for e in episodes]),
        ("episodes: no model (scripted)", [str(e["no model"]) for e in episodes]),
        ("time, total (s)", [f"{u['time_total_s']:.2f}" for u in usages]),
        ("time, mean per episode (s)", [_fmt(u["time_mean_s"]) for u in usages]),
    ]  # fmt: skip
    header = "".join(f'<th class="run" style="--c:{_colour(k)}">{_e(n)}</th>' for k, n in enumerate(names))
    body = "".join(
        f"<tr><th>{_e(label)}</th>{''.join(_num_td(v) for v in values)}</tr>" for label, values in rows
    )
    return f'<table id="figures"><thead><tr><th></th>{header}</tr></thead><tbody>{body}</tbody></table>'


def _num_td(value: str) -> str:
    return f'<td class="num">{_e(value)}</td>'


def _colour(k: int) -> str:
    return COLOURS[k % len(COLOURS)]


def _config_differences(names: list[str], metadatas: list[dict[str, Any]]) -> str:
    keys = sorted({key for m in metadatas for key in m})
    differing = [key for key in keys if len({_fmt(m.get(key)) for m in metadatas}) > 1]
    if not differing:
        return '<p class="note">the runs\' configurations are the same</p>'
    rows = ([f"<th>{_e(key)}</th>", *(_td(m.get(key)) for m in metadatas)] for key in differing)
    return _table(["key", *names], rows, ' id="config-diff"')


def render_comparison(run_dirs: Sequence[Path], stem: str, failures_only: bool = False) -> dict[str, str]:
    """File name -> page for the comparison of ``run_dirs`` (two or more; see the module
    doc). With ``failures_only`` the task table lists only the tasks where some run did
    not score 1 (the figures still describe every shared task)."""
    run_dirs = [Path(d) for d in run_dirs]
    if len(run_dirs) < 2:
        raise EnvFactoryError("a comparison needs two run directories or more")
    if len(run_dirs) > len(LETTERS):
        raise EnvFactoryError(f"at most {len(LETTERS)} runs can be compared on one page")
    loaded = [load_run(d) for d in run_dirs]
    metadatas = [m for m, _ in loaded]
    names = _names(run_dirs, metadatas)
    pages: dict[str, str] = {}
    for k, d in enumerate(run_dirs):
        pages.update(render_pages(d, f"{stem}-{LETTERS[k]}"))

    # Tasks: the shared ones, in task id order; per run the (index, record) of each trial.
    by_task: list[dict[str, list[tuple[int, TrajectoryRecord]]]] = []
    for _, records in loaded:
        tasks: dict[str, list[tuple[int, TrajectoryRecord]]] = {}
        for i, record in enumerate(records):
            tasks.setdefault(record.task_id, []).append((i, record))
        by_task.append(tasks)
    shared_ids = sorted(set.intersection(*(set(t) for t in by_task)))
    shared = [[r for tid in shared_ids for _, r in tasks[tid]] for tasks in by_task]
    totals = [len(records) for _, records in loaded]
    task_info, note = {}, ""
    for d, metadata in zip(run_dirs, metadatas, strict=True):
        found, why = load_tasks(d, metadata)
        task_info.update({tid: t for tid, t in found.items() if tid not in task_info})
        note = note or why

    # Warnings: different task files, tasks only some runs played.
    warnings = []
    hashes = {m.get("tasks_sha256") for m in metadatas}
    if len(hashes) > 1:
        warnings.append(
            "the runs were played on different task files (tasks_sha256 differs): a shared task id may "
            "not be the same task"
        )
    for k, tasks in enumerate(by_task):
        only = sorted(set(tasks) - set(shared_ids))
        if only:
            listed = ", ".join(only[:5]) + (f" and {len(only) - 5} more" if len(only) > 5 else "")
            warnings.append(f"{len(only)} tasks only in {names[k]} (not compared): {listed}")
    warn = "".join(f'<p class="note warn">{_e(w)}</p>' for w in warnings)

    # Failures at the top, one column per run, linking to the run's own pages.
    failure_cols = []
    for k, records in enumerate(shared):
        index = {id(r): i for i, r in enumerate(loaded[k][1])}
        letter = LETTERS[k]
        hrefs = [_run_href(stem, letter, index[id(r)], totals[k]) for r in records]
        failure_cols.append(
            f"<div>{failures_section(records, hrefs.__getitem__, f'failures-{letter}', f'Failures of {names[k]}')}</div>"
        )

    # The task table.
    header = ["task", "request", "gold"]
    for name in names:
        header += [f"{name.split(':')[0]} {column}" for column in PER_RUN]
    header += ["differs", "Δ reward (B - A)"] if len(names) == 2 else ["differs"]
    rows = []
    for tid in shared_ids:
        cells = [f'<td data-v="{_e(tid)}">{_e(tid)}</td>', *task_cells(task_info.get(tid), note)]
        outcomes, rewards = [], []
        for k, tasks in enumerate(by_task):
            trials = tasks[tid]
            records = [r for _, r in trials]
            text, css, key = _outcome(records)
            outcomes.append(text)
            mean = _mean_reward(records)
            rewards.append(mean)
            link = _run_href(stem, LETTERS[k], trials[0][0], totals[k])
            steps = sum(r.steps for r in records) / len(records)
            cells += [
                f'<td class="{css}" data-v="{key}"><a href="{_e(link)}">{_e(text)}</a></td>',
                f'<td class="num {css}" data-v="{-1 if mean is None else mean!r}">{_e(_fmt(mean))}</td>',
                f'<td class="num" data-v="{steps!r}">{_e(_fmt(steps) if len(records) > 1 else str(int(steps)))}</td>',
                *_usage_cells(records),
            ]
        differs = len(set(outcomes)) > 1 or len({_fmt(r) for r in rewards}) > 1
        cells.append(f'<td class="{"bad" if differs else "muted"}">{"yes" if differs else "no"}</td>')
        if len(names) == 2:
            delta = None if rewards[0] is None or rewards[1] is None else rewards[1] - rewards[0]
            cells.append(
                f'<td class="num" data-v="{"" if delta is None else repr(delta)}">{_e(_fmt(delta))}</td>'
            )
        if failures_only and all(o == "success" for o in outcomes):
            continue
        rows.append(
            f'<tr data-task="{_e(tid)}" data-differs="{"yes" if differs else "no"}">{"".join(cells)}</tr>'
        )
    trials_note = (
        " With several trials, reward and steps are means over a task's trials and tokens, cost and time sums."
        if any(len(trials) > 1 for tasks in by_task for trials in tasks.values())
        else ""
    )
    filters = (
        '<div class="filters"><label>task <input id="c-task" type="search" placeholder="task id contains"></label>'
        '<label><input id="c-differ" type="checkbox"> only tasks where the runs differ</label>'
        '<span><span id="c-count"></span> tasks shown</span></div>'
    )
    table = _table_of_rows(header, rows, ' id="compare"')
    title = f"Comparison: {' vs '.join(names)}" + (" (failures)" if failures_only else "")
    legend = "".join(
        f'<li><b>{_e(n)}</b> <a href="{_e(stem)}-{LETTERS[k]}.html">its own page</a> · {_e(str(run_dirs[k]))}</li>'
        for k, n in enumerate(names)
    )
    body = (
        f"<h1>{_e(title)}</h1><ul>{legend}</ul>{warn}"
        f'<div class="runs">{"".join(failure_cols)}</div>'
        f"<h2>Runs on their {len(shared_ids)} shared tasks</h2>{_run_figures(names, metadatas, shared, totals)}"
        f"{charts_section(list(zip(names, shared, strict=True)), 'compare')}"
        f"<h2>Configuration differences</h2>{_config_differences(names, metadatas)}"
        f'<h2>Tasks</h2><p class="note">one row per shared task; click a column to sort, an outcome to '
        f"open the episode in its run, hover a request or gold for the whole of it.{trials_note}</p>"
        f"{filters}{table}<script>{_COMPARE_JS}</script>"
    )
    main = _page(title, body).replace("</style>", f"{_CSS_EXTRA}</style>", 1)
    pages[f"{stem}.html"] = main
    return pages
