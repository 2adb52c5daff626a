"""Close to the floor (issue 32): a reset undoes only the rows an episode changed, and
``tools/call`` on stdio is answered by the runtime's lean path exactly as the SDK would
answer it. Real SQLite, the real runtime over real pipes."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.runtime import SessionDatabase
from envfactory_mcp.runtime.database import UNDO_KEYS, build_seed_image
from envfactory_mcp.runtime.server import Bundle, ServerOptions, create_server, lean_calls

SCHEMA = """
CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL) STRICT, WITHOUT ROWID;
CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  body TEXT
);
CREATE TABLE tags (label TEXT, note_id INTEGER REFERENCES notes (id));
"""
SEED = """
INSERT INTO users VALUES ('u1', 'Ann'), ('u2', 'Bob'), ('u3', 'Cy');
INSERT INTO notes (user_id, body) VALUES ('u1', 'a'), ('u2', 'b'), ('u2', 'c');
INSERT INTO tags VALUES ('x', 1), ('y', 1);
"""


@pytest.fixture(scope="module")
def image() -> bytes:
    return build_seed_image(SCHEMA, SEED)


def state(db: Any) -> list[list[tuple[Any, ...]]]:
    return [
        db.execute(sql).fetchall()
        for sql in (
            "SELECT * FROM users ORDER BY id",
            "SELECT rowid, * FROM notes ORDER BY id",
            "SELECT rowid, * FROM tags ORDER BY rowid",
            "SELECT * FROM sqlite_sequence ORDER BY name",
        )
    ]


def test_a_reset_undoes_only_the_changed_rows(image: bytes, monkeypatch: pytest.MonkeyPatch):
    seed = SessionDatabase(image)
    seed_state, seed_hash = state(seed.db), seed.hash()
    session = SessionDatabase(image)
    db = session.db
    reloads: list[bool] = []
    load = SessionDatabase._load_seed_image

    def counted_load(self: SessionDatabase) -> None:
        reloads.append(True)
        load(self)

    monkeypatch.setattr(SessionDatabase, "_load_seed_image", counted_load)
    for episode in range(3):
        db.execute("UPDATE users SET name = 'Ann ' || ? WHERE id = 'u1'", (episode,))
        db.execute("INSERT INTO notes (user_id, body) VALUES ('u3', 'new')")  # moves sqlite_sequence
        db.execute("DELETE FROM users WHERE id = 'u2'")  # cascades to u2's notes
        db.execute("INSERT INTO tags VALUES ('z', 1)")
        if episode == 1:
            assert session.hash() != seed_hash  # hashing drains the change logs first
        db.execute("UPDATE tags SET label = 'w' WHERE rowid = 2")
        session.reset()
        assert state(db) == seed_state, episode
        assert session.hash() == seed_hash
        assert session.db is db  # the same connection, undone in place
    assert reloads == []
    # A reset with nothing changed, and after many rows changed (the image is loaded again).
    session.reset()
    assert state(db) == seed_state and reloads == []
    db.executemany("INSERT INTO tags VALUES (?, NULL)", [(str(i),) for i in range(UNDO_KEYS + 1)])
    session.reset()
    assert reloads == [True]
    assert state(db) == seed_state and session.hash() == seed_hash


def test_changed_keys_name_every_row_written_since_the_seed_or_the_reset(image: bytes):
    session = SessionDatabase(image)
    assert session.changed_keys() == {}
    session.db.execute("UPDATE users SET name = 'Ann 2' WHERE id = 'u1'")
    session.db.execute("DELETE FROM users WHERE id = 'u2'")  # cascades to u2's notes
    session.db.execute("INSERT INTO tags VALUES ('z', 1)")
    changed = session.changed_keys()
    assert changed is not None
    assert changed["users"] == {("u1",), ("u2",)} and changed["notes"] == {(2,), (3,)}
    assert len(changed["tags"]) == 1 and set(changed) <= {"users", "notes", "tags", "sqlite_sequence"}
    session.reset()
    assert session.changed_keys() == {}
    session.reset({"users": [{"id": "u9", "name": "Zed"}], "notes": [], "tags": []})
    assert session.changed_keys() is None  # a given state: the keys are not known


def test_a_reset_to_a_given_state_and_back_still_reaches_the_seed(image: bytes):
    session = SessionDatabase(image)
    seed_state, seed_hash = state(session.db), session.hash()
    dumped = session.dump()
    dumped["users"] = [{"id": "u9", "name": "Zed"}]
    dumped["notes"], dumped["tags"] = [], []
    session.reset(dumped)
    assert session.db.execute("SELECT id FROM users").fetchall() == [("u9",)]
    session.reset()  # the changed rows are not known here: the image is loaded again
    assert state(session.db) == seed_state and session.hash() == seed_hash


# ------------------------------------------------------------------ the lean path of tools/call

PACKAGE = SERVERS_DIR / "retail" / "retail_mcp"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
ADDRESS = {
    "user_id": "user_000001",
    "address1": "1 Lean Way",
    "address2": "",
    "city": "Tucson",
    "state": "AZ",
    "country": "USA",
    "zip": "85712",
}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("control.reset", {}),
    ("get_user_details", {"user_id": "user_000001"}),
    ("get_user_details", {"user_id": "x"}),  # invalid arguments
    ("modify_user_address", ADDRESS),
    ("no_such_tool", {}),
    ("control.state_hash", {}),
    ("control.end_session", {}),
    ("control.state_hash", {}),  # refused: the key is gone
]


def serve(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every answer the retail package served by this runtime over stdio gives ``lines``
    (stdin stays open until each request is answered)."""
    with subprocess.Popen(
        [sys.executable, "-m", "envfactory_mcp.runtime", str(PACKAGE), "--control"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        answers = []
        try:
            for line in lines:
                proc.stdin.write(json.dumps(line).encode() + b"\n")
                proc.stdin.flush()
                if "id" in line:
                    answers.append(json.loads(proc.stdout.readline()))
        finally:
            proc.stdin.close()
            proc.wait(60)
    return answers


def exchange(era: str, extra_meta: dict[str, Any]) -> list[dict[str, Any]]:
    if era == "modern":
        meta = {**ENVELOPE, **extra_meta}
        opening = [
            {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta}},
            {"jsonrpc": "2.0", "id": 100, "method": "tools/list", "params": {"_meta": meta}},
            {"jsonrpc": "2.0", "id": 101, "method": "tools/list", "params": {"cursor": "c", "_meta": meta}},
        ]
    else:
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        }
        opening = [
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ]
        meta = dict(extra_meta)
    calls = [
        {
            "jsonrpc": "2.0",
            "id": i + 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": args, "_meta": {**meta, "envfactory/session": "k"}},
        }
        for i, (name, args) in enumerate(CALLS)
    ]
    answers = serve(opening + calls)
    return sorted((a for a in answers if era == "modern" or a["id"] != 0), key=lambda a: a["id"])


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_lean_answers_are_the_sdks(era: str):
    """The same requests (on the 2026-07-28 era discovery and the tool list too, the
    opening request included), answered by the lean path and (with a ``_meta`` key it
    leaves to the SDK) by the SDK's handlers: the same JSON, error for error."""
    lean = exchange(era, {})
    sdk = exchange(era, {"x-test/route": "sdk"})
    if era == "modern":
        listed, by_sdk = lean[:1] + lean[-2:], sdk[:1] + sdk[-2:]
        assert [a["id"] for a in listed] == [0, 100, 101] and listed == by_sdk
        assert lean[0]["result"]["supportedVersions"] and len(lean[-1]["result"]["tools"]) > 10
        lean, sdk = lean[1:-2], sdk[1:-2]
    assert len(lean) == len(CALLS) and lean == sdk
    by_tool = dict(zip((name for name, _ in CALLS), lean, strict=False))
    assert (
        by_tool["modify_user_address"]["result"]["structuredContent"]["address"]["address1"] == "1 Lean Way"
    )
    assert lean[2]["result"]["isError"] and "Invalid arguments" in lean[2]["result"]["content"][0]["text"]
    assert lean[-1]["result"]["isError"] and "Session refused" in lean[-1]["result"]["content"][0]["text"]
    assert ("resultType" in lean[0]["result"]) == (era == "modern")


