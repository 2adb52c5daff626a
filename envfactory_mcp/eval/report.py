"""The results of an eval run: each episode's record read as MCP-Atlas reads it, summary
figures, a terminal table, JSON, one HTML page, and two runs side by side.

The episodes themselves are the host's (``host.rollout``: the run directory's
``trajectories.jsonl``, scored by the reward); this module only reads them: coverage is
the share of the task's claims the reward's claim checker found (a judge may raise a
missing one), state is the reward's state part, per-server states come from the record's
per-server hashes, and a failed episode gets one failure class (``eval.taxonomy``).
"""

from __future__ import annotations

import html
import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from envfactory_mcp import files
from envfactory_mcp.eval.claims import (
    PASS_AT,
    PASS_LOOSE,
    ClaimJudge,
    ClaimsResult,
    found_by_reward,
    score_claims,
)
from envfactory_mcp.eval.compose import SEP, EvalTask
from envfactory_mcp.eval.taxonomy import FAILURE_CLASSES, EpisodeFacts, classify
from envfactory_mcp.records.trajectory import TrajectoryRecord, Usage
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.spec.models import EnvSpec


class EvalResult(BaseModel):
    """One scored episode, as the eval report reads it."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    trial: int = 0
    kind: str = "chain"
    servers: list[str]  # the servers the task's gold uses
    offered: list[str]
    tools_offered: int
    relevant_tools: list[str]
    agent: str
    agent_model: str | None = None
    termination: str
    termination_detail: str = ""
    state_ok: bool
    server_states: dict[str, bool]  # server -> final state equals its gold
    collateral: list[str]
    claims: ClaimsResult
    coverage: float
    passed: bool  # state ok and coverage >= 0.75
    passed_loose: bool  # state ok and coverage >= 0.5
    failure_class: str | None = None
    failure_detail: str = ""
    policy_violations: list[str] = Field(default_factory=list)
    steps: int = 0
    tool_calls: int = 0
    usage: dict[str, Usage] = Field(default_factory=dict)  # agent, user, judge
    seconds: float = 0.0
    messages: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def excluded(self) -> bool:
        return self.termination in ("model_unavailable", "user_error", "infrastructure_error", "timeout")


async def eval_result(
    record: TrajectoryRecord,
    task: EvalTask,
    specs: dict[str, EnvSpec | None],
    judge: ClaimJudge | None = None,
) -> EvalResult:
    """The eval's reading of one host record of ``task``."""
    parts = record.reward_parts
    excluded = record.excluded or parts is None
    gold_claims = [c.text for c in task.task.gold.claims]
    found = (
        found_by_reward(gold_claims, parts.claims_found) if parts is not None else [False] * len(gold_claims)
    )
    claims = await score_claims(task.claims, record.messages, judge, found=found)
    state_ok = bool(parts and parts.state_match and not parts.required_calls_missing) and not excluded
    if state_ok:
        server_states = dict.fromkeys(task.offered, True)
    elif len(task.offered) > 1:
        server_states = {s: record.server_hashes.get(s) == task.gold_hashes[s] for s in task.offered}
    else:
        server_states = {task.offered[0]: False}
    violations = [] if excluded else _violations(record.messages, task, specs)
    coverage = claims.coverage
    passed = state_ok and coverage >= PASS_AT
    usage = {**record.usage, "judge": Usage()}
    usage["judge"].add(claims.judge_prompt_tokens, claims.judge_completion_tokens, claims.judge_cost_usd)
    result = EvalResult(
        task_id=record.task_id,
        trial=record.trial,
        kind=task.kind,
        servers=list(dict.fromkeys(a.server for a in task.task.gold.actions)) or [task.task.env],
        offered=task.offered,
        tools_offered=len(record.tools),
        relevant_tools=task.relevant_tools,
        agent=record.agent.kind,
        agent_model=record.agent.model,
        termination=record.termination,
        termination_detail=record.termination_detail,
        state_ok=state_ok,
        server_states=server_states,
        collateral=record.collateral_changes,
        claims=claims,
        coverage=coverage,
        passed=passed,
        passed_loose=state_ok and coverage >= PASS_LOOSE,
        policy_violations=violations,
        steps=record.steps,
        tool_calls=sum(s.calls for s in record.tool_stats.values()),
        usage=usage,
        seconds=round(record.timings.get("total_s", 0.0), 6),
        messages=record.messages,
    )
    if not passed and not excluded:
        result.failure_class, result.failure_detail = classify(
            EpisodeFacts(
                messages=record.messages,
                relevant_tools=task.relevant_tools,
                termination=record.termination,
                state_ok=state_ok,
                collateral=record.collateral_changes,
                policy_violations=violations,
                coverage=coverage,
            )
        )
    return result


