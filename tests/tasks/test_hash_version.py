"""Stored tasks say which definition of the state hash their hashes follow (issue 19)."""

from __future__ import annotations

import json

from envfactory_mcp.env import STATE_HASH_VERSION
from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks


def test_tasks_are_written_with_this_runtimes_hash_version_and_old_ones_read_as_v1(retail_tasks, tmp_path):
    tasks = retail_tasks(3, seed=5)
    assert tasks and all(t.state_hash_version == STATE_HASH_VERSION == 2 for t in tasks)
    assert not tasks[0].stale_hashes
    path = tmp_path / "tasks.jsonl"
    write_tasks(tasks, path)
    stored = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(row["state_hash_version"] == 2 for row in stored)
    assert read_tasks(path) == tasks
    # A task file written before the field existed holds version-1 hashes.
    old = tmp_path / "old.jsonl"
    old.write_text(
        "".join(
            json.dumps({k: v for k, v in row.items() if k != "state_hash_version"}) + "\n" for row in stored
        )
    )
    again = read_tasks(old)
    assert [t.state_hash_version for t in again] == [1] * len(tasks)
    assert all(t.stale_hashes for t in again)
    assert Task.model_validate_json(tasks[0].to_line()).state_hash_version == 2


def test_trajectory_records_carry_the_hash_version_and_old_ones_read_as_v1():
    from envfactory_mcp.records.trajectory import Participant, TrajectoryRecord

    record = TrajectoryRecord(
        run_id="run",
        env="retail",
        servers=["retail"],
        task_id="t",
        trial=0,
        seed=0,
        agent=Participant(kind="oracle"),
        user=Participant(kind="scripted"),
        messages=[],
        tools=[],
        termination="user_stop",
        reward=1.0,
        gold_state_hash="g",
    )
    stored = json.loads(record.to_line())
    assert stored["state_hash_version"] == STATE_HASH_VERSION == 2
    assert TrajectoryRecord.model_validate(stored).state_hash_version == 2
    del stored["state_hash_version"]  # a record written before the field existed
    assert TrajectoryRecord.model_validate_json(json.dumps(stored)).state_hash_version == 1
