"""Quality figures of a task set: validity, leakage before and after calibration, diversity."""

from __future__ import annotations

from collections import Counter
from typing import Any

from envfactory_mcp.spec import EnvSpec
from envfactory_mcp.tasks.calibrate import leak_problems, leak_rules_for, missing_facts
from envfactory_mcp.tasks.generate import GenerationReport
from envfactory_mcp.tasks.model import Task


def task_stats(tasks: list[Task], report: GenerationReport | None, spec: EnvSpec) -> dict[str, Any]:
    """The figures ``envfactory-mcp tasks --stats`` prints, as a JSON-ready dict."""
    n = len(tasks)
    before = after = missing = 0
    for task in tasks:
        facts = task.user_scenario.known_info
        rules = leak_rules_for(spec, facts, [(a.name, a.arguments) for a in task.gold.actions])
        before += bool(leak_problems(task.user_scenario.instructions_overspecified, rules))
        after += bool(leak_problems(task.user_scenario.opening_message, rules))
        missing += bool(missing_facts(task.user_scenario.opening_message, facts))
    chains = Counter(tuple(t.provenance.chain) for t in tasks)
    bigrams = {pair for t in tasks for pair in zip(t.provenance.chain, t.provenance.chain[1:], strict=False)}
    lengths = Counter(len(t.gold.actions) for t in tasks)
    writes = sum(1 for t in tasks if t.kind == "write")
    operations = Counter(op for t in tasks for op in t.user_scenario.calibration.operations)
    figures: dict[str, Any] = {
        "tasks": n,
        "leakage_before_calibration": _rate(before, n),
        "leakage_after_calibration": _rate(after, n),
        "missing_facts_after_calibration": _rate(missing, n),
        "distinct_chains": len(chains),
        "distinct_tool_bigrams": len(bigrams),
        "distinct_2_opening_messages": round(
            distinct_n([t.user_scenario.opening_message for t in tasks], 2), 4
        ),
        "chain_length": dict(sorted(lengths.items())),
        "mean_chain_length": round(sum(k * v for k, v in lengths.items()) / n, 3) if n else 0.0,
        "write_share": _rate(writes, n),
        "goals_per_task": dict(
            sorted(Counter(len(t.user_scenario.reason_for_call.split("; ")) for t in tasks).items())
        ),
        "calibration_operations": dict(sorted(operations.items())),
        "claims_per_task": round(sum(len(t.gold.claims) for t in tasks) / n, 3) if n else 0.0,
    }
    if report is not None:
        tried = report.sampled
        figures["chains_tried"] = tried
        figures["valid_task_rate"] = _rate(n, tried)
        figures["rejected"] = dict(sorted(report.rejected.items()))
        figures["duplicates"] = report.duplicates
        figures["sampler_discards"] = report.sampler_misses
    return figures


def distinct_n(texts: list[str], n: int) -> float:
    """Distinct n-grams over all n-grams of the texts (lower-cased words)."""
    grams: list[tuple[str, ...]] = []
    for text in texts:
        words = text.lower().split()
        grams.extend(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return len(set(grams)) / len(grams) if grams else 0.0


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0