def test_the_lean_path_answers_only_what_it_is_sure_of():
    server = create_server(Bundle.from_package(PACKAGE, jailed=False), ServerOptions(control=True))
    lean = lean_calls(server)
    assert lean is not None
    lean.serve_stdio()
    call = {"name": "get_user_details", "arguments": {"user_id": "user_000001"}}

    async def answers() -> list[bytes | None]:
        out = []
        for message in [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {**call, "_meta": ENVELOPE}},  # era
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {**call, "_meta": ENVELOPE}},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call},  # no envelope
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {**call, "_meta": ENVELOPE, "x": 1},
            },
            {"jsonrpc": "2.0", "id": True, "method": "tools/call", "params": {**call, "_meta": ENVELOPE}},
            {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": ENVELOPE}},
            [1, 2],
        ]:
            out.append(await lean.answer(message))
        return out

    got = anyio.run(answers)
    assert got[0] is not None and got[1] is not None  # the opening request too, on this era
    assert got[2:5] == [None] * 3 and got[5] is not None and got[6] is None
    assert json.loads(got[5])["result"]["tools"]
    answer = json.loads(got[1])
    assert answer["id"] == 2 and answer["result"]["structuredContent"]["user_id"] == "user_000001"
    assert json.loads(answer["result"]["content"][0]["text"]) == answer["result"]["structuredContent"]