def _violations(
    messages: list[dict[str, Any]], task: EvalTask, specs: dict[str, EnvSpec | None]
) -> list[str]:
    """Policy violations, server by server (each judged on its own calls, names plain)."""
    if len(task.offered) == 1:
        spec = specs.get(task.offered[0])
        return policy_violations(messages, spec) if spec is not None else []
    found: list[str] = []
    for name in task.offered:
        spec = specs.get(name)
        if spec is None:
            continue
        rules = spec.policy_rules
        if not (rules.confirm or rules.authentication or rules.refusals):
            continue
        prefix = f"{name}{SEP}"
        mine: list[dict[str, Any]] = []
        ids: set[str] = set()
        for m in messages:
            if m.get("role") == "assistant" and m.get("tool_calls"):
                calls = [c for c in m["tool_calls"] if c["function"]["name"].startswith(prefix)]
                ids.update(str(c["id"]) for c in calls)
                m = {
                    **m,
                    "tool_calls": [
                        {
                            **c,
                            "function": {**c["function"], "name": c["function"]["name"].removeprefix(prefix)},
                        }
                        for c in calls
                    ],
                }
                if not m["tool_calls"]:
                    del m["tool_calls"]
            elif m.get("role") == "tool" and str(m.get("tool_call_id")) not in ids:
                continue
            mine.append(m)
        found.extend(f"{name}: {v}" for v in policy_violations(mine, spec))
    return found


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
    per_kind = {
        kind: {
            "episodes": len(mine),
            "coverage": _mean([r.coverage for r in mine]),
            "pass_rate": _rate([r.passed for r in mine]),
        }
        for kind in sorted({r.kind for r in scored})
        for mine in [[r for r in scored if r.kind == kind]]
    }
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
        "per_kind": per_kind,
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
    """``results.json`` (summary and every episode's scores; the transcripts are the run's
    ``trajectories.jsonl``) and ``report.html``."""
    out.mkdir(parents=True, exist_ok=True)
    brief = [r.model_dump(mode="json", exclude={"messages"}) for r in results]
    files.write_json(out / "results.json", {"summary": summary, "episodes": brief}, ensure_ascii=False)
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


# ----------------------------------------------------------------------------- side by side


