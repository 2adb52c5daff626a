"""Training data from a run: trajectory records as trainer-ready JSONL.

Four formats (see ``/work/shared/REFERENCES.md``, "Trainer formats"):

``openai``
    OpenAI fine-tuning: ``{"messages", "tools"}``. Assistant ``tool_calls`` keep their
    JSON-string ``arguments``; tool messages are ``{"role": "tool", "tool_call_id",
    "content"}``. Every assistant message carries ``"weight"``: 1, or 0 when one of its
    tool calls had arguments that were not a JSON object (the bad call stays in the
    context, so the recovery after it is still learned, but it is not imitated).
``trl``
    TRL ``SFTTrainer`` (conversational dataset with tools): ``{"messages", "tools"}``;
    ``arguments`` are dicts, tool messages are ``{"role": "tool", "name", "content"}``,
    ``content`` is always a string (``""`` for a tool-call-only turn) because chat
    templates concatenate it. A record with a malformed call cannot be expressed and is
    skipped (reason ``malformed_tool_arguments``).
``sharegpt``
    LLaMA-Factory sharegpt with tools: ``{"conversations": [{"from", "value"}],
    "system", "tools"}``. ``human``/``observation`` sit at odd positions (1st, 3rd, ...),
    ``gpt``/``function_call`` at even ones, and the conversation ends on an even one, as
    LLaMA-Factory requires. An assistant turn with several calls becomes one
    ``function_call`` (``{"name", "arguments": {...}}``) per call, each followed by its
    ``observation``; the text of an assistant turn that also calls tools is dropped
    (there is no slot for it without breaking alternation). Trailing ``human`` and
    ``observation`` turns (e.g. the user's goodbye) are dropped: nothing follows them. ``tools`` is a JSON string of the function
    objects (``{"name", "description", "parameters"}``); ``system`` is ``""`` when no
    system prompt is given (LLaMA-Factory then uses the template's default). A record
    that still does not alternate, or has a malformed call, is skipped with a reason.
    Register the file with :func:`llamafactory_dataset_info`.
``verl``
    One row per task for verl multi-turn RL (the policy rolls out itself; trajectories
    only select and describe tasks): ``data_source`` ``envfactory/<env>``; ``prompt`` the
    system prompt (if given) and the user's opening message; ``ability`` ``tool_use``;
    ``reward_model.ground_truth`` the gold state hash and task id (the reward is the
    state match the host computes); ``extra_info`` with ``task_id``, ``env``,
    ``need_tools_kwargs: true``, ``tools_kwargs`` (for every offered tool,
    ``create_kwargs`` naming the environment, task and initial state hash, so the
    tool's ``create`` can open the episode's MCP session on the right seed) and
    ``interaction_kwargs`` (``name: envfactory_user`` selects the simulated-user
    interaction, ``task_id`` its scenario). The first passing record of a task is
    used; later ones are counted in ``deduplicated``.

Filtering is the same for all formats: an excluded episode (a harness failure) is
never exported unless ``include_excluded``; otherwise a record needs a reward (an
unscored record is filtered) of at least ``min_reward`` (``None``: any reward). With
the default ``min_reward=1.0`` the verl export is the set of tasks solved at least once.
Then, unless ``allow_ungrounded``, a record is left out when a tool call used a value
that no user or tool message gave before it (the model would learn to invent identity
data) or when it broke the policy (a write without the user's yes, a lookup before
authentication): see :mod:`envfactory_mcp.scoring.grounding` and
:mod:`envfactory_mcp.scoring.policy`. Given the environment's spec (``specs``), both checks are
run afresh on the record's messages (so runs scored before them are covered); for a
record of an environment whose spec is not given, what its reward parts say is used.

``system_prompt`` is the environment's policy, i.e. the MCP server's instructions: it
is not in the recorded messages, so it is passed in; without it no system message is
written. In every format a stop token (``###STOP###`` ...) is removed from the final
user message, and a final user message that was only a stop token is dropped.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envfactory_mcp import files
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.records.store import read_records
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.grounding import ungrounded_calls
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.sim.types import STOP_TOKENS, Message
from envfactory_mcp.spec.models import EnvSpec

FORMATS = ("openai", "trl", "sharegpt", "verl")
USER_INTERACTION = "envfactory_user"  # the verl interaction name of the simulated user


@dataclass
class ExportStats:
    """What happened to every record: ``seen == exported + filtered_by_reward + excluded
    + ungrounded + policy_violations + deduplicated + sum(skipped.values())``."""

    seen: int = 0
    exported: int = 0
    filtered_by_reward: int = 0  # below min_reward, or unscored
    excluded: int = 0  # harness failures left out (include_excluded=False)
    ungrounded: int = 0  # a call used a value nobody gave (allow_ungrounded=False)
    policy_violations: int = 0  # grounded, but broke the policy (allow_ungrounded=False)
    deduplicated: int = 0  # verl: a later record of a task already exported
    skipped: Counter[str] = field(default_factory=Counter)  # could not be expressed, by reason


class _Skip(Exception):
    """A record that cannot be expressed in the format; the message is the reason."""


def export_records(
    records: Iterable[TrajectoryRecord],
    fmt: str,
    *,
    min_reward: float | None = 1.0,
    include_excluded: bool = False,
    allow_ungrounded: bool = False,
    specs: Sequence[EnvSpec] = (),
    system_prompt: str | None = None,
    stats: ExportStats | None = None,
) -> Iterator[dict[str, Any]]:
    """One training example per record that passes the filter, in input order (verl:
    one row per task). ``stats``, when given, is updated as records are consumed. An
    unknown ``fmt`` raises at once, not at the first record."""
    if fmt not in FORMATS:
        raise EnvFactoryError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    stats = stats if stats is not None else ExportStats()
    by_env = {spec.name: spec for spec in specs}
    fit = None if allow_ungrounded else (lambda record: demonstration_problem(record, by_env.get(record.env)))
    return _export(records, fmt, min_reward, include_excluded, fit, system_prompt, stats)


def demonstration_problem(record: TrajectoryRecord, spec: EnvSpec | None = None) -> str | None:
    """Why the record must not be imitated: ``"ungrounded"`` (a call used a value nobody
    gave), ``"policy_violations"``, or None. Checked afresh on the messages when ``spec``
    is the record's environment, else read from its reward parts."""
    if spec is not None and spec.name == record.env:
        messages = record.messages
        if ungrounded_calls(messages, spec):
            return "ungrounded"
        return "policy_violations" if policy_violations(messages, spec) else None
    parts = record.reward_parts
    if parts is None:
        return None
    if parts.ungrounded_calls:
        return "ungrounded"
    return "policy_violations" if parts.policy_violations else None


