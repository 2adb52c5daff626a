"""pass^k, pass@k, harness failures and the run summary (pure functions over trajectory records).

pass^k (tau2-bench) is the chance that ``k`` trials drawn without replacement from a
task's ``n`` scored trials *all* succeed, ``C(c, k) / C(n, k)`` with ``c`` successes;
pass@k is the chance that *at least one* does, ``1 - C(n - c, k) / C(n, k)``. Both are
averaged over tasks. Episodes that ended in a harness failure (``record.excluded``:
infrastructure_error, user_error, timeout) are left out of every score: they never count
as a failed trial.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from envfactory_mcp.records.trajectory import EXCLUDED_TERMINATIONS, RewardParts, TrajectoryRecord

SUCCESS_THRESHOLD = 1.0 - 1e-6  # a reward this high is a success (tau2 counts reward 1)
DIGITS = 6  # floats in the summary are rounded to this many decimals


def _check(c: int, n: int, k: int) -> None:
    if n < 0 or not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if k > n:
        raise ValueError(f"k={k} is more than the n={n} trials")


def pass_hat_k(c: int, n: int, k: int) -> float:
    """``C(c, k) / C(n, k)``: all of ``k`` trials succeed (0 when ``k > c``); ``k > n`` is an error."""
    _check(c, n, k)
    return math.comb(c, k) / math.comb(n, k)


def pass_at_k(c: int, n: int, k: int) -> float:
    """``1 - C(n - c, k) / C(n, k)``: at least one of ``k`` trials succeeds; ``k > n`` is an error."""
    _check(c, n, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def is_success(reward: float) -> bool:
    return reward >= SUCCESS_THRESHOLD


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def _mean(values: Sequence[float]) -> float | None:
    return _round(sum(values) / len(values)) if values else None


def exclusion_reason(record: TrajectoryRecord) -> str | None:
    """Why a record is left out of the scores, or None when it is scored."""
    if record.excluded:
        return record.termination
    if record.reward is None:
        return "no_reward"  # should not happen: a non-excluded episode always has a reward
    return None


def summarize(records: list[TrajectoryRecord], ks: list[int] | None = None) -> dict[str, Any]:
    """The run summary, JSON-ready, keys in a fixed order (``summary.json``).

    Scores (mean reward, pass^k / pass@k, reward parts, grounding and policy checks,
    mean steps) are over scored episodes only; counts, terminations, tool error rates and token usage/cost are over
    every episode (a failed episode still spent them). ``ks`` defaults to 1 up to the
    largest number of scored trials of any task; a task with fewer scored trials than
    ``k`` is left out of that row and counted in its ``tasks_left_out``; a row no task
    reaches has ``None`` values.
    """
    scored = [r for r in records if exclusion_reason(r) is None]
    excluded = Counter(reason for r in records if (reason := exclusion_reason(r)) is not None)

    outcomes: dict[str, list[bool]] = {}
    for record in records:
        trials = outcomes.setdefault(record.task_id, [])  # every task, even one never scored
        if exclusion_reason(record) is None and record.reward is not None:
            trials.append(is_success(record.reward))
    per_task = dict(sorted(outcomes.items()))
    if ks is None:
        ks = list(range(1, max((len(v) for v in per_task.values()), default=0) + 1))
    rows = []
    for k in ks:
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        eligible = {t: v for t, v in per_task.items() if len(v) >= k}
        hats = [pass_hat_k(sum(v), len(v), k) for v in eligible.values()]
        ats = [pass_at_k(sum(v), len(v), k) for v in eligible.values()]
        rows.append(
            {
                "k": k,
                "pass_hat_k": _mean(hats),
                "pass_at_k": _mean(ats),
                "tasks": len(eligible),
                "tasks_left_out": len(per_task) - len(eligible),
            }
        )

    with_parts = [r.reward_parts for r in scored if r.reward_parts is not None]
    rewards = [r.reward for r in scored if r.reward is not None]
    return {
        "episodes": len(records),
        "tasks": len(per_task),
        "scored": len(scored),
        "excluded": {"total": sum(excluded.values()), "by_reason": dict(sorted(excluded.items()))},
        "mean_reward": _mean(rewards),
        "success_rate": _mean([1.0 if is_success(r) else 0.0 for r in rewards]),
        "pass_k": rows,
        "reward_parts": {
            "episodes": len(with_parts),
            "state_match_rate": _mean([1.0 if p.state_match else 0.0 for p in with_parts]),
            "claims_rate": _mean([0.0 if p.claims_missing else 1.0 for p in with_parts]),
            "action_recall": _mean([p.action_recall for p in with_parts]),
            "trace_state_reward": _mean([p.trace_state_reward for p in with_parts]),
            "extra_calls": _mean([float(p.extra_calls) for p in with_parts]),
            "malformed_calls": _mean([float(p.malformed_calls) for p in with_parts]),
        },
        "grounding": _grounding(with_parts),
        "mean_steps": _mean([float(r.steps) for r in scored]),
        "terminations": dict(sorted(Counter(r.termination for r in records).items())),
        "tools": _tool_rates(records),
        "usage": _usage(records),
    }


def harness_failures(records: list[TrajectoryRecord]) -> dict[str, Any]:
    """Episodes the harness failed (server down, model endpoint down, simulated user broken,
    time limit), which every score leaves out: their ``total``, ``share`` of all episodes
    and count ``by_reason`` (every excluded reason listed, 0 included, so a reader sees
    that timeouts were counted and not scored)."""
    by_reason = dict.fromkeys(sorted(EXCLUDED_TERMINATIONS), 0)
    for record in records:
        if record.excluded:
            by_reason[record.termination] += 1
    total = sum(by_reason.values())
    return {
        "total": total,
        "share": round(total / len(records), 6) if records else 0.0,
        "by_reason": by_reason,
    }


def run_summary(records: list[TrajectoryRecord], run_id: str) -> dict[str, Any]:
    """What ``summary.json`` holds: :func:`summarize`, the harness failures and the run id."""
    summary = summarize(records)
    summary["harness_failures"] = harness_failures(records)
    summary["run_id"] = run_id
    return summary


def _grounding(parts: list[RewardParts]) -> dict[str, Any]:
    """How far the scored episodes are fit to imitate: the share with a call using an
    ungrounded value, how many such calls, policy violations by kind (the part after
    ``": "``, e.g. ``no confirmation``) and episodes missing a required call."""
    by_kind = Counter(v.rsplit(": ", 1)[-1] for p in parts for v in p.policy_violations)
    with_ungrounded = sum(1 for p in parts if p.ungrounded_calls)
    return {
        "episodes_with_ungrounded_calls": with_ungrounded,
        "ungrounded_share": _round(with_ungrounded / len(parts)) if parts else None,
        "ungrounded_calls": sum(p.ungrounded_calls for p in parts),
        "episodes_with_policy_violations": sum(1 for p in parts if p.policy_violations),
        "policy_violations": sum(by_kind.values()),
        "policy_violations_by_kind": dict(sorted(by_kind.items())),
        "episodes_missing_required_calls": sum(1 for p in parts if p.required_calls_missing),
    }


def _tool_rates(records: list[TrajectoryRecord]) -> dict[str, dict[str, Any]]:
    calls: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for record in records:
        for tool, stats in record.tool_stats.items():
            calls[tool] += stats.calls
            errors[tool] += stats.errors
    return {
        tool: {
            "calls": calls[tool],
            "errors": errors[tool],
            "rate": _round(errors[tool] / calls[tool]) if calls[tool] else None,
        }
        for tool in sorted(calls)
    }


def _usage(records: list[TrajectoryRecord]) -> dict[str, dict[str, Any]]:
    """Token and cost totals per participant; ``cost_usd`` sums the known costs (None if
    none is known) and ``cost_unknown`` counts the episodes whose cost was not known. A
    scripted agent or user costs a known zero (``TrajectoryRecord`` records it so)."""
    totals: dict[str, dict[str, Any]] = {}
    for record in records:
        for who, usage in record.usage.items():
            entry = totals.setdefault(
                who, {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None, "cost_unknown": 0}
            )
            entry["prompt_tokens"] += usage.prompt_tokens
            entry["completion_tokens"] += usage.completion_tokens
            if usage.cost_usd is None:
                entry["cost_unknown"] += 1
            else:
                entry["cost_usd"] = (entry["cost_usd"] or 0.0) + usage.cost_usd
    for entry in totals.values():
        entry["cost_usd"] = _round(entry["cost_usd"])
    return dict(sorted(totals.items()))
