"""A run as one self-contained HTML page, for a researcher to read (``envfactory-mcp view``).

:func:`render_run` reads ``metadata.json`` and ``trajectories.jsonl`` of a run directory
and returns one page: the run configuration; summary figures computed afresh with
:func:`~envfactory_mcp.scoring.passk.summarize` (``summary.json`` may be stale): mean
reward, pass^k / pass@k, grounding and policy checks, terminations, per-tool error
rates and token usage; a table of
every episode, sortable by clicking a column and filterable by termination, outcome and
task id; and per episode a collapsed ``<details>`` with the transcript (tool calls with
pretty-printed arguments next to their results, errors highlighted, long outputs cut
to :data:`MAX_CHARS`), the reward parts (ungrounded tool-call values and policy
violations listed one per line), the final state diff and collateral changes. The failure
reasons come first (:func:`failures_section`: counts per reason with the first lines of
their details and links to the episodes), the summary draws reward and step histograms
(inline SVG, :mod:`~envfactory_mcp.trajectories.charts`), and each episode row has its
tokens, cost (known, unknown or no model: :func:`episode_cost`) and time and its task's
request and gold (:func:`load_tasks`). Several runs compare on one page:
:mod:`~envfactory_mcp.trajectories.compare`.

The page has no external resources (inline CSS and a few lines of inline JS), escapes
every value with :func:`html.escape`, and is deterministic: the same run always gives
the same text (episodes are ordered by task id and trial, nothing depends on the clock).
The episodes table shows :data:`ROWS_PER_PAGE` rows at a time (sorting and filtering
work over every row); a run of more than :data:`MAX_INLINE_EPISODES` episodes keeps its
transcripts on pages of their own (:func:`render_pages`), :data:`EPISODES_PER_PAGE`
each, so the main page stays light however long the run.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.records.store import METADATA, RunStoreError, read_records, recorded_path
from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX, TrajectoryRecord, Usage
from envfactory_mcp.scoring.passk import exclusion_reason, is_success, summarize
from envfactory_mcp.tasks.model import Task, read_tasks
from envfactory_mcp.trajectories.charts import bar_chart, reward_bins, step_bins

MAX_CHARS = 2000  # tool arguments and outputs longer than this are cut, with a note
ROWS_PER_PAGE = 100  # episodes table rows shown at once (the page's script pages through them)
MAX_INLINE_EPISODES = 200  # a larger run's transcripts go on pages of their own
EPISODES_PER_PAGE = 100  # transcripts per such page
SHORT_CHARS = 160  # request, gold and failure lines in tables are cut to this (the whole in a tooltip)
EXAMPLES = 3  # distinct first lines shown per failure reason
LINKS = 5  # episodes linked per failure reason

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#111827}
h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 8px}h4{margin:10px 0 4px}
table{border-collapse:collapse;margin:4px 0 10px}
th,td{border:1px solid #e5e7eb;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f4f6;font-weight:600}
#episodes th{cursor:pointer;user-select:none}#episodes th:hover{background:#e5e7eb}
.num{text-align:right;font-variant-numeric:tabular-nums}
.figures{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.figure{border:1px solid #e5e7eb;border-radius:6px;padding:6px 12px;min-width:100px}
.figure .label{display:block;font-size:11px;color:#6b7280;text-transform:uppercase}
.figure .value{font-size:18px;font-weight:600}
.cols{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
.filters{margin:8px 0;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
.success{color:#15803d}.failure{color:#b91c1c}.excluded{color:#6b7280}
.bad{color:#b91c1c;font-weight:600}
details.episode{border:1px solid #e5e7eb;border-radius:6px;margin:6px 0;padding:4px 10px}
details.episode>summary{cursor:pointer;font-weight:600}
details.episode[open]>summary{margin-bottom:8px}
.muted{color:#6b7280;font-weight:400}
.msg{border-radius:8px;padding:6px 10px;margin:6px 0;max-width:900px;white-space:pre-wrap;word-break:break-word}
.msg .role{display:block;font-size:11px;color:#6b7280;text-transform:uppercase;white-space:normal}
.user{background:#eff6ff;border:1px solid #bfdbfe}
.assistant{background:#f9fafb;border:1px solid #e5e7eb;margin-left:40px}
.other{background:#fefce8;border:1px solid #fde68a}
.call{margin:6px 0 6px 40px;max-width:900px}
pre{margin:2px 0;padding:6px 8px;background:#f8fafc;border:1px solid #e2e8f0;border-radius:4px;
white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre.result.error{background:#fef2f2;border-color:#fca5a5;color:#991b1b}
.lines{white-space:pre-line}
.note{font-size:11px;color:#6b7280;font-style:italic}
code{font:12px ui-monospace,Menlo,Consolas,monospace}
td.text{max-width:340px;font-size:12px}
.charts{display:flex;flex-wrap:wrap;gap:16px;margin:8px 0}
svg.chart{border:1px solid #e5e7eb;border-radius:6px}
table.failures td{font-size:13px}table.failures ul{margin:0;padding-left:18px}
table.failures a{display:block;white-space:nowrap}
.warn{background:#fffbeb;border:1px solid #fcd34d;border-radius:6px;padding:6px 10px}
"""

