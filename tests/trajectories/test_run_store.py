"""The run directory: append and reload, resume checks, crash repair (with a real
SIGKILL), corruption errors, and appends from 50 concurrent episodes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import anyio
import pytest

from envfactory_mcp.records.store import MetadataMismatch, RunStore, RunStoreError, read_records
from envfactory_mcp.records.trajectory import Participant, TrajectoryRecord

META = {"model": "openai/x", "trials": 2, "concurrency": 4, "tasks": ["a", "b"]}


def rec(task_id: str = "t", trial: int = 0, text: str = "hello") -> TrajectoryRecord:
    return TrajectoryRecord(
        run_id="run",
        env="retail",
        servers=["retail"],
        task_id=task_id,
        trial=trial,
        seed=0,
        agent=Participant(kind="oracle"),
        user=Participant(kind="scripted"),
        messages=[{"role": "assistant", "content": text}],
        tools=[],
        termination="user_stop",
        reward=1.0,
        gold_state_hash="g",
    )


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_append_and_reload(tmp_path: Path):
    run = tmp_path / "runs" / "r1"
    with RunStore.open(run, META) as store:
        assert store.repaired is None and store.done_keys() == set()
        records = [rec("a", 0), rec("a", 1, "ünïcode\nnewline"), rec("b", 0)]
        for r in records:
            store.append(r)
        assert store.done_keys() == {("a", 0), ("a", 1), ("b", 0)}
        with pytest.raises(RunStoreError, match="already recorded"):
            store.append(rec("a", 1))
    assert json.loads((run / "metadata.json").read_text()) == META
    assert len(lines(run / "trajectories.jsonl")) == 3
    with RunStore.open(run, META) as again:
        assert again.records() == records
        assert again.done_keys() == {("a", 0), ("a", 1), ("b", 0)}
        assert again.repaired is None and again.duplicates == []
        again.append(rec("b", 1))
        assert [r.key for r in again.records()] == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]
    with pytest.raises(RunStoreError, match="closed"):
        again.append(rec("c", 0))


def test_resume_needs_the_same_configuration_except_resumable_keys(tmp_path: Path):
    RunStore.open(tmp_path, META).close()
    with RunStore.open(tmp_path, {**META, "concurrency": 16}) as store:  # resumable
        assert store.metadata == META
    with RunStore.open(tmp_path, {**META, "tasks": ("a", "b")}):  # same JSON
        pass
    with pytest.raises(MetadataMismatch) as info:
        RunStore.open(tmp_path, {**META, "model": "openai/y", "trials": 3, "concurrency": 1})
    assert info.value.keys == ["model", "trials"]
    assert 'model (stored "openai/x", now "openai/y"), trials (stored 2, now 3)' in str(info.value)
    with pytest.raises(MetadataMismatch, match="seed"):
        RunStore.open(tmp_path, {**META, "seed": 1})
    without = {k: v for k, v in META.items() if k != "trials"}
    with pytest.raises(MetadataMismatch, match="trials"):
        RunStore.open(tmp_path, without)
    RunStore.open(tmp_path, {**META, "trials": 5}, resumable_keys=("trials", "concurrency")).close()
    assert json.loads((tmp_path / "metadata.json").read_text()) == META  # written once


def test_trajectories_without_metadata_is_refused(tmp_path: Path):
    (tmp_path / "trajectories.jsonl").write_text("")
    with pytest.raises(RunStoreError, match="without metadata"):
        RunStore.open(tmp_path, META)


def test_a_truncated_last_line_is_cut_off(tmp_path: Path):
    with RunStore.open(tmp_path, META) as store:
        for trial in range(3):
            store.append(rec("t", trial))
    path = tmp_path / "trajectories.jsonl"
    good = path.read_bytes()
    partial = (rec("t", 3).model_dump_json() + "\n").encode()
    path.write_bytes(good + partial[: len(partial) // 2])
    with RunStore.open(tmp_path, META) as store:
        assert store.repaired is not None and "partial last line 4" in store.repaired
        assert path.read_bytes() == good
        assert store.done_keys() == {("t", 0), ("t", 1), ("t", 2)}
        store.append(rec("t", 3))
    assert path.read_bytes() == good + partial
    with RunStore.open(tmp_path, META) as store:
        assert store.repaired is None and len(store.records()) == 4


def test_a_complete_json_line_without_its_newline_is_still_cut(tmp_path: Path):
    with RunStore.open(tmp_path, META) as store:
        store.append(rec("t", 0))
    path = tmp_path / "trajectories.jsonl"
    good = path.read_bytes()
    path.write_bytes(good + rec("t", 1).model_dump_json().encode())
    with RunStore.open(tmp_path, META) as store:
        assert store.repaired is not None and store.done_keys() == {("t", 0)}
    assert path.read_bytes() == good


def test_only_a_partial_line(tmp_path: Path):
    RunStore.open(tmp_path, META).close()
    (tmp_path / "trajectories.jsonl").write_bytes(b'{"schema_ver')
    with RunStore.open(tmp_path, META) as store:
        assert store.repaired is not None and store.done_keys() == set()
    assert (tmp_path / "trajectories.jsonl").read_bytes() == b""


def test_an_unparsable_last_line_is_cut_but_one_in_the_middle_is_corruption(tmp_path: Path):
    with RunStore.open(tmp_path, META) as store:
        store.append(rec("t", 0))
        store.append(rec("t", 1))
    path = tmp_path / "trajectories.jsonl"
    first, second = lines(path)
    path.write_bytes(first + second + b'{"not": "a record"}\n')
    with RunStore.open(tmp_path, META) as store:
        assert store.repaired is not None and "unparsable last line 3" in store.repaired
        assert store.done_keys() == {("t", 0), ("t", 1)}
    assert path.read_bytes() == first + second
    broken = first + b"garbage\n" + second
    path.write_bytes(broken)
    with pytest.raises(RunStoreError, match=r"trajectories\.jsonl:2: not a valid trajectory record"):
        RunStore.open(tmp_path, META)
    assert path.read_bytes() == broken  # corruption is reported, never "repaired"
    path.write_bytes(first + b"\n" + second + b"partial")
    with pytest.raises(RunStoreError, match=r":2:"):
        RunStore.open(tmp_path, META)


def test_a_duplicate_episode_keeps_the_last_line(tmp_path: Path):
    with RunStore.open(tmp_path, META) as store:
        store.append(rec("t", 0, "first"))
        store.append(rec("t", 1))
    path = tmp_path / "trajectories.jsonl"
    path.write_bytes(path.read_bytes() + (rec("t", 0, "second").model_dump_json() + "\n").encode())
    with RunStore.open(tmp_path, META) as store:
        assert store.repaired is None
        assert (
            len(store.duplicates) == 1 and "line 3" in store.duplicates[0] and "line 1" in store.duplicates[0]
        )
        records = store.records()
        assert [(r.key, r.messages[0]["content"]) for r in records] == [
            (("t", 0), "second"),
            (("t", 1), "hello"),
        ]
        with pytest.raises(RunStoreError, match="already recorded"):
            store.append(rec("t", 0))
    assert [r.messages[0]["content"] for r in read_records(tmp_path)] == ["second", "hello"]


def failed(task_id: str = "t", trial: int = 0) -> TrajectoryRecord:
    return rec(task_id, trial, "lost").model_copy(
        update={"termination": "infrastructure_error", "reward": None}
    )


def test_a_harness_failure_is_retried_once_by_appending_and_readers_take_the_retry(tmp_path: Path):
    with RunStore.open(tmp_path, META) as store:
        store.append(failed("t", 0))
        store.append(rec("t", 1))
        assert store.failed_keys() == {("t", 0)}
        with pytest.raises(RunStoreError, match="already recorded"):
            store.append(rec("t", 0))  # not without retrying()
        with pytest.raises(RunStoreError, match="not harness failures"):
            store.retrying([("t", 1)])  # a scored episode is never redone
        store.retrying([("t", 0)])
        store.append(rec("t", 0, "retried"))
        with pytest.raises(RunStoreError, match="already recorded"):
            store.append(rec("t", 0))  # once
        assert store.failed_keys() == set()
        assert [(r.key, r.messages[0]["content"]) for r in store.records()] == [
            (("t", 0), "retried"),
            (("t", 1), "hello"),
        ]
        assert len(store.all_records()) == 3  # the failure stays in the file, superseded
        store.rewrite(store.all_records())  # rescoring keeps the history
    with RunStore.open(tmp_path, META) as store:
        assert store.duplicates == [] and store.failed_keys() == set()
    assert [r.termination for r in read_records(tmp_path)] == ["user_stop", "user_stop"]


def test_rewrite_and_summary_are_atomic_replacements(tmp_path: Path):
    with RunStore.open(tmp_path, META) as store:
        for trial in range(3):
            store.append(rec("t", trial))
        rescored = [r.model_copy(update={"reward": 0.5}) for r in store.records()[:2]]
        store.rewrite(rescored)
        assert store.done_keys() == {("t", 0), ("t", 1)}
        store.append(rec("t", 2))  # goes into the new file
        assert [r.reward for r in store.records()] == [0.5, 0.5, 1.0]
        with pytest.raises(RunStoreError, match="twice"):
            store.rewrite([rec("t", 0), rec("t", 0)])
        store.write_summary({"b": 1, "a": [1, 2]})
        store.write_summary({"z": None, "episodes": 3})
    assert list(json.loads((tmp_path / "summary.json").read_text())) == ["z", "episodes"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".lock",
        "metadata.json",
        "summary.json",
        "trajectories.jsonl",
    ]
    assert len(lines(tmp_path / "trajectories.jsonl")) == 3


async def test_fifty_concurrent_episodes_append_fifty_valid_lines(tmp_path: Path):
    big = "x" * 200_000  # lines far larger than any pipe or page: interleaving would show
    store = RunStore.open(tmp_path, META)
    try:
        async with anyio.create_task_group() as group:
            for i in range(50):
                if i % 2:
                    group.start_soon(store.aappend, rec(f"task-{i}", 0, big + str(i)))
                else:
                    group.start_soon(
                        anyio.to_thread.run_sync, store.append, rec(f"task-{i}", 0, big + str(i))
                    )
    finally:
        store.close()
    raw = lines(tmp_path / "trajectories.jsonl")
    assert len(raw) == 50 and all(line.endswith(b"\n") for line in raw)
    parsed = [TrajectoryRecord.model_validate_json(line) for line in raw]
    assert {r.task_id for r in parsed} == {f"task-{i}" for i in range(50)}
    assert all(r.messages[0]["content"] == big + r.task_id.split("-")[1] for r in parsed)
    with RunStore.open(tmp_path, META) as again:
        assert again.repaired is None and len(again.done_keys()) == 50


# ----------------------------------------------------------------------------- real crashes

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from envfactory_mcp.records import store as store_module
    from envfactory_mcp.records.trajectory import Participant, TrajectoryRecord

    run_dir, mode, size = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    meta = {"model": "openai/x", "trials": 2, "concurrency": 4, "tasks": ["a", "b"]}
    store = store_module.RunStore.open(run_dir, meta)
    start = len(store.done_keys())
    if mode == "midwrite":  # write half of the 4th line, then wait for the kill
        real = store_module._write_all
        calls = []
        def half(fh, data):
            calls.append(1)
            if len(calls) == 4:
                fh.write(data[: len(data) // 2])
                print("mid", flush=True)
                import time
                time.sleep(60)
            real(fh, data)
        store_module._write_all = half
    for i in range(start, 100_000):
        record = TrajectoryRecord(
            run_id="run", env="retail", servers=["retail"], task_id="t", trial=i, seed=0,
            agent=Participant(kind="oracle"), user=Participant(kind="scripted"),
            messages=[{"role": "assistant", "content": "y" * size}], tools=[],
            termination="user_stop", reward=1.0, gold_state_hash="g",
        )
        store.append(record)
        print(i, flush=True)
    """
)


