"""The lean stdio client keeps what it made of a tool call's answer by the answer's bytes
(issue 32): the same answer line again (but for its id) is neither checked against the
output schema nor written out for the agent a second time, and gives exactly what a
fresh answer gives. Anything else is checked and written as before."""

from __future__ import annotations

import json
import types
from typing import Any

import pytest

from envfactory_mcp.host.connection import (
    _SORTED_JSON,
    CallResult,
    LeanStdioClient,
    ServerConnection,
    _SchemaCheck,
    _shared_check,
)

SCHEMA = {
    "type": "object",
    "properties": {"user_id": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["user_id"],
}


class Counted(_SchemaCheck):
    def __init__(self, schema: dict[str, Any]) -> None:
        super().__init__(schema)
        self.checked = 0

    def first_error(self, instance: Any) -> str | None:
        self.checked += 1
        return super().first_error(instance)


def _line(request_id: int, result: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}, separators=(",", ":")).encode()


def _client(answers: list[bytes]) -> tuple[LeanStdioClient, Counted]:
    client = LeanStdioClient(types.SimpleNamespace(), timeout_s=1.0)
    check = Counted(SCHEMA)
    client._checks["get_user"] = check

    async def exchange(method: str, request_id: int, line: bytes) -> tuple[dict[str, Any], bytes]:
        answer = answers.pop(0)
        return json.loads(answer)["result"], answer

    client._exchange = exchange  # type: ignore[method-assign]
    return client, check


def _result(structured: Any, is_error: bool = False) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": json.dumps(structured)}],
        "isError": is_error,
        "structuredContent": structured,
    }


async def test_the_same_answer_again_is_taken_as_it_was_made() -> None:
    value = {"user_id": "u1", "n": 3, "zz": ["é", 1.5, None, True]}
    client, check = _client([_line(1, _result(value)), _line(2, _result(value)), _line(3, _result(value))])
    first = await client.call_tool("get_user", {})
    second = await client.call_tool("get_user", {})
    third = await client.call_tool("get_user", {})
    assert check.checked == 1  # the answer was checked once
    assert first == second == third
    assert second.structured_text == _SORTED_JSON.encode(value)
    assert second.structured_content == value and second.structured_content is not first.structured_content


async def test_another_answer_or_another_check_is_checked_again() -> None:
    a, b = {"user_id": "u1", "n": 1}, {"user_id": "u1", "n": 1.0}  # equal values, other text
    client, check = _client([_line(1, _result(a)), _line(2, _result(b)), _line(3, _result(a))])
    assert (await client.call_tool("get_user", {})).structured_text == '{"n": 1, "user_id": "u1"}'
    assert (await client.call_tool("get_user", {})).structured_text == '{"n": 1.0, "user_id": "u1"}'
    assert check.checked == 2
    client._checks["get_user"] = other = Counted(SCHEMA)  # a new listing: a new check
    await client.call_tool("get_user", {})
    assert other.checked == 1


async def test_an_invalid_answer_is_refused_every_time() -> None:
    bad = {"n": "three"}
    client, check = _client([_line(1, _result(bad)), _line(2, _result(bad))])
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Invalid structured content"):
            await client.call_tool("get_user", {})
    assert check.checked == 2


async def test_errors_and_answers_of_another_shape_are_not_kept() -> None:
    value = {"user_id": "u1"}
    spaced = json.dumps({"jsonrpc": "2.0", "id": 1, "result": _result(value)}).encode()
    errors = [_line(i, _result(value, is_error=True)) for i in (2, 3)]
    client, check = _client([spaced, spaced, *errors])
    await client.call_tool("get_user", {})
    await client.call_tool("get_user", {})
    assert check.checked == 2 and not client._answers
    for _ in range(2):
        assert (await client.call_tool("get_user", {})).structured_text is None
    assert not client._answers


async def test_the_connection_answers_with_the_text_it_would_write() -> None:
    value = {"user_id": "u1", "b": {"y": 1, "x": [2, 1]}}
    client, _ = _client([_line(i, _result(value)) for i in (1, 2)])
    conn = ServerConnection("retail", "stdio")
    conn._client = client
    conn._sessions["s"] = conn.opened
    results = [await conn.call("get_user", {"user_id": "u1"}, "s") for _ in range(2)]
    assert results == [CallResult(False, _SORTED_JSON.encode(value), value)] * 2


async def test_kept_answers_are_bounded_in_number_and_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from envfactory_mcp.host import connection

    values = [{"user_id": f"u{i}", "n": i} for i in range(6)]
    client, _ = _client([_line(i, _result(v)) for i, v in enumerate(values)])
    monkeypatch.setattr(connection, "_MAX_ANSWERS", 4)
    for _ in range(5):
        await client.call_tool("get_user", {})
    assert len(client._answers) == 1  # the fifth found four kept: all forgotten, then its own kept
    one = client._answer_bytes
    monkeypatch.setattr(connection, "_MAX_ANSWER_BYTES", one + 1)
    await client.call_tool("get_user", {})
    assert len(client._answers) == 1 and client._answer_bytes <= one + 1


def test_the_shared_check_is_a_schema_check() -> None:
    assert isinstance(_shared_check("t", SCHEMA), _SchemaCheck)
