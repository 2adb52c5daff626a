"""The stdio client writes a tool call's line from parts (issue 32): the envelope's text
kept, the arguments' text the argument check wrote. The line must be byte for byte the
one the whole message encoded (``request``) writes, whatever the arguments, meta and
names, and anything it does not write from parts is written by ``request``."""

from __future__ import annotations

import json
import types
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from envfactory_mcp.host.arguments import check_arguments, checked_json
from envfactory_mcp.host.connection import _WIRE_JSON, LeanStdioClient

_text = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('"\\\n\t\x00\u2028é𝄞'))
_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=20,
)


def _client() -> LeanStdioClient:
    return LeanStdioClient(types.SimpleNamespace(), timeout_s=1.0)


def _whole(
    client: LeanStdioClient, request_id: int, name: str, arguments: Any, meta: dict[str, Any]
) -> bytes:
    """The line ``request`` writes for the call (its encoding of the whole message)."""
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {**client._envelope, **meta}},
    }
    return (_WIRE_JSON.encode(message) + "\n").encode("utf-8", "surrogatepass")


@settings(max_examples=200, deadline=None)
@given(
    name=_text,
    arguments=st.dictionaries(_text, _values, max_size=5),
    meta=st.dictionaries(_text, _values, max_size=3),
    checked=st.booleans(),
)
def test_a_call_line_is_the_whole_messages_encoding(
    name: str, arguments: dict[str, Any], meta: dict[str, Any], checked: bool
) -> None:
    client = _client()
    client._next_id = 41
    arguments_json = None
    if checked:
        problem, arguments_json = checked_json(arguments)
        if problem is not None:  # not sent at all (too deep, or text that is not Unicode)
            assert check_arguments(arguments) == problem
            return
    made = client._call_line(name, arguments, meta, arguments_json)
    assert made is not None
    assert made == (42, _whole(client, 42, name, arguments, meta))
    assert json.loads(made[1])["id"] == 42


def test_the_session_meta_and_empty_arguments_of_control_calls() -> None:
    client = _client()
    meta = {"envfactory/session": "run/task/0/abc"}
    for arguments in ({}, {"user_id": "user_1", "items": [1, 2.5, None, True]}):
        made = client._call_line("control.reset", arguments, meta, None)
        assert made is not None and made[1] == _whole(client, made[0], "control.reset", arguments, meta)


def test_what_it_does_not_write_from_parts_is_left_to_request() -> None:
    client = _client()
    envelope_key = next(iter(client._envelope))
    assert client._call_line("t", {}, {envelope_key: "other"}, None) is None  # overrides the envelope
    assert client._call_line("t", {}, {1: "x"}, None) is None  # type: ignore[dict-item]
    assert client._call_line(type("Name", (str,), {})("t"), {}, {}, None) is None
    assert client._next_id == 0  # no id taken for a line not written


def test_checked_json_is_the_wire_text_of_arguments_that_may_be_sent() -> None:
    arguments = {"b": [1, {"c": "é\u2028"}], "a": 1.5, "n": None}
    assert checked_json(arguments) == (None, json.dumps(arguments, ensure_ascii=False))
    assert checked_json({"x": float("nan")})[0] == check_arguments({"x": float("nan")}) is not None
    assert checked_json([1]) == ("not a JSON object (got list)", "")