def start_child(run_dir: Path, mode: str, size: int) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(run_dir), mode, str(size)],
        stdout=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(120, child.kill)  # a hung child fails the test instead of hanging it
    watchdog.daemon = True
    watchdog.start()
    return child


def kill(child: subprocess.Popen[str]) -> None:
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait(timeout=30) == -signal.SIGKILL
    assert child.stdout is not None
    child.stdout.close()


def check_consistent(run_dir: Path, acknowledged: int) -> RunStore:
    store = RunStore.open(run_dir, META)
    path = run_dir / "trajectories.jsonl"
    raw = path.read_bytes()
    assert raw.endswith(b"\n")  # no partial line left
    parsed = [TrajectoryRecord.model_validate_json(line) for line in raw.splitlines()]
    trials = [r.trial for r in parsed]
    assert trials == list(range(len(trials)))  # every line complete, none lost in the middle
    assert len(trials) >= acknowledged  # every append that returned survived
    assert store.done_keys() == {("t", t) for t in trials}
    return store


@pytest.mark.slow
@pytest.mark.parametrize("size", [100, 2_000_000])
def test_sigkill_while_appending_loses_no_complete_line(tmp_path: Path, size: int):
    acknowledged = 0
    for round_ in range(3):  # kill, reopen, resume, kill again
        child = start_child(tmp_path, "loop", size)
        assert child.stdout is not None
        target = acknowledged + 5 + round_
        for line in child.stdout:
            acknowledged = int(line) + 1
            if acknowledged >= target:
                break
        kill(child)
        check_consistent(tmp_path, acknowledged).close()


