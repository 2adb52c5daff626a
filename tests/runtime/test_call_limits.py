"""Served calls are bounded (issue 11, item 3): a time limit per call, a memory limit per
server, a safe recursion limit, and a crashing call costs its call, not the server.

Toolbox tests run the limits directly; the served tests start the mini bank package over
real stdio (and HTTP) with hostile tools swapped in and check that the client gets a tool
error, the call's writes are undone, and the server answers the next call.
"""

from __future__ import annotations

import sys
import threading
import time
import types
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult
from servers import http_server
from tool_calls import key

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.runtime import SessionDatabase, Toolbox

TRANSFER = {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 250}
ACC = {"account_id": "acc_001"}
RUNAWAY_CTE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c"

# Replaces tools the mini bank declares (later definitions win).
HOSTILE_TOOLS = f'''

def noop(ctx):
    while True:
        pass

def undeclared_write(ctx, from_account, to_account, amount_cents):
    ctx.execute("UPDATE accounts SET balance_cents = 0 WHERE account_id = ?", (from_account,))
    while True:
        try:
            sum(range(10_000))
        except Exception:
            pass

def sneaky_read(ctx, account_id):
    while True:  # the interrupted statement is swallowed, and the loop goes on
        try:
            ctx.one("{RUNAWAY_CTE}")
        except Exception:
            pass

def bad_output(ctx, account_id):
    hoard = b"x" * (10 * 1024 ** 3)
    return {{"account_id": account_id, "owner": str(len(hoard)), "balance_cents": 0}}

def crash(ctx, account_id):
    import json
    import sys
    if account_id == "acc_001":  # raise the limit for the calls that follow
        sys.setrecursionlimit(10 ** 6)
        return {{"account_id": account_id, "owner": "raised", "balance_cents": 0}}
    nested = []
    for _ in range(10 ** 5):  # far deeper than the per-call limit lets json.dumps go
        nested = [nested]
    return {{"account_id": account_id, "owner": json.dumps(nested), "balance_cents": 0}}
'''


def text(result) -> str:
    return " ".join(block.text for block in result.content)


# ------------------------------------------------------------------ the toolbox


def hostile_toolbox(mini_env: Environment, call_seconds: float | None) -> Toolbox:
    import mini_env as mini

    module = types.ModuleType("hostile_minibank_tools")
    exec(compile(mini.TOOLS_SOURCE + HOSTILE_TOOLS, "hostile.py", "exec"), module.__dict__)  # noqa: S102
    return Toolbox(mini_env.bundle().spec, module, call_seconds=call_seconds)


@pytest.fixture
def session(mini_env: Environment) -> SessionDatabase:
    bundle = mini_env.bundle()
    from envfactory_mcp.runtime import build_seed_image

    return SessionDatabase(build_seed_image(bundle.schema_sql, bundle.seed_sql))


def test_a_spinning_call_is_stopped_at_its_deadline_and_its_writes_undone(mini_env, session):
    toolbox = hostile_toolbox(mini_env, call_seconds=0.3)
    before = session.hash()
    started = time.monotonic()
    outcome = toolbox.call(session.db, "undeclared_write", TRANSFER)
    elapsed = time.monotonic() - started
    assert not outcome.ok and outcome.fault == "timeout" and outcome.internal
    assert (outcome.error or "").startswith("Tool undeclared_write exceeded its time limit of 0.3 s")
    assert 0.3 <= elapsed < 1.5
    assert not session.db.in_transaction and session.hash() == before
    assert toolbox.call(session.db, "get_account", ACC).ok  # the connection is usable


def test_a_runaway_query_whose_interruption_the_tool_swallows_is_stopped(mini_env, session):
    toolbox = hostile_toolbox(mini_env, call_seconds=0.3)
    started = time.monotonic()
    outcome = toolbox.call(session.db, "sneaky_read", ACC)
    assert outcome.fault == "timeout" and time.monotonic() - started < 1.5
    assert toolbox.call(session.db, "get_account", ACC).ok