def _sdk_loaded(pid: int) -> bool:
    """Whether process ``pid`` has the SDK's models loaded (pydantic's compiled core)."""
    with open(f"/proc/{pid}/maps") as maps:
        return "pydantic_core" in maps.read()


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/<pid>/maps")
def test_a_client_the_lean_path_serves_whole_never_loads_the_sdk_and_a_later_one_gets_the_sdks_era():
    """Discovery, the tool list and calls are served without the SDK; the first request
    left to the SDK loads it, and it serves the connection's era as it would have had it
    seen the opening request: ``initialize`` on a 2026-07-28 connection is refused."""

    def request(id_: int | str, method: str, params: dict[str, Any]) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode() + b"\n"

    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    with subprocess.Popen(
        [sys.executable, "-m", "envfactory_mcp.runtime", str(PACKAGE), "--control"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None

        def ask(line: bytes) -> dict[str, Any]:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(line)
            proc.stdin.flush()
            return dict(json.loads(proc.stdout.readline()))

        try:
            assert (
                "tools" in ask(request(1, "server/discover", {"_meta": ENVELOPE}))["result"]["capabilities"]
            )
            assert ask(request(2, "tools/list", {"_meta": ENVELOPE}))["result"]["tools"]
            call = {"name": "get_user_details", "arguments": {"user_id": "user_000001"}, "_meta": ENVELOPE}
            assert not ask(request(3, "tools/call", call))["result"]["isError"]
            assert not _sdk_loaded(proc.pid)
            listed = ask(request(4, "resources/list", {"_meta": ENVELOPE}))
            assert listed["id"] == 4 and listed["result"]["resources"]  # no answer to the replayed opening
            assert _sdk_loaded(proc.pid)
            refused = ask(request(5, "initialize", init))
            assert refused["id"] == 5 and "2026-07-28" in refused["error"]["message"]
            assert not ask(request(6, "tools/call", call))["result"]["isError"]
        finally:
            proc.stdin.close()
            assert proc.wait(60) == 0
            assert proc.stdout.read() == b""


def test_the_lean_listings_and_versions_are_the_sdks():
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from envfactory_mcp.runtime.calls import MODERN_PROTOCOL_VERSIONS as WRITTEN_OUT

    assert tuple(MODERN_PROTOCOL_VERSIONS) == WRITTEN_OUT
    bundle = Bundle.from_package(PACKAGE, jailed=False)
    server = create_server(bundle, ServerOptions(control=True))
    lean = lean_calls(server)
    assert lean is not None and lean._calls is not None
    assert lean._calls.server_info() == server.server_info_stamp
