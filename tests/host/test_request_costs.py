"""What a stdio connection costs the host per request and per open (issue 32): a lean
request reads the event loop's clock from the loop, not through anyio's lookup of which
library runs, and the package's spec is read once per open (its primary keys are the
parsed spec's own), with the same keys and the same answers."""

from __future__ import annotations

import json
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
            # Its deadline is on the clock the watcher reads (anyio's, the loop's on asyncio).
            loop_now, anyio_now = __import__("asyncio").get_running_loop().time(), clock()
            assert abs(loop_now - anyio_now) < 0.5
    assert len(asked) < 5  # the watcher's ticks at most; one per request before


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