def _export(
    records: Iterable[TrajectoryRecord],
    fmt: str,
    min_reward: float | None,
    include_excluded: bool,
    fit: Callable[[TrajectoryRecord], str | None] | None,
    system_prompt: str | None,
    stats: ExportStats,
) -> Iterator[dict[str, Any]]:
    tasks_done: set[str] = set()
    for record in records:
        stats.seen += 1
        if record.excluded:
            if not include_excluded:
                stats.excluded += 1
                continue
        elif record.reward is None or (min_reward is not None and record.reward < min_reward):
            stats.filtered_by_reward += 1
            continue
        problem = fit(record) if fit is not None else None
        if problem == "ungrounded":
            stats.ungrounded += 1
            continue
        if problem == "policy_violations":
            stats.policy_violations += 1
            continue
        if fmt == "verl" and record.task_id in tasks_done:
            stats.deduplicated += 1
            continue
        try:
            example = _CONVERTERS[fmt](record, system_prompt)
        except _Skip as skip:
            stats.skipped[str(skip)] += 1
            continue
        tasks_done.add(record.task_id)
        stats.exported += 1
        yield example


def export_run(
    run_dir: Path,
    fmt: str,
    out: Path,
    *,
    min_reward: float | None = 1.0,
    include_excluded: bool = False,
    allow_ungrounded: bool = False,
    specs: Sequence[EnvSpec] = (),
    system_prompt: str | None = None,
) -> ExportStats:
    """Export ``run_dir/trajectories.jsonl`` to ``out``, written atomically: JSONL, or
    Parquet when ``out`` ends in ``.parquet`` (what verl's ``data.train_files`` reads;
    needs pandas and pyarrow, in the ``rl`` and ``verl`` extras).

    The run is read without taking its lock or repairing it, so a run still in progress
    can be exported (a partial last line is ignored). Records are ordered by
    ``(task_id, trial)``, so the same run gives the same bytes.
    """
    records = read_records(Path(run_dir))
    stats = ExportStats()
    examples = export_records(
        records,
        fmt,
        min_reward=min_reward,
        include_excluded=include_excluded,
        allow_ungrounded=allow_ungrounded,
        specs=specs,
        system_prompt=system_prompt,
        stats=stats,
    )
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".parquet":
        files.write_bytes(out, parquet_bytes(list(examples)))
        return stats
    data = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in examples)
    files.write_text(out, data)
    return stats


def parquet_bytes(rows: list[dict[str, Any]]) -> bytes:
    """``rows`` as one Parquet file (nested objects as structs, lists as lists: the column
    types verl's ``RLHFDataset`` reads through ``datasets``)."""
    try:
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as exc:
        raise EnvFactoryError(
            "writing Parquet needs pandas and pyarrow: pip install 'envfactory-mcp[rl]'"
        ) from exc
    data: bytes = pd.DataFrame(rows).to_parquet()  # no path: the bytes
    return data


def llamafactory_dataset_info(file_name: str) -> dict[str, Any]:
    """The ``dataset_info.json`` entry for a sharegpt export (put it under a name of
    your choice)."""
    return {
        "file_name": file_name,
        "formatting": "sharegpt",
        "columns": {"messages": "conversations", "system": "system", "tools": "tools"},
    }


# ---------------------------------------------------------------------- shared


