"""Sessions started at once on the jailed server each keep their own process.

``runtime/front.py``'s router starts a session's process by awaiting the zygote; other
requests run meanwhile. Episodes of a rollout start together (a gold replay and the
episode's own session per task, several tasks at once), so the router must neither
forget a process started beside another nor start two for one session: either gives a
session a fresh process from the seed in the middle of its episode, and its writes
vanish (an imported package's oracle found "Owner 13 not found" after creating owner 13,
and a gold replay's hash came back as the seed's). A session whose process was ended
(idle, or to make room for another client) says so instead of starting over from the seed.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client, MCPError
from tool_calls import key

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.host.launch import build_server
from envfactory_mcp.runtime import ServerOptions
from envfactory_mcp.runtime.front import close_jailed_server, create_jailed_server
from envfactory_mcp.runtime.jail import jail_support
from envfactory_mcp.runtime.sessions import SessionLimits

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not jail_support().available, reason=f"needs the jail (bubblewrap): {jail_support().reason}"
    ),
]
ENV = "retail"
TOOL = "transfer_to_human_agents"  # (summary) -> {"transferred", "message", "summary"}
# The session process's own memory: what this process was told before, in order.
REMEMBERS = f"""

SEEN: list[str] = []


def {TOOL}(ctx: ToolContext, *, summary: str) -> dict:
    SEEN.append(summary)
    return {{"transferred": True, "message": "|".join(SEEN), "summary": summary}}
"""


@pytest.fixture(scope="module")
def servers(retail_env: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = render_package(retail_env)
    files["retail_mcp/tools.py"] += REMEMBERS
    folder = tmp_path_factory.mktemp("jailed-routing") / "servers"
    write_package(files, folder / ENV)
    return folder


async def test_sessions_started_together_each_keep_one_process(servers: Path):
    names = [f"episode-{i}" for i in range(12)]
    seen: dict[str, list[str]] = {}
    server = build_server(servers, ENV, ServerOptions(control=True), allow_unverified=True)
    try:
        async with Client(server) as client:

            async def episode(name: str) -> None:
                seen[name] = []
                for turn in range(3):
                    result = await client.call_tool(TOOL, {"summary": f"{name}:{turn}"}, meta=key(name))
                    assert result.structured_content is not None, result
                    seen[name].append(result.structured_content["message"])

            async with anyio.create_task_group() as group:
                for name in names:
                    group.start_soon(episode, name)
    finally:
        close_jailed_server(server)
    for name in names:
        # one process per session from its first call to its last: it remembers every turn
        assert seen[name] == [f"{name}:0", f"{name}:0|{name}:1", f"{name}:0|{name}:1|{name}:2"], name


async def test_a_session_ended_while_idle_says_its_state_is_gone(servers: Path):
    # idle past the timeout: its process is ended when the next session starts
    options = ServerOptions(control=True, session_limits=SessionLimits(idle_seconds=0.01))
    server = create_jailed_server(servers / ENV / "retail_mcp", options)
    try:
        async with Client(server) as client:
            kept = await client.call_tool(TOOL, {"summary": "kept"}, meta=key("a"))
            await anyio.sleep(0.1)
            other = await client.call_tool(TOOL, {"summary": "other"}, meta=key("b"))
            with pytest.raises(MCPError, match=r"state with it; start it again with control\.reset"):
                await client.call_tool(TOOL, {"summary": "after"}, meta=key("a"))
            restarted = await client.call_tool("control.reset", {}, meta=key("a"))
            fresh = await client.call_tool(TOOL, {"summary": "fresh"}, meta=key("a"))
    finally:
        close_jailed_server(server)
    said = [r.structured_content["message"] if r.structured_content else None for r in (kept, other, fresh)]
    assert said == ["kept", "other", "fresh"]  # after a reset: a new process, from the seed
    assert not restarted.is_error
