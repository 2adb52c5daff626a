"""The lean stdio path before any event loop (issue 32): a server whose calls never wait
serves discovery, the tool list, tool calls and control operations with no event loop
(``stdio.serve_lean_now``), so a client it serves whole never loads ``asyncio``; the
first line left to the SDK hands the connection, what was read of it and its sessions
over to the event loop, and every line is still answered in order."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from paths import SERVERS_DIR

PACKAGE = SERVERS_DIR / "retail" / "retail_mcp"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
KEY = {**ENVELOPE, "envfactory/session": "episode-1"}

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/<pid>/maps")


def request(id_: int | str, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode() + b"\n"


def call(id_: int, name: str, arguments: dict[str, Any], meta: dict[str, Any] = KEY) -> bytes:
    return request(id_, "tools/call", {"name": name, "arguments": arguments, "_meta": meta})


def _loaded(pid: int, library: str) -> bool:
    with open(f"/proc/{pid}/maps") as maps:
        return library in maps.read()


def _server() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "envfactory_mcp.runtime",
            str(PACKAGE),
            "--control",
            "--max-request-bytes",
            "4096",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _answers(proc: subprocess.Popen[bytes], count: int) -> list[dict[str, Any]]:
    assert proc.stdout is not None
    return [json.loads(proc.stdout.readline()) for _ in range(count)]


def _first_user() -> str:
    return "user_000001"


ADDRESS = {
    "address1": "1 Loop Free Way",
    "address2": "",
    "city": "Austin",
    "country": "USA",
    "state": "TX",
    "zip": "78701",
}


def test_a_client_served_whole_by_the_lean_path_never_loads_asyncio_and_its_session_survives_the_handover():
    with _server() as proc:
        assert proc.stdin is not None and proc.stdout is not None

        def ask(line: bytes) -> dict[str, Any]:
            assert proc.stdin is not None
            proc.stdin.write(line)
            proc.stdin.flush()
            return _answers(proc, 1)[0]

        try:
            assert ask(request(1, "server/discover", {"_meta": ENVELOPE}))["result"]["capabilities"]["tools"]
            assert ask(request(2, "tools/list", {"_meta": ENVELOPE}))["result"]["tools"]
            reset = ask(call(3, "control.reset", {}))["result"]
            assert not reset["isError"]
            seed_hash = reset["structuredContent"]["state_hash"]
            written = ask(call(4, "modify_user_address", {"user_id": _first_user(), **ADDRESS}))["result"]
            assert not written["isError"], written
            moved = ask(call(5, "control.state_hash", {}))["result"]["structuredContent"]["state_hash"]
            assert moved != seed_hash
            # No event loop ran: neither asyncio's C half nor the SDK is in the process.
            assert not _loaded(proc.pid, "_asyncio") and not _loaded(proc.pid, "pydantic_core")
            listed = ask(request(6, "resources/list", {"_meta": ENVELOPE}))
            assert listed["id"] == 6 and "resources" in listed["result"]
            assert _loaded(proc.pid, "_asyncio") and _loaded(proc.pid, "pydantic_core")
            # The same owner on the event loop: the key opened before is open, its write kept.
            after = ask(call(7, "control.state_hash", {}))["result"]
            assert not after["isError"] and after["structuredContent"]["state_hash"] == moved
            read = ask(call(8, "get_user_details", {"user_id": _first_user()}))["result"]
            assert read["structuredContent"]["address"]["address1"] == "1 Loop Free Way"
        finally:
            proc.stdin.close()
            assert proc.wait(60) == 0
            assert proc.stdout.read() == b""


def test_lines_written_together_across_the_handover_are_all_answered():
    """One write holding lean calls, a line for the SDK, an over-long line and more
    calls: what the loop-free path read ahead reaches the event loop's reader whole
    (the SDK answers on its own task, so its answers may overtake or trail the lean
    path's, as before)."""
    read = call(0, "get_user_details", {"user_id": _first_user()}, ENVELOPE)
    burst = [
        call(1, "get_user_details", {"user_id": _first_user()}, ENVELOPE),
        call(2, "get_user_details", {"user_id": "nobody"}, ENVELOPE),
        request(3, "resources/list", {"_meta": ENVELOPE}),
        call(4, "get_user_details", {"user_id": _first_user()}, ENVELOPE),
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"x":"' + b"y" * 8000 + b'"}}\n',
        call(6, "get_user_details", {"user_id": _first_user()}, ENVELOPE),
        request(7, "ping", {"_meta": ENVELOPE}),
        call(8, "get_user_details", {"user_id": _first_user()}, ENVELOPE),
    ]
    with _server() as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(read)
            proc.stdin.flush()
            (first,) = _answers(proc, 1)
            proc.stdin.write(b"".join(burst))
            proc.stdin.flush()
            answers = _answers(proc, len(burst))
        finally:
            proc.stdin.close()
            assert proc.wait(60) == 0
    got = sorted(answers, key=lambda a: a["id"])
    assert [a["id"] for a in got] == list(range(1, 9))
    lean_ids = [a["id"] for a in answers if a["id"] not in (3, 7)]
    assert lean_ids == [1, 2, 4, 5, 6, 8]  # the lean path's own answers in their order
    for answer in (got[0], got[3], got[5], got[7]):
        assert answer["result"] == first["result"]
    assert got[1]["result"]["isError"]
    assert "resources" in got[2]["result"]
    assert "at most 4096 bytes" in got[4]["error"]["message"]
    assert got[6]["id"] == 7 and ("result" in got[6] or "error" in got[6]), got[6]


def test_an_over_long_first_line_is_refused_with_its_id_before_any_event_loop_serves():
    with _server() as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(
                b'{"jsonrpc":"2.0","id":"long","method":"x","params":{"p":"' + b"z" * 9000 + b'"}}\n'
            )
            proc.stdin.write(request(1, "server/discover", {"_meta": ENVELOPE}))
            proc.stdin.flush()
            refused, found = _answers(proc, 2)
        finally:
            proc.stdin.close()
            assert proc.wait(60) == 0
    assert refused["id"] == "long" and "at most 4096 bytes" in refused["error"]["message"]
    assert found["id"] == 1 and found["result"]["supportedVersions"]