_JS = """
const $$ = (s) => Array.from(document.querySelectorAll(s));
const table = document.getElementById('episodes'), body = table.tBodies[0];
let rows = Array.from(body.rows), page = 0;
const PAGE = Number(table.dataset.page);
function matches(e) {
  const term = document.getElementById('f-term').value, out = document.getElementById('f-outcome').value;
  const text = document.getElementById('f-task').value.toLowerCase();
  return !((term && e.dataset.term !== term) || (out && e.dataset.outcome !== out)
    || (text && !e.dataset.task.toLowerCase().includes(text)));
}
function show() {
  const shown = rows.filter(matches), pages = Math.max(1, Math.ceil(shown.length / PAGE));
  page = Math.min(page, pages - 1);
  const visible = new Set(shown.slice(page * PAGE, (page + 1) * PAGE));
  rows.forEach((r) => { r.hidden = !visible.has(r); });
  $$('details.episode').forEach((d) => { d.hidden = !matches(d); });
  document.getElementById('count').textContent = shown.length;
  document.getElementById('page').textContent = `page ${page + 1} of ${pages}`;
  document.getElementById('prev').disabled = page === 0;
  document.getElementById('next').disabled = page >= pages - 1;
}
$$('.filters select, .filters input').forEach((e) => e.addEventListener('input', () => { page = 0; show(); }));
document.getElementById('prev').addEventListener('click', () => { page -= 1; show(); });
document.getElementById('next').addEventListener('click', () => { page += 1; show(); });
$$('#episodes thead th').forEach((th, i) => th.addEventListener('click', () => {
  const dir = th.dataset.dir === 'asc' ? -1 : 1;
  $$('#episodes thead th').forEach((h) => { delete h.dataset.dir; });
  th.dataset.dir = dir > 0 ? 'asc' : 'desc';
  const key = (r) => r.cells[i].dataset.v ?? r.cells[i].textContent;
  rows.sort((a, b) => {
    const x = key(a), y = key(b), nx = Number(x), ny = Number(y);
    return dir * (x !== '' && y !== '' && !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y));
  });
  rows.forEach((r) => body.appendChild(r));
  page = 0; show();
}));
function openHash() { const d = document.getElementById(location.hash.slice(1)); if (d) d.open = true; }
window.addEventListener('hashchange', openHash); openHash();
document.getElementById('expand').addEventListener('click', () => $$('details.episode').forEach((d) => { if (!d.hidden) d.open = true; }));
document.getElementById('collapse').addEventListener('click', () => $$('details.episode').forEach((d) => { d.open = false; }));
show();
"""


_CHUNK_JS = """
function openHash() { const d = document.getElementById(location.hash.slice(1)); if (d) { d.open = true; d.scrollIntoView(); } }
window.addEventListener('hashchange', openHash); openHash();
"""


# ------------------------------------------------------------------------------------ reading


def load_run(run_dir: Path) -> tuple[dict[str, Any], list[TrajectoryRecord]]:
    """The run's metadata and records, ordered by ``(task_id, trial)``.

    Read without taking the run's lock, so a run still in progress can be viewed: a
    partial last line (one still being written) is skipped, and of an episode recorded
    more than once (a retried harness failure) the last record is kept, as
    :class:`~envfactory_mcp.records.store.RunStore` does.
    """
    run_dir = Path(run_dir)
    if not (run_dir / METADATA).is_file():
        raise RunStoreError(f"{run_dir} is not a run directory (no {METADATA})")
    records = read_records(run_dir)
    return json.loads((run_dir / METADATA).read_text(encoding="utf-8")), records


