"""stdio served on the event loop (issue 19): requests split across many writes, answers
larger than the pipe's buffer read slowly, many requests in one write, and the blocking
fallback for a wire that is not a pipe (a file), all over a real server process.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import Environment

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def package(mini_env: Environment, tmp_path_factory) -> Path:
    return write_package(render_package(mini_env), tmp_path_factory.mktemp("pipes") / "minibank")


def request(id_: int, method: str, params: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode() + b"\n"


HANDSHAKE = (
    request(
        0,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    )
    + json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    + b"\n"
)


def call(id_: int, account: str) -> bytes:
    return request(id_, "tools/call", {"name": "get_account", "arguments": {"account_id": account}})


def server(package: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "minibank_mcp", *args]


async def test_requests_split_into_pieces_and_batched_in_one_write_are_all_answered(package: Path):
    env = {**os.environ, "PYTHONPATH": str(package)}
    async with await anyio.open_process(server(package), env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None  # both are pipes by default
        out = BufferedByteReceiveStream(proc.stdout)
        with anyio.fail_after(60):
            await proc.stdin.send(HANDSHAKE)
            assert json.loads(await out.receive_until(b"\n", 1 << 20))["id"] == 0
            line = call(1, "acc_001")
            for i in range(len(line)):  # one byte a write: the reader reassembles the line
                await proc.stdin.send(line[i : i + 1])
            first = json.loads(await out.receive_until(b"\n", 1 << 20))
            await proc.stdin.send(b"".join(call(n, "acc_002") for n in range(2, 52)))
            batch = [json.loads(await out.receive_until(b"\n", 1 << 20)) for _ in range(50)]
        await proc.stdin.aclose()
    assert first["id"] == 1 and first["result"]["structuredContent"]["account_id"] == "acc_001"
    assert sorted(a["id"] for a in batch) == list(range(2, 52))
    assert all(a["result"]["structuredContent"]["account_id"] == "acc_002" for a in batch)


async def test_answers_larger_than_the_pipe_reach_a_slow_reader_whole(package: Path):
    # An unknown tool's error lists every tool; a resources/read of the schema is a few KB;
    # 300 of them queued while the client reads nothing overflow the 64 KiB pipe, so the
    # server's writes must wait for the pipe to drain instead of failing or dropping bytes.
    env = {**os.environ, "PYTHONPATH": str(package)}
    async with await anyio.open_process(server(package), env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None  # both are pipes by default
        out = BufferedByteReceiveStream(proc.stdout)
        with anyio.fail_after(60):
            await proc.stdin.send(HANDSHAKE)
            await out.receive_until(b"\n", 1 << 20)
            uri = "envfactory://minibank/schema"
            await proc.stdin.send(b"".join(request(n, "resources/read", {"uri": uri}) for n in range(1, 301)))
            await anyio.sleep(1)  # let the server fill the pipe and wait on it
            answers = [json.loads(await out.receive_until(b"\n", 1 << 20)) for _ in range(300)]
        await proc.stdin.aclose()
    assert sum(len(json.dumps(a)) for a in answers) > 200_000
    assert sorted(a["id"] for a in answers) == list(range(1, 301))
    assert len({a["result"]["contents"][0]["text"] for a in answers}) == 1


def test_a_wire_that_is_not_a_pipe_is_served_with_blocking_io(package: Path, tmp_path: Path):
    # Answers go to a file (not a pipe), so the server keeps blocking I/O in threads; the
    # requests come on a pipe kept open until every answer is in (at the end of its input
    # a server stops, whatever is still in flight).
    # A far backstop only: the loop ends when the answers are in (or the server is gone).
    answers_file, errors_file = tmp_path / "answers.jsonl", tmp_path / "stderr.txt"
    with open(answers_file, "wb") as stdout, open(errors_file, "wb") as stderr:
        proc = subprocess.Popen(
            server(package),
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=stderr,
            env={**os.environ, "PYTHONPATH": str(package)},
        )
    assert proc.stdin is not None
    try:
        proc.stdin.write(HANDSHAKE + call(1, "acc_001") + call(2, "acc_404"))
        proc.stdin.flush()
        deadline = time.monotonic() + 600
        while answers_file.read_bytes().count(b"\n") < 3 and proc.poll() is None:
            assert time.monotonic() < deadline, "no answers in 600 s"
            time.sleep(0.05)
        proc.stdin.close()
        proc.wait(timeout=600)
    except BrokenPipeError:
        pytest.fail(f"the server exited ({proc.wait()}) before reading: {errors_file.read_text()[-2000:]}")
    finally:
        proc.kill()
        proc.wait()
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()  # never left for the collector (a ResourceWarning in a later test)
    answers = {a["id"]: a for a in map(json.loads, answers_file.read_text().splitlines())}
    assert answers[1]["result"]["structuredContent"]["account_id"] == "acc_001"
    assert answers[2]["result"]["isError"] is True


def test_the_server_runs_on_uvloop_where_it_is_installed(package: Path):
    pytest.importorskip("uvloop")  # a dependency of every generated package on CPython/POSIX
    from servers import http_server

    with http_server(package, "minibank_mcp") as served:
        maps = Path(f"/proc/{served.pid}/maps").read_text()
    assert "uvloop" in maps


async def test_a_stdio_server_never_loads_uvloop(package: Path):
    # On stdio the lean path waits on its pipes itself: uvloop would only add its import
    # to every start (runtime/cli.py: event_loop_options).
    pytest.importorskip("uvloop")
    env = {**os.environ, "PYTHONPATH": str(package)}
    async with await anyio.open_process(server(package), env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        out = BufferedByteReceiveStream(proc.stdout)
        with anyio.fail_after(60):
            await proc.stdin.send(HANDSHAKE + call(1, "acc_001"))
            answers = [json.loads(await out.receive_until(b"\n", 1 << 20)) for _ in range(2)]
        maps = Path(f"/proc/{proc.pid}/maps").read_text()
        await proc.stdin.aclose()
    answer = next(a for a in answers if a["id"] == 1)
    assert answer["result"]["structuredContent"]["account_id"] == "acc_001"
    assert "uvloop" not in maps and "_asyncio" in maps


def test_a_server_under_the_jails_seccomp_filter_keeps_the_standard_loop():
    # libuv makes system calls at start that the jail's filter kills a process for, and
    # the verifier serves every package in the jail: there uvloop must not be tried.
    pytest.importorskip("uvloop")
    from envfactory_mcp.runtime import jail

    if not jail.jail_support().available:
        pytest.skip("no jail on this machine")
    root = str(Path(__file__).resolve().parents[2])
    code = (
        f"import sys; sys.path[:0] = {[root, *sys.path[1:]]!r}\n"
        "from envfactory_mcp.runtime.cli import event_loop_options\n"
        "print(event_loop_options())\n"
    )
    spec = jail.JailSpec(read_only=(str(Path(root) / "envfactory_mcp"),))
    confined = jail.run_jailed(spec, [sys.executable, "-c", code], timeout=60)
    assert confined.returncode == 0, confined.stderr[-500:]
    assert confined.stdout.strip() == b"{}"
    from envfactory_mcp.runtime.cli import event_loop_options

    assert event_loop_options() == {"use_uvloop": True}
