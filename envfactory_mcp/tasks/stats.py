"""Quality figures of a task set: validity, policy consistency, leakage, diversity, the
shape of the distribution (writes, refusals, contingent goals), duplicates, addresses.

The per-task checks (``policy_problems``, ``impossible_addresses``, ``outcome_key``) are
public: the tests hold every generated task to them and ``bench/bench_tasks.py`` prints
their rates beside the random-walk baseline.
"""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter
from typing import Any, Protocol

from envfactory_mcp.spec import EnvSpec, RefusalRule
from envfactory_mcp.tasks.addresses import is_possible_address
from envfactory_mcp.tasks.calibrate import leak_problems, leak_rules_for, missing_facts
from envfactory_mcp.tasks.compose import entity_value
from envfactory_mcp.tasks.model import GoalOutcome, Task
from envfactory_mcp.tasks.oracle import leaves, objects, values_at
from envfactory_mcp.tasks.policy_text import asks_for_person, read_policy


class GenerationReport(Protocol):
    """What the statistics read of ``generate.GenerationReport`` (described here, not
    imported: ``generate`` imports this module)."""

    @property
    def sampled(self) -> int: ...

    @property
    def sampler_misses(self) -> int: ...

    @property
    def rejected(self) -> Counter[str]: ...

    @property
    def duplicates(self) -> int: ...


