"""Scoring a finished episode's record, and re-scoring a whole run in place.

``score_record`` is the one place a trajectory record gets its reward: the host calls it
as each episode ends, ``rescore`` calls it again over a run's saved records after a
scoring change (the run's own ``trajectories.jsonl`` is rewritten, history included).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.records.store import METADATA, RunStore, recorded_path
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.grounding import NAMESPACE_SEPARATOR
from envfactory_mcp.scoring.passk import run_summary
from envfactory_mcp.scoring.reward import reward_from, score_episode
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR, REWARD_BASIS
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.tasks.model import Task, read_tasks

Message = dict[str, Any]


def score_record(
    record: TrajectoryRecord,
    task: Task,
    basis: tuple[str, ...] = REWARD_BASIS,
    spec: EnvSpec | None = None,
    specs: Mapping[str, EnvSpec | None] | None = None,
) -> TrajectoryRecord:
    """The record with reward and parts filled in (None for harness failures).

    Calls to the task's own server are compared by their plain names; calls to other
    offered servers stay namespaced (extra calls), and a change to any other server's
    state fails the state part. ``spec`` (the task's environment) adds the grounding
    and policy checks to the parts; ``specs`` (every offered server's, by name) lets the
    policy check judge a call to another server by that server's own policy."""
    if record.excluded or record.final_state_hash is None:
        return record.model_copy(update={"reward": None, "reward_parts": None})
    messages = _plain_names(record.messages, task.env) if _is_namespaced(record) else record.messages
    # Changes on another offered server mean the world is not the gold world.
    final = None if record.collateral_changes else record.final_state_hash
    # The task's diff is the gold's only while this run's gold replay reached the task's state.
    gold_diff = task.gold.diff if record.gold_state_hash == task.gold.final_state_hash else None
    parts = score_episode(
        task,
        messages,
        final,
        record.gold_state_hash,
        basis=basis,
        spec=spec,
        final_diff=record.final_diff,
        gold_diff=gold_diff,
        other_specs={name: s for name, s in (specs or {}).items() if s is not None and name != record.env},
    )
    return record.model_copy(update={"reward": reward_from(parts), "reward_parts": parts})


def _is_namespaced(record: TrajectoryRecord) -> bool:
    prefix = f"{record.env}{NAMESPACE_SEPARATOR}"
    return any(t["function"]["name"].startswith(prefix) for t in record.tools)


def _plain_names(messages: list[Message], server: str) -> list[Message]:
    """The conversation with ``<server>__`` stripped from that server's tool calls."""
    prefix = f"{server}{NAMESPACE_SEPARATOR}"
    plain = []
    for message in messages:
        calls = message.get("tool_calls")
        if calls:
            message = {
                **message,
                "tool_calls": [
                    {**c, "function": {**c["function"], "name": c["function"]["name"].removeprefix(prefix)}}
                    for c in calls
                ],
            }
        plain.append(message)
    return plain


def rescore(run_dir: Path, tasks_path: str | Path | None = None) -> dict[str, Any]:
    """Re-score the saved trajectories of a run (after a scoring change), in place; returns
    the new summary (also written to ``summary.json``). ``tasks_path`` defaults to the task
    file the run recorded."""
    from envfactory_mcp.layout import package_spec

    metadata_path = run_dir / METADATA
    if not metadata_path.is_file():
        raise EnvFactoryError(f"{run_dir} is not a run directory (no {METADATA})")
    config = json.loads(metadata_path.read_text(encoding="utf-8"))
    tasks = {t.task_id: t for t in read_tasks(tasks_path or recorded_path(run_dir, config["tasks_path"]))}
    with RunStore.open(run_dir, config) as store:
        records = store.all_records()  # superseded harness failures too: the file keeps its history
        missing = sorted({r.task_id for r in records} - tasks.keys())
        if missing:
            raise EnvFactoryError(f"the task file lacks tasks of this run: {', '.join(missing[:5])}")
        basis = tuple(config.get("reward_basis", REWARD_BASIS))
        # The environments' specs (for the grounding and policy checks), where the run's
        # packages are still on this machine.
        servers_dir = recorded_path(run_dir, config.get("servers_dir", str(DEFAULT_SERVERS_DIR)))
        names = {r.env for r in records} | {s for r in records for s in r.servers}
        specs = {env: package_spec(servers_dir, env) for env in names}
        store.rewrite(
            [
                score_record(
                    r,
                    tasks[r.task_id],
                    basis,
                    spec=specs[r.env],
                    specs={s: specs[s] for s in r.servers},
                )
                for r in records
            ]
        )
        summary = run_summary(store.records(), run_dir.name)
        store.write_summary(summary)
    return summary
