"""The demonstrator, the default source of SFT data: it finishes every task with the
scripted user over real MCP, following the policy, and never types a value nobody gave."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.env import Environment
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.grounding import ungrounded_calls
from envfactory_mcp.scoring.policy import affirms, asks_confirmation, policy_violations
from envfactory_mcp.tasks.model import Task, write_tasks

pytestmark = pytest.mark.slow
N = 160


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(N, seed=5)


def play(tasks: list[Task], agent: str, tmp: Path) -> dict[str, TrajectoryRecord]:
    write_tasks(tasks, tmp / "tasks.jsonl")
    config = RolloutConfig(
        envs=["retail"],
        tasks_path=str(tmp / "tasks.jsonl"),
        servers_dir=str(SERVERS_DIR),
        agent=agent,
        transport="memory",
        concurrency=8,
    )
    anyio.run(rollout, config, tmp / agent)
    lines = (tmp / agent / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    records = [TrajectoryRecord.model_validate_json(line) for line in lines]
    return {r.task_id: r for r in records}


@pytest.fixture(scope="module")
def played(tasks: list[Task], tmp_path_factory: pytest.TempPathFactory) -> dict[str, TrajectoryRecord]:
    return play(tasks, "demonstrator", tmp_path_factory.mktemp("demonstrator"))


def test_the_demonstrator_finishes_every_task_following_the_policy(
    retail_env: Environment, tasks: list[Task], played: dict[str, TrajectoryRecord]
):
    """A policy-following scripted agent can finish every task: reward 1.0, every call
    grounded, no policy violation (checked here again, independently of the recorded parts)."""
    assert len(played) == N
    for task in tasks:
        record = played[task.task_id]
        assert record.termination == "user_stop" and record.reward == 1.0, (task.task_id, record.reward_parts)
        assert ungrounded_calls(record.messages, retail_env.spec) == [], task.task_id
        assert policy_violations(record.messages, retail_env.spec) == [], task.task_id


def test_it_asks_for_what_it_needs_and_confirms_every_change(
    tasks: list[Task], played: dict[str, TrajectoryRecord]
):
    asked_identity = asked_detail = 0
    for task in tasks:
        messages = played[task.task_id].messages
        facts = task.user_scenario.known_info
        opening = task.user_scenario.opening_message.casefold()
        identity = [f for f in facts if f.kind == "identity"]
        if identity and not all(m.casefold() in opening for f in identity for m in f.must):
            first_text = next(m["content"] for m in messages if m["role"] == "assistant" and m.get("content"))
            assert any(word in first_text.lower() for word in ("email", "name", "zip")), task.task_id
            asked_identity += 1
        held = [f for f in facts if not f.in_opening and f.kind != "identity"]
        said = " ".join(m["content"] for m in messages if m["role"] == "user").casefold()
        for fact in held:  # every held-back detail came from the user, after the agent asked
            assert all(m.casefold() in said for m in fact.must), (task.task_id, fact.key)
        asked_detail += bool(held)
        for i, message in enumerate(messages):
            for call in message.get("tool_calls") or []:
                if any(a.confirm and a.name == call["function"]["name"] for a in task.gold.actions):
                    question = next(
                        m for m in reversed(messages[:i]) if m["role"] == "assistant" and m.get("content")
                    )
                    answer = next(m for m in reversed(messages[:i]) if m["role"] == "user")
                    assert asks_confirmation(question["content"]) and affirms(answer["content"]), task.task_id
            assert len(message.get("tool_calls") or []) <= 1
            assert not (message.get("tool_calls") and message.get("content"))
    assert asked_identity > N // 4 and asked_detail > N // 10


def test_it_answers_in_words_that_carry_the_claims(tasks: list[Task], played: dict[str, TrajectoryRecord]):
    finals = set()
    for task in tasks:
        record = played[task.task_id]
        texts = [m["content"] for m in record.messages if m["role"] == "assistant" and m.get("content")]
        finals.add(texts[-1])
        assert not texts[-1].startswith("Done.")
        assert record.reward_parts is not None and record.reward_parts.claims_missing == []
        for goal in task.gold.goals:
            if goal.kind == "refuse":
                assert any(goal.reason in t for t in texts), task.task_id
            if goal.kind == "transfer":
                assert any("human agent" in t for t in texts), task.task_id
    assert len(finals) > N // 2  # not one canned closing line


def test_doing_nothing_fails_refusals_and_transfers(tasks: list[Task], tmp_path: Path):
    """A refusal is scored by what the agent says (the state that forbids the action), a
    transfer by the hand-off call: the unchanged state alone passes neither."""
    chosen = [
        t for t in tasks if {g.kind for g in t.gold.goals} & {"refuse", "transfer"} and t.kind == "read"
    ]
    assert chosen
    records = play(chosen, "noop", tmp_path)
    assert all(r.reward == 0.0 for r in records.values())
