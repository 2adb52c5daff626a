"""The host's SDK-free stdio client (issue 32) against the SDK's, over real stdio on the
committed retail package: the same listing, the same answers, concurrent requests
matched to their own answers, a server's error answer that leaves the connection up,
and a dead server that breaks it instead of hanging."""

from __future__ import annotations

import os
import signal

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.errors import InfrastructureError
from envfactory_mcp.host.connection import LeanStdioClient, ServerConnection, _PeerError

pytestmark = pytest.mark.slow

ADDRESS = {
    "address1": "1 Elm St",
    "address2": "",
    "city": "Dover",
    "state": "DE",
    "country": "USA",
    "zip": "19901",
}


async def _answers(conn: ServerConnection, user: str) -> list[object]:
    calls = [
        ("get_user_details", {"user_id": user}),
        ("modify_user_address", {"user_id": user, **ADDRESS}),
        ("get_user_details", {"user_id": user}),
        ("get_order_details", {"order_id": "#nope"}),  # a tool error
        ("no_such_tool", {}),  # an unknown tool
    ]
    seen: list[object] = [await conn.reset("s1")]
    for name, args in calls:
        result = await conn.call(name, args, "s1")
        seen.append((result.is_error, result.text, result.structured))
    seen += [await conn.state_hash("s1"), await conn.reset("s1")]
    return seen


async def test_lean_and_sdk_clients_list_and_answer_alike(retail_env):
    user = retail_env.seed_state["users"][0]["user_id"]
    with anyio.fail_after(120):
        async with ServerConnection("retail", "stdio", SERVERS_DIR) as lean:
            assert isinstance(lean._client, LeanStdioClient)  # the lean path, not a fallback
            lean_seen = await _answers(lean, user)
            lean_listing = (lean.instructions, lean.tools)
        sdk = ServerConnection("retail", "stdio", SERVERS_DIR)
        sdk.lean = False
        async with sdk:
            assert not isinstance(sdk._client, LeanStdioClient)
            sdk_seen = await _answers(sdk, user)
            sdk_listing = (sdk.instructions, sdk.tools)
    assert lean_listing == sdk_listing
    assert lean_seen == sdk_seen
    assert lean_seen[2][0] is False and lean_seen[3][2]["address"]["city"] == "Dover"  # type: ignore[index]
    assert lean_seen[4][0] is True and lean_seen[5][0] is True  # type: ignore[index]
    assert lean_seen[6] != lean_seen[0] and lean_seen[7] == lean_seen[0]  # written, then reset


async def test_concurrent_requests_get_their_own_answers(retail_env):
    users = [u["user_id"] for u in retail_env.seed_state["users"][:12]]
    got: dict[str, object] = {}
    with anyio.fail_after(120):
        async with ServerConnection("retail", "stdio", SERVERS_DIR) as conn:

            async def one(i: int, user: str) -> None:
                session = f"c{i}"
                await conn.reset(session)
                result = await conn.call("get_user_details", {"user_id": user}, session)
                got[user] = result.structured["user_id"] if result.structured else None

            async with anyio.create_task_group() as group:
                for i, user in enumerate(users):
                    group.start_soon(one, i, user)
    assert got == {u: u for u in users}


async def test_an_error_answer_keeps_the_connection_and_a_dead_server_breaks_it(retail_env):
    user = retail_env.seed_state["users"][0]["user_id"]
    with anyio.fail_after(120):
        async with ServerConnection("retail", "stdio", SERVERS_DIR) as conn:
            client = conn._client
            assert isinstance(client, LeanStdioClient)
            with pytest.raises(_PeerError):
                await client.request("no/such_method", {})
            await conn.reset("s")
            assert not (await conn.call("get_user_details", {"user_id": user}, "s")).is_error
            assert client.pid is not None
            os.kill(client.pid, signal.SIGKILL)
            with pytest.raises(InfrastructureError):
                await conn.call("get_user_details", {"user_id": user}, "s")
            assert conn._client is None  # broken: the next episode reopens


def test_the_host_names_the_runtimes_control_prefix():
    from envfactory_mcp.host import connection
    from envfactory_mcp.runtime import server

    assert connection.CONTROL_PREFIX == server.CONTROL_PREFIX


def test_a_stdio_connection_loads_no_mcp_sdk_in_the_host(tmp_path):
    """The SDK costs about a second of CPU to import: a stdio rollout's host does without it."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys, anyio\n"
        "from envfactory_mcp.host.connection import ServerConnection\n"
        f"SERVERS = {str(SERVERS_DIR)!r}\n"
        "async def main():\n"
        "    async with ServerConnection('retail', 'stdio', __import__('pathlib').Path(SERVERS)) as conn:\n"
        "        await conn.reset('s')\n"
        "        result = await conn.call('find_user_id_by_email', {'email': 'nobody@example.com'}, 's')\n"
        "        assert result.is_error, result\n"
        "anyio.run(main)\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))\n"
    )
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


# A server that answers the handshake and then never answers ("silent"), or never reads
# its stdin again ("deaf": the pipe fills up under the requests' lines).
FAKE_SERVER = """
import json, sys, time
mode = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    if message["method"] in ("server/discover", "tools/list"):
        result = {"instructions": ""} if message["method"] == "server/discover" else {"tools": []}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    elif mode == "deaf":
        time.sleep(600)
"""


@pytest.mark.parametrize("mode", ["silent", "deaf"])
async def test_a_request_left_unanswered_times_out(tmp_path, mode: str) -> None:
    """Every request ends with TimeoutError after about the timeout, also when the server
    stopped reading its stdin (the lines wait in asyncio's buffer, the requests time out)."""
    import sys
    import types
    from contextlib import AsyncExitStack

    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER)
    params = types.SimpleNamespace(command=sys.executable, args=[str(script), mode], env={}, cwd=None)
    client = LeanStdioClient(params, timeout_s=1.0)
    line = "x" * 200_000 if mode == "deaf" else ""  # more than a pipe holds
    outcomes: list[str] = []

    async def one() -> None:
        try:
            await client.request("tools/call", {"name": "a", "arguments": {"pad": line}})
        except TimeoutError:
            outcomes.append("timeout")

    with anyio.fail_after(30):
        async with AsyncExitStack() as stack:
            await client.start(stack)
            started = anyio.current_time()
            async with anyio.create_task_group() as group:
                for _ in range(3):
                    group.start_soon(one)
            waited = anyio.current_time() - started
    assert outcomes == ["timeout"] * 3
    assert 1.0 <= waited < 5.0
