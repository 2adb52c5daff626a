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
violations listed one per line), the final state diff and collateral changes.

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
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from envfactory_mcp import files
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.records.store import METADATA, RunStoreError, read_records
from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX, TrajectoryRecord
from envfactory_mcp.scoring.passk import exclusion_reason, is_success, summarize

MAX_CHARS = 2000  # tool arguments and outputs longer than this are cut, with a note
ROWS_PER_PAGE = 100  # episodes table rows shown at once (the page's script pages through them)
MAX_INLINE_EPISODES = 200  # a larger run's transcripts go on pages of their own
EPISODES_PER_PAGE = 100  # transcripts per such page

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


# ------------------------------------------------------------------------------------ header


def _summary_section(summary: dict[str, Any]) -> str:
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
    usage = _table(
        ["who", "prompt tokens", "completion tokens", "cost (USD)", "cost unknown"],
        (
            [
                _td(who),
                _td(u["prompt_tokens"], "num"),
                _td(u["completion_tokens"], "num"),
                _td(u["cost_usd"], "num"),
                _td(u["cost_unknown"], "num"),
            ]
            for who, u in summary["usage"].items()
        ),
    )
    excluded = ", ".join(f"{k}: {v}" for k, v in summary["excluded"]["by_reason"].items())
    note = f'<p class="note">excluded from scores: {_e(excluded)}</p>' if excluded else ""
    if kinds:
        note += f'<p class="note">policy violations by kind: {_e(kinds)}</p>'
    return (
        f'<h2>Summary</h2><div class="figures">{"".join(figures)}</div>{note}<div class="cols">'
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


def _episode_row(index: int, record: TrajectoryRecord, href: str) -> str:
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


def _episodes_section(records: list[TrajectoryRecord], chunk_name: Callable[[int], str] | None) -> str:
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

    def href(i: int) -> str:
        return f"#ep-{i}" if chunk_name is None else f"{chunk_name(i // EPISODES_PER_PAGE)}#ep-{i}"

    rows = (_episode_row(i, r, href(i)) for i, r in enumerate(records))
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
    return (
        f'<h2>Episodes</h2><p class="note">click a column to sort; click a task to open it</p>'
        f"{filters}{table}<h2>Transcripts</h2>{transcripts}"
    )


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
    title = f"Run {metadata.get('run_id', Path(run_dir).name)}"
    summary = summarize(records)
    if failures_only:
        records = [r for r in records if is_failure(r)]
        title += f": {len(records)} failures"

    def chunk(k: int) -> str:
        return f"{stem}-episodes-{k + 1}.html"

    large = len(records) > MAX_INLINE_EPISODES
    main = _page(
        title,
        f"<h1>{_e(title)}</h1>{_summary_section(summary)}{_config_section(metadata)}"
        f"{_episodes_section(records, chunk if large else None)}<script>{_JS}</script>",
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


def write_view(run_dir: Path | Sequence[Path], out: Path, failures_only: bool = False) -> Path:
    """Write the pages of ``run_dir`` next to ``out`` (``render_pages`` with ``out``'s
    stem) atomically, or for several run directories their comparison; returns ``out``,
    the main page."""
    out = Path(out)
    if not isinstance(run_dir, str | Path):
        dirs = [Path(d) for d in run_dir]
        if len(dirs) > 1:
            raise EnvFactoryError("comparing runs is not available yet: view one run at a time")
        run_dir = dirs[0]
    out.parent.mkdir(parents=True, exist_ok=True)
    pages = render_pages(run_dir, out.stem, failures_only)
    for name, text in pages.items():
        if name != f"{out.stem}.html":
            files.write_text(out.parent / name, text)
    files.write_text(out, pages[f"{out.stem}.html"])
    return out
