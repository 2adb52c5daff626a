"""pass^k / pass@k against hand computations, and the run summary over synthetic records
(harness failures are left out of every score, never counted as 0)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from envfactory_mcp.records.trajectory import Participant, RewardParts, ToolStats, TrajectoryRecord, Usage
from envfactory_mcp.scoring.passk import pass_at_k, pass_hat_k, summarize


def test_pass_hat_k_and_pass_at_k_single_task():
    assert pass_hat_k(2, 4, 1) == pytest.approx(0.5)
    assert pass_hat_k(2, 4, 2) == pytest.approx(1 / 6)  # C(2,2)/C(4,2)
    assert pass_hat_k(2, 4, 3) == 0.0  # k > c
    assert pass_hat_k(3, 5, 2) == pytest.approx(3 / 10)
    assert pass_at_k(2, 4, 2) == pytest.approx(5 / 6)  # 1 - C(2,2)/C(4,2)
    assert pass_at_k(2, 4, 3) == 1.0
    assert pass_at_k(0, 4, 4) == 0.0
    assert pass_at_k(1, 5, 2) == pytest.approx(1 - 6 / 10)
    for bad in [(1, 3, 4), (4, 3, 1), (1, 3, 0), (-1, 3, 1)]:
        with pytest.raises(ValueError):
            pass_hat_k(*bad)
        with pytest.raises(ValueError):
            pass_at_k(*bad)


def record(
    task_id: str,
    trial: int,
    reward: float | None,
    termination: str = "user_stop",
    *,
    parts: RewardParts | None = None,
    steps: int = 0,
    tool_stats: dict[str, ToolStats] | None = None,
    usage: dict[str, Usage] | None = None,
) -> TrajectoryRecord:
    return TrajectoryRecord(
        run_id="r",
        env="retail",
        servers=["retail"],
        task_id=task_id,
        trial=trial,
        seed=0,
        agent=Participant(kind="oracle"),
        user=Participant(kind="scripted"),
        messages=[],
        tools=[],
        termination=termination,
        reward=reward,
        reward_parts=parts,
        gold_state_hash="g",
        steps=steps,
        tool_stats=tool_stats or {},
        usage=usage or {},
    )


def parts(state: bool, claims_missing: int, recall: float) -> RewardParts:
    return RewardParts(
        basis=["state", "claims"],
        state_match=state,
        claims_total=2,
        claims_found=["x"] * (2 - claims_missing),
        claims_missing=["y"] * claims_missing,
        action_recall=recall,
        actions_missing=[],
        extra_calls=1,
        malformed_calls=0,
        trace_state_reward=0.5,
    )


def three_tasks() -> list[TrajectoryRecord]:
    """Tasks A, B, C with 4 scored trials each and 4, 2, 0 successes."""
    successes = {"A": 4, "B": 2, "C": 0}
    return [
        record(task, trial, 1.0 if trial < c else 0.0, "user_stop" if trial < c else "max_steps")
        for task, c in successes.items()
        for trial in range(4)
    ]


def test_pass_k_of_three_tasks_matches_a_hand_computation():
    summary = summarize(three_tasks())
    rows = {row["k"]: row for row in summary["pass_k"]}
    assert sorted(rows) == [1, 2, 3, 4]
    # pass^k per task = C(c,k)/C(n,k), averaged over tasks
    assert rows[1]["pass_hat_k"] == pytest.approx((1 + 2 / 4 + 0) / 3, abs=1e-6)
    assert rows[2]["pass_hat_k"] == pytest.approx((1 + 1 / 6 + 0) / 3, abs=1e-6)
    assert rows[3]["pass_hat_k"] == pytest.approx((1 + 0 + 0) / 3, abs=1e-6)
    assert rows[4]["pass_hat_k"] == pytest.approx(1 / 3, abs=1e-6)
    # pass@k per task = 1 - C(n-c,k)/C(n,k)
    assert rows[1]["pass_at_k"] == pytest.approx((1 + 2 / 4 + 0) / 3, abs=1e-6)
    assert rows[2]["pass_at_k"] == pytest.approx((1 + 5 / 6 + 0) / 3, abs=1e-6)
    assert rows[3]["pass_at_k"] == pytest.approx((1 + 1 + 0) / 3, abs=1e-6)
    assert rows[4]["pass_at_k"] == pytest.approx(2 / 3, abs=1e-6)
    assert all(row["tasks"] == 3 and row["tasks_left_out"] == 0 for row in rows.values())
    assert summary["mean_reward"] == pytest.approx(6 / 12)
    assert summary["success_rate"] == pytest.approx(0.5)


def test_excluded_episodes_do_not_count_as_failures():
    records = three_tasks()
    # harness failures on B and C: if scored as 0 they would change B's and C's n
    records += [
        record("B", 4, None, "infrastructure_error"),
        record("C", 4, None, "user_error"),
        record("C", 5, None, "timeout"),
        # D has only 2 scored trials (1 success): it is left out of k = 3 and 4
        record("D", 0, 1.0),
        record("D", 1, 0.0, "max_steps"),
        record("D", 2, None, "infrastructure_error"),
    ]
    summary = summarize(records)
    assert summary["episodes"] == 18 and summary["tasks"] == 4 and summary["scored"] == 14
    assert summary["excluded"] == {
        "total": 4,
        "by_reason": {"infrastructure_error": 2, "timeout": 1, "user_error": 1},
    }
    rows = {row["k"]: row for row in summary["pass_k"]}
    assert sorted(rows) == [1, 2, 3, 4]
    assert rows[1]["pass_hat_k"] == pytest.approx((1 + 0.5 + 0 + 0.5) / 4, abs=1e-6)
    assert rows[2]["pass_hat_k"] == pytest.approx((1 + 1 / 6 + 0 + 0) / 4, abs=1e-6)
    assert rows[2]["pass_at_k"] == pytest.approx((1 + 5 / 6 + 0 + 1) / 4, abs=1e-6)
    assert (rows[2]["tasks"], rows[2]["tasks_left_out"]) == (4, 0)
    assert rows[3]["pass_hat_k"] == pytest.approx(1 / 3, abs=1e-6)
    assert (rows[3]["tasks"], rows[3]["tasks_left_out"]) == (3, 1)
    assert (rows[4]["tasks"], rows[4]["tasks_left_out"]) == (3, 1)
    assert summary["mean_reward"] == pytest.approx(7 / 14)
    assert summary["terminations"] == {
        "infrastructure_error": 2,
        "max_steps": 7,
        "timeout": 1,
        "user_error": 1,
        "user_stop": 7,
    }


def test_explicit_ks_and_a_k_no_task_reaches():
    summary = summarize(three_tasks(), ks=[2, 9])
    assert [row["k"] for row in summary["pass_k"]] == [2, 9]
    assert summary["pass_k"][1] == {
        "k": 9,
        "pass_hat_k": None,
        "pass_at_k": None,
        "tasks": 0,
        "tasks_left_out": 3,
    }


def test_summary_of_nothing_scored():
    summary = summarize([record("A", 0, None, "infrastructure_error")])
    assert summary["scored"] == 0 and summary["mean_reward"] is None and summary["pass_k"] == []
    assert summarize([])["episodes"] == 0


def test_parts_tools_steps_and_usage():
    records = [
        record(
            "A",
            0,
            1.0,
            parts=parts(True, 0, 1.0),
            steps=4,
            tool_stats={"get_order": ToolStats(calls=3, errors=1), "cancel_order": ToolStats(calls=1)},
            usage={
                "agent": Usage(prompt_tokens=100, completion_tokens=10, cost_usd=0.25),
                "user": Usage(prompt_tokens=5),
            },
        ),
        record(
            "A",
            1,
            0.0,
            parts=parts(False, 1, 0.5),
            steps=8,
            tool_stats={"get_order": ToolStats(calls=1, errors=1)},
            usage={"agent": Usage(prompt_tokens=50, completion_tokens=5, cost_usd=0.5)},
        ),
        record(
            "A",
            2,
            None,
            "infrastructure_error",
            steps=1,
            tool_stats={"get_order": ToolStats(calls=1, errors=1)},
            usage={"agent": Usage(prompt_tokens=7, completion_tokens=1)},
        ),
    ]
    summary = summarize(records)
    assert summary["reward_parts"] == {
        "episodes": 2,
        "state_match_rate": 0.5,
        "claims_rate": 0.5,
        "action_recall": 0.75,
        "trace_state_reward": 0.5,
        "extra_calls": 1.0,
        "malformed_calls": 0.0,
    }
    assert summary["mean_steps"] == 6.0  # scored episodes only
    assert summary["tools"] == {  # every episode, sorted by tool
        "cancel_order": {"calls": 1, "errors": 0, "rate": 0.0},
        "get_order": {"calls": 5, "errors": 3, "rate": 0.6},
    }
    assert summary["usage"] == {
        "agent": {"prompt_tokens": 157, "completion_tokens": 16, "cost_usd": 0.75, "cost_unknown": 1},
        "user": {"prompt_tokens": 5, "completion_tokens": 0, "cost_usd": None, "cost_unknown": 1},
    }


def test_summary_is_json_ready_and_deterministic():
    records = [*three_tasks(), record("D", 0, None, "infrastructure_error")]
    first = json.dumps(summarize(records))
    assert first == json.dumps(summarize(list(reversed(records))))
    loaded: dict[str, Any] = json.loads(first)
    assert list(loaded) == [
        "episodes",
        "tasks",
        "scored",
        "excluded",
        "mean_reward",
        "success_rate",
        "pass_k",
        "reward_parts",
        "grounding",
        "mean_steps",
        "terminations",
        "tools",
        "usage",
    ]