# ------------------------------------------------------------------------------------ helpers


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: Any) -> str:
    """A value for a cell: fixed decimals for floats, JSON for structures, ``—`` for None."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, int | str):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _table(header: Iterable[str], rows: Iterable[Iterable[str]], attrs: str = "") -> str:
    """A table from header labels (escaped here) and rows of cells already rendered as HTML."""
    return _table_of_rows(header, ("<tr>" + "".join(cells) + "</tr>" for cells in rows), attrs)


def _table_of_rows(header: Iterable[str], rows: Iterable[str], attrs: str = "") -> str:
    """A table from header labels and whole ``<tr>`` rows already rendered as HTML."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    return f"<table{attrs}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _td(value: Any, css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return f"<td{cls}>{_e(_fmt(value))}</td>"


def _figure(label: str, value: str, ident: str = "") -> str:
    id_attr = f' id="{ident}"' if ident else ""
    return (
        f'<div class="figure"><span class="label">{_e(label)}</span>'
        f'<span class="value"{id_attr}>{_e(value)}</span></div>'
    )


def _cut(text: str) -> str:
    """``text`` escaped in a ``<pre>`` body, cut to :data:`MAX_CHARS` with a note."""
    if len(text) <= MAX_CHARS:
        return _e(text)
    more = len(text) - MAX_CHARS
    return f'{_e(text[:MAX_CHARS])}…\n<span class="note">[{more:,} more characters not shown]</span>'


def _pretty(text: str) -> str:
    """JSON text indented for reading; any other text as it is."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _outcome(record: TrajectoryRecord) -> str:
    if exclusion_reason(record) is not None or record.reward is None:
        return "excluded"
    return "success" if is_success(record.reward) else "failure"


def _short(text: str, limit: int = SHORT_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _text_td(text: str, full: str | None = None) -> str:
    """A cell of prose cut to :data:`SHORT_CHARS`, the whole text in its tooltip."""
    whole = full if full is not None else text
    return f'<td class="text" title="{_e(whole)}">{_e(_short(text))}</td>'


# ------------------------------------------------------------------------------------ usage


def _uses_model(record: TrajectoryRecord, who: str, usage: Usage) -> bool:
    """Whether ``who`` (agent, user, judge, ...) talked to a model in this episode: the
    agent and the user when their participant names one (a scripted one never costs
    anything), anyone else when its usage says it did."""
    participant = {"agent": record.agent, "user": record.user}.get(who)
    if participant is not None:
        return participant.model is not None
    return bool(usage.prompt_tokens or usage.completion_tokens or usage.cost_usd is not None)


def episode_tokens(record: TrajectoryRecord) -> int | None:
    """Prompt plus completion tokens of every model the episode used; None when it used none."""
    used = [u for who, u in record.usage.items() if _uses_model(record, who, u)]
    return sum(u.prompt_tokens + u.completion_tokens for u in used) if used else None


def episode_cost(record: TrajectoryRecord) -> tuple[str, float | None]:
    """``("known", usd)`` when every model the episode used had a price, ``("unknown",
    None)`` when one did not, ``("no model", None)`` when it used none (scripted agent and
    user: nothing to pay). Each episode is exactly one of the three, so the counts of a
    run add up to its episodes."""
    used = [u for who, u in record.usage.items() if _uses_model(record, who, u)]
    if not used:
        return "no model", None
    if any(u.cost_usd is None for u in used):
        return "unknown", None
    return "known", sum(u.cost_usd or 0.0 for u in used)


def episode_seconds(record: TrajectoryRecord) -> float | None:
    """The episode's wall time (``timings.total_s``), None when not recorded."""
    return record.timings.get("total_s")


def _cost_td(status: str, cost: float | None) -> str:
    if status == "known" and cost is not None:
        return f'<td class="num" data-v="{cost!r}">{cost:.4f}</td>'
    return f'<td class="muted" data-v="{-1 if status == "unknown" else 0}">{_e(status)}</td>'


def _usage_cells(records: list[TrajectoryRecord]) -> list[str]:
    """Tokens, cost and time cells of one or more episodes (a task's trials): tokens and
    time summed, cost summed when known for each, else unknown (one unknown makes the sum
    unknown) or no model."""
    tokens = [t for t in (episode_tokens(r) for r in records) if t is not None]
    costs = [episode_cost(r) for r in records]
    statuses = {status for status, _ in costs}
    if "unknown" in statuses:
        cost_cell = _cost_td("unknown", None)
    elif statuses == {"no model"}:
        cost_cell = _cost_td("no model", None)
    else:
        cost_cell = _cost_td("known", sum(c or 0.0 for _, c in costs))
    seconds = [t for t in (episode_seconds(r) for r in records) if t is not None]
    time_cell = (
        f'<td class="num" data-v="{sum(seconds)!r}">{sum(seconds):.2f}</td>'
        if seconds
        else '<td class="muted" data-v="">not recorded</td>'
    )
    tokens_cell = (
        f'<td class="num" data-v="{sum(tokens)}">{sum(tokens):,}</td>'
        if tokens
        else '<td class="muted" data-v="0">no model</td>'
    )
    return [tokens_cell, cost_cell, time_cell]


def usage_summary(records: list[TrajectoryRecord]) -> dict[str, Any]:
    """Per participant and for whole episodes: episodes that used a model, tokens, and the
    episodes whose cost is known, unknown or nil (no model), which add up to the episodes;
    the cost in USD is over the known ones. Also the episodes' total and mean time."""
    whos = sorted({who for r in records for who in r.usage} | {"agent", "user"})
    rows: dict[str, dict[str, Any]] = {}
    for who in whos:
        row: dict[str, float] = {"with a model": 0, "prompt tokens": 0, "completion tokens": 0}
        row |= {"cost known": 0, "cost unknown": 0, "no model": 0, "cost (USD)": 0.0}
        for record in records:
            usage = record.usage.get(who)
            if usage is None or not _uses_model(record, who, usage):
                row["no model"] += 1
                continue
            row["with a model"] += 1
            row["prompt tokens"] += usage.prompt_tokens
            row["completion tokens"] += usage.completion_tokens
            if usage.cost_usd is None:
                row["cost unknown"] += 1
            else:
                row["cost known"] += 1
                row["cost (USD)"] += usage.cost_usd
        rows[who] = row
    episodes: dict[str, float] = {"with a model": 0, "prompt tokens": 0, "completion tokens": 0}
    episodes |= {"cost known": 0, "cost unknown": 0, "no model": 0, "cost (USD)": 0.0}
    for record in records:
        status, cost = episode_cost(record)
        key = "cost known" if status == "known" else "cost unknown" if status == "unknown" else "no model"
        episodes[key] += 1
        if status != "no model":
            episodes["with a model"] += 1
            used = [u for who, u in record.usage.items() if _uses_model(record, who, u)]
            episodes["prompt tokens"] += sum(u.prompt_tokens for u in used)
            episodes["completion tokens"] += sum(u.completion_tokens for u in used)
        episodes["cost (USD)"] += cost or 0.0
    rows["all (episodes)"] = episodes
    seconds = [t for t in (episode_seconds(r) for r in records) if t is not None]
    return {
        "rows": rows,
        "episodes": len(records),
        "time_total_s": sum(seconds),
        "time_mean_s": sum(seconds) / len(seconds) if seconds else None,
        "time_missing": len(records) - len(seconds),
    }


USAGE_COLUMNS = [
    "with a model",
    "prompt tokens",
    "completion tokens",
    "cost known",
    "cost unknown",
    "no model",
]


def _usage_table(records: list[TrajectoryRecord], ident: str = "usage") -> str:
    summary = usage_summary(records)
    rows = []
    for who, row in summary["rows"].items():
        cells = [_td(who)] + [_td(row[c], "num") for c in USAGE_COLUMNS]
        cost = row["cost (USD)"] if row["cost known"] else None
        cells.append(_td(None if cost is None else round(cost, 6), "num"))
        rows.append(cells)
    note = (
        f'<p class="note">episodes: {summary["episodes"]} = cost known + cost unknown + no model '
        "(a scripted participant uses no model); the cost is over the episodes whose cost is known</p>"
    )
    return _table(["who", *USAGE_COLUMNS, "cost (USD)"], rows, f' id="{ident}"') + note


# ------------------------------------------------------------------------------------ failures


def failure_reason(record: TrajectoryRecord) -> tuple[str, str, str] | None:
    """``(reason, kind, first line)`` of an episode that did not score 1, None for a
    success. ``kind`` is "harness failure" (not scored) or "scored"; the reason is the
    termination, or for an episode the user ended, the first part that fell short."""
    reason = exclusion_reason(record)
    detail = record.termination_detail.strip()
    if reason is not None:
        return reason, "harness failure", detail.splitlines()[0] if detail else ""
    if record.reward is not None and is_success(record.reward):
        return None
    parts = record.reward_parts
    if record.termination != "user_stop":
        return record.termination, "scored", detail.splitlines()[0] if detail else ""
    if parts is None:
        return "not scored", "scored", ""
    if parts.policy_violations:
        return "policy violation", "scored", parts.policy_violations[0]
    if not parts.state_match:
        first = parts.actions_missing[0] if parts.actions_missing else "final state differs from the gold's"
        return "wrong final state", "scored", f"missing {first}" if parts.actions_missing else first
    if parts.claims_missing:
        return "claims missing", "scored", f"not said: {parts.claims_missing[0]}"
    if parts.required_calls_missing:
        return "required calls missing", "scored", parts.required_calls_missing[0]
    return "reward below 1", "scored", ", ".join(parts.basis)


def failures_section(
    records: list[TrajectoryRecord],
    href: Callable[[int], str],
    ident: str = "failures",
    heading: str = "Failures",
) -> str:
    """Counts per failure reason, harness failures first, with the first lines of the
    reasons (distinct, most frequent first) and links to the first episodes of each."""
    groups: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for i, record in enumerate(records):
        found = failure_reason(record)
        if found is not None:
            reason, kind, line = found
            groups.setdefault((kind, reason), []).append((i, line))
    total = sum(len(g) for g in groups.values())
    harness = sum(len(g) for (kind, _), g in groups.items() if kind == "harness failure")
    head = (
        f"<h2>{_e(heading)}</h2><p>{total} of {len(records)} episodes did not score 1: "
        f"{harness} harness failures (not scored), {total - harness} scored below 1</p>"
    )
    if not groups:
        return head.replace("<p>", f'<p id="{_e(ident)}">', 1)
    rows = []
    order = sorted(groups.items(), key=lambda kv: (kv[0][0] != "harness failure", -len(kv[1]), kv[0][1]))
    for (kind, reason), items in order:
        lines: dict[str, int] = {}
        for _, line in items:
            lines[line] = lines.get(line, 0) + 1
        shown = sorted(lines.items(), key=lambda kv: (-kv[1], kv[0]))[:EXAMPLES]
        examples = "".join(
            f'<li title="{_e(line)}">{_e(_short(line) or "(no detail)")} <span class="muted">({n})</span></li>'
            for line, n in shown
        )
        if len(lines) > EXAMPLES:
            examples += f'<li class="muted">{len(lines) - EXAMPLES} other lines</li>'
        links = " ".join(
            f'<a href="{_e(href(i))}">{_e(records[i].task_id)}#{records[i].trial}</a>'
            for i, _ in items[:LINKS]
        )
        if len(items) > LINKS:
            links += f' <span class="muted">and {len(items) - LINKS} more</span>'
        css = "bad" if kind == "harness failure" else ""
        rows.append(
            [
                f'<td class="{css}">{_e(reason)}</td>',
                _td(kind),
                _td(len(items), "num"),
                f"<td><ul>{examples}</ul></td>",
                f"<td>{links}</td>",
            ]
        )
    return head + _table(
        ["reason", "kind", "episodes", "first lines", "episodes"], rows, f' id="{_e(ident)}" class="failures"'
    )


# ------------------------------------------------------------------------------------ tasks


def load_tasks(run_dir: Path, metadata: dict[str, Any]) -> tuple[dict[str, Task], str]:
    """The run's tasks by id, read from the task file its metadata names, and a note when
    they cannot be read (the request and gold columns then say so)."""
    value = metadata.get("tasks_path")
    if not value:
        return {}, "the run's metadata names no task file: request and gold not shown"
    path = recorded_path(Path(run_dir), str(value))
    try:
        return {t.task_id: t for t in read_tasks(path)}, ""
    except (EnvFactoryError, OSError, ValueError) as exc:
        return {}, f"task file {path} not read ({_short(str(exc), 200)}): request and gold not shown"


def request_text(task: Task) -> tuple[str, str]:
    """The task's request, short (the reason for the call) and whole (the opening message)."""
    scenario = task.user_scenario
    return scenario.reason_for_call, f"{scenario.reason_for_call}\n\n{scenario.opening_message}"


def gold_text(task: Task) -> tuple[str, str]:
    """A one-line summary of the gold (each goal's kind and tool, then the calls) and the
    whole of it (every call with its arguments, and the claims the agent must state)."""
    goals = " · ".join(f"{g.kind} {g.tool}" for g in task.gold.goals)
    calls = " → ".join(a.name for a in task.gold.actions) or "no call"
    short = f"{goals}: {calls}" if goals else calls
    whole = [f"{task.kind} task; goals: {goals or '—'}"]
    whole += [
        f"{a.name}({', '.join(f'{k}={json.dumps(v, ensure_ascii=False)}' for k, v in sorted(a.arguments.items()))})"
        for a in task.gold.actions
    ]
    if task.gold.claims:
        whole.append("claims: " + "; ".join(c.text for c in task.gold.claims))
    return short, "\n".join(whole)


def task_cells(task: Task | None, note: str) -> list[str]:
    """The request and gold cells of a table row."""
    if task is None:
        missing = note or "task not in the run's task file"
        return [f'<td class="muted">{_e(_short(missing, 60))}</td>'] * 2
    return [_text_td(*request_text(task)), _text_td(*gold_text(task))]


# ------------------------------------------------------------------------------------ charts


def charts_section(runs: list[tuple[str, list[TrajectoryRecord]]], prefix: str = "chart") -> str:
    """Reward and step histograms, one series per run: rewards of the scored episodes,
    steps of every episode."""
    excluded = [sum(1 for r in records if r.reward is None or r.excluded) for _, records in runs]
    series = []
    labels: list[str] = []
    for name, records in runs:
        labels, counts = reward_bins([r.reward for r in records if r.reward is not None and not r.excluded])
        series.append((name, counts))
    left_out = ", ".join(f"{name}: {n}" for (name, _), n in zip(runs, excluded, strict=True) if n)
    rewards = bar_chart(
        f"{prefix}-reward",
        "Reward (scored episodes)",
        labels,
        series,
        "reward",
        f"harness failures not shown ({left_out})" if left_out else "",
    )
    step_labels, step_counts = step_bins(*[[r.steps for r in records] for _, records in runs])
    steps = bar_chart(
        f"{prefix}-steps",
        "Steps (agent turns, every episode)",
        step_labels,
        [(name, counts) for (name, _), counts in zip(runs, step_counts, strict=True)],
        "steps",
    )
    return f'<div class="charts">{rewards}{steps}</div>'


# ------------------------------------------------------------------------------------ header


def _summary_section(summary: dict[str, Any], records: list[TrajectoryRecord]) -> str:
    parts, grounding = summary["reward_parts"], summary["grounding"]
    figures = [
        _figure("episodes", str(summary["episodes"])),
        _figure("tasks", str(summary["tasks"])),
        _figure("scored", str(summary["scored"])),
        _figure("excluded", str(summary["excluded"]["total"])),
        _figure("mean reward", _fmt(summary["mean_reward"]), "mean-reward"),
        _figure("success rate", _pct(summary["success_rate"])),
        _figure("mean steps", _fmt(summary["mean_steps"])),
        _figure("state match", _pct(parts["state_match_rate"])),
        _figure("claims all found", _pct(parts["claims_rate"])),
        _figure("action recall", _fmt(parts["action_recall"])),
        _figure("trace-state reward", _fmt(parts["trace_state_reward"])),
        _figure("extra calls / ep.", _fmt(parts["extra_calls"])),
        _figure("malformed calls / ep.", _fmt(parts["malformed_calls"])),
        _figure("episodes w/ ungrounded calls", _pct(grounding["ungrounded_share"]), "ungrounded-share"),
        _figure("ungrounded calls", str(grounding["ungrounded_calls"]), "ungrounded-calls"),
        _figure("policy violations", str(grounding["policy_violations"]), "policy-violations"),
    ]
    kinds = ", ".join(f"{k}: {v}" for k, v in grounding["policy_violations_by_kind"].items())
    passk = _table(
        ["k", "pass^k", "pass@k", "tasks", "tasks left out"],
        (
            [
                _td(r["k"], "num"),
                _td(r["pass_hat_k"], "num"),
                _td(r["pass_at_k"], "num"),
                _td(r["tasks"], "num"),
                _td(r["tasks_left_out"], "num"),
            ]
            for r in summary["pass_k"]
        ),
        ' id="passk"',
    )
    total = summary["episodes"] or 1
    terminations = _table(
        ["termination", "episodes", "share"],
        (
            [_td(name), _td(count, "num"), f'<td class="num">{_pct(count / total)}</td>']
            for name, count in summary["terminations"].items()
        ),
        ' id="terminations"',
    )
    tools = _table(
        ["tool", "calls", "errors", "error rate"],
        (
            [
                _td(name),
                _td(t["calls"], "num"),
                _td(t["errors"], "bad num" if t["errors"] else "num"),
                f'<td class="num">{_pct(t["rate"])}</td>',
            ]
            for name, t in summary["tools"].items()
        ),
        ' id="tools"',
    )
    usage = _usage_table(records)
    timing = usage_summary(records)
    figures.append(_figure("mean time / ep. (s)", _fmt(timing["time_mean_s"]), "mean-time"))
    excluded = ", ".join(f"{k}: {v}" for k, v in summary["excluded"]["by_reason"].items())
    note = f'<p class="note">excluded from scores: {_e(excluded)}</p>' if excluded else ""
    if kinds:
        note += f'<p class="note">policy violations by kind: {_e(kinds)}</p>'
    return (
        f'<h2>Summary</h2><div class="figures">{"".join(figures)}</div>{note}'
        f'{charts_section([("run", records)])}<div class="cols">'
        f"<div><h4>pass^k</h4>{passk}</div><div><h4>Terminations</h4>{terminations}</div>"
        f"<div><h4>Tools</h4>{tools}</div><div><h4>Usage</h4>{usage}</div></div>"
    )


def _config_section(metadata: dict[str, Any]) -> str:
    rows = ([f"<th>{_e(key)}</th>", _td(value)] for key, value in sorted(metadata.items()))
    return "<h2>Configuration</h2>" + _table(["key", "value"], rows, ' id="config"')


# ------------------------------------------------------------------------------------ episodes


def _data_attrs(record: TrajectoryRecord) -> str:
    return (
        f' data-term="{_e(record.termination)}" data-outcome="{_outcome(record)}"'
        f' data-task="{_e(record.task_id)}"'
    )


def _episode_row(index: int, record: TrajectoryRecord, href: str, task: Task | None, note: str) -> str:
    parts = record.reward_parts
    calls = sum(s.calls for s in record.tool_stats.values())
    errors = sum(s.errors for s in record.tool_stats.values())
    missing = "; ".join(parts.claims_missing) if parts else None
    ungrounded = parts.ungrounded_calls if parts else None
    violations = len(parts.policy_violations) if parts else None
    reward_v = "-1" if record.reward is None else repr(record.reward)
    cells = [
        f'<td data-v="{_e(record.task_id)}"><a href="{_e(href)}">{_e(record.task_id)}</a></td>',
        _td(record.trial, "num"),
        _td(record.termination),
        f'<td class="num {_outcome(record)}" data-v="{reward_v}">{_e(_fmt(record.reward))}</td>',
        _td(record.steps, "num"),
        _td(calls, "num"),
        _td(errors, "bad num" if errors else "num"),
        _td(parts.state_match if parts else None, "" if parts is None or parts.state_match else "bad"),
        _td(missing, "bad" if missing else ""),
        _td(ungrounded, "bad num" if ungrounded else "num"),
        _td(violations, "bad num" if violations else "num"),
        *_usage_cells([record]),
        *task_cells(task, note),
    ]
    return f"<tr{_data_attrs(record)}>{''.join(cells)}</tr>"


def _content_text(content: Any) -> str:
    """A message's content as text: a string, or the text of OpenAI content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p["text"] if isinstance(p, dict) and "text" in p else _fmt(p) for p in content]
        return "\n".join(texts)
    return _fmt(content)


def _result(message: dict[str, Any]) -> str:
    text = _content_text(message.get("content"))
    error = text.startswith(TOOL_ERROR_PREFIX)
    return f'<pre class="result{" error" if error else ""}">{_cut(_pretty(text))}</pre>'


def _call(call: dict[str, Any], result: dict[str, Any] | None) -> str:
    function = call.get("function") or {}
    name = str(function.get("name", "?"))
    arguments = function.get("arguments") or ""
    try:
        args = json.dumps(json.loads(arguments), indent=2, ensure_ascii=False, sort_keys=True)
        malformed = ""
    except (TypeError, ValueError):
        args = str(arguments)
        malformed = ' <span class="bad">malformed arguments</span>'
    shown = _result(result) if result is not None else '<p class="note">no result recorded</p>'
    return (
        f'<div class="call"><pre class="args"><b>{_e(name)}</b>({_cut(args)}){malformed}</pre>{shown}</div>'
    )


def _transcript(messages: list[dict[str, Any]]) -> str:
    """Bubbles for user and assistant messages; each tool call followed by its result (the
    first later ``tool`` message with its id, so ids reused across turns pair correctly)."""
    shown: set[int] = set()
    out = []
    for index, message in enumerate(messages):
        role = str(message.get("role", "?"))
        if role == "tool":
            if id(message) not in shown:  # a result whose call is not in the transcript
                out.append(f'<div class="call">{_result(message)}</div>')
            continue
        css = role if role in ("user", "assistant") else "other"
        text = _content_text(message.get("content"))
        if text:
            out.append(f'<div class="msg {css}"><span class="role">{_e(role)}</span>{_e(text)}</div>')
        for call in message.get("tool_calls") or []:
            result = next(
                (
                    m
                    for m in messages[index + 1 :]
                    if m.get("role") == "tool"
                    and m.get("tool_call_id") == call.get("id")
                    and id(m) not in shown
                ),
                None,
            )
            if result is not None:
                shown.add(id(result))
            out.append(_call(call, result))
    return "".join(out) or '<p class="note">no messages</p>'


def _rows_table(rows: list[dict[str, Any]]) -> str:
    columns = sorted({column for row in rows for column in row})
    return _table(columns, ([_td(row.get(c)) for c in columns] for row in rows))


def _diff(diff: dict[str, Any] | None) -> str:
    """The final state diff: per table its inserted, deleted and updated rows."""
    if diff is None:
        return '<p class="note">not recorded</p>'
    if not diff:
        return '<p class="note">no change</p>'
    out = []
    for table, change in sorted(diff.items()):
        out.append(f"<h4>{_e(table)}</h4>")
        for kind in ("inserted", "deleted"):
            if change.get(kind):
                out.append(f'<div class="muted">{kind}</div>{_rows_table(change[kind])}')
        if change.get("updated"):
            rows = (
                [
                    _td(", ".join(f"{k}={_fmt(v)}" for k, v in update["key"].items())),
                    _td(column),
                    _td(update["before"].get(column)),
                    _td(update["after"].get(column)),
                ]
                for update in change["updated"]
                for column in sorted(update["after"])
            )
            out.append(
                f'<div class="muted">updated</div>{_table(["key", "column", "before", "after"], rows)}'
            )
    return "".join(out)


# Reward parts shown in red when not empty (or not 0): what went wrong, value by value.
_FLAGGED = (
    "claims_missing",
    "actions_missing",
    "ungrounded_calls",
    "ungrounded_values",
    "policy_violations",
    "required_calls_missing",
)


def _reward_parts(record: TrajectoryRecord) -> str:
    if record.reward_parts is None:
        return '<p class="note">not scored</p>'
    rows = []
    for name, value in record.reward_parts.model_dump().items():
        flagged = (name in _FLAGGED and value) or (name == "state_match" and not value)
        shown = "\n".join(value) if isinstance(value, list) and name != "basis" else value
        rows.append([f"<th>{_e(name)}</th>", _td(shown, "lines bad" if flagged else "lines")])
    return _table(["part", "value"], rows)


def _episode(index: int, record: TrajectoryRecord) -> str:
    outcome = _outcome(record)
    head = (
        f"{_e(record.task_id)} <span class='muted'>trial {record.trial} · {_e(record.termination)} · "
        f"reward</span> <span class='{outcome}'>{_e(_fmt(record.reward))}</span>"
    )
    usage = {who: u.model_dump() for who, u in record.usage.items()}
    facts = [
        ("termination", record.termination),
        ("termination detail", record.termination_detail),
        ("agent", record.agent.model_dump()),
        ("user", record.user.model_dump()),
        ("env / servers", f"{record.env} / {', '.join(record.servers)}"),
        ("seed", record.seed),
        ("tools offered", len(record.tools)),
        ("state hashes", f"initial {record.initial_state_hash}\nfinal {record.final_state_hash}"),
        ("gold state hash", record.gold_state_hash),
        ("collateral changes", ", ".join(record.collateral_changes) or "none"),
        ("timings (s)", {k: round(v, 3) for k, v in sorted(record.timings.items())}),
        ("usage", usage),
    ]
    facts_rows = []
    for label, value in facts:
        bad = label == "collateral changes" and bool(record.collateral_changes)
        facts_rows.append(
            [f"<th>{_e(label)}</th>", f"<td{' class=bad' if bad else ''}><pre>{_e(_fmt(value))}</pre></td>"]
        )
    return (
        f'<details class="episode" id="ep-{index}"{_data_attrs(record)}><summary>{head}</summary>'
        f'<div class="cols"><div><h4>Episode</h4>{_table(["field", "value"], facts_rows)}</div>'
        f"<div><h4>Reward parts</h4>{_reward_parts(record)}</div></div>"
        f"<h4>Transcript</h4>{_transcript(record.messages)}"
        f"<h4>Final diff</h4>{_diff(record.final_diff)}</details>"
    )


def _episodes_section(
    records: list[TrajectoryRecord],
    chunk_name: Callable[[int], str] | None,
    tasks: dict[str, Task],
    note: str,
) -> str:
    """The filter bar, the episodes table (paginated by the page's script) and, for a run
    of at most :data:`MAX_INLINE_EPISODES` (``chunk_name`` None), every transcript; a
    larger run links each row to its transcript on a page of its own chunk."""
    terminations = sorted({r.termination for r in records})
    options = "".join(f'<option value="{_e(t)}">{_e(t)}</option>' for t in terminations)
    filters = (
        '<div class="filters"><label>termination <select id="f-term"><option value="">all</option>'
        f"{options}</select></label>"
        '<label>outcome <select id="f-outcome"><option value="">all</option>'
        '<option value="success">success</option><option value="failure">failure</option>'
        '<option value="excluded">excluded</option></select></label>'
        '<label>task <input id="f-task" type="search" placeholder="task id contains"></label>'
        '<button id="expand" type="button">expand all</button>'
        '<button id="collapse" type="button">collapse all</button>'
        '<span><span id="count"></span> episodes shown · <span id="page"></span></span>'
        '<button id="prev" type="button">previous</button><button id="next" type="button">next</button></div>'
    )
    header = ["task", "trial", "termination", "reward", "steps", "tool calls", "tool errors"]
    header += ["state match", "claims missing", "ungrounded calls", "policy violations"]
    header += ["tokens", "cost (USD)", "time (s)", "request", "gold"]

    def href(i: int) -> str:
        return _href(i, chunk_name)

    rows = (_episode_row(i, r, href(i), tasks.get(r.task_id), note) for i, r in enumerate(records))
    table = _table_of_rows(header, rows, f' id="episodes" data-page="{ROWS_PER_PAGE}"')
    if chunk_name is None:
        transcripts = "".join(_episode(i, r) for i, r in enumerate(records))
    else:
        pages = range(0, len(records), EPISODES_PER_PAGE)
        links = "".join(
            f'<li><a href="{_e(chunk_name(k // EPISODES_PER_PAGE))}">episodes {k + 1}-'
            f"{min(k + EPISODES_PER_PAGE, len(records))}</a></li>"
            for k in pages
        )
        transcripts = (
            f'<p class="note">{len(records)} episodes: transcripts on pages of their own</p><ul>{links}</ul>'
        )
    warn = f'<p class="note warn">{_e(note)}</p>' if note else ""
    return (
        f'<h2>Episodes</h2><p class="note">click a column to sort; click a task to open it; '
        "hover a request or gold for the whole of it</p>"
        f"{warn}{filters}{table}<h2>Transcripts</h2>{transcripts}"
    )


def _href(i: int, chunk_name: Callable[[int], str] | None) -> str:
    """Where episode ``i``'s transcript is: on the page, or on its chunk's page."""
    return f"#ep-{i}" if chunk_name is None else f"{chunk_name(i // EPISODES_PER_PAGE)}#ep-{i}"


# ------------------------------------------------------------------------------------ API


def render_run(run_dir: Path) -> str:
    """The whole page for the run in ``run_dir`` (see the module doc); for a run of more
    than :data:`MAX_INLINE_EPISODES` episodes, the main page of ``render_pages``."""
    return render_pages(run_dir, "report")["report.html"]


def is_failure(record: TrajectoryRecord) -> bool:
    """An episode ``view --failures`` shows: a harness failure, or a reward below 1."""
    return record.excluded or record.reward is None or record.reward < 1.0


def render_pages(run_dir: Path, stem: str, failures_only: bool = False) -> dict[str, str]:
    """File name -> page: ``<stem>.html``, and for a run of more than
    :data:`MAX_INLINE_EPISODES` episodes ``<stem>-episodes-<k>.html`` with
    :data:`EPISODES_PER_PAGE` transcripts each, so no page grows with the run. With
    ``failures_only`` only the episodes of :func:`is_failure` are listed (the summary
    still describes the whole run)."""
    metadata, records = load_run(run_dir)
    tasks, note = load_tasks(run_dir, metadata)
    title = f"Run {metadata.get('run_id', Path(run_dir).name)}"
    summary = _summary_section(summarize(records), records)
    if failures_only:
        records = [r for r in records if is_failure(r)]
        title += f": {len(records)} failures"

    def chunk(k: int) -> str:
        return f"{stem}-episodes-{k + 1}.html"

    large = len(records) > MAX_INLINE_EPISODES
    failures = failures_section(records, lambda i: _href(i, chunk if large else None))
    main = _page(
        title,
        f"<h1>{_e(title)}</h1>{failures}{summary}{_config_section(metadata)}"
        f"{_episodes_section(records, chunk if large else None, tasks, note)}<script>{_JS}</script>",
    )
    pages = {f"{stem}.html": main}
    if large:
        for k, start in enumerate(range(0, len(records), EPISODES_PER_PAGE)):
            shown = records[start : start + EPISODES_PER_PAGE]
            body = "".join(_episode(start + i, r) for i, r in enumerate(shown))
            heading = f"{title}: episodes {start + 1}-{start + len(shown)}"
            back = f'<p><a href="{_e(stem)}.html">back to the run</a></p>'
            pages[chunk(k)] = _page(
                heading, f"<h1>{_e(heading)}</h1>{back}{body}<script>{_CHUNK_JS}</script>"
            )
    return pages


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>{body}</body></html>\n"
    )
