"""A trajectory record's line (``TrajectoryRecord.to_line``) is written by pydantic's own
JSON serializer (issue 32): the values ``json.dumps`` of ``model_dump(mode="json")``
wrote, NaN and infinities included, only a float's spelling may differ; a line that
cannot be encoded (a lone surrogate) is still made storable."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from envfactory_mcp.records.trajectory import Participant, TrajectoryRecord, Usage


def _record(**changes: Any) -> TrajectoryRecord:
    data: dict[str, Any] = {
        "run_id": "r",
        "env": "retail",
        "servers": ["retail"],
        "task_id": "t1",
        "trial": 0,
        "seed": 0,
        "agent": Participant(kind="oracle"),
        "user": Participant(kind="scripted"),
        "messages": [
            {"role": "user", "content": 'é \u2028 \x00\x1f\x7f "quoted" \\ / 日本'},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": '{"a": 1}'}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok", "extra": [1, 2.5, None, True, {"k": []}]},
        ],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
        "termination": "user_stop",
        "reward": 1.0,
        "gold_state_hash": "g",
        "final_diff": {"orders": {"changed": [{"price": 19.99, "tiny": 8.634099503979087e-05, "big": 1e16}]}},
        "usage": {"agent": Usage(cost_usd=0.0)},
        "timings": {"agent_s": 7.468901458196342e-05, "user_s": 0.0036512, "total_s": 12.5},
    }
    data.update(changes)
    return TrajectoryRecord(**data)


def _old_line(record: TrajectoryRecord) -> bytes:
    """What ``to_line`` wrote before: ``json.dumps`` of the JSON-mode dump."""
    return (
        json.dumps(record.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":")) + "\n"
    ).encode()


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def test_the_line_holds_what_json_dumps_wrote() -> None:
    record = _record()
    line = record.to_line()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert _same(json.loads(line), json.loads(_old_line(record)))
    assert TrajectoryRecord.model_validate_json(line) == record
    # Keys in the same order, and text as json.dumps escapes it (only floats may be spelt otherwise).
    assert line.split(b'"final_diff"')[0] == _old_line(record).split(b'"final_diff"')[0]


def test_nan_and_infinities_are_written_as_json_dumps_writes_them() -> None:
    record = _record(
        reward=float("nan"),
        timings={"agent_s": float("inf"), "user_s": float("-inf")},
        final_diff={"t": [float("nan"), float("inf")]},
        usage={"agent": Usage(cost_usd=float("nan"))},
    )
    read = json.loads(record.to_line())
    assert math.isnan(read["reward"]) and math.isnan(read["usage"]["agent"]["cost_usd"])  # not null
    assert read["timings"] == {"agent_s": float("inf"), "user_s": float("-inf")}
    assert _same(read, json.loads(_old_line(record)))


def test_every_float_reads_back_as_itself() -> None:
    rng = random.Random(32)
    values = [rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30) for _ in range(2000)]
    values += [0.0, -0.0, 1e-5, 1e-4, 1e15, 1e16, 1e17, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3]
    record = _record(final_diff={"v": values}, timings={f"t{i}": v for i, v in enumerate(values[:50])})
    read = json.loads(record.to_line())
    assert read["final_diff"]["v"] == values
    assert all(
        math.copysign(1, a) == math.copysign(1, b)
        for a, b in zip(read["final_diff"]["v"], values, strict=True)
    )


def test_a_plain_record_is_not_dumped_to_python_first(monkeypatch: pytest.MonkeyPatch) -> None:
    record = _record()
    expected = json.loads(_old_line(record))

    def no_dump(self: TrajectoryRecord, **kwargs: Any) -> Any:
        raise AssertionError("to_line went through model_dump")

    monkeypatch.setattr(TrajectoryRecord, "model_dump", no_dump)
    assert _same(json.loads(record.to_line()), expected)


def test_a_lone_surrogate_is_still_made_storable() -> None:
    line = _record(messages=[{"role": "assistant", "content": "bad \ud800 text"}]).to_line()
    clean = _record(messages=[{"role": "assistant", "content": "bad \ufffd text"}])
    assert json.loads(line)["messages"][0]["content"] == "bad \ufffd text"
    assert _same(json.loads(line), json.loads(_old_line(clean)))