def test_in_a_worker_thread_runaway_sql_is_still_bounded(mini_env, session):
    import mini_env as mini

    module = types.ModuleType("cte_tools")
    exec(compile(mini.TOOLS_SOURCE, "cte.py", "exec"), module.__dict__)  # noqa: S102
    module.__dict__["get_account"] = lambda ctx, account_id: ctx.one(RUNAWAY_CTE)  # no loop: one statement
    toolbox = Toolbox(mini_env.bundle().spec, module, call_seconds=0.3)
    outcomes = []
    worker = threading.Thread(target=lambda: outcomes.append(toolbox.call(session.db, "get_account", ACC)))
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert outcomes[0].fault == "timeout"


def test_in_a_worker_thread_a_tool_looping_over_sql_is_stopped_at_its_next_statement(mini_env, session):
    toolbox = hostile_toolbox(mini_env, call_seconds=0.3)
    outcomes = []
    worker = threading.Thread(target=lambda: outcomes.append(toolbox.call(session.db, "sneaky_read", ACC)))
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert outcomes[0].fault == "timeout"


def test_without_a_time_limit_no_signal_handler_is_touched(mini_env, session):
    import signal

    toolbox = hostile_toolbox(mini_env, call_seconds=None)
    handler = signal.getsignal(signal.SIGALRM)
    assert toolbox.call(session.db, "get_account", ACC).ok
    assert signal.getsignal(signal.SIGALRM) is handler


def test_the_recursion_limit_is_safe_during_a_call_and_restored_after(mini_env, session):
    # A generous time limit: this is about recursion, and a loaded machine is slow to build
    # and free 100,000 nested lists.
    toolbox = hostile_toolbox(mini_env, call_seconds=30.0)
    before = sys.getrecursionlimit()
    raised = toolbox.call(session.db, "crash", ACC)  # raises the limit to 10**6
    deep = toolbox.call(session.db, "crash", {"account_id": "acc_002"})
    assert raised.ok and sys.getrecursionlimit() == before
    assert not deep.ok and "RecursionError" in (deep.error or "")


# ------------------------------------------------------------------ served over stdio


@pytest.fixture(scope="module")
def package(mini_env: Environment, tmp_path_factory) -> Path:
    folder = write_package(render_package(mini_env), tmp_path_factory.mktemp("limits") / "minibank")
    tools = folder / "minibank_mcp" / "tools.py"
    tools.write_text(tools.read_text(encoding="utf-8") + HOSTILE_TOOLS, encoding="utf-8")
    return folder


def stdio(package: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "minibank_mcp", *args], env={"PYTHONPATH": str(package)}
    )


@pytest.mark.slow
async def test_a_spinning_tool_over_stdio_gets_a_time_limit_error_and_other_sessions_go_on(package):
    with anyio.fail_after(60):
        async with Client(stdio(package, "--control", "--call-timeout", "1")) as client:
            for name in ("a", "b"):
                await client.call_tool("control.reset", {}, meta=key(name))
            started = time.monotonic()
            spun = await client.call_tool("noop", {}, meta=key("a"))
            elapsed = time.monotonic() - started
            write = await client.call_tool("undeclared_write", TRANSFER, meta=key("a"))
            other = await client.call_tool("transfer", TRANSFER, meta=key("b"))
            mine = await client.call_tool("get_account", ACC, meta=key("a"))
    assert spun.is_error and "Tool noop exceeded its time limit of 1 s" in text(spun)
    assert 1.0 <= elapsed < 3.0
    assert write.is_error and "exceeded its time limit" in text(write)
    assert not other.is_error
    assert mine.structured_content["balance_cents"] == 50_000  # the zeroing write was undone