@pytest.mark.slow
def test_sigkill_in_the_middle_of_a_line(tmp_path: Path):
    child = start_child(tmp_path, "midwrite", 50_000)
    assert child.stdout is not None
    for line in child.stdout:
        if line.strip() == "mid":
            break
    size_before_kill = (tmp_path / "trajectories.jsonl").stat().st_size
    kill(child)
    assert not (tmp_path / "trajectories.jsonl").read_bytes().endswith(b"\n")  # the crash is real
    store = check_consistent(tmp_path, 3)
    try:
        assert store.repaired is not None and "partial last line 4" in store.repaired
        assert store.done_keys() == {("t", 0), ("t", 1), ("t", 2)}
        assert (tmp_path / "trajectories.jsonl").stat().st_size < size_before_kill
    finally:
        store.close()


@pytest.mark.slow
def test_another_process_cannot_open_a_run_in_use(tmp_path: Path):
    probe = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from envfactory_mcp.records.store import RunStore, RunStoreError
        try:
            RunStore.open(Path(sys.argv[1]), {"model": "openai/x", "trials": 2, "concurrency": 4, "tasks": ["a", "b"]})
        except RunStoreError as exc:
            print("refused:", exc)
        else:
            print("opened")
        """
    )

    def other() -> str:
        return subprocess.run(
            [sys.executable, "-c", probe, str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout

    with RunStore.open(tmp_path, META):
        assert "refused" in other() and "in use" in other()
    assert other().strip() == "opened"


def _as_summarised(records: list[TrajectoryRecord]) -> list[TrajectoryRecord]:
    return [r.model_copy(update={"messages": [], "tools": [], "final_diff": None}) for r in records]


def _varied(
    task_id: str, trial: int, reward: float | None, termination: str = "user_stop"
) -> TrajectoryRecord:
    from envfactory_mcp.records.trajectory import RewardParts, ToolStats, Usage

    parts = RewardParts(
        basis=["state"],
        state_match=bool(reward),
        claims_total=2,
        claims_found=["a"] if reward else [],
        claims_missing=[] if reward else ["a"],
        action_recall=0.5 + trial / 10,
        actions_missing=[],
        extra_calls=trial,
        malformed_calls=0,
        trace_state_reward=0.25 * trial,
        ungrounded_calls=trial % 2,
        policy_violations=["call 1 x: no confirmation"] * (trial % 3),
    )
    return rec(task_id, trial, f"{task_id}/{trial}").model_copy(
        update={
            "reward": reward,
            "termination": termination,
            "reward_parts": None if reward is None else parts,
            "final_diff": {"orders": {"changed": trial}},
            "steps": 3 + trial,
            "tool_stats": {"get": ToolStats(calls=2 + trial, errors=trial % 2)},
            "usage": {
                "agent": Usage(prompt_tokens=10 * trial, completion_tokens=trial, cost_usd=0.01 * trial)
            },
        }
    )


def test_the_summary_is_made_from_what_was_appended_as_from_the_file(tmp_path: Path):
    """``summary_records`` (what a rollout summarises, issue 32) is ``records()`` without
    reading the file: the same episodes in the same order, each its last record, after a
    resume, a cut partial line, a duplicate line, a retried harness failure and a rewrite."""
    from envfactory_mcp.scoring.passk import run_summary

    def same(store: RunStore) -> None:
        read = store.records()
        assert store.summary_records() == _as_summarised(read)
        assert run_summary(store.summary_records(), "r") == run_summary(read, "r")

    with RunStore.open(tmp_path, META) as store:
        same(store)  # empty
        store.append(_varied("b", 0, 1.0))
        store.append(_varied("a", 1, 0.0))
        store.append(_varied("a", 0, None, "infrastructure_error"))
        same(store)
    path = tmp_path / "trajectories.jsonl"
    path.write_bytes(
        path.read_bytes()
        + (_varied("b", 0, 0.5).model_dump_json() + "\n").encode()  # a duplicate: the last counts
        + _varied("c", 0, 1.0).to_line()[:40]  # a killed writer's partial line: cut on open
    )
    with RunStore.open(tmp_path, META) as store:
        assert store.repaired is not None and store.duplicates
        same(store)  # as read on open
        store.retrying([("a", 0)])
        store.append(_varied("a", 0, 1.0))
        store.append(_varied("c", 1, 0.0, "max_steps"))
        same(store)
        store.rewrite([r.model_copy(update={"reward": 0.75}) for r in store.all_records()[1:]])
        same(store)
        store.append(_varied("d", 2, 1.0))
        same(store)
        assert [r.key for r in store.summary_records()] == [("a", 1), ("a", 0), ("b", 0), ("c", 1), ("d", 2)]
