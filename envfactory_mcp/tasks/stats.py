"""Quality figures of a task set: validity, policy consistency, leakage, diversity, the
shape of the distribution (writes, refusals, contingent goals), duplicates, addresses.

The per-task checks (``policy_problems``, ``impossible_addresses``, ``outcome_key``) are
public: the tests hold every generated task to them and ``bench/bench_tasks.py`` prints
their rates beside the random-walk baseline.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import TYPE_CHECKING, Any

from envfactory_mcp.spec import EnvSpec
from envfactory_mcp.tasks.addresses import is_possible_address
from envfactory_mcp.tasks.calibrate import leak_problems, leak_rules_for, missing_facts
from envfactory_mcp.tasks.model import Task
from envfactory_mcp.tasks.oracle import leaves, objects

if TYPE_CHECKING:
    from envfactory_mcp.tasks.generate import GenerationReport

DISTINCT_BUDGET = 2000  # words of opening messages distinct-2 is measured over (tau2's 114 tasks: 0.608)


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
        "distinct_2_at_2000_words": round(
            distinct_n_budget([t.user_scenario.opening_message for t in tasks], 2), 4
        ),
        "policy_consistent": _rate(sum(1 for t in tasks if not policy_problems(t, spec)), n),
        "two_or_more_writes": _rate(sum(1 for t in tasks if _writes(t, spec) >= 2), n),
        "mean_gold_actions": round(sum(len(t.gold.actions) for t in tasks) / n, 3) if n else 0.0,
        "refusal_or_transfer": _rate(sum(1 for t in tasks if _has_kind(t, "refuse", "transfer")), n),
        "contingent_or_withheld": _rate(
            sum(1 for t in tasks if _has_kind(t, "contingent") or _withheld(t)), n
        ),
        "duplicate_gold_outcomes": _rate(n - len({outcome_key(t) for t in tasks}), n),
        "impossible_addresses": sum(len(impossible_addresses(t)) for t in tasks),
        "tools_in_no_gold": sorted(
            {t.name for t in spec.tools} - {a.name for task in tasks for a in task.gold.actions}
        ),
        "goal_kinds": dict(sorted(Counter(g.kind for t in tasks for g in t.gold.goals).items())),
    }
    if report is not None:
        tried = report.sampled
        figures["chains_tried"] = tried
        figures["valid_task_rate"] = _rate(n, tried)
        figures["rejected"] = dict(sorted(report.rejected.items()))
        figures["duplicates"] = report.duplicates
        figures["sampler_discards"] = report.sampler_misses
    return figures


def policy_problems(task: Task, spec: EnvSpec) -> list[str]:
    """Why an agent that follows ``spec.policy_rules`` could not finish ``task`` (empty when
    it can): a tool that needs an authenticated user before any authentication in the gold;
    an authentication value the user does not know; a value the user must type that is not
    among what the user knows; a transfer goal without the hand-off call."""
    rules = spec.policy_rules
    problems: list[str] = []
    known = {json.dumps(f.value, sort_keys=True, default=str) for f in task.user_scenario.known_info}
    shown: set[str] = set()
    authenticated = False
    for i, action in enumerate(task.gold.actions):
        tool = spec.tool(action.name)
        if tool is None:
            problems.append(f"action {i}: unknown tool {action.name}")
            continue
        if rules.authentication and action.name in rules.authentication.tools:
            for key, value in action.arguments.items():
                if json.dumps(value, sort_keys=True, default=str) not in known:
                    problems.append(f"action {i}: the user does not know their {key} ({value!r})")
            authenticated = True
        elif rules.needs_authentication(action.name) and not authenticated:
            problems.append(f"action {i}: {action.name} before the user is authenticated")
        for name, value in action.arguments.items():
            param = tool.params.get(name)
            if (
                param is None
                or not param.user_provided
                or param.composed
                or param.entity
                or value in ("", None)
            ):
                continue
            text = json.dumps(value, sort_keys=True, default=str)
            if text not in known and text not in shown and not _offered(value, tool.input_schema, name):
                problems.append(
                    f"action {i}: {name}={value!r} is neither known to the user nor shown by a tool"
                )
        shown.update(json.dumps(v, sort_keys=True, default=str) for v in leaves(action.output))
    for goal in task.gold.goals:
        if goal.kind == "transfer" and goal.tool not in task.gold.required_calls:
            problems.append(f"transfer goal without a required {goal.tool} call")
    handed = rules.transfer is not None and any(a.name == rules.transfer.tool for a in task.gold.actions)
    if handed and rules.transfer is not None and rules.transfer.tool not in task.gold.required_calls:
        problems.append("a hand-off in the gold that the task does not require")
    return problems


def _offered(value: Any, schema: dict[str, Any], name: str) -> bool:
    """An enum value of the parameter: a choice the tool offers, the user picks it."""
    prop = schema.get("properties", {}).get(name, {})
    return value in prop.get("enum", [])


def impossible_addresses(task: Task) -> list[str]:
    """Addresses in the task (gold arguments and outputs, the user's facts) whose city,
    state and zip do not belong together."""
    found: list[str] = []
    groups: list[dict[str, Any]] = []
    for action in task.gold.actions:
        groups.append(action.arguments)
        groups.extend(node for node in objects(action.output))
    by_call: dict[tuple[int, str], dict[str, Any]] = {}
    for fact in task.user_scenario.known_info:
        if "." in fact.key:
            call, part = fact.key.rsplit(".", 1)
            by_call.setdefault((fact.goal, call), {})[part] = fact.value
    groups.extend(by_call.values())
    for group in groups:
        parts = [group.get(k) for k in ("city", "state", "zip")]
        if all(isinstance(p, str) for p in parts) and not is_possible_address(*parts):  # type: ignore[arg-type]
            found.append(f"{group['city']}, {group['state']} {group['zip']}")
    return sorted(set(found))


def outcome_key(task: Task) -> str:
    """What a task comes to: the final state of a write task (and what must be said), the
    goal calls and claims of a read-only one."""
    claims = sorted(f"{c.tool}:{c.path}={c.value}" for c in task.gold.claims)
    if task.kind == "write":
        return json.dumps(["write", task.gold.final_state_hash, claims, task.gold.required_calls])
    goal_calls = [
        [a.name, a.arguments] for a in task.gold.actions if a.name in {g.tool for g in task.gold.goals}
    ] or [[a.name, a.arguments] for a in task.gold.actions[-1:]]
    return json.dumps(["read", goal_calls, claims, task.gold.required_calls], sort_keys=True, default=str)


def _writes(task: Task, spec: EnvSpec) -> int:
    return sum(
        1 for a in task.gold.actions if (tool := spec.tool(a.name)) is not None and tool.effect == "write"
    )


def _has_kind(task: Task, *kinds: str) -> bool:
    return any(g.kind in kinds for g in task.gold.goals)


def _withheld(task: Task) -> bool:
    return any(not f.in_opening and f.kind != "identity" for f in task.user_scenario.known_info)


def distinct_n_budget(texts: list[str], n: int, budget: int = DISTINCT_BUDGET, seed: int = 0) -> float:
    """``distinct_n`` over texts drawn in a seeded random order until ``budget`` words: the
    figure depends on how much text it is measured over, so sets of different sizes are
    compared at the same budget."""
    order = list(texts)
    random.Random(seed).shuffle(order)
    picked: list[str] = []
    words = 0
    for text in order:
        if words >= budget:
            break
        picked.append(text)
        words += len(text.split())
    return distinct_n(picked, n)


def distinct_n(texts: list[str], n: int) -> float:
    """Distinct n-grams over all n-grams of the texts (lower-cased words)."""
    grams: list[tuple[str, ...]] = []
    for text in texts:
        words = text.lower().split()
        grams.extend(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return len(set(grams)) / len(grams) if grams else 0.0


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0
