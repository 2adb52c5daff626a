"""A flood of session keys refuses only the flooder (issue 25, part 5), on a real server.

A package served over streamable HTTP on 127.0.0.1 with a small ``--max-session-keys``:
three connections flood ``control.reset`` with new keys, all at once, while a fourth,
well-behaved connection opens its keys among them and writes. The server's limit is
shared fairly: the well-behaved connection gets every key it asks for up to its share,
and none of its sessions is ended; the flooders are refused, or lose their own least
recently used idle keys. The store's rules one by one are in test_sessions.py.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
from mcp import Client
from minibank_calls import ACC, TRANSFER, balance, key, text
from servers import http_server

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment

pytestmark = pytest.mark.slow

MAX_KEYS = 24
FLOODERS = 3
SHARE = MAX_KEYS // (FLOODERS + 1)  # 6


@pytest.fixture(scope="module")
def package(mini_env: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_package(render_package(mini_env), tmp_path_factory.mktemp("floods") / "minibank")


async def test_a_key_flood_over_many_http_connections_refuses_only_the_flooder(package: Path):
    args = ("--control", "--max-session-keys", str(MAX_KEYS), "--session-keys-per-connection", "1000")
    refused, granted = [0] * FLOODERS, []
    with http_server(package, "minibank_mcp", *args) as server:
        with anyio.fail_after(120):
            async with AsyncExitStack() as stack:
                victim = await stack.enter_async_context(Client(server.url))
                flooders = [await stack.enter_async_context(Client(server.url)) for _ in range(FLOODERS)]

                async def flood(n: int) -> None:
                    for i in range(60):
                        result = await flooders[n].call_tool("control.reset", {}, meta=key(f"f{n}-{i}"))
                        if result.is_error:
                            assert "--max-session-keys" in text(result), text(result)
                            refused[n] += 1

                async def behave() -> None:
                    for i in range(SHARE):
                        await anyio.sleep(0.05)  # among the flood, not before it
                        opened = await victim.call_tool("control.reset", {}, meta=key(f"mine-{i}"))
                        granted.append(not opened.is_error)
                        await victim.call_tool(
                            "transfer", {**TRANSFER, "amount_cents": i + 1}, meta=key(f"mine-{i}")
                        )

                async with anyio.create_task_group() as group:
                    for n in range(FLOODERS):
                        group.start_soon(flood, n)
                    group.start_soon(behave)
                over = await victim.call_tool("control.reset", {}, meta=key("mine-over"))
                mine = [await balance(victim, meta=key(f"mine-{i}")) for i in range(SHARE)]
                held = 0
                for n in range(FLOODERS):
                    for i in range(60):
                        read = await flooders[n].call_tool("get_account", ACC, meta=key(f"f{n}-{i}"))
                        held += not read.is_error
                late = await flooders[0].call_tool("control.reset", {}, meta=key("f0-late"))
    assert granted == [True] * SHARE  # every key of the well-behaved connection, mid-flood
    assert mine == [50_000 - (i + 1) for i in range(SHARE)]  # none of its sessions ended
    assert "fair share" in text(over)  # past its share it is refused like anyone
    assert sum(refused) > 0 and late.is_error and "fair share" in text(late)
    assert held == MAX_KEYS - SHARE  # the flooders hold the rest, and no more
