"""Judge the sandbox's answer: turn probe outcomes into pass/fail checks with reasons.

The worker only reports facts (ok, error, fault, state fingerprints before and after,
the second run, what the guard refused); every contract is decided here, from the spec's
own declarations.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from envfactory_mcp.verify.report import TOOL_CHECKS, CheckResult, FailedProbe, ToolReport
from envfactory_mcp.verify.sandbox import SandboxResult

MAX_REASON = 400
_PROBE_LINE = re.compile(r"^envfactory-probe (\S+)$", re.MULTILINE)


def judge_tools(spec: dict[str, Any], answer: dict[str, Any]) -> list[ToolReport]:
    """One report per declared tool, each with every tool check decided."""
    by_tool: dict[str, list[dict[str, Any]]] = {t["name"]: [] for t in spec["tools"]}
    for result in answer.get("results", []):
        by_tool.setdefault(result["tool"], []).append(result)
    seed = answer["seed_hash"]
    reports = []
    for tool in spec["tools"]:
        name = tool["name"]
        killed = answer.get("killed", {}).get(name)
        report = _judge_tool(tool, by_tool[name], seed, killed)
        over = answer.get("over_budget", {}).get(name)
        if over:  # its probes stopped early: the checks it passed say little, this one says why
            _fail_sandbox(
                report, f"stopped: {over} (a tool's probes have a CPU budget that grows with the seed)"
            )
        reports.append(report)
    return reports


def _fail_sandbox(report: ToolReport, reason: str) -> None:
    for i, check in enumerate(report.checks):
        if check.check == "sandbox":
            if not check.failed:
                report.checks[i] = CheckResult(check="sandbox", status="failed", reason=reason)
            return


def _judge_tool(
    tool: dict[str, Any], results: list[dict[str, Any]], seed_hash: str, killed: str | None = None
) -> ToolReport:
    name, effect, writes = tool["name"], tool["effect"], set(tool.get("writes", []))
    report = ToolReport(
        tool=name,
        effect=effect,
        probes=len(results),
        succeeded=sum(1 for r in results if r["ok"]),
        refused=sum(1 for r in results if not r["ok"] and not r.get("internal") and not r.get("timeout")),
        probe_kinds=dict(sorted(Counter(r["kind"] for r in results).items())),
        seconds=round(sum(r.get("seconds", 0.0) for r in results), 6),
    )
    if not results:  # every declared tool is probed: an answer without it was cut short or forged
        reason = (
            killed or "no probe of this tool came back from the sandbox (its answer was incomplete or forged)"
        )
        report.checks = [
            CheckResult(check=c, status="failed", reason=reason)
            if c == "sandbox"
            else CheckResult(check=c, status="not run", reason="no probe ran")
            for c in TOOL_CHECKS
        ]
        return report
    failures: dict[str, tuple[str, dict[str, Any]]] = {}

    def fail(check: str, reason: str, result: dict[str, Any]) -> None:
        failures.setdefault(check, (reason, result))

    for r in results:
        error = r.get("error") or ""
        fault = r.get("fault")
        if r.get("refused"):
            fail("sandbox", f"tried {r['refused'][0]}, which the sandbox refused", r)
        elif r.get("timeout"):
            fail("sandbox", f"hung: {error} (the call was interrupted)", r)
        elif fault == "exception" and "MemoryError" in error:
            fail("sandbox", "ran out of memory (address-space limit of the sandbox)", r)
        elif fault == "exception":
            fail("no_internal_error", _clip(error), r)
        if fault == "output":
            fail("output_schema", _clip(error), r)
        if fault == "read":
            fail("declared_reads", _clip(error), r)
        if fault in ("write", "forbidden"):
            fail("read_only" if effect == "read" else "declared_writes", _clip(error), r)
        if r.get("timeout"):
            continue
        if effect == "read" and r["after_hash"] != seed_hash:
            fail("read_only", f"changed table(s) {', '.join(r['changed_tables'])}", r)
        undeclared = set(r.get("changed_tables", [])) - writes
        if effect == "write" and r["ok"] and undeclared:
            fail(
                "declared_writes",
                f"changed table(s) it does not declare writing: {', '.join(sorted(undeclared))}",
                r,
            )
        if not r["ok"] and r["after_hash"] != seed_hash:
            fail(
                "atomic",
                f"failed ({_clip(error, 120)}) but changed table(s) {', '.join(r['changed_tables'])}",
                r,
            )
        difference = _repeat_difference(r)
        if difference:
            fail("deterministic", difference, r)
        if r["kind"] == "refused" and r["ok"]:
            fail("policy_refusals", "succeeded on an object in a state the policy's refusal rules forbid", r)
    _reachable(results, fail, failures)
    restricted = any(r["kind"] == "refused" for r in results)
    for check in TOOL_CHECKS:
        if (check == "read_only" and effect != "read") or (check == "declared_writes" and effect != "write"):
            continue
        if check == "policy_refusals" and not restricted:
            continue
        if check in failures:
            reason, r = failures[check]
            probe = FailedProbe(id=r["id"], kind=r["kind"], arguments=_short_arguments(r["arguments"]))
            report.checks.append(CheckResult(check=check, status="failed", reason=reason, probe=probe))
        else:
            report.checks.append(CheckResult(check=check, status="passed"))
    return report


def _reachable(results: list[dict[str, Any]], fail: Any, failures: dict[str, Any]) -> None:
    valid = [r for r in results if r["kind"] in ("valid", "boundary", "given")]
    if any(r["ok"] for r in valid):
        return
    if not valid:
        fail(
            "reachable",
            "no schema-valid call could be built from the seed data (give the input schema "
            "'examples', or seed rows whose columns match the parameters)",
            results[0],
        )
        return
    answers = Counter(_shape(r.get("error") or "") for r in valid)
    common, count = answers.most_common(1)[0]
    first = next(r for r in valid if _shape(r.get("error") or "") == common)
    fail(
        "reachable",
        f"none of {len(valid)} valid calls from the seed state succeeded; most common answer "
        f"({count}x): {_clip(first.get('error') or '', 200)}",
        first,
    )


def _repeat_difference(r: dict[str, Any]) -> str | None:
    again = r.get("repeat")
    if not again or again.get("timeout"):
        return None
    if again["ok"] != r["ok"]:
        return f"succeeded on one run and failed on the other ({_clip(again.get('error') or r.get('error') or '', 120)})"
    if r["ok"] and again["output_hash"] != r["output_hash"]:
        return "two runs from the same state returned different outputs"
    if not r["ok"] and again.get("error") != r.get("error"):
        return f"two runs gave different errors: {_clip(r.get('error') or '', 100)!r} then {_clip(again.get('error') or '', 100)!r}"
    if again["after_hash"] != r["after_hash"]:
        return "two runs from the same state left different states"
    return None


def environment_failure(result: SandboxResult) -> tuple[str, str | None]:
    """Why the sandboxed run itself failed, and the probe it was running (from its stderr)."""
    running = _PROBE_LINE.findall(result.stderr)
    probe = running[-1] if running else None
    reason = result.failure or "no answer"
    if probe:
        reason += f", while running probe {probe}"
    return reason, probe


def _shape(text: str) -> str:
    """An error message with ids and numbers blanked, to group answers of the same kind."""
    return re.sub(r"[#\w]*\d[\w.-]*", "#", text)


def _short_arguments(arguments: Any) -> dict[str, Any]:
    """Arguments as shown in a report: long strings are cut so the report stays readable."""
    if not isinstance(arguments, dict):
        return {"_": arguments}
    text = json.dumps(arguments, ensure_ascii=False)
    if len(text) <= 600:
        return arguments
    return {
        k: (v[:80] + f"... ({len(v)} characters)" if isinstance(v, str) and len(v) > 80 else v)
        for k, v in arguments.items()
    }


def _clip(text: str, limit: int = MAX_REASON) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