def compare(first: Path, second: Path) -> dict[str, Any]:
    """Two eval folders (``results.json``) of the same eval set side by side: each one's
    figures, per server and kind, failure classes, and the episodes where they differ."""
    from envfactory_mcp.errors import EnvFactoryError

    runs = []
    for folder in (first, second):
        try:
            runs.append(json.loads((Path(folder) / "results.json").read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise EnvFactoryError(f"{folder}/results.json: cannot read it: {exc}") from None
    a, b = runs
    if a["summary"].get("eval_set_sha256") != b["summary"].get("eval_set_sha256"):
        raise EnvFactoryError(
            f"{first} and {second} ran different eval sets (sha256 {str(a['summary'].get('eval_set_sha256'))[:12]}"
            f" and {str(b['summary'].get('eval_set_sha256'))[:12]}): re-run one with --tasks <the other>/eval_set.jsonl"
        )

    def key(e: dict[str, Any]) -> tuple[str, int]:
        return (e["task_id"], e["trial"])

    left = {key(e): e for e in a["episodes"] if e["termination"] not in _EXCLUDED}
    right = {key(e): e for e in b["episodes"] if e["termination"] not in _EXCLUDED}
    both = sorted(left.keys() & right.keys())
    outcome = Counter(
        "both"
        if left[k]["passed"] and right[k]["passed"]
        else "first only"
        if left[k]["passed"]
        else "second only"
        if right[k]["passed"]
        else "neither"
        for k in both
    )
    differ = [
        {
            "task_id": k[0],
            "trial": k[1],
            "first": {f: left[k][f] for f in ("passed", "coverage", "state_ok", "failure_class")},
            "second": {f: right[k][f] for f in ("passed", "coverage", "state_ok", "failure_class")},
        }
        for k in both
        if (left[k]["passed"], left[k]["coverage"]) != (right[k]["passed"], right[k]["coverage"])
    ]
    return {
        "eval_set_sha256": a["summary"].get("eval_set_sha256"),
        "runs": [str(first), str(second)],
        "summaries": [a["summary"], b["summary"]],
        "episodes_compared": len(both),
        "outcomes": {k: outcome.get(k, 0) for k in ("both", "first only", "second only", "neither")},
        "differ": differ,
    }


_EXCLUDED = ("model_unavailable", "user_error", "infrastructure_error", "timeout")


def _who(summary: dict[str, Any]) -> str:
    return f"{summary['agent']}" + (f" ({summary['agent_model']})" if summary.get("agent_model") else "")


def compare_table(side: dict[str, Any]) -> str:
    """The side-by-side as plain text."""
    a, b = side["summaries"]
    rows = [
        ("coverage", "coverage"),
        (f"pass@{PASS_AT}", f"pass_rate@{PASS_AT}"),
        (f"pass@{PASS_LOOSE}", f"pass_rate@{PASS_LOOSE}"),
        ("state ok", "state_ok"),
    ]
    lines = [
        f"eval set {str(side['eval_set_sha256'])[:12]}: {side['episodes_compared']} episodes scored in both",
        f"  {'':<22}{_who(a)[:20]:>20}{_who(b)[:20]:>20}",
    ]
    lines += [f"  {label:<22}{a[k]:>20.3f}{b[k]:>20.3f}" for label, k in rows]
    for group in ("per_kind", "per_server"):
        for name in sorted(set(a.get(group, {})) | set(b.get(group, {}))):
            ra, rb = a.get(group, {}).get(name), b.get(group, {}).get(name)
            lines.append(
                f"  {name[:22]:<22}{(ra or {}).get('pass_rate', 0.0):>20.3f}{(rb or {}).get('pass_rate', 0.0):>20.3f}"
            )
    classes = sorted({c for s in (a, b) for c, n in s["failure_classes"].items() if n})
    lines += [
        f"  {c:<22}{a['failure_classes'].get(c, 0):>20}{b['failure_classes'].get(c, 0):>20}" for c in classes
    ]
    o = side["outcomes"]
    lines.append(
        f"  passed by both {o['both']}, only the first {o['first only']}, only the second"
        f" {o['second only']}, neither {o['neither']}; {len(side['differ'])} episodes differ"
    )
    return "\n".join(lines)


def compare_html(side: dict[str, Any]) -> str:
    """The side-by-side as one page."""
    e = html.escape
    a, b = side["summaries"]
    parts = [f"<!doctype html><meta charset='utf-8'><title>eval side by side</title><style>{_STYLE}</style>"]
    parts.append(f"<h1>{e(_who(a))} vs {e(_who(b))}</h1><pre>{e(compare_table(side))}</pre>")
    parts.append("<h2>Episodes that differ</h2><table><tr><th>task</th><th>first</th><th>second</th></tr>")
    for d in side["differ"]:
        cells = [
            f"{'pass' if x['passed'] else 'fail'} {x['coverage']:.2f} {e(x['failure_class'] or '')}"
            for x in (d["first"], d["second"])
        ]
        parts.append(
            f"<tr><td>{e(d['task_id'])} #{d['trial']}</td><td>{cells[0]}</td><td>{cells[1]}</td></tr>"
        )
    parts.append("</table>")
    return "\n".join(parts)