@pytest.mark.slow
async def test_runaway_sql_over_stdio_is_a_time_limit_error(package):
    with anyio.fail_after(60):
        async with Client(stdio(package, "--call-timeout", "1")) as client:
            started = time.monotonic()
            runaway = await client.call_tool("sneaky_read", ACC)
            elapsed = time.monotonic() - started
            after = await client.call_tool("get_account", ACC)
    assert runaway.is_error and "Tool sneaky_read exceeded its time limit of 1 s" in text(runaway)
    assert elapsed < 3.0
    assert not after.is_error


@pytest.mark.slow
async def test_with_a_database_file_runaway_sql_is_bounded_too(package, tmp_path):
    with anyio.fail_after(60):
        async with Client(stdio(package, "--call-timeout", "1", "--db", str(tmp_path / "bank.db"))) as client:
            runaway = await client.call_tool("sneaky_read", ACC)
            write = await client.call_tool("transfer", TRANSFER)
            after = await client.call_tool("get_account", ACC)
    assert runaway.is_error and "exceeded its time limit of 1 s" in text(runaway)
    assert not write.is_error and after.structured_content["balance_cents"] == 50_000 - 250


@pytest.mark.slow
async def test_a_huge_allocation_is_a_tool_error_under_the_memory_limit(package):
    with anyio.fail_after(60):
        async with Client(stdio(package, "--max-memory-mb", "1024")) as client:
            hungry = await client.call_tool("bad_output", ACC)
            after = await client.call_tool("get_account", ACC)
    assert hungry.is_error and "MemoryError" in text(hungry)
    assert not after.is_error and after.structured_content["balance_cents"] == 50_000


@pytest.mark.slow
async def test_deep_recursion_after_a_raised_limit_is_a_tool_error_not_a_crash(package):
    with anyio.fail_after(60):
        async with Client(stdio(package)) as client:
            await client.call_tool("crash", ACC)  # sys.setrecursionlimit(10**6)
            deep = await client.call_tool("crash", {"account_id": "acc_002"})
            after = await client.call_tool("get_account", ACC)
    assert deep.is_error and "RecursionError" in text(deep)
    assert not after.is_error


@pytest.mark.slow
async def test_over_http_a_spinning_call_stalls_other_connections_only_until_its_deadline(package):
    with http_server(package, "minibank_mcp", "--call-timeout", "1") as server:
        with anyio.fail_after(60):
            async with Client(server.url) as spinner, Client(server.url) as other:
                results: dict[str, CallToolResult] = {}

                async def spin() -> None:
                    results["spin"] = await spinner.call_tool("noop", {})

                async with anyio.create_task_group() as tg:
                    tg.start_soon(spin)
                    await anyio.sleep(0.2)
                    started = time.monotonic()
                    results["other"] = await other.call_tool("get_account", ACC)
                    waited = time.monotonic() - started
    assert results["spin"].is_error and "exceeded its time limit" in text(results["spin"])
    assert not results["other"].is_error
    assert waited < 3.0


# ------------------------------------------------------------------ options


def test_limit_options_are_checked():
    from envfactory_mcp.runtime.cli import parse_args

    args = parse_args("srv", [])
    assert args.call_timeout == 5.0 and args.max_memory_mb == 6144
    assert parse_args("srv", ["--call-timeout", "0", "--max-memory-mb", "0"]).call_timeout == 0
    for bad in (["--call-timeout", "-1"], ["--call-timeout", "nan"], ["--max-memory-mb", "100"]):
        with pytest.raises(SystemExit):
            parse_args("srv", bad)


def test_the_address_space_limit_only_ever_goes_down():
    import subprocess

    script = (
        "import resource\n"
        "from envfactory_mcp.runtime.limits import limit_address_space\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, resource.RLIM_INFINITY))\n"
        "print(limit_address_space(4096) == 2 << 30)\n"  # a lower limit in force stays
        "print(limit_address_space(1024) == 1 << 30)\n"
        "print(resource.getrlimit(resource.RLIMIT_AS) == (1 << 30, 1 << 30))\n"  # hard too: tools cannot raise it
        "print(limit_address_space(0) == 1 << 30)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split() == ["True"] * 4