DISTINCT_BUDGET = 2000  # words of opening messages distinct-2 is measured over
# random orders it is averaged over: one order's figure moves by +-0.016 (1 sd, retail, 500 tasks)
# with which ~20 texts it happens to take (tau2-bench's 114 retail tasks, their instructions: 0.61)
DISTINCT_SHUFFLES = 16


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
    among what the user knows; a transfer goal without the hand-off call; and every way the
    gold contradicts the policy (``outcome_problems``)."""
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
    return problems + outcome_problems(task, spec)


def outcome_problems(task: Task, spec: EnvSpec) -> list[str]:
    """Where the gold contradicts the policy, read from ``spec.policy_rules`` and what the
    policy text says about out-of-scope requests (``tasks.policy_text``); empty when a
    policy-following agent ends every goal the way the gold does:

    * every write a refusal rule restricts comes after the rule's read showed its object
      in a state the rule allows (the gold never does what the policy refuses);
    * ``refuse``: a rule gives the goal's reason, its read shows a state the rule does not
      allow, and the goal writes nothing; a declared business rule's refusal (issue 31)
      writes nothing and ends in a lookup of its own;
    * ``contingent``: the branch taken is the one the state shown decides;
    * ``transfer``: the hand-off tool, called last; the request is declared out of scope
      and not one the policy text refuses; when the text lists what the agent must not
      promise, the user asks for a person;
    * a hand-off only for a transfer goal; ``confirm`` exactly on the policy's ``confirm`` writes.
    """
    rules = spec.policy_rules
    actions = task.gold.actions
    problems: list[str] = []
    for i, action in enumerate(actions):
        if action.confirm != (action.name in rules.confirm):
            problems.append(
                f"action {i}: {action.name} confirm={action.confirm}, against the policy's confirm list"
            )
        tool = spec.tool(action.name)
        for rule in rules.rules_for(action.name):
            value = entity_value(tool, rule.entity, action.arguments) if tool is not None else None
            if value is None:
                continue
            state = _shown_state(task, spec, rule, value, before=i)
            if state is _UNSHOWN:
                problems.append(
                    f"action {i}: {action.name} before {rule.shown_by} showed {rule.entity} {value}"
                )
            elif state not in rule.allowed:
                problems.append(
                    f"action {i}: {action.name} on {rule.entity} {value} in state {state!r}, which the policy refuses"
                )
    for g, goal in enumerate(task.gold.goals):
        if goal.kind in ("refuse", "contingent"):
            problems += _restricted_goal_problems(task, spec, g, goal)
        elif goal.kind == "transfer":
            problems += _transfer_problems(task, spec, g, goal)
    transfer = rules.transfer
    if transfer and any(a.name == transfer.tool for a in actions) and not _has_kind(task, "transfer"):
        problems.append("a hand-off in the gold for no transfer goal")
    return problems


_UNSHOWN = object()


def _shown_state(task: Task, spec: EnvSpec, rule: RefusalRule, value: Any, before: int) -> Any:
    """The state of ``rule``'s object ``value`` that the last ``rule.shown_by`` read before
    action ``before`` showed, or ``_UNSHOWN``."""
    reader = spec.tool(rule.shown_by)
    if reader is None:
        return _UNSHOWN
    for action in reversed(task.gold.actions[:before]):
        if action.name == rule.shown_by and entity_value(reader, rule.entity, action.arguments) == value:
            found = values_at(action.output, rule.path)
            return found[0] if found else _UNSHOWN
    return _UNSHOWN


def _goal_rule(spec: EnvSpec, goal: GoalOutcome) -> RefusalRule | None:
    """The refusal rule a refuse or contingent goal is about: its reason and requested action."""
    for rule in spec.policy_rules.refusals:
        tool = spec.tool(rule.tool)
        if rule.reason == goal.reason and tool is not None and tool.intent == goal.requested:
            return rule
    return None


def _business_rule(spec: EnvSpec, goal: GoalOutcome) -> Any:
    """The declared business rule a refuse goal is about (its reason and requested action)."""
    for rule in spec.policy_rules.rules:
        tool = spec.tool(rule.tool)
        if rule.reason == goal.reason and tool is not None and tool.intent == goal.requested:
            return rule
    return None


def _business_refusal_problems(task: Task, spec: EnvSpec, g: int, goal: GoalOutcome) -> list[str]:
    """A refusal by a business rule (the generator checked, on the state at that point,
    that the rule alone refuses the call): the gold looks and writes nothing."""
    own = [task.gold.actions[i] for i in goal.actions]
    writes = [a.name for a in own if (t := spec.tool(a.name)) is not None and t.effect == "write"]
    problems = [f"refuse goal {g}: the gold writes {', '.join(writes)} although it refuses"] if writes else []
    if goal.tool not in [a.name for a in own]:
        problems.append(f"refuse goal {g}: no lookup of its own before the refusal")
    return problems


def _restricted_goal_problems(task: Task, spec: EnvSpec, g: int, goal: GoalOutcome) -> list[str]:
    rule = _goal_rule(spec, goal)
    business = _business_rule(spec, goal) if rule is None and goal.kind == "refuse" else None
    if business is not None:
        return _business_refusal_problems(task, spec, g, goal)
    if rule is None:
        return [f"{goal.kind} goal {g}: no refusal rule gives its reason for {goal.requested!r}"]
    own = [(i, task.gold.actions[i]) for i in goal.actions]
    did = any(a.name == rule.tool for _, a in own)
    reads = [(i, a) for i, a in own if a.name == rule.shown_by]
    reader = spec.tool(rule.shown_by)
    state: Any = _UNSHOWN
    if reads and reader is not None:
        i, read = reads[-1]
        value = entity_value(reader, rule.entity, read.arguments)
        state = _shown_state(task, spec, rule, value, before=i + 1)
    problems: list[str] = []
    if goal.kind == "refuse":
        writes = [a.name for _, a in own if (t := spec.tool(a.name)) is not None and t.effect == "write"]
        if did or writes:
            problems.append(f"refuse goal {g}: the gold writes {', '.join(writes)} although it refuses")
        if state is _UNSHOWN:
            problems.append(f"refuse goal {g}: no {rule.shown_by} shows the state the refusal rests on")
        elif state in rule.allowed:
            problems.append(f"refuse goal {g}: {rule.entity} is {state!r}, which allows {rule.tool}")
        return problems
    if did != (goal.taken == "then"):
        problems.append(
            f"contingent goal {g}: took {goal.taken!r} but {'made' if did else 'never made'} {rule.tool}"
        )
    if state is not _UNSHOWN and (state in rule.allowed) != (goal.taken == "then"):
        problems.append(f"contingent goal {g}: {rule.entity} is {state!r}, yet the gold took {goal.taken!r}")
    return problems


def _transfer_problems(task: Task, spec: EnvSpec, g: int, goal: GoalOutcome) -> list[str]:
    transfer = spec.policy_rules.transfer
    if transfer is None or goal.tool != transfer.tool:
        return [f"transfer goal {g}: {goal.tool} is not the policy's hand-off tool"]
    actions = task.gold.actions
    problems: list[str] = []
    if not actions or actions[-1].name != transfer.tool or len(actions) - 1 not in goal.actions:
        problems.append(f"transfer goal {g}: the hand-off is not the last action")
    reading = read_policy(spec)
    if goal.request is not None:
        refused = reading.refusal(goal.request)
        if goal.request not in transfer.out_of_scope:
            problems.append(f"transfer goal {g}: {goal.request!r} is not declared out of scope")
        elif refused is not None:
            problems.append(
                f"transfer goal {g}: the policy refuses {goal.request!r} ({refused!r}), so it is not handed off"
            )
    if reading.restricts_promises and not asks_for_person(task.user_scenario.opening_message):
        problems.append(
            f"transfer goal {g}: the policy lists what not to promise and hands off when the user asks "
            "for a person, and the user never does"
        )
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


def distinct_n_budget(
    texts: list[str], n: int, budget: int = DISTINCT_BUDGET, seed: int = 0, shuffles: int = DISTINCT_SHUFFLES
) -> float:
    """``distinct_n`` over texts taken in a seeded random order until ``budget`` words, the
    mean over ``shuffles`` orders (seeds ``seed``, ``seed + 1``, ...): the figure depends
    on how much text it is measured over, so sets of different sizes are compared at the
    same budget, and on which texts one order takes, so it is averaged."""
    figures = []
    for k in range(shuffles):
        order = list(texts)
        random.Random(seed + k).shuffle(order)
        picked: list[str] = []
        words = 0
        for text in order:
            if words >= budget:
                break
            picked.append(text)
            words += len(text.split())
        figures.append(distinct_n(picked, n))
    return statistics.fmean(figures) if figures else 0.0


def distinct_n(texts: list[str], n: int) -> float:
    """Distinct n-grams over all n-grams of the texts (lower-cased words)."""
    grams: list[tuple[str, ...]] = []
    for text in texts:
        words = text.lower().split()
        grams.extend(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return len(set(grams)) / len(grams) if grams else 0.0


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0
