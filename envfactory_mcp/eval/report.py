"""The results of an eval run: summary figures, a terminal table, JSON and one HTML page."""

from __future__ import annotations

import html
import json
from collections import Counter
from pathlib import Path
from typing import Any

from envfactory_mcp import files
from envfactory_mcp.eval.claims import PASS_AT, PASS_LOOSE
from envfactory_mcp.eval.runner import EvalResult
from envfactory_mcp.eval.taxonomy import FAILURE_CLASSES


def _rate(values: list[bool]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def summarize(results: list[EvalResult], seconds: float | None = None) -> dict[str, Any]:
    """Coverage, pass rates (0.75 and 0.5), per server, per failure class, usage and cost.
    Harness failures are counted and left out of every score."""
    scored = [r for r in results if not r.excluded]
    per_server: dict[str, dict[str, Any]] = {}
    for server in sorted({s for r in scored for s in r.servers}):
        mine = [r for r in scored if server in r.servers]
        per_server[server] = {
            "episodes": len(mine),
            "coverage": _mean([r.coverage for r in mine]),
            "pass_rate": _rate([r.passed for r in mine]),
            "state_ok": _rate([r.server_states.get(server, False) for r in mine]),
        }
    classes = Counter(r.failure_class for r in scored if r.failure_class)
    usage: dict[str, dict[str, Any]] = {}
    for who in ("agent", "user", "judge"):
        parts = [r.usage[who] for r in results if who in r.usage]
        costs = [p.cost_usd for p in parts if p.cost_usd is not None]
        usage[who] = {
            "prompt_tokens": sum(p.prompt_tokens for p in parts),
            "completion_tokens": sum(p.completion_tokens for p in parts),
            "cost_usd": round(sum(costs), 6) if costs else None,
        }
    costs = [u["cost_usd"] for u in usage.values() if u["cost_usd"] is not None]
    summary: dict[str, Any] = {
        "episodes": len(results),
        "scored": len(scored),
        "harness_failures": len(results) - len(scored),
        "tasks": len({r.task_id for r in results}),
        "agent": results[0].agent if results else None,
        "agent_model": results[0].agent_model if results else None,
        "coverage": _mean([r.coverage for r in scored]),
        f"pass_rate@{PASS_AT}": _rate([r.passed for r in scored]),
        f"pass_rate@{PASS_LOOSE}": _rate([r.passed_loose for r in scored]),
        "state_ok": _rate([r.state_ok for r in scored]),
        "tools_offered": _mean([float(r.tools_offered) for r in results]),
        "relevant_tools": _mean([float(len(r.relevant_tools)) for r in results]),
        "per_server": per_server,
        "failure_classes": {c: classes.get(c, 0) for c in FAILURE_CLASSES},
        "terminations": dict(Counter(r.termination for r in results)),
        "usage": usage,
        "cost_usd": round(sum(costs), 6) if costs else None,
    }
    if seconds is not None:
        summary["seconds"] = round(seconds, 3)
        summary["tasks_per_s"] = round(len(results) / seconds, 3) if seconds > 0 else None
    return summary


def table(summary: dict[str, Any]) -> str:
    """The summary as plain text for a terminal."""
    model = f" ({summary['agent_model']})" if summary["agent_model"] else ""
    lines = [
        (
            f"agent {summary['agent']}{model}:"
            f" {summary['scored']} scored episodes of {summary['tasks']} tasks"
            f" ({summary['harness_failures']} harness failures left out)"
        ),
        (
            f"  coverage {summary['coverage']:.3f}   pass@{PASS_AT} {summary[f'pass_rate@{PASS_AT}']:.3f}"
            f"   pass@{PASS_LOOSE} {summary[f'pass_rate@{PASS_LOOSE}']:.3f}   state ok {summary['state_ok']:.3f}"
        ),
        f"  tools offered {summary['tools_offered']:.1f} per task, {summary['relevant_tools']:.1f} of them needed",
        "",
        f"  {'server':<16}{'episodes':>9}{'coverage':>10}{'pass':>8}{'state ok':>10}",
    ]
    for server, row in summary["per_server"].items():
        lines.append(
            f"  {server:<16}{row['episodes']:>9}{row['coverage']:>10.3f}{row['pass_rate']:>8.3f}{row['state_ok']:>10.3f}"
        )
    failures = {c: n for c, n in summary["failure_classes"].items() if n}
    lines += ["", "  failures by class:" + ("" if failures else " none")]
    lines += [f"    {c:<24}{n:>5}  {FAILURE_CLASSES[c]}" for c, n in failures.items()]
    usage = summary["usage"]
    lines.append("")
    for who, u in usage.items():
        cost = f"${u['cost_usd']:.4f}" if u["cost_usd"] is not None else "cost unknown"
        lines.append(f"  {who:<6} tokens {u['prompt_tokens']:>9} in {u['completion_tokens']:>8} out   {cost}")
    if "tasks_per_s" in summary:
        lines.append(f"  {summary['seconds']} s, {summary['tasks_per_s']} episodes/s")
    return "\n".join(lines)


def write_results(out: Path, results: list[EvalResult], summary: dict[str, Any]) -> None:
    """``results.json`` (summary and every episode's scores), ``episodes.jsonl`` (with
    transcripts) and ``report.html``."""
    out.mkdir(parents=True, exist_ok=True)
    brief = [r.model_dump(mode="json", exclude={"messages"}) for r in results]
    files.write_json(out / "results.json", {"summary": summary, "episodes": brief}, ensure_ascii=False)
    files.write_text(
        out / "episodes.jsonl",
        "".join(json.dumps(r.model_dump(mode="json"), ensure_ascii=False) + "\n" for r in results),
    )
    files.write_text(out / "report.html", render_html(results, summary))


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:14px}th{background:#f3f3f3}
.pass{color:#176b1a;font-weight:600}.fail{color:#a11;font-weight:600}pre{white-space:pre-wrap;margin:0}
details{margin:2px 0}.msg{border-left:3px solid #ddd;padding-left:6px;margin:4px 0;font-size:13px}
"""


def render_html(results: list[EvalResult], summary: dict[str, Any]) -> str:
    """One self-contained page: the figures, the breakdowns, and each episode with its
    claims, failure class and transcript (collapsed)."""
    e = html.escape
    parts = [f"<!doctype html><meta charset='utf-8'><title>eval results</title><style>{_STYLE}</style>"]
    parts.append(f"<h1>Eval: {e(str(summary['agent']))} {e(summary['agent_model'] or '')}</h1>")
    head = [
        ("episodes (scored)", f"{summary['episodes']} ({summary['scored']})"),
        ("coverage", f"{summary['coverage']:.3f}"),
        (f"pass@{PASS_AT}", f"{summary[f'pass_rate@{PASS_AT}']:.3f}"),
        (f"pass@{PASS_LOOSE}", f"{summary[f'pass_rate@{PASS_LOOSE}']:.3f}"),
        ("state ok", f"{summary['state_ok']:.3f}"),
        ("tools offered / needed", f"{summary['tools_offered']:.1f} / {summary['relevant_tools']:.1f}"),
        ("cost", "unknown" if summary["cost_usd"] is None else f"${summary['cost_usd']:.4f}"),
    ]
    parts.append(
        "<table>" + "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in head) + "</table>"
    )
    parts.append(
        "<h2>Per server</h2><table><tr><th>server</th><th>episodes</th><th>coverage</th><th>pass</th><th>state ok</th></tr>"
    )
    for server, row in summary["per_server"].items():
        parts.append(
            f"<tr><td>{e(server)}</td><td>{row['episodes']}</td><td>{row['coverage']:.3f}</td>"
            f"<td>{row['pass_rate']:.3f}</td><td>{row['state_ok']:.3f}</td></tr>"
        )
    parts.append(
        "</table><h2>Failures by class</h2><table><tr><th>class</th><th>episodes</th><th>meaning</th></tr>"
    )
    for c, n in summary["failure_classes"].items():
        parts.append(f"<tr><td>{e(c)}</td><td>{n}</td><td>{e(FAILURE_CLASSES[c])}</td></tr>")
    parts.append(
        "</table><h2>Usage</h2><table><tr><th></th><th>prompt tokens</th><th>completion tokens</th><th>cost</th></tr>"
    )
    for who, u in summary["usage"].items():
        cost = "unknown" if u["cost_usd"] is None else f"${u['cost_usd']:.4f}"
        parts.append(
            f"<tr><td>{who}</td><td>{u['prompt_tokens']}</td><td>{u['completion_tokens']}</td><td>{cost}</td></tr>"
        )
    parts.append(
        "</table><h2>Episodes</h2><table><tr><th>task</th><th>servers</th><th>result</th><th>coverage</th>"
        "<th>state</th><th>failure</th><th>claims and transcript</th></tr>"
    )
    for r in results:
        verdict = "<span class='pass'>pass</span>" if r.passed else "<span class='fail'>fail</span>"
        claims = "".join(
            f"<li>{e(s.text)}: {s.score:g} ({e(s.method)}{': ' + e(s.reason) if s.reason else ''})</li>"
            for s in r.claims.scores
        )
        transcript = "".join(_message_html(m) for m in r.messages)
        parts.append(
            f"<tr><td>{e(r.task_id)} #{r.trial}</td><td>{e(', '.join(r.servers))}</td><td>{verdict}</td>"
            f"<td>{r.coverage:.2f}</td><td>{'ok' if r.state_ok else e(', '.join(s for s, ok in r.server_states.items() if not ok))}</td>"
            f"<td>{e(r.failure_class or '')}<br><small>{e(r.failure_detail)}</small></td>"
            f"<td><details><summary>{len(r.claims.scores)} claims, {len(r.messages)} messages</summary>"
            f"<ul>{claims}</ul>{transcript}</details></td></tr>"
        )
    parts.append("</table>")
    return "\n".join(parts)


def _message_html(message: dict[str, Any]) -> str:
    e = html.escape
    text = message.get("content") or ""
    calls = message.get("tool_calls") or []
    shown = "".join(f"\n→ {c['function']['name']}({c['function']['arguments']})" for c in calls)
    return f"<div class='msg'><b>{e(str(message.get('role')))}</b><pre>{e(str(text) + shown)}</pre></div>"
