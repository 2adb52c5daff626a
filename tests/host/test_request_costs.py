"""What a stdio connection costs the host per request and per open (issue 32): a lean
request reads the event loop's clock from the loop, not through anyio's lookup of which
library runs, and the package's spec is read once per open (its primary keys are the
parsed spec's own), with the same keys and the same answers."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.host.connection import LeanStdioClient, ServerConnection
from envfactory_mcp.layout import spec_path

pytestmark = pytest.mark.slow


async def test_a_lean_request_asks_the_loop_for_the_time(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    clock = anyio.current_time

    def current_time() -> float:
        # The watcher's ticks (LeanStdioClient._watch) follow the wall clock, so a busy
        # machine makes more of them: only the other callers are counted.
        if sys._getframe(1).f_code.co_name != "_watch":
            asked.append(1)
        return clock()

    with anyio.fail_after(120):
        async with ServerConnection("retail", "stdio", SERVERS_DIR) as conn:
            client = conn._client
            assert isinstance(client, LeanStdioClient)
            monkeypatch.setattr(anyio, "current_time", current_time)
            first = await conn.reset("s")
            for _ in range(20):
                assert await conn.state_hash("s") == first
            # Closing polls the clock while the server exits (as often as the machine is slow).
            monkeypatch.setattr(anyio, "current_time", clock)
            # Its deadline is on the clock the watcher reads (anyio's, the loop's on asyncio).
            loop_now, anyio_now = __import__("asyncio").get_running_loop().time(), clock()
            assert abs(loop_now - anyio_now) < 0.5
    assert len(asked) < 5  # one per request (21) before


async def test_a_stdio_connection_reads_its_packages_spec_once(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = json.loads(spec_path(SERVERS_DIR, "retail").read_text(encoding="utf-8"))
    expected = {t["name"]: tuple(t["primary_key"]) for t in raw["tables"]}

    def unread(self: Any) -> Any:
        raise AssertionError("the spec's JSON was read again for its primary keys")

    monkeypatch.setattr(ServerConnection, "_local_primary_keys", unread)
    with anyio.fail_after(120):
        async with ServerConnection("retail", "stdio", SERVERS_DIR) as conn:
            assert conn.spec is not None
            assert conn.primary_keys == expected


async def test_a_spec_that_does_not_parse_still_gives_its_primary_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import envfactory_mcp.layout as layout

    raw = json.loads(spec_path(SERVERS_DIR, "retail").read_text(encoding="utf-8"))
    monkeypatch.setattr(layout, "package_spec", lambda servers_dir, env: None)
    with anyio.fail_after(120):
        async with ServerConnection("retail", "stdio", SERVERS_DIR) as conn:
            assert conn.spec is None
            assert conn.primary_keys == {t["name"]: tuple(t["primary_key"]) for t in raw["tables"]}


LINES = [
    b'{"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "{\\"a\\": 1}"}], "structuredContent": {"a": 1}}}',
    b'{"a": 123456789012345678901234567890, "b": 9007199254740993, "c": -0.0, "d": -0, "e": 1e400, "f": 5e-324}',
    b'{"a": NaN, "b": Infinity, "c": -Infinity}',
    b'{"a": 1, "a": 2}',
    b'{"a": "\\ud83d\\ude00 \\u00e9 \xc3\xa9 \\u0000 \\/"}',
    b"  [1, 2.5, true, null, {}]  ",
    b'{"a": "\\ud800"}',  # a lone surrogate escape: json reads it, pydantic-core refuses it
    b'{"a": "\\ude00\\ud83d"}',
    b'\xef\xbb\xbf{"a": 1}',  # a BOM
    '{"a": "é"}'.encode("utf-16"),
]
NOT_JSON = [
    b'{"a": 1} x',
    b'{"a": "x\x01y"}',
    b'{"a": 01}',
    b'{"a": .5}',
    b'{"a": 1,}',
    b"{'a': 1}",
    b"",
    b'{"a": "\xff"}',
]


def test_an_answer_is_read_as_json_reads_it() -> None:
    import math
    import random

    from envfactory_mcp.host.connection import _parse_line

    def same(a: Any, b: Any) -> bool:
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return repr(a) == repr(b)

    for line in LINES:
        assert same(_parse_line(line), json.loads(line)), line
    for line in NOT_JSON:
        with pytest.raises(ValueError):
            json.loads(line)
        with pytest.raises(ValueError):
            _parse_line(line)
    rng = random.Random(32)
    for _ in range(5000):
        value = rng.uniform(-1, 1) * 10.0 ** rng.randint(-320, 300)
        line = f'{{"v": {value:.{rng.randint(1, 20)}g}}}'.encode()
        assert _parse_line(line) == json.loads(line), line


async def test_the_lean_client_reads_answers_without_json(monkeypatch: pytest.MonkeyPatch) -> None:
    with anyio.fail_after(120):
        async with ServerConnection("retail", "stdio", SERVERS_DIR, call_timeout_s=10) as conn:
            first = await conn.reset("s")

            def refuse(*args: Any, **kwargs: Any) -> Any:
                raise AssertionError("an answer went through json.loads")

            monkeypatch.setattr(json, "loads", refuse)  # the module the connection reads with
            assert await conn.state_hash("s") == first
            result = await conn.call("find_user_id_by_email", {"email": "nobody@example.com"}, "s")
            assert result.is_error