def _arguments(call: dict[str, Any]) -> dict[str, Any] | None:
    """The parsed arguments of a tool call, or None when they are not a JSON object."""
    raw = call.get("function", {}).get("arguments")
    if not isinstance(raw, str):
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _conversation(record: TrajectoryRecord) -> list[Message]:
    """The recorded messages with the stop token stripped from the final user message
    (dropped if nothing else was in it)."""
    messages = list(record.messages)
    if messages and messages[-1].get("role") == "user":
        text = str(messages[-1].get("content") or "")
        for token in STOP_TOKENS:
            text = text.replace(token, "")
        text = text.strip()
        messages[-1:] = [{**messages[-1], "content": text}] if text else []
    return messages


def _system(system_prompt: str | None) -> list[Message]:
    return [{"role": "system", "content": system_prompt}] if system_prompt else []


# ---------------------------------------------------------------------- formats


def _openai(record: TrajectoryRecord, system_prompt: str | None) -> dict[str, Any]:
    messages = _system(system_prompt)
    for message in _conversation(record):
        role = message.get("role")
        if role == "assistant":
            calls = message.get("tool_calls") or []
            out: Message = {"role": "assistant", "content": message.get("content")}
            if calls:
                out["tool_calls"] = [
                    {"id": c["id"], "type": "function", "function": dict(c["function"])} for c in calls
                ]
            out["weight"] = 0 if any(_arguments(c) is None for c in calls) else 1
            messages.append(out)
        elif role == "tool":
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": message.get("tool_call_id"),
                    "content": message.get("content"),
                }
            )
        else:
            messages.append({"role": role, "content": message.get("content")})
    return {"messages": messages, "tools": record.tools}


def _trl(record: TrajectoryRecord, system_prompt: str | None) -> dict[str, Any]:
    messages = _system(system_prompt)
    for message in _conversation(record):
        role = message.get("role")
        content = message.get("content") or ""
        if role == "assistant":
            out: Message = {"role": "assistant", "content": content}
            calls = message.get("tool_calls") or []
            if calls:
                out["tool_calls"] = [_trl_call(c) for c in calls]
            messages.append(out)
        elif role == "tool":
            messages.append({"role": "tool", "name": message.get("name"), "content": content})
        else:
            messages.append({"role": role, "content": content})
    return {"messages": messages, "tools": record.tools}


def _trl_call(call: dict[str, Any]) -> dict[str, Any]:
    arguments = _arguments(call)
    if arguments is None:
        raise _Skip("malformed_tool_arguments")
    return {"type": "function", "function": {"name": call["function"]["name"], "arguments": arguments}}


def _sharegpt(record: TrajectoryRecord, system_prompt: str | None) -> dict[str, Any]:
    messages = _conversation(record)
    results = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    turns: list[dict[str, str]] = []
    for message in messages:
        role = message.get("role")
        calls = message.get("tool_calls") or []
        if role == "user":
            turns.append({"from": "human", "value": str(message.get("content") or "")})
        elif role == "assistant" and not calls:
            turns.append({"from": "gpt", "value": str(message.get("content") or "")})
        elif role == "assistant":
            for call in calls:
                arguments = _arguments(call)
                if arguments is None:
                    raise _Skip("malformed_tool_arguments")
                value = {"name": call["function"]["name"], "arguments": arguments}
                turns.append({"from": "function_call", "value": json.dumps(value, ensure_ascii=False)})
                if call.get("id") in results:
                    turns.append({"from": "observation", "value": str(results[call["id"]].get("content"))})
    while turns and turns[-1]["from"] in ("human", "observation"):
        turns.pop()  # nothing to learn after the last response
    odd, even = ("human", "observation"), ("gpt", "function_call")
    if not turns or any(t["from"] not in (odd if i % 2 == 0 else even) for i, t in enumerate(turns)):
        raise _Skip("sharegpt_alternation")
    tools = [t.get("function", t) for t in record.tools]
    return {
        "conversations": turns,
        "system": system_prompt or "",
        "tools": json.dumps(tools, ensure_ascii=False),
    }


def _verl(record: TrajectoryRecord, system_prompt: str | None) -> dict[str, Any]:
    opening = next((m for m in record.messages if m.get("role") == "user"), None)
    if opening is None:
        raise _Skip("no_user_message")
    create = {"env": record.env, "task_id": record.task_id, "initial_state_hash": record.initial_state_hash}
    return {
        "data_source": f"envfactory/{record.env}",
        "prompt": [*_system(system_prompt), {"role": "user", "content": opening.get("content")}],
        "ability": "tool_use",
        "reward_model": {
            "style": "rule",
            "ground_truth": {"gold_state_hash": record.gold_state_hash, "task_id": record.task_id},
        },
        "extra_info": {
            "task_id": record.task_id,
            "env": record.env,
            "need_tools_kwargs": True,
            "tools_kwargs": {t["function"]["name"]: {"create_kwargs": dict(create)} for t in record.tools},
            "interaction_kwargs": {"name": USER_INTERACTION, "task_id": record.task_id},
        },
    }


_CONVERTERS = {"openai": _openai, "trl": _trl, "sharegpt": _sharegpt, "verl": _verl}
